import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiagnosticsJson, HeatmapJson } from '../../src/insight/api-types.js';
import { type RunningServer, startServer } from '../../src/index.js';
import { pixelOf } from '../../src/ui/heatmap/paint.js';
import { base64ToHex, keyText } from '../../src/ui/keys.js';
import { INSTANCE, PROJECT, nodeClient } from '../harness/node-client.js';
import { uniqueTableId } from '../harness/names.js';
import { argmax, brightness, drawnSource, hoverCell, launchChromium, newPage, readCells, screenshot } from './browser.js';

/**
 * The Key Visualizer end to end: a real server recording in 500 ms columns,
 * ~6 s of sequential writes (`ts#<zero-padded counter>`) through the official
 * Node client, then the page in headless Chromium. The canvas must be drawn
 * from the API's data (the test asks the same heatmap URL the page drew: the
 * brightest cell is the API's maximum), the diagnostics panel must list the
 * diagonal, and hovering a bucket must show its key range. The screenshot
 * lands in test-output/heatmap.png.
 */

const WRITE_MILLIS = 6_000;
const ROWS_PER_CALL = 10;

let server: RunningServer;
let browser: Browser;
let page: Page;
let tableId: string;
let windowFrom: string;
let windowTo: string;
let written = 0;

beforeAll(async () => {
  server = await startServer({ httpPort: 0, config: { insightBucketMillis: 500 } });
  const bigtable = nodeClient({ address: server.address });
  tableId = uniqueTableId('kv-sequential');
  const [table] = await bigtable.instance(INSTANCE).createTable(tableId, { families: ['cf'] });
  const started = Date.now();
  while (Date.now() - started < WRITE_MILLIS) {
    const rows = Array.from({ length: ROWS_PER_CALL }, (_, i) => ({
      key: `ts#${String(written + i).padStart(10, '0')}`,
      data: { cf: { v: `event ${written + i}` } },
    }));
    await table.insert(rows);
    written += rows.length;
    await new Promise((r) => setTimeout(r, 25));
  }
  windowFrom = new Date(started - 1_000).toISOString();
  windowTo = new Date(Date.now() + 1_000).toISOString();
  // Let the last column close and the table's last boundary set be made (the heatmap is re-binned onto the newest set,
  // so until then the page and the test could see different buckets): the same answer twice, 1 s apart.
  const path = `/api/v1/projects/${PROJECT}/instances/${INSTANCE}/tables/${tableId}/heatmap?${new URLSearchParams({ metric: 'write_ops', from: windowFrom, to: windowTo }).toString()}`;
  let last = '';
  for (let tries = 0; tries < 20; tries++) {
    await new Promise((r) => setTimeout(r, 1_000));
    const now = await (await fetch(`http://localhost:${server.httpPort}${path}`)).text();
    if (now === last) break;
    last = now;
  }
  browser = await launchChromium();
  page = await newPage(browser);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function api<T>(path: string): Promise<T> {
  const res = await fetch(`http://localhost:${server.httpPort}${path}`);
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  return (await res.json()) as T;
}

describe('the heatmap page after a sequential-write workload', () => {
  it('draws the API data, lists the sequential-keys diagnostic, and shows a bucket on hover', async () => {
    expect(written).toBeGreaterThan(100);
    const q = new URLSearchParams({ metric: 'write_ops', from: windowFrom, to: windowTo });
    await page.goto(`http://localhost:${server.httpPort}/#/p/${PROJECT}/i/${INSTANCE}/t/${tableId}/heatmap?${q.toString()}`);

    // The same heatmap URL the page drew, asked by the test.
    const source = await drawnSource(page);
    expect(source).toContain(`/tables/${tableId}/heatmap?`);
    const heatmap = await api<HeatmapJson>(source);
    const columns = heatmap.times.length;
    const rows = heatmap.buckets.length;
    expect(columns).toBeGreaterThanOrEqual(6);
    const max = argmax(heatmap.values);
    expect(max.value).toBeGreaterThan(0);

    const rgb = await readCells(page, columns, rows);
    const brightest = Math.max(...rgb.flat().map(brightness));
    expect(brightness(rgb[max.column]![max.row]!)).toBe(brightest);
    // Nothing drawn bright where the API has nothing: columns the API holds no writes in stay dark.
    heatmap.values.forEach((col, c) => {
      if (col.every((v) => v === null || v === 0)) expect(Math.max(...rgb[c]!.map(brightness)), `column ${c}`).toBeLessThan(brightest / 4);
    });

    const diagnostics = await api<DiagnosticsJson>(
      `/api/v1/projects/${PROJECT}/instances/${INSTANCE}/tables/${tableId}/diagnostics?${new URLSearchParams({ from: windowFrom, to: windowTo }).toString()}`,
    );
    expect(diagnostics.diagnostics.map((d) => d.kind)).toContain('sequential_keys');
    const sequential = page.locator('li.diagnostic[data-kind="sequential_keys"]');
    await sequential.waitFor({ timeout: 10_000 });
    expect(await sequential.textContent()).toMatch(/sequential/i);

    // Hover the brightest cell away from the canvas's top and bottom pixel rows (the edge buckets), where a mouse
    // position rounds onto the neighbouring element as easily as onto the canvas.
    const pixelRows = Math.min(rows, await page.evaluate(() => (document.querySelector('canvas.heatmap') as HTMLCanvasElement).height));
    const inner = argmax(heatmap.values.map((col) => col.map((v, r) => (pixelOf(r, rows, pixelRows) % (pixelRows - 1) === 0 ? null : v))));
    expect(inner.value).toBeGreaterThan(0);
    await hoverCell(page, columns, rows, inner.column, inner.row);
    const tip = page.locator('.tooltip');
    await tip.waitFor({ timeout: 10_000 });
    const bucket = heatmap.buckets[inner.row]!;
    expect(await tip.locator('.start-text').textContent()).toBe(keyText(bucket.startText));
    // Keys of 13 bytes: the tooltip's hex is whole (it shortens keys past 48 bytes).
    expect(await tip.locator('.start-hex').textContent()).toBe(base64ToHex(bucket.start));
    await screenshot(page, 'heatmap.png');
  }, 90_000);
});
