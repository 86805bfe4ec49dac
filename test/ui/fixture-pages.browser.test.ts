import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64ToHex, keyText } from '../../src/ui/keys.js';
import { NO_DATA } from '../../src/ui/heatmap/paint.js';
import { FIXTURE, fixtureFindings, fixtureHeatmap, fixtureSimulation, fixtureTables } from '../../src/ui/testing/fixtures.js';
import type { SimulationJson } from '../../src/insight/advisor/types.js';
import {
  argmax,
  brightness,
  brightnessFollowsValues,
  drawnSource,
  expectNodeBars,
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

  it('shows a table: families with GC policies, authorized views, tablets with nodes and load, its hot tablets', async () => {
    await page.goto(`${server.url}${base}/t/${table}`);
    await page.locator('#tablets tbody tr').first().waitFor();
    expect(await page.locator('#families').textContent()).toContain('(versions() > 2 || age() > 7d)');
    const views = await page.locator('#authorized-views tbody tr td').allTextContents();
    expect(views).toEqual(['tenant-a', 'a#*', 'cf: name', 'yes']);
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

describe('the schema advisor and the what-if page on fixture data', () => {
  it('groups the findings by severity with counts; each shows its rule, table, evidence keys and suggestion', async () => {
    await page.goto(`${server.url}${base}`);
    await page.locator('#advisor-link').click();
    await page.locator('li.finding').first().waitFor();
    expect(await page.evaluate(() => location.hash)).toBe(`${base}/advice`);
    expect(await page.locator('#advice-summary').textContent()).toBe('2 tables examined: 1 danger, 1 warning, 1 info');
    const groups = await page
      .locator('.severity-group')
      .evaluateAll((els) => els.map((el) => [el.getAttribute('data-severity'), el.querySelector('h2')!.textContent]));
    expect(groups).toEqual([
      ['danger', 'Danger 1'],
      ['warning', 'Warning 1'],
      ['info', 'Info 1'],
    ]);
    const [hot, sequential] = fixtureFindings();
    const card = page.locator(`li.finding[data-rule="${sequential!.rule}"]`);
    expect(await card.locator('.rule').textContent()).toBe('sequential-key');
    expect(await card.locator('a.table-link').getAttribute('href')).toBe(`${base}/t/${table}`);
    expect(await card.locator('.evidence dd code.key').allTextContents()).toEqual(sequential!.evidence['sampleKeys']);
    expect(await card.locator('.evidence').textContent()).toContain('97.0%');
    // The suggestion's keys in monospace, the arrow between them.
    expect(await card.locator('.suggestion code.key').allTextContents()).toEqual(['user#1#ts#00040000', 'user#1#ts#00004000']);
    expect(await card.locator('.suggestion .arrow').count()).toBe(1);
    expect(await page.locator(`li.finding[data-rule="low-cardinality-prefix"] a.what-if`).count()).toBe(0);
    const whatIf = page.locator(`li.finding[data-rule="${hot!.rule}"] a.what-if`);
    expect(await whatIf.getAttribute('href')).toBe(`${base}/t/${table}/simulate?transform=salt%3A8%402`);
    await screenshot(page, 'advisor-fixture.png');
  });

  it('filters by table, and says what it examined when there is nothing to report', async () => {
    await page.selectOption('#advice-table', 'legacy');
    await page.waitForFunction(() => location.hash.endsWith('/advice?table=legacy'));
    await page.locator('#advice-summary.clean').waitFor();
    expect(await page.locator('#advice-summary').textContent()).toBe('✓ 1 table examined, no findings (legacy)');
    expect(await page.locator('li.finding').count()).toBe(0);
    await page.goto(`${server.url}${base}/advice?table=nope`);
    await page.locator('.advice-page p.error').waitFor();
    expect(await page.locator('.advice-page p.error').textContent()).toContain('No such path');
  });

  it("links to the advice from the table's page with a count badge, and from each heatmap diagnostic", async () => {
    await page.goto(`${server.url}${base}/t/${table}`);
    await page.locator('#advice-count').waitFor();
    expect(await page.locator('#advice-count').textContent()).toBe('3');
    expect(await page.locator('#advice-count').getAttribute('class')).toContain('danger');
    expect(await page.locator('#advice-link').getAttribute('href')).toBe(`${base}/advice?table=${table}`);
    await page.goto(`${server.url}${base}/t/${table}/heatmap?metric=write_ops&${fixedWindow}`);
    const link = page.locator('li.diagnostic[data-kind="sequential_keys"] a.advice-link');
    await link.waitFor();
    await link.click();
    await page.waitForFunction(() => location.hash.includes('/advice?'));
    expect(await page.evaluate(() => location.hash)).toBe(`${base}/advice?table=${table}`);
    await page.locator('li.finding').first().waitFor();
    expect(await page.locator('li.finding').count()).toBe(3);
  });

  it('draws the what-if: node bars before and after in proportion to the shares, the examples and the verdict', async () => {
    await page.locator('li.finding[data-rule="hot-tablet"] a.what-if').click();
    await page.locator('#verdict').waitFor();
    expect(await page.locator('#transform').inputValue()).toBe('salt:8@2');
    const sim = fixtureSimulation('salt:8@2') as SimulationJson;
    expect(await page.locator('#verdict').textContent()).toBe(sim.verdict);
    await expectNodeBars(page, sim);
    expect(await page.locator('#examples tbody td.key').allTextContents()).toEqual(sim.examples.flatMap((x) => [x.before, x.after]));
    await screenshot(page, 'what-if-fixture.png');
  });

  it('asks again for the nodes typed in, and shows a rejected transform’s message under the input', async () => {
    await page.locator('#nodes').fill('4');
    await page.locator('#what-if button[type="submit"]').click();
    await page.waitForFunction(() => location.hash.endsWith('&nodes=4'));
    await page.locator('svg.nodes[aria-label^="After"] rect.node-bar').nth(3).waitFor();
    await expectNodeBars(page, fixtureSimulation('salt:8@2', 4) as SimulationJson);
    await page.locator('#transform').fill('salt:8,shuffle:2');
    await page.locator('#what-if button[type="submit"]').click();
    await page.locator('#transform-error').waitFor();
    expect(await page.locator('#transform-error').textContent()).toContain('Bad transform step "shuffle:2"');
    expect(await page.locator('details.grammar').getAttribute('open')).not.toBeNull();
    expect(await page.locator('#verdict').count()).toBe(0);
  });
});
