import type { KeyRange } from '../../model/key-range.js';
import type { AnalyzedQuery } from '../analyze/analyze.js';
import type { UnpackColumn } from '../analyze/sources.js';
import type { EvalEnv } from '../bound/evaluate.js';
import { keyRanges, restrictRanges } from '../plan/key-ranges.js';
import { SqlMap, SqlStruct, SqlTimestamp, type SqlValue } from '../types.js';
import { type ScanStats, newScanStats } from './scan.js';

/** Runs an analyzed query (run-query.ts's runQuery, passed in so that the modules do not import each other). */
export type RunQuery = (
  q: AnalyzedQuery,
  env: EvalEnv,
  options: { readonly signal?: AbortSignal | undefined; readonly restrict?: readonly KeyRange[] | undefined },
  stats: ScanStats,
) => AsyncIterable<SqlValue[]>;

/**
 * The scan rows of a query over a derived source (q.source): a logical view's or UNPACK's subquery run to its
 * result rows (UNPACK then flattens each into one row per timestamp), or a materialized view's rows. Rows the
 * storage examined underneath count as this query's rows scanned. When the source passes the table's key through
 * (q.keySlot), this query's key predicates narrow the subquery's read.
 */
export async function* sourceRows(
  run: RunQuery,
  q: AnalyzedQuery,
  env: EvalEnv,
  stats: ScanStats,
  signal: AbortSignal | undefined,
  restrict: readonly KeyRange[] | undefined,
): AsyncGenerator<SqlValue[]> {
  const source = q.source!;
  let ranges = restrict;
  if (q.keySlot !== undefined) {
    const own = keyRanges(q.where, env, q.keySlot);
    ranges = ranges === undefined ? own : restrictRanges(ranges, own);
  }
  if (source.kind === 'materialized') {
    for await (const row of source.view.rows(signal, ranges)) {
      stats.rowsScanned++;
      yield [...row];
      if (signal?.aborted === true) return;
    }
    return;
  }
  const inner = newScanStats(stats.spill);
  try {
    for await (const row of run(source.query, env, { signal, restrict: ranges }, inner)) {
      stats.rowsScanned = inner.rowsScanned;
      if (source.kind === 'view') yield row;
      else yield* unpackRow(row, source.columns);
    }
  } finally {
    stats.rowsScanned = inner.rowsScanned;
  }
}

/** The micros of a timestamped value's element (`STRUCT<timestamp, value>`). */
const stampOf = (element: SqlValue): bigint => ((element as SqlStruct).values[0] as SqlTimestamp).micros;

/**
 * UNPACK of one row: one row per distinct timestamp among its timestamped values, newest first, with each map
 * holding the entries that have a cell at that timestamp, each timestamped array the value at it (else NULL), the
 * other columns copied, and `_timestamp` last. A row without timestamped values gives none.
 */
export function* unpackRow(row: readonly SqlValue[], kinds: readonly UnpackColumn[]): Generator<SqlValue[]> {
  const stamps = new Set<bigint>();
  kinds.forEach((kind, i) => {
    const v = row[i] ?? null;
    if (v === null || kind === 'keep') return;
    const arrays = kind === 'map' ? (v as SqlMap).entries.map(([, a]) => a) : [v];
    for (const a of arrays)
      if (a !== null) for (const element of a as readonly SqlValue[]) if (element !== null) stamps.add(stampOf(element));
  });
  const valueAt = (history: SqlValue, micros: bigint): SqlValue | undefined => {
    if (history === null) return undefined;
    const hit = (history as readonly SqlValue[]).find((e) => e !== null && stampOf(e) === micros);
    return hit === undefined ? undefined : (hit as SqlStruct).values[1]!;
  };
  for (const micros of [...stamps].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0))) {
    const out = kinds.map((kind, i): SqlValue => {
      const v = row[i] ?? null;
      if (kind === 'keep' || v === null) return v;
      if (kind === 'array') return valueAt(v, micros) ?? null;
      return new SqlMap(
        (v as SqlMap).entries.flatMap(([k, history]): (readonly [SqlValue, SqlValue])[] => {
          const value = valueAt(history, micros);
          return value === undefined ? [] : [[k, value]];
        }),
      );
    });
    out.push(new SqlTimestamp(micros));
    yield out;
  }
}
