import type { Row } from '@google-cloud/bigtable';
import { runPlan } from './closed-loop.js';
import type { LoopContext, LoopPlan } from './closed-loop.js';
import { FAMILY } from './dataset.js';
import { benchTable } from './node-client.js';
import type { Workload } from './workload.js';

/**
 * The counter's latest value. It is stored as an 8-byte big-endian integer;
 * Row.get turns such a value into a number even when asked not to decode.
 */
async function counterValue(row: Row): Promise<bigint> {
  const [r] = await row.get();
  const data = r.data as Record<string, Record<string, { value: unknown }[]>> | undefined;
  const v = data?.[FAMILY]?.['n']?.[0]?.value;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  if (Buffer.isBuffer(v) && v.length === 8) return v.readBigInt64BE(0);
  throw new Error(`the counter cell is missing or not an 8-byte integer (got ${JSON.stringify(v)})`);
}

/**
 * ReadModifyWriteRow increments of one counter in one hot row, `concurrency`
 * in flight: every increment contends for the same row lock. Afterwards the
 * counter must equal the number of acknowledged increments.
 */
export function hotRowIncrements(name: string, concurrency: number): Workload {
  return {
    name,
    title: `Increments of one hot row, concurrency ${concurrency}`,
    group: 'client',
    per: 'op',
    unitName: 'increments',
    mbps: false,
    latency: true,
    freshServer: false,
    writes: true,
    describe: (s) =>
      `Row.increment('${FAMILY}:n', 1) (ReadModifyWriteRow) on a single row, ${concurrency} in flight, for ${s.seconds} s; the final count is checked`,
    run: (ctx) => runPlan(ctx, hotRowPlan(ctx, ctx.dataset.countersTable, concurrency)),
  };
}

/** Row.increment of one counter of one new row of `table` (its key names the run), `concurrency` in flight; the final count checked. */
export function hotRowPlan(ctx: LoopContext, table: string, concurrency: number): LoopPlan {
  const row = benchTable(ctx.client, table).row(`hot-${ctx.runId}`);
  const column = `${FAMILY}:n`;
  return {
    concurrency,
    tickPer: 'op',
    latency: true,
    op: async () => {
      await row.increment(column, 1);
      return { rows: 1, bytes: 0 };
    },
    verify: async (counts) => {
      const value = await counterValue(row);
      if (value !== BigInt(counts.ops)) throw new Error(`the counter reads ${value} after ${counts.ops} acknowledged increments`);
    },
  };
}
