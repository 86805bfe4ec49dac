import type { Table } from '@google-cloud/bigtable';
import type { LoopContext, LoopPlan } from './closed-loop.js';
import { FAMILY, QUALIFIER, ValuePool, laneRandoms, logicalRowBytes, randomBelow } from './dataset.js';
import { benchTable, cellValue } from './node-client.js';

/** Row keys per lane: each lane owns its keys, so it knows whether its call must match (an earlier call of it wrote the row). */
export const KEYS_PER_LANE = 128;

/**
 * CheckAndMutateRow (Row.filter) of a random key of `table`: a column
 * filter on the benchmark column as predicate, and a SetCell of a
 * `valueSize`-byte value in both branches, so every call reads the row and
 * writes. Keys are drawn from each lane's own KEYS_PER_LANE, so every
 * answer is checked (the predicate matches exactly when the lane wrote the
 * row before), and so is every row's latest value afterwards.
 */
export function checkAndMutatePlan(ctx: LoopContext, table: string, concurrency: number, valueSize: number): LoopPlan {
  const rows = benchTable(ctx.client, table);
  const pool = new ValuePool(valueSize);
  const random = laneRandoms(ctx.runId, concurrency);
  const prefix = `c${String(ctx.runId).padStart(4, '0')}-`;
  /** The item whose value each key got last. */
  const last = new Map<string, number>();
  return {
    concurrency,
    tickPer: 'op',
    latency: true,
    op: async (lane, item) => {
      const key = `${prefix}${String(lane).padStart(3, '0')}-${String(randomBelow(random(lane), KEYS_PER_LANE)).padStart(4, '0')}`;
      const written = last.has(key);
      const set = [{ method: 'insert', data: { [FAMILY]: { [QUALIFIER]: pool.value(item) } } }];
      const [matched] = await rows.row(key).filter({ column: QUALIFIER }, { onMatch: set, onNoMatch: set });
      if (matched !== written)
        throw new Error(
          `check-and-mutate of row ${key}: the predicate ${matched ? 'matched' : 'did not match'} a row that was ${written ? '' : 'never '}written`,
        );
      last.set(key, item);
      return { rows: 1, bytes: logicalRowBytes(valueSize, key.length) };
    },
    verify: async () => {
      const got = await latestValues(rows);
      if (got.size !== last.size) throw new Error(`check-and-mutate wrote ${last.size} rows but the table holds ${got.size}`);
      for (const [key, item] of last) {
        if (got.get(key)?.equals(pool.value(item)) !== true) throw new Error(`check-and-mutate: row ${key} does not hold its last value`);
      }
    },
  };
}

/** Every row's latest value of the benchmark column. */
function latestValues(table: Table): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    const out = new Map<string, Buffer>();
    table
      .createReadStream({ decode: false, filter: { column: { cellLimit: 1 } } })
      // With decode: false, row keys come as Buffers too.
      .on('data', (row: { id: string | Buffer; data?: unknown }) => {
        const v = cellValue(row);
        if (v !== undefined) out.set(row.id.toString(), v);
      })
      .on('error', reject)
      .on('end', () => resolve(out));
  });
}
