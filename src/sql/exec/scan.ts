import type { DatabaseCore } from '../../db/api.js';
import type { Row } from '../../model/cell.js';
import { type ByteString, toBytes } from '../../model/bytes.js';
import type { AnalyzedQuery } from '../analyze/analyze.js';
import { cellWindow, familiesRead, readRequest, ROW_MARKER } from '../plan/read-plan.js';
import { keyRanges, restrictRanges } from '../plan/key-ranges.js';
import type { KeyRange } from '../../model/key-range.js';
import { SqlMap, SqlStruct, SqlTimestamp, type SqlValue } from '../types.js';
import { evalError } from '../values/errors.js';
import type { EvalEnv } from '../bound/evaluate.js';
import type { SpillStats } from './spill.js';

/** The part of the db a query reads through. */
export type QueryDb = Pick<DatabaseCore, 'getTable' | 'readRows'>;

export interface ScanStats {
  rowsScanned: number;
  rowsReturned: number;
  /** What ORDER BY, GROUP BY and DISTINCT held and spilled (shared with the queries this one reads through). */
  readonly spill: SpillStats;
}

export function newScanStats(spill: SpillStats = { peakHeldBytes: 0, spilledRuns: 0 }): ScanStats {
  return { rowsScanned: 0, rowsReturned: 0, spill };
}

/**
 * The scan rows of a query: `[_key, family maps...]` in key order, read lazily through db.readRows over the
 * planned ranges (families the query does not read are left NULL), within `restrict` when a query reading this
 * one through a view or UNPACK narrowed the keys. A query without FROM has one empty row. `scanned` hears each
 * row's key once the consumer asks for the next row.
 */
export async function* scanRows(
  db: QueryDb,
  q: AnalyzedQuery,
  env: EvalEnv,
  stats: ScanStats,
  signal: AbortSignal | undefined,
  restrict?: readonly KeyRange[],
  scanned?: (key: ByteString) => Promise<void>,
): AsyncGenerator<SqlValue[]> {
  if (q.table === undefined) {
    yield [];
    return;
  }
  let ranges = keyRanges(q.where, env);
  if (restrict !== undefined) ranges = restrictRanges(ranges, restrict);
  if (ranges.length === 0) return;
  const families = familiesRead(q);
  const reader = db.readRows(q.table.name, readRequest(q, ranges, families, cellWindow(q, env)));
  const history = q.temporal?.history === true;
  const slotOf = new Map(families.map((i) => [q.families[i]!.name, i + 1]));
  try {
    for await (const row of reader) {
      stats.rowsScanned = reader.stats.rowsSeen;
      if (signal?.aborted === true) return;
      yield scanRow(row, q, families, slotOf, history);
      // Asked for the next row: everything this row produced has been consumed.
      if (scanned !== undefined) await scanned(row.key);
    }
  } finally {
    stats.rowsScanned = reader.stats.rowsSeen;
    reader.close();
  }
}

export function scanRow(
  row: Row,
  q: AnalyzedQuery,
  families: readonly number[],
  slotOf: ReadonlyMap<string, number>,
  history: boolean,
): SqlValue[] {
  const values: SqlValue[] = new Array<SqlValue>(q.families.length + 1).fill(null);
  values[0] = new Uint8Array(toBytes(row.key));
  const entries = new Map<number, [SqlValue, SqlValue][]>(families.map((i) => [i + 1, []]));
  let lastFamily = '';
  let lastQualifier: string | undefined;
  let versions: SqlValue[] = [];
  for (const cell of row.cells) {
    if (cell.labels.includes(ROW_MARKER)) continue;
    const slot = slotOf.get(cell.family);
    if (slot === undefined) continue;
    const value = q.families[slot - 1]!.decode === 'int64' ? int64Of(cell.value) : cell.value;
    const sameColumn = cell.family === lastFamily && cell.qualifier === lastQualifier;
    if (sameColumn) {
      // An older version: kept only with history (cells come newest first).
      if (history) versions.push(new SqlStruct([new SqlTimestamp(BigInt(cell.timestamp)), value]));
      continue;
    }
    lastFamily = cell.family;
    lastQualifier = cell.qualifier;
    if (history) {
      versions = [new SqlStruct([new SqlTimestamp(BigInt(cell.timestamp)), value])];
      entries.get(slot)!.push([new Uint8Array(toBytes(cell.qualifier)), versions]);
    } else entries.get(slot)!.push([new Uint8Array(toBytes(cell.qualifier)), value]);
  }
  for (const [slot, list] of entries) values[slot] = new SqlMap(list);
  return values;
}

function int64Of(b: Uint8Array): bigint {
  if (b.byteLength !== 8) throw evalError(`An aggregate cell holds ${b.byteLength} bytes, not an 8-byte INT64`);
  return new DataView(b.buffer, b.byteOffset, 8).getBigInt64(0);
}
