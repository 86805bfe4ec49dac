import { rssBytes } from '../servers/proc-stats.js';
import { logicalRowBytes } from './dataset.js';
import { countRows, createTable, loadRows } from './node-client.js';
import type { RssSample, RunContext, Settings, Workload } from './workload.js';

const GiB = 1024 ** 3;

/** Points of the RSS curve recorded during one load. */
const CURVE_POINTS = 16;

interface LoadShape {
  readonly name: string;
  readonly valueSize: number;
  /** Rows per run; default settings.rows. */
  readonly rows?: (s: Settings) => number;
  readonly title?: string;
  readonly maxRuns?: number;
  readonly rssChart?: boolean;
}

/**
 * Bulk load: N rows with values of `valueSize` bytes into a new table on a
 * freshly started server, in shuffled key order, as MutateRows batches.
 * The runner reads the server's RSS after the load (RSS per GiB loaded);
 * the load also records the RSS as the data grows (the curve in the report).
 */
export function bulkLoad(name: string, valueSize: number): Workload {
  return loadWorkload({ name, valueSize });
}

/**
 * The large load: GiB of 1 KiB rows (--large-gib), several times what
 * tabletop keeps in memory by default (memtables + block cache), to show
 * whether RSS stays flat as the data outgrows memory. One run per target.
 */
export function largeLoad(): Workload {
  return loadWorkload({
    name: 'load-large',
    valueSize: 1024,
    rows: (s) => Math.max(1000, Math.round((s.largeLoadGiB * GiB) / logicalRowBytes(1024))),
    title: 'Large bulk load, 1 KiB values (RSS as data outgrows memory)',
    maxRuns: 1,
    rssChart: true,
  });
}

function loadWorkload(shape: LoadShape): Workload {
  const { valueSize } = shape;
  const rowsOf = (s: Settings): number => shape.rows?.(s) ?? s.rows;
  const warmRows = (s: Settings): number => Math.max(1, Math.min(s.rows, Math.ceil(s.rows / 5)));
  return {
    name: shape.name,
    title: shape.title ?? `Bulk load, ${valueSize === 1024 ? '1 KiB' : `${valueSize} B`} values`,
    group: 'client',
    per: 'row',
    unitName: 'rows',
    mbps: true,
    latency: true,
    freshServer: true,
    writes: true,
    total: rowsOf,
    ...(shape.maxRuns === undefined ? {} : { maxRuns: shape.maxRuns }),
    ...(shape.rssChart === true ? { rssChart: true } : {}),
    describe: (s) =>
      `${rowsOf(s).toLocaleString('en-US')} rows (10-byte keys, one ${valueSize}-byte random value each; ${((rowsOf(s) * logicalRowBytes(valueSize)) / GiB).toFixed(2)} GiB) in shuffled order into an empty table on a fresh server; ` +
      `Table.insert of ${s.loadBatchRows.toLocaleString('en-US')} rows per MutateRows, ${s.loadInFlight} requests in flight; latency is per request` +
      (s.warmupSeconds > 0
        ? `; unmeasured warm-up first: ${warmRows(s).toLocaleString('en-US')} rows into another table, then deleted (the server's JIT compilation is not per-row cost)`
        : '') +
      (shape.maxRuns === undefined ? '' : `; ${shape.maxRuns} run per target`),
    // A load of a fifth of the data-set rows into another table, which is then deleted.
    async warmUp(ctx) {
      const table = await createTable(ctx.client, `warm-${ctx.runId}`);
      await loadRows(table, {
        rows: warmRows(ctx.settings),
        valueSize,
        batchRows: ctx.settings.loadBatchRows,
        inFlight: ctx.settings.loadInFlight,
        seed: ctx.runId + 1_000_000,
        tick: () => undefined,
      });
      await table.delete();
    },
    async run(ctx) {
      const rows = rowsOf(ctx.settings);
      const table = await createTable(ctx.client, `load-${ctx.runId}`);
      const curve = rssRecorder(ctx, rows, valueSize);
      const m = await ctx.measure(() =>
        loadRows(table, {
          rows,
          valueSize,
          batchRows: ctx.settings.loadBatchRows,
          inFlight: ctx.settings.loadInFlight,
          seed: ctx.runId,
          tick: (done) => {
            ctx.tick(done);
            curve.tick(done);
          },
        }),
      );
      const n = await countRows(table);
      if (n !== rows) throw new Error(`after loading ${rows} rows the table holds ${n} rows`);
      return { ...m, rssCurve: curve.samples };
    },
  };
}

/** Samples the server's RSS at CURVE_POINTS evenly spaced points of the load. */
function rssRecorder(ctx: RunContext, rows: number, valueSize: number): { samples: RssSample[]; tick(done: number): void } {
  const samples: RssSample[] = [];
  const step = Math.max(1, Math.floor(rows / CURVE_POINTS));
  let next = step;
  const pid = ctx.target.process.pid;
  return {
    samples,
    tick(done) {
      if (done < next) return;
      samples.push({ loadedBytes: done * logicalRowBytes(valueSize), rssBytes: rssBytes(pid) });
      while (next <= done) next += step;
    },
  };
}
