import { measureClosedLoop } from './closed-loop.js';
import { FAMILY, QUALIFIER, ValuePool, laneRandoms, logicalRowBytes, randomBelow } from './dataset.js';
import { benchTable, countRows } from './node-client.js';
import type { Workload } from './workload.js';

/**
 * Single-row writes: Table.insert of one row with a 1 KiB value (the Node
 * client sends a MutateRows with one entry), to random new keys of an empty
 * table, `concurrency` in flight.
 */
export function singleRowWrites(name: string, concurrency: number, valueSize: number): Workload {
  return {
    name,
    title: `Single-row writes, concurrency ${concurrency}`,
    group: 'client',
    per: 'op',
    unitName: 'writes',
    mbps: false,
    latency: true,
    freshServer: false,
    writes: true,
    describe: (s) =>
      `Table.insert of one row (${valueSize}-byte value) under a random new key, ${concurrency} in flight, for ${s.seconds} s`,
    async run(ctx) {
      const table = benchTable(ctx.client, ctx.dataset.writesTable);
      const pool = new ValuePool(valueSize);
      const random = laneRandoms(ctx.runId, concurrency);
      const keyPrefix = `w${String(ctx.runId).padStart(4, '0')}-`;
      const written = new Set<string>();
      const before = await countRows(table);
      const m = await measureClosedLoop(ctx, {
        concurrency,
        tickPer: 'op',
        latency: true,
        op: async (lane) => {
          const i = randomBelow(random(lane), 1e9);
          const key = keyPrefix + String(i).padStart(9, '0');
          await table.insert({ key, data: { [FAMILY]: { [QUALIFIER]: pool.value(i) } } });
          written.add(key);
          return { rows: 1, bytes: logicalRowBytes(valueSize, key.length) };
        },
      });
      const after = await countRows(table);
      if (after - before !== written.size)
        throw new Error(`${written.size} distinct rows were written but the table grew by ${after - before} rows`);
      return m;
    },
  };
}
