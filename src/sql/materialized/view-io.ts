import { type ByteString, fromUtf8, toBytes, toUtf8 } from '../../model/bytes.js';
import type { Row } from '../../model/cell.js';
import type { RowFilter } from '../../model/filter/index.js';
import { FULL_RANGE, type KeyRange, pointRange } from '../../model/key-range.js';
import type { RowMutation } from '../../model/mutation.js';
import type { TableName } from '../../model/names.js';
import { scanRow } from '../exec/scan.js';
import { LATEST_CELL, readRequest, rowSetOf } from '../plan/read-plan.js';
import type { SqlValue } from '../types.js';
import { fromCellBytes } from './codec.js';
import { DATA_FAMILY, type LiveView, type ViewsIoDb } from './live-view.js';

/** Reading and writing a view's tables and its source rows. */

export async function readCell(db: ViewsIoDb, table: TableName, key: ByteString): Promise<string | undefined> {
  const row = await readOne(db, table, key);
  const cell = row?.cells[0];
  return cell === undefined ? undefined : Buffer.from(cell.value).toString('utf8');
}

export async function readOne(db: ViewsIoDb, table: TableName, key: ByteString): Promise<Row | undefined> {
  const reader = db.readRows(table, { rows: { keys: [key], ranges: [] }, filter: undefined, limit: undefined, reversed: false });
  try {
    return await reader.next();
  } finally {
    reader.close();
  }
}

export async function* scan(
  db: ViewsIoDb,
  table: TableName,
  range: KeyRange | readonly KeyRange[],
  v?: LiveView,
  filter?: RowFilter,
): AsyncGenerator<Row> {
  const ranges = Array.isArray(range) ? (range as readonly KeyRange[]) : [range as KeyRange];
  const request =
    v === undefined
      ? { rows: rowSetOf(ranges), filter, limit: undefined, reversed: false }
      : readRequest(v.def.analyzed, ranges, v.def.families, LATEST_CELL);
  const reader = db.readRows(table, request);
  try {
    for (;;) {
      let row = reader.next();
      if (row instanceof Promise) row = await row;
      if (row === undefined) return;
      yield row;
    }
  } finally {
    reader.close();
  }
}

/** The source rows that exist of `keys` (sorted), as the query sees them (`[_key, family maps...]`). */
export async function sourceRows(db: ViewsIoDb, v: LiveView, keys: readonly ByteString[]): Promise<Map<ByteString, SqlValue[]>> {
  const out = new Map<ByteString, SqlValue[]>();
  for await (const row of scan(db, v.def.source, keys.map(pointRange), v)) out.set(row.key, scanValues(v, row));
  return out;
}

/** The first cell's text of each of these rows that exists. */
export async function cells(db: ViewsIoDb, table: TableName, keys: readonly ByteString[]): Promise<Map<ByteString, string>> {
  const out = new Map<ByteString, string>();
  if (keys.length === 0) return out;
  const reader = db.readRows(table, { rows: { keys: [...keys], ranges: [] }, filter: undefined, limit: undefined, reversed: false });
  try {
    for (;;) {
      let row = reader.next();
      if (row instanceof Promise) row = await row;
      if (row === undefined) return out;
      const cell = row.cells[0];
      if (cell !== undefined) out.set(row.key, Buffer.from(cell.value).toString('utf8'));
    }
  } finally {
    reader.close();
  }
}

export function scanValues(v: LiveView, row: Row): SqlValue[] {
  return scanRow(row, v.def.analyzed, v.def.families, v.slotOf, false);
}

export async function write(db: ViewsIoDb, table: TableName, entries: readonly RowMutation[]): Promise<void> {
  if (entries.length === 0) return;
  const results = await db.mutateRows(table, entries);
  const failed = results.find((r) => r !== undefined);
  if (failed !== undefined) throw failed;
}

export async function* viewRows(
  db: ViewsIoDb,
  v: LiveView,
  signal: AbortSignal | undefined,
  ranges: readonly KeyRange[] = [FULL_RANGE],
): AsyncGenerator<readonly SqlValue[]> {
  if (ranges.length === 0) return;
  const slot = new Map(v.def.columns.map((c, j) => [fromUtf8(c.name), j]));
  for await (const row of scan(db, v.data, ranges)) {
    if (signal?.aborted === true) return;
    const out: SqlValue[] = v.def.columns.map(() => null);
    if (v.def.rawKey) {
      const key = new Uint8Array(toBytes(row.key));
      out[0] = v.def.columns[0]!.type.kind === 'STRING' ? toUtf8(row.key) : key;
    }
    for (const cell of row.cells) {
      const j = slot.get(cell.qualifier);
      if (j !== undefined && cell.family === DATA_FAMILY) out[j] = fromCellBytes(cell.value, v.def.columns[j]!.type);
    }
    yield out;
  }
}
