import { runPlan } from './closed-loop.js';
import type { LoopContext, LoopPlan } from './closed-loop.js';
import { ValuePool, laneRandoms, logicalRowBytes, randomBelow, rowKey } from './dataset.js';
import { benchTable, cellValue } from './node-client.js';
import type { Workload } from './workload.js';

/** Random point reads of the data set (Row.get, one ReadRows per read), each checked against the loaded value. */
export function pointReads(name: string, concurrency: number): Workload {
  return {
    name,
    title: `Point reads, concurrency ${concurrency}`,
    group: 'client',
    per: 'op',
    unitName: 'reads',
    mbps: false,
    latency: true,
    freshServer: false,
    writes: false,
    describe: (s) =>
      `Row.get of a uniformly random row of the ${s.rows.toLocaleString('en-US')}-row, 1 KiB-value data set, ${concurrency} in flight, for ${s.seconds} s; every value is compared with the one loaded`,
    run: (ctx) => runPlan(ctx, pointReadPlan(ctx, concurrency)),
  };
}

/** Row.get of a uniformly random row of the data set, `concurrency` in flight; each value must be the one loaded. */
export function pointReadPlan(ctx: LoopContext, concurrency: number): LoopPlan {
  const { dataset } = ctx;
  const table = benchTable(ctx.client, dataset.table);
  const pool = new ValuePool(dataset.valueSize);
  const random = laneRandoms(ctx.runId, concurrency);
  const rowBytes = logicalRowBytes(dataset.valueSize);
  return {
    concurrency,
    tickPer: 'op',
    latency: true,
    op: async (lane) => {
      const i = randomBelow(random(lane), dataset.rows);
      const [row] = await table.row(rowKey(i)).get({ decode: false });
      const v = cellValue(row);
      if (v === undefined || !v.equals(pool.value(i))) throw new Error(`row ${rowKey(i)} came back without its loaded value`);
      return { rows: 1, bytes: rowBytes };
    },
  };
}
