import type { ReadRequest } from '../../db/api.js';
import type { RowFilter } from '../../model/filter/index.js';
import type { KeyRange, RowSet } from '../../model/key-range.js';
import type { AnalyzedQuery } from '../analyze/analyze.js';
import { type Bound, columnsOf } from '../bound/bound.js';
import { type EvalEnv, evaluate } from '../bound/evaluate.js';
import { SqlTimestamp } from '../types.js';
import { queryError } from '../values/errors.js';

/**
 * What the executor asks the db for: the row ranges (from the key predicates) and a filter that reads only the
 * families the query uses, the latest cell per column. A row must still be seen when none of its cells is in
 * those families (a row with an empty family is a row with an empty map), so the filter interleaves one marker
 * cell per row (value stripped, labelled ROW_MARKER) that the executor drops.
 */

export const ROW_MARKER = 'sql-row';

/** Scan slots the query reads (0 is `_key`, i is family i-1). */
export function scanSlots(q: AnalyzedQuery): Set<number> {
  const used = new Set<number>();
  const all = [
    q.where,
    ...q.unnests.map((u) => u.array),
    ...(q.aggregate === undefined ? q.projection : [...q.aggregate.groups, ...q.aggregate.aggregates.flatMap((a) => a.args)]),
  ];
  for (const b of all) if (b !== undefined) columnsOf(b, used);
  return used;
}

/** The families to read, by index in the table's families. */
export function familiesRead(q: AnalyzedQuery): number[] {
  const slots = scanSlots(q);
  return q.families.flatMap((_f, i) => (slots.has(i + 1) ? [i] : []));
}

function escapeRe2(name: string): string {
  return name.replace(/[\\^$.|?*+()[\]{}-]/g, (c) => `\\${c}`);
}

/** Which versions of each column to read: a time window `[start, end)` in microseconds and a per-column limit. */
export interface CellWindow {
  readonly start: number;
  /** Exclusive; undefined is unbounded. */
  readonly end: number | undefined;
  /** Versions per column (newest first); undefined reads every version in the window. */
  readonly perColumn: number | undefined;
}

export const LATEST_CELL: CellWindow = { start: 0, end: undefined, perColumn: 1 };

const ceilMillis = (micros: bigint): number => Number(micros <= 0n ? 0n : ((micros + 999n) / 1000n) * 1000n);

/**
 * The window of a temporal read (cells carry millisecond timestamps, so bounds round up to whole milliseconds
 * without changing which cells match); the latest cell per column otherwise.
 */
export function cellWindow(q: AnalyzedQuery, env: EvalEnv): CellWindow {
  const t = q.temporal;
  if (t === undefined) return LATEST_CELL;
  const micros = (b: Bound | undefined): bigint | undefined => {
    if (b === undefined) return undefined;
    const v = evaluate(b, [], env);
    if (!(v instanceof SqlTimestamp)) throw queryError(undefined, 'A time bound of the table is NULL');
    return v.micros;
  };
  if (!t.history) {
    const asOf = micros(t.asOf);
    return asOf === undefined ? LATEST_CELL : { start: 0, end: ceilMillis(asOf + 1n), perColumn: 1 };
  }
  const after = micros(t.after);
  const afterOrEqual = micros(t.afterOrEqual);
  const before = micros(t.before);
  const beforeOrEqual = micros(t.beforeOrEqual);
  const start = after !== undefined ? ceilMillis(after + 1n) : afterOrEqual !== undefined ? ceilMillis(afterOrEqual) : 0;
  const end = before !== undefined ? ceilMillis(before) : beforeOrEqual !== undefined ? ceilMillis(beforeOrEqual + 1n) : undefined;
  let perColumn: number | undefined;
  if (t.latestN !== undefined) {
    const n = evaluate(t.latestN, [], env);
    if (typeof n !== 'bigint' || n < 1n) throw queryError(undefined, 'latest_n must be at least 1');
    perColumn = n > 1000000n ? 1000000 : Number(n);
  }
  return { start, end, perColumn };
}

export function readFilter(q: AnalyzedQuery, families: readonly number[], window: CellWindow = LATEST_CELL): RowFilter {
  const marker: RowFilter = {
    kind: 'chain',
    filters: [{ kind: 'cellsPerRowLimit', limit: 1 }, { kind: 'stripValue' }, { kind: 'applyLabel', label: ROW_MARKER }],
  };
  if (families.length === 0) return marker;
  const some = families.length < q.families.length;
  const ranged = window.start > 0 || window.end !== undefined;
  if (window.end !== undefined && (window.end === 0 || window.end <= window.start)) return marker;
  const parts: RowFilter[] = [];
  if (some) parts.push({ kind: 'familyRegex', pattern: `^(${families.map((i) => escapeRe2(q.families[i]!.name)).join('|')})$` });
  if (ranged) parts.push({ kind: 'timestampRange', start: window.start, end: window.end });
  if (window.perColumn !== undefined) parts.push({ kind: 'cellsPerColumnLimit', limit: window.perColumn });
  const cells: RowFilter = parts.length === 0 ? { kind: 'passAll' } : parts.length === 1 ? parts[0]! : { kind: 'chain', filters: parts };
  // A row must appear even when the filter leaves none of its cells (its maps are then empty).
  return some || ranged ? { kind: 'interleave', filters: [cells, marker] } : cells;
}

export function rowSetOf(ranges: readonly KeyRange[]): RowSet {
  return {
    keys: [],
    ranges: ranges.map((r) => ({
      start: { kind: 'closed', key: r.start },
      end: r.end === undefined ? { kind: 'unbounded' } : { kind: 'open', key: r.end },
    })),
  };
}

export function readRequest(q: AnalyzedQuery, ranges: readonly KeyRange[], families: readonly number[], window: CellWindow): ReadRequest {
  return { rows: rowSetOf(ranges), filter: readFilter(q, families, window), limit: undefined, reversed: false };
}
