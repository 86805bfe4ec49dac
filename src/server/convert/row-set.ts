import { type ByteString, fromBytes } from '../../model/bytes.js';
import type { RangeBound, RowRange, RowSet } from '../../model/key-range.js';
import type { PRowRange, PRowSet } from './proto-types.js';

const UNBOUNDED: RangeBound = Object.freeze({ kind: 'unbounded' });

/**
 * A RowRange. An empty end key means "to the end of the table", as the
 * official clients and Cloud Bigtable treat it; an empty start key (closed or
 * absent) is the beginning of the table.
 */
export function rowRangeFromProto(r: PRowRange): RowRange {
  let start: RangeBound = UNBOUNDED;
  if (r.startKeyClosed != null) start = { kind: 'closed', key: fromBytes(r.startKeyClosed) };
  else if (r.startKeyOpen != null) start = { kind: 'open', key: fromBytes(r.startKeyOpen) };
  let end: RangeBound = UNBOUNDED;
  if (r.endKeyOpen != null && r.endKeyOpen.length > 0) end = { kind: 'open', key: fromBytes(r.endKeyOpen) };
  else if (r.endKeyClosed != null && r.endKeyClosed.length > 0) end = { kind: 'closed', key: fromBytes(r.endKeyClosed) };
  return { start, end };
}

/** A RowSet; absent means every row. */
export function rowSetFromProto(set: PRowSet | null | undefined): RowSet {
  if (set == null) return { keys: [], ranges: [] };
  const keys: ByteString[] = [];
  for (const k of set.rowKeys ?? []) keys.push(fromBytes(k));
  const ranges: RowRange[] = [];
  for (const r of set.rowRanges ?? []) ranges.push(rowRangeFromProto(r));
  return { keys, ranges };
}
