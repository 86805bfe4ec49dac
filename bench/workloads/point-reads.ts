import { closedLoop } from './closed-loop.js';
import { ValuePool, logicalRowBytes, randomBelow, rng, rowKey } from './dataset.js';
import { INSTANCE, cellValue } from './node-client.js';
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
    describe: (s) =>
      `Row.get of a uniformly random row of the ${s.rows.toLocaleString('en-US')}-row, 1 KiB-value data set, ${concurrency} in flight, for ${s.seconds} s; every value is compared with the one loaded`,
    async run(ctx) {
      const { dataset } = ctx;
      const table = ctx.client.instance(INSTANCE).table(dataset.table);
      const pool = new ValuePool(dataset.valueSize);
      const randoms = Array.from({ length: concurrency }, (_, lane) => rng(ctx.runId * 1000 + lane));
      const rowBytes = logicalRowBytes(dataset.valueSize);
      return ctx.measure(() =>
        closedLoop({
          concurrency,
          seconds: ctx.seconds,
          tickPer: 'op',
          latency: true,
          tick: ctx.tick,
          op: async (lane) => {
            const i = randomBelow(randoms[lane] as () => number, dataset.rows);
            const [row] = await table.row(rowKey(i)).get({ decode: false });
            const v = cellValue(row);
            if (v === undefined || !v.equals(pool.value(i))) throw new Error(`row ${rowKey(i)} came back without its loaded value`);
            return { rows: 1, bytes: rowBytes };
          },
        }),
      );
    },
  };
}
