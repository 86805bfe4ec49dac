import { countRows, createTable, loadRows } from './node-client.js';
import type { Workload } from './workload.js';

/**
 * Bulk load: N rows with values of `valueSize` bytes into a new table on a
 * freshly started server, in shuffled key order, as MutateRows batches.
 * The runner reads the server's RSS after the load (RSS per GiB loaded).
 */
export function bulkLoad(name: string, valueSize: number): Workload {
  return {
    name,
    title: `Bulk load, ${valueSize === 1024 ? '1 KiB' : `${valueSize} B`} values`,
    group: 'client',
    per: 'row',
    unitName: 'rows',
    mbps: true,
    latency: true,
    freshServer: true,
    describe: (s) =>
      `${s.rows.toLocaleString('en-US')} rows (10-byte keys, one ${valueSize}-byte random value each) in shuffled order into an empty table on a fresh server; ` +
      `Table.insert of ${s.loadBatchRows.toLocaleString('en-US')} rows per MutateRows, ${s.loadInFlight} requests in flight; latency is per request` +
      (s.warmupSeconds > 0 ? `; unmeasured warm-up first: ${Math.ceil(s.rows / 5).toLocaleString('en-US')} rows into another table, then deleted (the server's JIT compilation is not per-row cost)` : ''),
    // A load of a fifth of the rows into another table, which is then deleted.
    async warmUp(ctx) {
      const table = await createTable(ctx.client, `warm-${ctx.runId}`);
      await loadRows(table, {
        rows: Math.max(1, Math.min(ctx.settings.rows, Math.ceil(ctx.settings.rows / 5))),
        valueSize,
        batchRows: ctx.settings.loadBatchRows,
        inFlight: ctx.settings.loadInFlight,
        seed: ctx.runId + 1_000_000,
        tick: () => undefined,
      });
      await table.delete();
    },
    async run(ctx) {
      const table = await createTable(ctx.client, `load-${ctx.runId}`);
      const m = await ctx.measure(() =>
        loadRows(table, {
          rows: ctx.settings.rows,
          valueSize,
          batchRows: ctx.settings.loadBatchRows,
          inFlight: ctx.settings.loadInFlight,
          seed: ctx.runId,
          tick: ctx.tick,
        }),
      );
      const n = await countRows(table);
      if (n !== ctx.settings.rows) throw new Error(`after loading ${ctx.settings.rows} rows the table holds ${n} rows`);
      return m;
    },
  };
}
