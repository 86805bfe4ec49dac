import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64ToHex, keyText } from '../../src/ui/keys.js';
import { NO_DATA } from '../../src/ui/heatmap/paint.js';
import { FIXTURE, fixtureHeatmap, fixtureTables } from '../../src/ui/testing/fixtures.js';
import {
  argmax,
  brightness,
  brightnessFollowsValues,
  drawnSource,
  hoverCell,
  launchChromium,
  newPage,
  readCells,
  screenshot,
} from './browser.js';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';

/**
 * The built web UI in headless Chromium against fixture JSON (a sequential
 * diagonal, src/ui/testing/fixtures.ts): every page renders what the API
 * says, the heatmap's canvas is drawn from the values, the tooltip, the
 * diagnostics outline and drag-to-zoom work. Needs dist/ui (npm run build).
 */

let server: FixtureServer;
let browser: Browser;
let page: Page;

const { project, instance, table } = FIXTURE;
const base = `#/p/${project}/i/${instance}`;
const h = fixtureHeatmap('write_ops');
const fixedWindow = `from=${encodeURIComponent(h.from)}&to=${encodeURIComponent(h.to)}`;

beforeAll(async () => {
  server = await startFixtureServer();
  browser = await launchChromium();
  page = await newPage(browser);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('the web UI on fixture data', () => {
  it('lists projects and their instances, with the server facts on the first page', async () => {
    await page.goto(server.url);
    await page.getByRole('link', { name: instance, exact: true }).waitFor();
    expect(await page.locator('h2').first().textContent()).toBe(project);
    expect(await page.locator('#server-facts').isVisible()).toBe(true);
    expect(await page.locator('#server-facts').textContent()).toContain('fixture server');
  });

  it("shows an instance's tables with size, rows and tablets, unknown where a server does not say", async () => {
    await page.goto(`${server.url}${base}`);
    const rows = page.locator('#tables tbody tr');
    await rows.first().waitFor();
    const cells = await rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    const [events, legacy] = fixtureTables();
    expect(cells[0]!.slice(0, 4)).toEqual([events!.tableId, '19.6 MiB', '120,000~', '3']);
    expect(cells[1]!.slice(0, 4)).toEqual([legacy!.tableId, '—', '—', '—']);
    expect(await page.locator('#server-facts').isVisible()).toBe(false);
    expect(await page.textContent('main')).toContain('dev-c1');
  });

  it('shows a table: families with GC policies, tablets with nodes and load, its hot tablets', async () => {
    await page.goto(`${server.url}${base}/t/${table}`);
    await page.locator('#tablets tbody tr').first().waitFor();
    expect(await page.locator('#families').textContent()).toContain('(versions() > 2 || age() > 7d)');
    expect(await page.locator('#tablets tbody tr').count()).toBe(3);
    expect(await page.locator('#tablets').textContent()).toContain('dev-c1/1');
    expect(await page.locator('table.hot tbody tr').count()).toBe(1);
  });

  it('draws the heatmap from the values: brightness follows value, the maximum brightest, gaps in the no-data colour', async () => {
    await page.goto(`${server.url}${base}/t/${table}/heatmap?metric=write_ops&${fixedWindow}`);
    const source = await drawnSource(page);
    expect(source).toContain('metric=write_ops');
    const rgb = await readCells(page, h.times.length, h.buckets.length);
    const max = argmax(h.values);
    const brightest = Math.max(...rgb.flat().map(brightness));
    expect(brightness(rgb[max.column]![max.row]!)).toBe(brightest);
    expect(brightnessFollowsValues(h.values, rgb)).toEqual({ ok: true });
    expect(rgb[0]![0]).toEqual([...NO_DATA]);
    const zero = h.values[10]!.findIndex((v) => v === 0);
    expect(rgb[10]![zero]).toEqual([0, 0, 0]);
  });

  it('shows the hovered bucket: its key range printable and hex, the value with its unit', async () => {
    const max = argmax(h.values);
    await hoverCell(page, h.times.length, h.buckets.length, max.column, max.row);
    const tip = page.locator('.tooltip');
    await tip.waitFor();
    const bucket = h.buckets[max.row]!;
    expect(await tip.locator('.start-text').textContent()).toBe(keyText(bucket.startText));
    expect(await tip.locator('.start-hex').textContent()).toBe(base64ToHex(bucket.start));
    expect(await tip.locator('.end-text').textContent()).toBe(keyText(bucket.endText, true));
    expect(await tip.locator('.value').textContent()).toBe(`${max.value.toLocaleString('en-US')} ops/s`);
    await screenshot(page, 'heatmap-fixture.png');
  });

  it('redraws with the log scale and the brightness slider (dim cells brighter), and asks for the chosen metric', async () => {
    const dim = { column: 10, row: h.values[10]!.findIndex((v) => v !== null && v > 20 && v < 100) };
    expect(dim.row).toBeGreaterThan(0);
    const cellBrightness = async () => brightness((await readCells(page, h.times.length, h.buckets.length))[dim.column]![dim.row]!);
    const linear = await cellBrightness();
    // Each control re-renders and redraws: poll the canvas until it shows the change.
    await page.selectOption('#scale', 'log');
    await expect.poll(cellBrightness).toBeGreaterThan(linear);
    const log = await cellBrightness();
    await page.locator('#brightness').fill('2');
    await expect.poll(cellBrightness).toBeGreaterThan(log);
    await page.selectOption('#scale', 'linear');
    await page.locator('#brightness').fill('0');
    await expect.poll(cellBrightness).toBe(linear);

    await page.selectOption('#metric', 'read_bytes');
    await page.waitForFunction(() =>
      (document.querySelector('canvas.heatmap') as HTMLElement).dataset['source']!.includes('metric=read_bytes'),
    );
    expect(await page.evaluate(() => location.hash)).toContain('metric=read_bytes');
    await page.selectOption('#metric', 'write_ops');
    await page.waitForFunction(() =>
      (document.querySelector('canvas.heatmap') as HTMLElement).dataset['source']!.includes('metric=write_ops'),
    );
  });

  it('lists the diagnostics; clicking one outlines its key range and window', async () => {
    const sequential = page.locator('li.diagnostic[data-kind="sequential_keys"]');
    await sequential.waitFor();
    expect(await sequential.textContent()).toContain('Sequential keys');
    await sequential.click();
    const outline = page.locator('.overlay .outline');
    await outline.waitFor();
    const [box, canvas] = await Promise.all([outline.boundingBox(), page.locator('canvas.heatmap').boundingBox()]);
    // The diagnostic covers every bucket from column 6 on: the outline spans the key axis and starts 6/90 across.
    expect(box!.height).toBeCloseTo(canvas!.height, 0);
    expect(box!.x - canvas!.x).toBeCloseTo((6 / h.times.length) * canvas!.width, 0);
  });

  it('zooms into a dragged key range × time window, and back out through the breadcrumb', async () => {
    const canvas = (await page.locator('canvas.heatmap').boundingBox())!;
    const cellX = (c: number) => canvas.x + ((c + 0.5) * canvas.width) / h.times.length;
    const cellY = (r: number) => canvas.y + ((r + 0.5) * canvas.height) / h.buckets.length;
    const before = server.requests.length;
    await page.mouse.move(cellX(20), cellY(30));
    await page.mouse.down();
    await page.mouse.move(cellX(40), cellY(50), { steps: 5 });
    await page.mouse.up();
    await page.waitForFunction(() => location.hash.includes('start='));
    const q = new URLSearchParams(await page.evaluate(() => location.hash.split('?')[1] ?? ''));
    expect(q.get('start')).toBe(h.buckets[30]!.start);
    expect(q.get('end')).toBe(h.buckets[50]!.end);
    expect(q.get('from')).toBe(h.times[20]);
    expect(q.get('to')).toBe(h.times[41]);
    await page.waitForFunction(
      (n) => (document.querySelector('canvas.heatmap') as HTMLElement).dataset['source']!.includes('start='),
      before,
    );
    const asked = server.requests.slice(before).find((r) => r.includes('/heatmap?'))!;
    expect(new URL(asked, server.url).searchParams.get('start')).toBe(h.buckets[30]!.start);
    const crumbs = page.locator('.zoom-trail a');
    expect(await crumbs.count()).toBe(1);
    await crumbs.first().click();
    await page.waitForFunction(() => !location.hash.includes('start='));
    expect(await page.evaluate(() => location.hash)).toBe(`${base}/t/${table}/heatmap?metric=write_ops&${fixedWindow}`);
    // Back at the fixed window: the trail offers the whole table's live view.
    expect(await page.locator('.zoom-trail .current').textContent()).toMatch(/^all keys, \d\d:\d\d:\d\d – \d\d:\d\d:\d\d$/);
    expect(await page.locator('.zoom-trail a').textContent()).toBe('all keys, last 15 min');
  });

  it('refreshes a live view (one that ends now) every 5 s, asking up to the current time', async () => {
    await page.goto(`${server.url}${base}/t/${table}/heatmap?metric=ops&window=300`);
    // A hash change in the same document: wait for this view's first drawing.
    await page.waitForFunction(() => (document.querySelector('canvas.heatmap') as HTMLElement).dataset['source']?.includes('metric=ops'));
    const first = await drawnSource(page);
    const asked = () => server.requests.filter((r) => r.includes('/heatmap?metric=ops')).length;
    const before = asked();
    const started = Date.now();
    await page.waitForFunction((prev) => (document.querySelector('canvas.heatmap') as HTMLElement).dataset['source'] !== prev, first, {
      timeout: 8_000,
    });
    expect(Date.now() - started).toBeGreaterThan(3_000);
    expect(asked()).toBe(before + 1);
    const to = (path: string) => Date.parse(new URL(path, server.url).searchParams.get('to')!);
    const next = await drawnSource(page);
    expect(to(next) - to(first)).toBeGreaterThanOrEqual(4_000);
    expect(Math.abs(to(next) - Date.now())).toBeLessThan(3_000);
    expect(await page.locator('.live.on').textContent()).toContain('live');
  });
});
