import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQL_MAX_ROWS, type SqlResponseJson } from '../../src/server/http/sql-route.js';
import { type RunningServer, startServer } from '../../src/index.js';
import { parseRoute } from '../../src/ui/routes.js';
import { INSTANCE, PROJECT, nodeClient } from '../harness/node-client.js';
import { launchChromium, newPage, screenshot } from './browser.js';

/**
 * The SQL page end to end: a real server, an `orders` table written through
 * the official Node client (key `c{customer}#{order}`, an `info` family with
 * a status, a total, a coupon on some orders and a binary signature, an
 * `items` family of sku → quantity), then the page in headless Chromium: a
 * query with a BYTES parameter run with Ctrl+Enter must show exactly the
 * customer's rows as the API answered them (read off the wire), NULL set
 * apart, maps as key → value lines, binary as hex; an error at its position;
 * the examples; and a large answer drawn a page at a time. Screenshot:
 * test-output/sql.png, 1200 px wide (the README's docs/sql.png is a copy),
 * and sql-error.png.
 */

const CUSTOMERS = 250;
const ORDERS = 4;
const FAMILIES = ['info', 'items'];
const EVENTS = SQL_MAX_ROWS + 2_000;

let server: RunningServer;
let browser: Browser;
let page: Page;
let sqlPage: string;

const key = (c: number, o: number) => `c${String(c).padStart(3, '0')}#${String(o).padStart(5, '0')}`;
const status = (c: number, o: number) => ((c + o) % 3 === 0 ? 'pending' : 'shipped');
const total = (c: number, o: number) => `${(c % 50) + o}.50`;
const coupon = (c: number, o: number) => (o === 1 ? `SAVE${c % 10}` : undefined);
const signature = (c: number, o: number) => Buffer.from([0x00, c & 0xff, o, 0xff]);
const items = (c: number, o: number): Record<string, string> =>
  Object.fromEntries(Array.from({ length: 1 + ((c + o) % 3) }, (_, i) => [`sku-${100 + ((c * 7 + i) % 40)}`, String(1 + i)]));

