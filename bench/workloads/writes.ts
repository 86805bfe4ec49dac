import { runPlan } from './closed-loop.js';
import type { LoopContext, LoopPlan } from './closed-loop.js';
import { FAMILY, QUALIFIER, ValuePool, laneRandoms, logicalRowBytes, randomBelow } from './dataset.js';
import { benchTable, countRows, mutateRow } from './node-client.js';
import type { ServerWorkload } from './workload.js';

/**
 * Single-row writes: Table.insert of one row with a 1 KiB value (the Node
 * client sends a MutateRows with one entry), to random new keys of an empty
 * table, `concurrency` in flight.
 */
export function singleRowWrites(name: string, concurrency: number, valueSize: number): ServerWorkload {
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
    run: async (ctx) =>
      runPlan(ctx, await singleRowWritePlan(ctx, { table: ctx.dataset.writesTable, concurrency, valueSize, call: 'insert' })),
  };
}

/**
 * How one row is written through the Node client: Table.insert and Row.save
 * each send a MutateRows of one entry; MutateRow (the unary call, which the
 * client's own methods never send) goes through the client's generic
 * `Bigtable.request`, as its Row.filter and Row.increment send theirs.
 */
export type WriteCall = 'insert' | 'save' | 'mutate-row';

export interface WritePlanOptions {
  readonly table: string;
  readonly concurrency: number;
  readonly valueSize: number;
  readonly call: WriteCall;
}

/**
 * One row with a `valueSize`-byte value per call under a random new key of
 * `table`, `concurrency` in flight; afterwards the table must have grown by
 * the distinct keys written.
 */
export async function singleRowWritePlan(ctx: LoopContext, o: WritePlanOptions): Promise<LoopPlan> {
  const table = benchTable(ctx.client, o.table);
  const pool = new ValuePool(o.valueSize);
  const random = laneRandoms(ctx.runId, o.concurrency);
  const keyPrefix = `w${String(ctx.runId).padStart(4, '0')}-`;
  const written = new Set<string>();
  const before = await countRows(table);
  const write = (key: string, value: Buffer): Promise<unknown> => {
    const data = { [FAMILY]: { [QUALIFIER]: value } };
    if (o.call === 'insert') return table.insert({ key, data });
    if (o.call === 'save') return table.row(key).save(data);
    return mutateRow(ctx.client, o.table, key, value);
  };
  return {
    concurrency: o.concurrency,
    tickPer: 'op',
    latency: true,
    op: async (lane) => {
      const i = randomBelow(random(lane), 1e9);
      const key = keyPrefix + String(i).padStart(9, '0');
      await write(key, pool.value(i));
      written.add(key);
      return { rows: 1, bytes: logicalRowBytes(o.valueSize, key.length) };
    },
    verify: async () => {
      const after = await countRows(table);
      if (after - before !== written.size)
        throw new Error(`${written.size} distinct rows were written but the table grew by ${after - before} rows`);
    },
  };
}
