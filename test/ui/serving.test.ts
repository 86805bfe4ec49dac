import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/index.js';
import { INSTANCE, PROJECT, nodeClient } from '../harness/node-client.js';
import { launchChromium, newPage } from './browser.js';

/**
 * The real HTTP server serves the built web UI (dist/ui): its shell at / with
 * the server's facts for curl users, the files it references under /ui/,
 * and the JSON API beside it.
 */

let server: RunningServer;
let base: string;

beforeAll(async () => {
  server = await startServer({ httpPort: 0 });
  base = `http://localhost:${server.httpPort}`;
});

afterAll(async () => {
  await server?.stop();
});

describe('the web UI on the HTTP port', () => {
  it('serves the shell at / with the server facts, and every asset it references', async () => {
    const res = await fetch(`${base}/`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<div id="app"></div>');
    expect(html).toContain(`export BIGTABLE_EMULATOR_HOST=${server.address}`);
    const refs = [...html.matchAll(/(?:src|href)="(\/ui\/[^"]+)"/g)].map((m) => m[1]!);
    expect(refs.some((r) => r.endsWith('.js'))).toBe(true);
    expect(refs.some((r) => r.endsWith('.css'))).toBe(true);
    for (const ref of refs) {
      const asset = await fetch(`${base}${ref}`);
      expect(asset.status, ref).toBe(200);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(asset.headers.get('content-type')).toMatch(ref.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
      // Offline: the bundle names no external URL to load.
      expect(await asset.text()).not.toMatch(/(?:src=|href=|url\(|import\(|from\s*)["']?https?:\/\//);
    }
  });

  it('answers 404 for other names under /ui/ and keeps the JSON API', async () => {
    expect((await fetch(`${base}/ui/assets/nope-12345678.js`)).status).toBe(404);
    const api = await fetch(`${base}/api/v1/projects/p/instances`);
    expect(api.status).toBe(200);
    expect(await api.json()).toEqual({ instances: [] });
  });

  it('walks from a project to an instance, its tables and a table in the browser', async () => {
    const [table] = await nodeClient({ address: server.address })
      .instance(INSTANCE)
      .createTable('orders', { families: ['cf'] });
    await table.insert([{ key: 'o#1', data: { cf: { q: 'x' } } }]);
    const browser = await launchChromium();
    try {
      const page = await newPage(browser);
      await page.goto(`${base}/`);
      await page.fill('input[name="project"]', PROJECT);
      await page.click('button[type="submit"]');
      // A server with GET /api/v1/projects lists the instance above the form's answer too: either link will do.
      await page.getByRole('link', { name: INSTANCE, exact: true }).first().click();
      const row = page.locator('#tables tbody tr').filter({ hasText: 'orders' });
      await row.waitFor();
      expect(await row.locator('td').nth(4).textContent()).toBe('cf');
      await row.getByRole('link', { name: 'orders' }).click();
      await page.locator('#tablets tbody tr').first().waitFor();
      expect(await page.locator('#tablets tbody tr').first().textContent()).toContain('(start of table) … (end of table)');
      expect(await page.locator('#families').textContent()).toContain('cf');
    } finally {
      await browser.close();
    }
  });
});
