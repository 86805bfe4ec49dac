import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdviceJson, SimulationJson } from '../../src/insight/advisor/types.js';
import { type RunningServer, startServer } from '../../src/index.js';
import { INSTANCE, PROJECT, nodeClient } from '../harness/node-client.js';
import { uniqueTableId } from '../harness/names.js';
import { expectNodeBars, launchChromium, screenshot } from './browser.js';

/**
 * The schema advisor end to end: a real server, a sensor table written
 * through the official Node client with timestamp-leading keys
 * (`2026-11-27T10:00:00.000Z#sensor07`, the anti-pattern the schema design
 * guide opens with), then the Advisor page in headless Chromium. The page
 * must show the `timestamp-leading-key` finding with the server's suggestion,
 * and its What if? link must draw the per-node load before and after with the
 * simulation's own figures (the JSON the page was sent, read off the wire).
 * Screenshots: test-output/advisor.png and what-if.png, 1200 px wide (the
 * README's docs/advisor.png is a copy of the first).
 */

const ROWS = 3_000;
const ROWS_PER_CALL = 20;
/** Between calls, as readings arrive: the recording samples the order of writes (a batch's first key per 50 ms at most). */
const PAUSE_MILLIS = 25;
const SENSORS = 24;

let server: RunningServer;
let browser: Browser;
let page: Page;
let tableId: string;
let base: string;

beforeAll(async () => {
  server = await startServer({ httpPort: 0, config: { insightBucketMillis: 500 } });
  base = `http://localhost:${server.httpPort}`;
  const bigtable = nodeClient({ address: server.address });
  tableId = uniqueTableId('sensor-readings');
  const [table] = await bigtable.instance(INSTANCE).createTable(tableId, { families: ['reading'] });
  // A reading per sensor every second, written as they come: the key leads with the time, so writes only append.
  const start = Date.UTC(2026, 10, 27, 10, 0, 0);
  for (let i = 0; i < ROWS; i += ROWS_PER_CALL) {
    const rows = Array.from({ length: ROWS_PER_CALL }, (_, j) => {
      const n = i + j;
      const at = new Date(start + Math.floor(n / SENSORS) * 1000).toISOString();
      return { key: `${at}#sensor${String(n % SENSORS).padStart(2, '0')}`, data: { reading: { celsius: String(18 + (n % 7)) } } };
    });
    await table.insert(rows);
    await new Promise((r) => setTimeout(r, PAUSE_MILLIS));
  }
  // Let the recording's last column close.
  await new Promise((r) => setTimeout(r, 1_500));
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1200, height: 800 }, deviceScaleFactor: 1 });
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** A suggestion or message as the page's text shows it: backquotes dropped, one space around each arrow. */
const asShown = (s: string) =>
  s
    .replace(/`/g, '')
    .replace(/\s*(→|->)\s*/g, ' → ')
    .replace(/\s+/g, ' ')
    .trim();

describe('the Advisor page after a timestamp-leading-key workload', () => {
  it('shows the finding with its suggestion, and its what-if draws the load before and after from the simulation', async () => {
    const instancePage = `${base}/#/p/${PROJECT}/i/${INSTANCE}`;
    await page.goto(instancePage);
    const adviceSent = page.waitForResponse((r) => new URL(r.url()).pathname.endsWith('/advice'));
    await page.locator('#advisor-link').click();
    const advice = (await (await adviceSent).json()) as AdviceJson;
    expect(advice.tables).toContain(tableId);
    const finding = advice.findings.find((f) => f.rule === 'timestamp-leading-key' && f.table === tableId);
    expect(finding, JSON.stringify(advice.findings.map((f) => [f.rule, f.table]))).toBeDefined();
    expect(finding!.simulate).toBeDefined();

    const card = page.locator(`li.finding[data-rule="timestamp-leading-key"][data-table="${tableId}"]`);
    await card.waitFor({ timeout: 15_000 });
    expect(await card.locator('.rule').textContent()).toBe('timestamp-leading-key');
    expect(await card.locator('a.table-link').textContent()).toBe(tableId);
    expect(
      await page.locator(`.severity-group[data-severity="${finding!.severity}"] li.finding[data-rule="timestamp-leading-key"]`).count(),
    ).toBe(1);
    const suggestion = (await card.locator('.suggestion').textContent())!.replace(/^Suggestion\s*/, '');
    expect(asShown(suggestion)).toBe(asShown(finding!.suggestion));
    // The keys before → after in monospace: the backquoted parts of the suggestion, in order.
    const quoted = [...finding!.suggestion.matchAll(/`([^`]*)`/g)].map((m) => m[1]);
    expect(quoted.length).toBeGreaterThanOrEqual(2);
    expect(await card.locator('.suggestion code.key').allTextContents()).toEqual(quoted);
    expect(quoted[0]).toMatch(/^2026-11-27T10:\d\d:\d\d\.000Z#sensor\d\d$/);
    await screenshot(page, 'advisor.png');

    const simSent = page.waitForResponse((r) => new URL(r.url()).pathname.endsWith(`/tables/${tableId}/simulate`));
    await card.locator('a.what-if').click();
    const simResponse = await simSent;
    expect(new URL(simResponse.url()).searchParams.get('transform')).toBe(finding!.simulate);
    const sim = (await simResponse.json()) as SimulationJson;
    await page.locator('#verdict').waitFor({ timeout: 15_000 });
    expect(await page.locator('#transform').inputValue()).toBe(finding!.simulate);
    expect(await page.locator('#verdict').textContent()).toBe(sim.verdict);
    await expectNodeBars(page, sim);
    expect(await page.locator('#examples tbody td.key').allTextContents()).toEqual(sim.examples.flatMap((x) => [x.before, x.after]));
    // The fix spreads the appends: the busiest node carries less after than before.
    expect(sim.after.maxNodeShare).toBeLessThan(sim.before.maxNodeShare);
    await screenshot(page, 'what-if.png');
  }, 90_000);

  it('shows a transform the server rejects with its message under the input', async () => {
    await page.goto(`${base}/#/p/${PROJECT}/i/${INSTANCE}/t/${tableId}/simulate?transform=salt%3A4`);
    await page.locator('#verdict').waitFor({ timeout: 15_000 });
    // The response to this transform (not a late answer for the page's first one).
    const rejected = page.waitForResponse((r) => {
      const url = new URL(r.url());
      return url.pathname.endsWith('/simulate') && url.searchParams.get('transform') === 'shuffle:2';
    });
    await page.locator('#transform').fill('shuffle:2');
    await page.locator('#what-if button[type="submit"]').click();
    const response = await rejected;
    expect(response.status()).toBe(400);
    const { error } = (await response.json()) as { error: { message: string } };
    await page.locator('#transform-error').waitFor();
    expect(await page.locator('#transform-error').textContent()).toBe(error.message);
    expect(await page.locator('#verdict').count()).toBe(0);
  });
});
