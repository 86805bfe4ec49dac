import type { AnalyzedQuery, OrderKey } from '../analyze/analyze.js';
import type { Accumulator } from '../functions/index.js';
import type { SqlValue } from '../types.js';
import { groupKey, rowComparator } from '../values/compare.js';
import { queryError } from '../values/errors.js';
import type { Checkpoints } from '../engine.js';
import { restrictRanges } from '../plan/key-ranges.js';
import { type ByteString, fromBytes, keySuccessor, toBytes } from '../../model/bytes.js';
import { invalidArgument } from '../../model/errors.js';
import { type EvalEnv, evaluate } from '../bound/evaluate.js';
import { FULL_RANGE, type KeyRange } from '../../model/key-range.js';
import { type QueryDb, type ScanStats, scanRows } from './scan.js';
import { sourceRows } from './sources.js';
import { DEFAULT_SPILL, type RowCompare, type SpillOptions, SpillSorter } from './spill.js';
import { rowSize } from './spill-codec.js';

/**
 * Runs an analyzed query: scan → WHERE → (hash aggregation → HAVING) → projection → DISTINCT → ORDER BY (top-k
 * when there is a small LIMIT) → OFFSET / LIMIT → skip `skipRows` (a resumed stream). Without GROUP BY, DISTINCT
 * and ORDER BY it streams row by row, reading ahead of the consumer not at all. The scan is a table read, or a
 * derived source's rows (exec/sources.ts: a logical view, UNPACK, a materialized view); `restrict` narrows the
 * table read's keys (given by a query that reads this one as its source). ORDER BY, GROUP BY and DISTINCT hold at
 * most `spill.budgetBytes` (estimated) each and spill the rest to temporary files (exec/spill.ts), with the same
 * results in the same order as in memory. A query whose result comes in its table's key order reports scan
 * checkpoints (engine.ts Checkpoints) and resumes after one (`resumeAfterKey`, then `skipRows` counts from there).
 */
