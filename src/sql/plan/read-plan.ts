import type { ReadRequest } from '../../db/api.js';
import type { RowFilter } from '../../model/filter/index.js';
import type { KeyRange, RowSet } from '../../model/key-range.js';
import type { AnalyzedQuery } from '../analyze/analyze.js';
import { columnsOf } from '../bound/bound.js';

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

export function readFilter(q: AnalyzedQuery, families: readonly number[]): RowFilter {
  const marker: RowFilter = {
    kind: 'chain',
    filters: [{ kind: 'cellsPerRowLimit', limit: 1 }, { kind: 'stripValue' }, { kind: 'applyLabel', label: ROW_MARKER }],
  };
  if (families.length === 0) return marker;
  const latest: RowFilter = { kind: 'cellsPerColumnLimit', limit: 1 };
  if (families.length === q.families.length) return latest;
  const pattern = `^(${families.map((i) => escapeRe2(q.families[i]!.name)).join('|')})$`;
  return {
    kind: 'interleave',
    filters: [{ kind: 'chain', filters: [{ kind: 'familyRegex', pattern }, latest] }, marker],
  };
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

export function readRequest(q: AnalyzedQuery, ranges: readonly KeyRange[], families: readonly number[]): ReadRequest {
  return { rows: rowSetOf(ranges), filter: readFilter(q, families), limit: undefined, reversed: false };
}
