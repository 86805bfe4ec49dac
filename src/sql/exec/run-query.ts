import type { AnalyzedQuery, OrderKey } from '../analyze/analyze.js';
import type { Accumulator } from '../functions/index.js';
import type { SqlValue } from '../types.js';
import { groupKey, rowComparator } from '../values/compare.js';
import { queryError } from '../values/errors.js';
import { type EvalEnv, evaluate } from '../bound/evaluate.js';
import type { KeyRange } from '../../model/key-range.js';
import { type QueryDb, type ScanStats, scanRows } from './scan.js';
import { sourceRows } from './sources.js';

/**
 * Runs an analyzed query: scan → WHERE → (hash aggregation → HAVING) → projection → DISTINCT → ORDER BY (top-k
 * when there is a LIMIT) → OFFSET / LIMIT → skip `skipRows` (a resumed stream). Without GROUP BY, DISTINCT
 * and ORDER BY it streams row by row, reading ahead of the consumer not at all. The scan is a table read, or a
 * derived source's rows (exec/sources.ts: a logical view, UNPACK, a materialized view); `restrict` narrows the
 * table read's keys (given by a query that reads this one as its source).
 */
export async function* runQuery(
  db: QueryDb,
  q: AnalyzedQuery,
  env: EvalEnv,
  options: { readonly skipRows?: number; readonly signal?: AbortSignal | undefined; readonly restrict?: readonly KeyRange[] | undefined },
  stats: ScanStats,
): AsyncGenerator<SqlValue[]> {
  const limit = countValue(q.limit, env, 'LIMIT');
  const offset = countValue(q.offset, env, 'OFFSET') ?? 0;
  if (limit === 0) return;
  let rows: AsyncIterable<SqlValue[]> =
    q.source === undefined
      ? scanRows(db, q, env, stats, options.signal, options.restrict)
      : sourceRows((sub, subEnv, o, s) => runQuery(db, sub, subEnv, o, s), q, env, stats, options.signal, options.restrict);
  if (q.unnests.length > 0) rows = unnested(rows, q, env);
  rows = filtered(rows, q.where, env);
  if (q.aggregate !== undefined) rows = filtered(aggregate(rows, q, env), q.having, env);
  rows = project(rows, q, env);
  if (q.distinct) rows = distinct(rows, q.columns.length);
  if (q.order.length > 0) rows = sorted(rows, q.order, limit === undefined ? undefined : limit + offset);
  let index = 0;
  let returned = 0;
  const skip = offset + (options.skipRows ?? 0);
  for await (const row of rows) {
    index++;
    if (index > skip) {
      returned++;
      stats.rowsReturned = returned;
      yield row.length === q.columns.length ? row : row.slice(0, q.columns.length);
    }
    // Stop before pulling another row: the scan reads no further than the result needs.
    if ((limit !== undefined && index >= offset + limit) || options.signal?.aborted === true) break;
  }
}

function countValue(b: AnalyzedQuery['limit'], env: EvalEnv, clause: string): number | undefined {
  if (b === undefined) return undefined;
  const v = evaluate(b, [], env);
  if (v === null) throw queryError(undefined, `${clause} must not be NULL`);
  if (typeof v !== 'bigint' || v < 0n) throw queryError(undefined, `${clause} must not be negative`);
  return v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(v);
}

/** UNNEST joins: each row once per element of each array in turn (an empty or NULL array drops the row). */
async function* unnested(rows: AsyncIterable<SqlValue[]>, q: AnalyzedQuery, env: EvalEnv): AsyncGenerator<SqlValue[]> {
  const expand = function* (row: SqlValue[], step: number): Generator<SqlValue[]> {
    const u = q.unnests[step];
    if (u === undefined) {
      yield row;
      return;
    }
    const array = evaluate(u.array, row, env);
    if (array === null) return;
    let i = 0n;
    for (const element of array as readonly SqlValue[]) {
      yield* expand(u.withOffset ? [...row, element, i] : [...row, element], step + 1);
      i++;
    }
  };
  for await (const row of rows) yield* expand(row, 0);
}

async function* filtered(rows: AsyncIterable<SqlValue[]>, where: AnalyzedQuery['where'], env: EvalEnv): AsyncGenerator<SqlValue[]> {
  for await (const row of rows) if (where === undefined || evaluate(where, row, env) === true) yield row;
}

async function* project(rows: AsyncIterable<SqlValue[]>, q: AnalyzedQuery, env: EvalEnv): AsyncGenerator<SqlValue[]> {
  for await (const row of rows) yield q.projection.map((p) => evaluate(p, row, env));
}

async function* distinct(rows: AsyncIterable<SqlValue[]>, width: number): AsyncGenerator<SqlValue[]> {
  const seen = new Set<string>();
  for await (const row of rows) {
    const key = row.slice(0, width).map(groupKey).join('\u0000');
    if (seen.has(key)) continue;
    seen.add(key);
    yield row;
  }
}

interface Group {
  readonly keys: SqlValue[];
  readonly accumulators: Accumulator[];
  readonly seen: (Set<string> | undefined)[];
}

/** Hash aggregation: one entry per group (in first-seen order), `[group keys..., aggregate results...]`. */
async function* aggregate(rows: AsyncIterable<SqlValue[]>, q: AnalyzedQuery, env: EvalEnv): AsyncGenerator<SqlValue[]> {
  const { groups, aggregates } = q.aggregate!;
  const table = new Map<string, Group>();
  const newGroup = (keys: SqlValue[]): Group => ({
    keys,
    accumulators: aggregates.map((a) => a.fn.create(a.type)),
    seen: aggregates.map((a) => (a.distinct ? new Set<string>() : undefined)),
  });
  for await (const row of rows) {
    const keys = groups.map((g) => evaluate(g, row, env));
    const id = keys.map(groupKey).join('\u0000');
    let group = table.get(id);
    if (group === undefined) {
      group = newGroup(keys);
      table.set(id, group);
    }
    aggregates.forEach((a, i) => {
      const args = a.args.map((x) => evaluate(x, row, env));
      const seen = group.seen[i];
      if (seen !== undefined) {
        if (args[0] === null) return;
        const k = args.map(groupKey).join('\u0000');
        if (seen.has(k)) return;
        seen.add(k);
      }
      group.accumulators[i]!.add(args);
    });
  }
  if (table.size === 0 && groups.length === 0) table.set('', newGroup([]));
  for (const g of table.values()) yield [...g.keys, ...g.accumulators.map((a) => a.result())];
}

/** ORDER BY: a stable sort; with a LIMIT only the first `keep` rows are held (pruned as the input grows). */
async function* sorted(rows: AsyncIterable<SqlValue[]>, order: readonly OrderKey[], keep: number | undefined): AsyncGenerator<SqlValue[]> {
  const cmp = rowComparator(order);
  let buffer: SqlValue[][] = [];
  const prune = (): void => {
    buffer.sort(cmp); // Array.prototype.sort is stable: ties keep scan order.
    if (keep !== undefined && buffer.length > keep) buffer = buffer.slice(0, keep);
  };
  for await (const row of rows) {
    buffer.push(row);
    if (keep !== undefined && buffer.length >= Math.max(2 * keep, 1024)) prune();
  }
  prune();
  yield* buffer;
}