export async function* runQuery(
  db: QueryDb,
  q: AnalyzedQuery,
  env: EvalEnv,
  options: {
    readonly skipRows?: number;
    readonly signal?: AbortSignal | undefined;
    readonly restrict?: readonly KeyRange[] | undefined;
    readonly spill?: SpillOptions | undefined;
    readonly resumeAfterKey?: Uint8Array | undefined;
    readonly checkpoint?: Checkpoints | undefined;
  },
  stats: ScanStats,
): AsyncGenerator<SqlValue[]> {
  const spill: Spill = { options: options.spill ?? DEFAULT_SPILL, stats, signal: options.signal };
  const limit = countValue(q.limit, env, 'LIMIT');
  const offset = countValue(q.offset, env, 'OFFSET') ?? 0;
  if (limit === 0) return;
  let restrict = options.restrict;
  if (options.resumeAfterKey !== undefined) {
    if (!checkpoints(q)) throw invalidArgument('resume_token is not one of this query: it does not resume after a key');
    restrict = restrictRanges(restrict ?? [FULL_RANGE], [{ start: keySuccessor(fromBytes(options.resumeAfterKey)), end: undefined }]);
  }
  let index = 0;
  let returned = 0;
  const skip = offset + (options.skipRows ?? 0);
  const scanned =
    options.checkpoint !== undefined && checkpoints(q) ? checkpointer(options.checkpoint, () => (index < skip ? -1 : returned)) : undefined;
  let rows: AsyncIterable<SqlValue[]> =
    q.source === undefined
      ? scanRows(db, q, env, stats, options.signal, restrict, scanned)
      : sourceRows(
          (sub, subEnv, o, s) => runQuery(db, sub, subEnv, { ...o, spill: spill.options }, s),
          q,
          env,
          stats,
          options.signal,
          restrict,
        );
  if (q.unnests.length > 0) rows = unnested(rows, q, env);
  rows = filtered(rows, q.where, env);
  if (q.aggregate !== undefined) rows = filtered(aggregate(rows, q, env, spill), q.having, env);
  rows = project(rows, q, env);
  if (q.distinct) rows = distinct(rows, q.columns.length, spill);
  if (q.order.length > 0) rows = sorted(rows, q.order, limit === undefined ? undefined : limit + offset, spill);
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

/** The query's result comes row by row in its table's key order: its scan can checkpoint (engine.ts Checkpoints). */
function checkpoints(q: AnalyzedQuery): boolean {
  return (
    q.table !== undefined &&
    q.source === undefined &&
    q.aggregate === undefined &&
    !q.distinct &&
    q.order.length === 0 &&
    q.limit === undefined &&
    q.offset === undefined
  );
}

/**
 * The scan's hook that calls `c.reached` after `everyRows` rows or `everyMillis` without a result row; `output()`
 * is the count of rows returned so far, or -1 while released rows are still being skipped (no checkpoint then).
 */
function checkpointer(c: Checkpoints, output: () => number): (key: ByteString) => Promise<void> {
  let seen = -1;
  let quiet = 0;
  let since = Date.now();
  return async (key) => {
    const now = output();
    if (now < 0 || now !== seen) {
      seen = now;
      quiet = 0;
      since = Date.now();
      return;
    }
    quiet++;
    if (quiet < c.everyRows && Date.now() - since < c.everyMillis) return;
    quiet = 0;
    since = Date.now();
    await c.reached(new Uint8Array(toBytes(key)));
  };
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

/** The spill settings of one query's run and where its operators report what they held. */
interface Spill {
  readonly options: SpillOptions;
  readonly stats: ScanStats;
  /** The client went away: an operator whose input ended for that reason does not merge its runs. */
  readonly signal: AbortSignal | undefined;
}

const sorter = (cmp: RowCompare, spill: Spill): SpillSorter => new SpillSorter(cmp, spill.options, spill.stats.spill);

/** Tuples `[id, seq, ...]` by their id (a groupKey string); the sorter's stability keeps equal ids in seq order. */
const byId: RowCompare = (a, b) => {
  const x = a[0] as string;
  const y = b[0] as string;
  return x < y ? -1 : x > y ? 1 : 0;
};

/** Rows `[seq, ...]` by seq. */
const bySeq: RowCompare = (a, b) => {
  const x = a[0] as bigint;
  const y = b[0] as bigint;
  return x < y ? -1 : x > y ? 1 : 0;
};

/**
 * What a hashing operator (GROUP BY, DISTINCT) holds: entries counted against the budget until it is full, then
 * tuples `[id, seq, ...]` of new entries spilled to a sorter by id.
 */
class Holding {
  private held = 0;
  overflow: SpillSorter | undefined;

  constructor(private readonly spill: Spill) {}

  /** New entries must be spilled from now on. */
  get full(): boolean {
    return this.overflow !== undefined || this.held > this.spill.options.budgetBytes;
  }

  hold(bytes: number): void {
    this.held += bytes;
    const stats = this.spill.stats.spill;
    if (this.held > stats.peakHeldBytes) stats.peakHeldBytes = this.held;
  }

  async add(tuple: SqlValue[]): Promise<void> {
    this.overflow ??= sorter(byId, this.spill);
    await this.overflow.add(tuple);
  }

  async close(): Promise<void> {
    await this.overflow?.close();
  }
}

/** A sorter's rows by seq, without the seq. */
async function* inSeqOrder(s: SpillSorter): AsyncGenerator<SqlValue[]> {
  for await (const row of s.sorted()) yield row.slice(1);
}

/**
 * DISTINCT: the first of equal rows, in input order, streaming while the set of keys seen fits the budget. Past it,
 * rows not seen yet go to a spill sorter as `[key, seq, row...]`; at the end the first of each key among them (all
 * first seen after the rows already sent) is sent in seq order, through a second sorter.
 */
async function* distinct(rows: AsyncIterable<SqlValue[]>, width: number, spill: Spill): AsyncGenerator<SqlValue[]> {
  const seen = new Set<string>();
  const holding = new Holding(spill);
  let seq = 0n;
  try {
    for await (const row of rows) {
      seq++;
      const key = row.slice(0, width).map(groupKey).join('\u0000');
      if (seen.has(key)) continue;
      if (holding.full) {
        await holding.add([key, seq, ...row]);
        continue;
      }
      seen.add(key);
      holding.hold(64 + 2 * key.length);
      yield row;
    }
    const overflow = holding.overflow;
    if (overflow === undefined || spill.signal?.aborted === true) return;
    seen.clear();
    const firsts = sorter(bySeq, spill);
    try {
      let last: string | undefined;
      for await (const t of overflow.sorted()) {
        if (t[0] === last) continue;
        last = t[0] as string;
        await firsts.add(t.slice(1));
      }
      yield* inSeqOrder(firsts);
    } finally {
      await firsts.close();
    }
  } finally {
    await holding.close();
  }
}
interface Group {
  /** The seq of the group's first row. */
  readonly first: bigint;
  readonly keys: SqlValue[];
  readonly accumulators: Accumulator[];
  readonly seen: (Set<string> | undefined)[];
}

/** Aggregates whose state holds their inputs. */
const COLLECTING = new Set(['ARRAY_AGG', 'STRING_AGG', 'ARRAY_CONCAT_AGG']);

/**
 * Hash aggregation: one entry per group, `[group keys..., aggregate results...]`, in the order groups are first
 * seen. The table holds groups while their keys, and the inputs that ARRAY_AGG, STRING_AGG, ARRAY_CONCAT_AGG and
 * DISTINCT aggregates keep, fit the budget. Past it, rows are spilled as `[group id, seq, keys..., arguments...]`:
 * the rows of new groups, and when an aggregate keeps its inputs the later rows of the table's groups too (states
 * are not spilled: the accumulators can be neither serialized nor merged, but they can go on taking rows later).
 * At the end the spilled rows are merged by group id; each group in turn takes its spilled rows (a table group
 * after the rows it already took, a new one from scratch), in input order, and its result goes to a sorter by the
 * group's first row, which gives the results in first-seen order.
 */
async function* aggregate(rows: AsyncIterable<SqlValue[]>, q: AnalyzedQuery, env: EvalEnv, spill: Spill): AsyncGenerator<SqlValue[]> {
  const { groups, aggregates } = q.aggregate!;
  const table = new Map<string, Group>();
  const newGroup = (first: bigint, keys: SqlValue[]): Group => ({
    first,
    keys,
    accumulators: aggregates.map((a) => a.fn.create(a.type)),
    seen: aggregates.map((a) => (a.distinct ? new Set<string>() : undefined)),
  });
  const addTo = (group: Group, args: readonly SqlValue[][]): void => {
    aggregates.forEach((a, i) => {
      const values = args[i]!;
      const seen = group.seen[i];
      if (seen !== undefined) {
        if (values[0] === null) return;
        const k = values.map(groupKey).join('\u0000');
        if (seen.has(k)) return;
        seen.add(k);
      }
      group.accumulators[i]!.add(values);
    });
  };
  const result = (g: Group): SqlValue[] => [...g.keys, ...g.accumulators.map((a) => a.result())];
  const holding = new Holding(spill);
  // Aggregates whose state keeps its inputs: their inputs count as held too.
  const keeps = aggregates.map((a) => a.distinct || COLLECTING.has(a.fn.name));
  const collecting = keeps.includes(true);
  const collected = (args: readonly SqlValue[][]): number => args.reduce((n, a, i) => (keeps[i] === true ? n + rowSize(a) : n), 0);
  let seq = 0n;
  try {
    for await (const row of rows) {
      seq++;
      const keys = groups.map((g) => evaluate(g, row, env));
      const id = keys.map(groupKey).join('\u0000');
      const args = aggregates.map((a) => a.args.map((x) => evaluate(x, row, env)));
      let group = table.get(id);
      if (holding.full && table.size > 0 && (group === undefined || collecting)) {
        await holding.add([id, seq, ...keys, ...args.flat()]);
        continue;
      }
      if (group === undefined) {
        group = newGroup(seq, keys);
        table.set(id, group);
        holding.hold(rowSize(keys) + 2 * id.length + 64 * (aggregates.length + 1));
      }
      addTo(group, args);
      if (collecting) holding.hold(collected(args));
    }
    if (table.size === 0 && groups.length === 0) table.set('', newGroup(0n, []));
    const overflow = holding.overflow;
    if (overflow === undefined) {
      for (const g of table.values()) yield result(g);
      return;
    }
    if (spill.signal?.aborted === true) return;
    const results = sorter(bySeq, spill);
    try {
      let current: { id: string; group: Group } | undefined;
      const finish = async (): Promise<void> => {
        if (current !== undefined) await results.add([current.group.first, ...result(current.group)]);
      };
      for await (const t of overflow.sorted()) {
        const id = t[0] as string;
        if (current?.id !== id) {
          await finish();
          const held = table.get(id);
          table.delete(id);
          current = { id, group: held ?? newGroup(t[1] as bigint, t.slice(2, 2 + groups.length)) };
        }
        let at = 2 + groups.length;
        addTo(
          current.group,
          aggregates.map((a) => t.slice(at, (at += a.args.length))),
        );
      }
      await finish();
      for (const g of table.values()) await results.add([g.first, ...result(g)]);
      table.clear();
      yield* inSeqOrder(results);
    } finally {
      await results.close();
    }
  } finally {
    await holding.close();
  }
}

/** A LIMIT up to this many rows is sorted in memory (top-k); a larger one, or none, spills past the budget. */
const TOP_K_ROWS = 10_000;

/**
 * ORDER BY: a stable sort; with a small LIMIT only the first `keep` rows are held (pruned as the input grows),
 * otherwise through a spill sorter (exec/spill.ts: stable too).
 */
async function* sorted(
  rows: AsyncIterable<SqlValue[]>,
  order: readonly OrderKey[],
  keep: number | undefined,
  spill: Spill,
): AsyncGenerator<SqlValue[]> {
  const cmp = rowComparator(order);
  if (keep === undefined || keep > TOP_K_ROWS) {
    const s = sorter(cmp, spill);
    try {
      for await (const row of rows) {
        const spilling = s.add(row);
        if (spilling !== undefined) await spilling;
      }
      if (spill.signal?.aborted === true) return;
      const memory = s.inMemory();
      if (memory !== undefined) yield* memory;
      else yield* s.sorted();
    } finally {
      await s.close();
    }
    return;
  }
  let buffer: SqlValue[][] = [];
  const prune = (): void => {
    buffer.sort(cmp); // Array.prototype.sort is stable: ties keep scan order.
    if (buffer.length > keep) buffer = buffer.slice(0, keep);
  };
  for await (const row of rows) {
    buffer.push(row);
    if (buffer.length >= Math.max(2 * keep, 1024)) prune();
  }
  prune();
  yield* buffer;
}