beforeAll(async () => {
  server = await startServer({ httpPort: 0 });
  sqlPage = `http://localhost:${server.httpPort}/#/p/${PROJECT}/i/${INSTANCE}/sql`;
  const bigtable = nodeClient({ address: server.address });
  const [table] = await bigtable.instance(INSTANCE).createTable('orders', { families: FAMILIES });
  for (let c = 0; c < CUSTOMERS; c += 25) {
    const rows = [];
    for (let cc = c; cc < c + 25; cc++) {
      for (let o = 0; o < ORDERS; o++) {
        const info: Record<string, string | Buffer> = { status: status(cc, o), total: total(cc, o), sig: signature(cc, o) };
        const cp = coupon(cc, o);
        if (cp !== undefined) info['coupon'] = cp;
        rows.push({ key: key(cc, o), data: { info, items: items(cc, o) } });
      }
    }
    await table.insert(rows);
  }
  // More rows than the API returns (SQL_MAX_ROWS): the page must say it has the first ones only.
  const [events] = await bigtable.instance(INSTANCE).createTable('events', { families: ['e'] });
  for (let i = 0; i < EVENTS; i += 2_000) {
    await events.insert(
      Array.from({ length: 2_000 }, (_, j) => ({ key: `ev${String(i + j).padStart(6, '0')}`, data: { e: { n: String(i + j) } } })),
    );
  }
  browser = await launchChromium();
  page = await newPage(browser, { width: 1200, height: 800 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** A fresh SQL page (a new document: going to a hash of the same page would keep the last test's state). */
async function openSqlPage(): Promise<void> {
  await page.goto('about:blank');
  await page.goto(sqlPage);
  await page.locator('#sql-query').waitFor();
}

/** The answer to the next POST .../sql the page sends, read off the wire. */
function nextAnswer(): Promise<{ status: number; body: SqlResponseJson & { error?: { message: string } } }> {
  return page
    .waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname.endsWith('/sql'))
    .then(async (r) => ({ status: r.status(), body: (await r.json()) as SqlResponseJson & { error?: { message: string } } }));
}

/** The rendered rows' cells as text (the row-number column left out). */
function renderedCells(): Promise<string[][]> {
  return page
    .locator('#sql-rows tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td:not(.row-no)')].map((td) => (td as HTMLElement).innerText.trim())));
}

describe('the SQL page', () => {
  it('runs a query with a BYTES parameter (Ctrl+Enter) and shows the rows by type', async () => {
    await page.goto(`http://localhost:${server.httpPort}/#/p/${PROJECT}/i/${INSTANCE}`);
    await page.locator('#sql-link').click();
    await page.locator('#sql-query').waitFor();
    const query = [
      "SELECT _key, info['status'] AS status, CAST(info['total'] AS STRING) AS total,",
      "  info['coupon'] AS coupon, info['sig'] AS sig, items",
      'FROM orders',
      'WHERE STARTS_WITH(_key, @customer)',
    ].join('\n');
    await page.locator('#sql-query').fill(query);
    // The page offers the parameter the query uses.
    await page.locator('.param-suggest[data-name="customer"]').click();
    const row = page.locator('.param-row[data-name="customer"]');
    await row.locator('.param-type').selectOption('BYTES');
    await row.locator('.param-value').fill('c007#');
    const answered = nextAnswer();
    await page.locator('#sql-query').press('Control+Enter');
    const { status: code, body } = await answered;
    expect(code).toBe(200);
    await page.locator('#sql-rows').waitFor();

    // The API's answer is the customer's orders, and the planner read only them.
    expect(body.columns.map((c) => `${c.name} ${c.type}`)).toEqual([
      '_key BYTES',
      'status BYTES',
      'total STRING',
      'coupon BYTES',
      'sig BYTES',
      'items MAP<BYTES, BYTES>',
    ]);
    expect(body.rows.map((r) => (r[0] as { printable: string }).printable)).toEqual([0, 1, 2, 3].map((o) => key(7, o)));
    expect(body.stats.rowsScanned).toBe(ORDERS);

    // The page shows them: names and types, values by type, NULL apart, binary as hex, the map as key → value lines.
    expect(await page.locator('#sql-rows th .col-name').allTextContents()).toEqual(['_key', 'status', 'total', 'coupon', 'sig', 'items']);
    expect(await page.locator('#sql-rows th .col-type').allTextContents()).toEqual(body.columns.map((c) => c.type));
    const hex = (b: Buffer) => `0x${b.toString('hex')}`;
    const mapLines = (m: Record<string, string>) =>
      Object.entries(m)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => `${k}→${v}`)
        .join('\n');
    expect((await renderedCells()).map((cells) => cells.map((c) => c.replace(/ *→ */g, '→')))).toEqual(
      [0, 1, 2, 3].map((o) => [key(7, o), status(7, o), total(7, o), coupon(7, o) ?? 'NULL', hex(signature(7, o)), mapLines(items(7, o))]),
    );
    expect(await page.locator('#sql-rows td .null').count()).toBe(3);
    expect(await page.locator('#sql-rows td .bytes.encoded').count()).toBe(4);
    expect(await page.locator('#sql-row-count').textContent()).toBe('4 rows');
    expect(await page.locator('#sql-rows-scanned').textContent()).toBe(`${body.stats.rowsScanned} scanned`);
    expect(await page.locator('#sql-time').textContent()).toMatch(/^[\d.,]+ ms$/);
    await screenshot(page, 'sql.png');

    // The bytes toggle: base64 instead.
    await page.locator('#bytes-as').selectOption('base64');
    expect(await page.locator('#sql-rows tbody tr').first().locator('td').nth(5).innerText()).toBe(signature(7, 0).toString('base64'));

    // The run is in the address: a reload brings the query back (not run until asked).
    expect(parseRoute(new URL(page.url()).hash)).toEqual({ page: 'sql', project: PROJECT, instance: INSTANCE, query });
    await page.reload();
    await page.locator('#sql-query').waitFor();
    expect(await page.locator('#sql-query').inputValue()).toBe(query);
    expect(await page.locator('#sql-rows').count()).toBe(0);
  }, 60_000);

  it('shows an error at its position in the query and puts the cursor there', async () => {
    await openSqlPage();
    const query = "SELECT _key, info['status'] AS status\nFROM orders\nWHERE nope = 1";
    await page.locator('#sql-query').fill(query);
    const answered = nextAnswer();
    await page.locator('#sql-run').click();
    const { status: code, body } = await answered;
    expect(code).toBe(400);
    const m = /^line (\d+), column (\d+): (.*)$/.exec(body.error!.message);
    expect(m, body.error!.message).not.toBeNull();
    expect([Number(m![1]), Number(m![2])]).toEqual([3, 7]);
    const error = page.locator('#sql-error');
    await error.waitFor();
    expect(await error.getAttribute('data-line')).toBe('3');
    expect(await error.getAttribute('data-column')).toBe('7');
    expect(await error.locator('p.error').textContent()).toBe(body.error!.message);
    expect(await page.locator('#sql-error-token').textContent()).toBe('nope');
    expect(await error.locator('.error-context').innerText()).toBe('3 │ WHERE nope = 1\n  │       ^');
    const selection = await page
      .locator('#sql-query')
      .evaluate((t: HTMLTextAreaElement) => [t.selectionStart, t.selectionEnd, document.activeElement === t]);
    expect(selection).toEqual([query.indexOf('nope'), query.indexOf('nope') + 4, true]);
    expect(await page.locator('#sql-rows').count()).toBe(0);
    await screenshot(page, 'sql-error.png');
  });

  it('a bad parameter is marked on its row and nothing is sent', async () => {
    await openSqlPage();
    await page.locator('#sql-query').fill('SELECT _key FROM orders LIMIT @n');
    await page.locator('.param-suggest[data-name="n"]').click();
    const row = page.locator('.param-row[data-name="n"]');
    await row.locator('.param-type').selectOption('INT64');
    await row.locator('.param-value').fill('ten');
    let sent = 0;
    const count = () => void sent++;
    page.on('request', count);
    await page.locator('#sql-run').click();
    await row.locator('.param-error').waitFor();
    expect(await row.locator('.param-error').textContent()).toMatch(/^"ten" is not an INT64/);
    await row.locator('.param-value').fill('3');
    const answered = nextAnswer();
    await page.locator('#sql-run').click();
    expect((await answered).body.rows).toHaveLength(3);
    page.off('request', count);
    expect(sent).toBe(1);
  });

  it('takes an ARRAY<BYTES> parameter as a JSON array: a multi-get reads only its rows', async () => {
    await openSqlPage();
    await page.locator('#sql-query').fill('SELECT _key FROM orders WHERE _key IN UNNEST(@keys)');
    await page.locator('.param-suggest[data-name="keys"]').click();
    const row = page.locator('.param-row[data-name="keys"]');
    await row.locator('.param-type').selectOption('ARRAY<BYTES>');
    await row.locator('.param-value').fill(JSON.stringify([key(5, 0), key(1, 2)]));
    const answered = nextAnswer();
    await page.locator('#sql-run').click();
    const { body } = await answered;
    expect(body.stats.rowsScanned).toBe(2);
    await page.locator('#sql-rows').waitFor();
    expect(await renderedCells()).toEqual([[key(1, 2)], [key(5, 0)]]);
  });

  it("offers examples from the instance's tables; a key-prefix example takes its prefix from the first key", async () => {
    await openSqlPage();
    await page.locator('button.example[data-table="orders"][data-label="first rows"]').click();
    expect(await page.locator('#sql-query').inputValue()).toBe('SELECT * FROM orders LIMIT 10');
    let answered = nextAnswer();
    await page.locator('#sql-run').click();
    expect((await answered).body.rows).toHaveLength(10);
    await page.locator('#sql-rows').waitFor();
    expect(await page.locator('#sql-rows th .col-name').allTextContents()).toEqual(['_key', ...FAMILIES]);
    expect(await page.locator('#sql-rows tbody tr').first().locator('ul.map').count()).toBe(2);

    await page.locator('button.example[data-table="orders"][data-label="key prefix"]').click();
    await page.locator('.param-row[data-name="prefix"]').waitFor();
    expect(await page.locator('.param-row[data-name="prefix"] .param-value').inputValue()).toBe('c000#');
    answered = nextAnswer();
    await page.locator('#sql-run').click();
    const { body } = await answered;
    expect(body.rows.map((r) => (r[0] as { printable: string }).printable)).toEqual([0, 1, 2, 3].map((o) => key(0, o)));
  });

  it('draws a large answer a page at a time', async () => {
    await openSqlPage();
    await page.locator('#sql-query').fill('SELECT _key FROM orders');
    const answered = nextAnswer();
    await page.locator('#sql-run').click();
    expect((await answered).body.rows).toHaveLength(CUSTOMERS * ORDERS);
    await page.locator('#sql-more').waitFor();
    expect(await page.locator('#sql-rows tbody tr').count()).toBe(100);
    expect(await page.locator('#sql-row-count').textContent()).toBe('1,000 rows');
    await page.locator('#sql-more').click();
    expect(await page.locator('#sql-rows tbody tr').count()).toBe(600);
    await page.locator('#sql-more').click();
    expect(await page.locator('#sql-rows tbody tr').count()).toBe(1000);
    expect(await page.locator('#sql-more').count()).toBe(0);
    expect(await page.locator('#sql-rows tbody tr').last().locator('td').nth(1).innerText()).toBe(key(CUSTOMERS - 1, ORDERS - 1));
  });

  it('says when the answer is cut at the rows the API returns, and still draws only the first page', async () => {
    await openSqlPage();
    await page.locator('#sql-query').fill('SELECT _key, e FROM events');
    const answered = nextAnswer();
    await page.locator('#sql-run').click();
    const { body } = await answered;
    expect(body.truncated).toBe(true);
    expect(body.rows).toHaveLength(SQL_MAX_ROWS);
    await page.locator('#sql-truncated').waitFor();
    expect(await page.locator('#sql-row-count').textContent()).toBe(`${SQL_MAX_ROWS.toLocaleString('en-US')} rows`);
    expect(await page.locator('#sql-rows tbody tr').count()).toBe(100);
    expect(await page.locator('#sql-more').textContent()).toBe('Show 500 more');
  });
});
