import type { Table } from '@google-cloud/bigtable';
import { runPlan } from './closed-loop.js';
import type { LoopContext, LoopPlan } from './closed-loop.js';
import { GROUP_ROWS, QUALIFIER, ValuePool, groupPrefix, laneRandoms, randomBelow, rowKey } from './dataset.js';
import { benchTable, cellValue } from './node-client.js';
import type { RunContext, Workload } from './workload.js';

/**
 * Scans of the data set through Table.createReadStream: the whole table, or
 * 100 rows by prefix or by key range. Every row is checked: keys ascend,
 * values are the ones loaded, and the row count is exact.
 */

type ScanOptions = Parameters<Table['createReadStream']>[0];

interface ScanShape {
  readonly name: string;
  readonly title: string;
  readonly concurrency: number;
  readonly latency: boolean;
  describe(rows: number, seconds: number): string;
  /** The request for one scan, and how many rows it must return. */
  request(random: () => number, rows: number): { options: ScanOptions; expectRows: number };
}

const FULL: ScanShape = {
  name: 'full-scan',
  title: 'Full table scan',
  concurrency: 1,
  latency: false,
  describe: (rows, secs) =>
    `createReadStream over the whole ${rows.toLocaleString('en-US')}-row table, one scan at a time, repeated for ${secs} s`,
  request: (_random, rows) => ({ options: {}, expectRows: rows }),
};

const SCAN_CONCURRENCY = 8;

const PREFIX: ScanShape = {
  name: 'prefix-scan',
  title: '100-row prefix scans',
  concurrency: SCAN_CONCURRENCY,
  latency: true,
  describe: (_rows, secs) =>
    `createReadStream({ prefix }) with a random 8-byte prefix that matches exactly ${GROUP_ROWS} rows, ${SCAN_CONCURRENCY} in flight, for ${secs} s`,
  request: (random, rows) => ({
    options: { prefix: groupPrefix(randomBelow(random, Math.floor(rows / GROUP_ROWS))) },
    expectRows: GROUP_ROWS,
  }),
};

const RANGE: ScanShape = {
  name: 'range-scan',
  title: '100-row range scans',
  concurrency: SCAN_CONCURRENCY,
  latency: true,
  describe: (_rows, secs) =>
    `createReadStream({ ranges: [[start, end)] }) over ${GROUP_ROWS} consecutive rows from a random start, ${SCAN_CONCURRENCY} in flight, for ${secs} s`,
  request: (random, rows) => {
    const start = randomBelow(random, rows - GROUP_ROWS + 1);
    const range = { start: { value: rowKey(start), inclusive: true }, end: { value: rowKey(start + GROUP_ROWS), inclusive: false } };
    return { options: { ranges: [range] }, expectRows: GROUP_ROWS };
  },
};

export const fullScan = (): Workload => scanWorkload(FULL);
export const prefixScan = (): Workload => scanWorkload(PREFIX);
export const rangeScan = (): Workload => scanWorkload(RANGE);

export type ScanKind = 'full' | 'prefix' | 'range';
const SHAPES: Readonly<Record<ScanKind, ScanShape>> = { full: FULL, prefix: PREFIX, range: RANGE };

function scanWorkload(shape: ScanShape): Workload {
  return {
    name: shape.name,
    title: shape.title,
    group: 'client',
    per: 'row',
    unitName: 'rows',
    mbps: true,
    latency: shape.latency,
    freshServer: false,
    writes: false,
    describe: (s) => shape.describe(s.rows, s.seconds) + '; latency is per scan',
    run: (ctx: RunContext) => runPlan(ctx, shapePlan(ctx, shape)),
  };
}

/** Scans of the data set (the whole table, or 100 rows by prefix or key range); every row and the row count checked. */
export function scanPlan(ctx: LoopContext, kind: ScanKind): LoopPlan {
  return shapePlan(ctx, SHAPES[kind]);
}

/** The concurrency and latency of a scan kind, for descriptions. */
export function scanShape(kind: ScanKind): { readonly concurrency: number; readonly latency: boolean; readonly title: string } {
  return SHAPES[kind];
}

function shapePlan(ctx: LoopContext, shape: ScanShape): LoopPlan {
  const table = benchTable(ctx.client, ctx.dataset.table);
  const pool = new ValuePool(ctx.dataset.valueSize);
  const random = laneRandoms(ctx.runId, shape.concurrency);
  let rowsSoFar = 0;
  return {
    concurrency: shape.concurrency,
    tickPer: 'row',
    latency: shape.latency,
    op: async (lane) => {
      const { options, expectRows } = shape.request(random(lane), ctx.dataset.rows);
      const r = await scan(table, options, pool, (n) => ctx.tick(rowsSoFar + n));
      rowsSoFar += r.rows;
      if (r.rows !== expectRows)
        throw new Error(`${shape.name}: a scan returned ${r.rows} rows, expected ${expectRows} (${JSON.stringify(options)})`);
      return r;
    },
  };
}

/** Runs one scan, checking every row; `onRows` sees the running row count (long scans show progress). */
function scan(table: Table, options: ScanOptions, pool: ValuePool, onRows: (n: number) => void): Promise<{ rows: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    let rows = 0;
    let bytes = 0;
    let lastKey = '';
    const stream = table.createReadStream({ ...options, decode: false });
    stream.on('data', (row: { id: string; data?: unknown }) => {
      const v = cellValue(row);
      const i = Number(row.id.slice(1));
      if (row.id <= lastKey || v === undefined || !v.equals(pool.value(i))) {
        stream.destroy();
        reject(new Error(`scan returned row ${row.id} out of order or with a value that was not loaded`));
        return;
      }
      lastKey = row.id;
      rows++;
      bytes += row.id.length + QUALIFIER.length + v.length;
      if ((rows & 1023) === 0) onRows(rows);
    });
    stream.on('error', reject);
    stream.on('end', () => resolve({ rows, bytes }));
  });
}
