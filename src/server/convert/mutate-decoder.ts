import type { ByteString } from '../../model/bytes.js';
import { TabletopError, invalidArgument, isTabletopError } from '../../model/errors.js';
import type { Mutation } from '../../model/mutation.js';
import { NULL_VALUE, type WireValue, aggregateMutation } from './aggregate-value.js';
import {
  type Reader,
  WIRE_LEN,
  WIRE_VARINT,
  WireError,
  copyOut,
  createReader,
  latin1,
  readInt64BigInt,
  readInt64Number,
  readKey,
  readLengthEnd,
  skipField,
  utf8,
} from './wire.js';

/**
 * Hand-written request decoders for the write hot path: MutateRowsRequest and
 * MutateRowRequest bytes → model mutations, without building protobuf objects.
 * Plugged in as `requestDeserialize` of those methods.
 *
 * Grammar (field numbers; unknown fields and fields with an unexpected wire type are skipped):
 *   MutateRowsRequest := table_name(1) string | entries(2) Entry* | app_profile_id(3) string
 *                      | authorized_view_name(5) string
 *   Entry             := row_key(1) bytes | mutations(2) Mutation* | idempotency(3)
 *   MutateRowRequest  := table_name(1) | row_key(2) bytes | mutations(3) Mutation* | app_profile_id(4)
 *                      | authorized_view_name(6) | idempotency(8)
 *   Mutation          := set_cell(1) | delete_from_column(2) | delete_from_family(3)
 *                      | delete_from_row(4) | add_to_cell(5) | merge_to_cell(6)    (a oneof: last wins)
 *   SetCell           := family_name(1) string | column_qualifier(2) bytes | timestamp_micros(3) int64 | value(4) bytes
 *   DeleteFromColumn  := family_name(1) | column_qualifier(2) | time_range(3) TimestampRange
 *   TimestampRange    := start_timestamp_micros(1) int64 | end_timestamp_micros(2) int64
 *   DeleteFromFamily  := family_name(1)
 *   AddToCell, MergeToCell := family_name(1) | column_qualifier(2) Value | timestamp(3) Value | input(4) Value
 *   Value             := raw_value(8) bytes | raw_timestamp_micros(9) int64 | bytes_value(2) | int_value(6)
 *                      | other kinds (3, 4, 10, 11, 12, 13): recorded as unsupported; type(7) skipped
 *
 * Decoding never throws: wire-format violations become `error` on the result
 * (the handler rejects the request with InvalidArgument), and a semantically
 * invalid mutation (no kind set, int64 out of range, wrong Value kind) becomes
 * the error of its entry only. Keys and qualifiers are Latin-1 byte strings;
 * values are copied out of the request buffer.
 */

export interface DecodedEntry {
  readonly key: ByteString;
  /** The entry's mutations, minus aggregate mutations with a NULL input (which have no effect). */
  readonly mutations: Mutation[];
  /** How many mutations the entry carried on the wire. */
  readonly sent: number;
  /** Why this entry cannot be applied, if it cannot. */
  readonly error: TabletopError | undefined;
}

export interface DecodedMutateRows {
  readonly tableName: string;
  readonly authorizedViewName: string;
  readonly appProfileId: string;
  readonly entries: DecodedEntry[];
  /** Mutations over all entries as sent (for the request-wide limit). */
  readonly mutationCount: number;
  /** Set when the bytes are not a valid message: the whole request fails with it. */
  readonly error: TabletopError | undefined;
}

export interface DecodedMutateRow extends DecodedEntry {
  readonly tableName: string;
  readonly authorizedViewName: string;
  readonly appProfileId: string;
}

export function decodeMutateRowsRequest(buf: Uint8Array): DecodedMutateRows {
  let tableName = '';
  let authorizedViewName = '';
  let appProfileId = '';
  const entries: DecodedEntry[] = [];
  let mutationCount = 0;
  try {
    const r = createReader(buf);
    while (r.pos < r.len) {
      const key = readKey(r);
      switch (key) {
        case (1 << 3) | WIRE_LEN:
          tableName = readString(r);
          break;
        case (2 << 3) | WIRE_LEN: {
          const end = readLengthEnd(r);
          const entry = decodeEntry(r, end, 1, 2);
          mutationCount += entry.sent;
          entries.push(entry);
          break;
        }
        case (3 << 3) | WIRE_LEN:
          appProfileId = readString(r);
          break;
        case (5 << 3) | WIRE_LEN:
          authorizedViewName = readString(r);
          break;
        default:
          skipField(r, key);
      }
    }
  } catch (e) {
    return { tableName, authorizedViewName, appProfileId, entries, mutationCount, error: malformed('MutateRowsRequest', e) };
  }
  return { tableName, authorizedViewName, appProfileId, entries, mutationCount, error: undefined };
}

export function decodeMutateRowRequest(buf: Uint8Array): DecodedMutateRow {
  let tableName = '';
  let authorizedViewName = '';
  let appProfileId = '';
  let entry: DecodedEntry = { key: '', mutations: [], sent: 0, error: undefined };
  try {
    const r = createReader(buf);
    // The row's own fields are interleaved with the request's; decode the entry part in one pass.
    const mutations: Mutation[] = [];
    let key = '';
    let sent = 0;
    let error: TabletopError | undefined;
    while (r.pos < r.len) {
      const k = readKey(r);
      switch (k) {
        case (1 << 3) | WIRE_LEN:
          tableName = readString(r);
          break;
        case (2 << 3) | WIRE_LEN:
          key = readBytesLatin1(r);
          break;
        case (3 << 3) | WIRE_LEN: {
          const end = readLengthEnd(r);
          sent++;
          error = decodeMutationInto(r, end, mutations, error);
          break;
        }
        case (4 << 3) | WIRE_LEN:
          appProfileId = readString(r);
          break;
        case (6 << 3) | WIRE_LEN:
          authorizedViewName = readString(r);
          break;
        default:
          skipField(r, k);
      }
    }
    entry = { key, mutations, sent, error };
  } catch (e) {
    return { tableName, authorizedViewName, appProfileId, ...entry, error: malformed('MutateRowRequest', e) };
  }
  return { tableName, authorizedViewName, appProfileId, ...entry };
}

function malformed(what: string, e: unknown): TabletopError {
  if (isTabletopError(e)) return e;
  const reason = e instanceof Error ? e.message : String(e);
  return invalidArgument(`Malformed ${what}: ${reason}`);
}

/** An entry (or the row part of a MutateRowRequest) between r.pos and end. */
function decodeEntry(r: Reader, end: number, keyField: number, mutationsField: number): DecodedEntry {
  let key = '';
  const mutations: Mutation[] = [];
  let sent = 0;
  let error: TabletopError | undefined;
  const keyTag = (keyField << 3) | WIRE_LEN;
  const mutationTag = (mutationsField << 3) | WIRE_LEN;
  while (r.pos < end) {
    const k = readKey(r);
    if (k === keyTag) {
      key = readBytesLatin1(r);
    } else if (k === mutationTag) {
      const mEnd = readLengthEnd(r);
      sent++;
      error = decodeMutationInto(r, mEnd, mutations, error);
    } else {
      skipField(r, k);
    }
  }
  if (r.pos !== end) throw new WireError('sub-message overruns its length');
  return { key, mutations, sent, error };
}

/**
 * Decodes one Mutation in [r.pos, end) and appends it. A semantic problem is
 * returned as the entry's (first) error and the rest of the mutation skipped.
 */
function decodeMutationInto(r: Reader, end: number, out: Mutation[], error: TabletopError | undefined): TabletopError | undefined {
  try {
    const m = decodeMutation(r, end);
    if (m !== undefined) out.push(m);
    return error;
  } catch (e) {
    if (!isTabletopError(e)) throw e;
    r.pos = end;
    return error ?? e;
  }
}

const enum Kind {
  None,
  SetCell,
  DeleteFromColumn,
  DeleteFromFamily,
  DeleteFromRow,
  AddToCell,
  MergeToCell,
}

function decodeMutation(r: Reader, end: number): Mutation | undefined {
  let kind = Kind.None;
  let start = 0;
  let stop = 0;
  // Oneof: the last member on the wire wins; remember where it is and decode it at the end.
  while (r.pos < end) {
    const k = readKey(r);
    const field = k >>> 3;
    if ((k & 7) === WIRE_LEN && field >= 1 && field <= 6) {
      stop = readLengthEnd(r);
      start = r.pos;
      r.pos = stop;
      kind = field === 1 ? Kind.SetCell : field === 2 ? Kind.DeleteFromColumn : field === 3 ? Kind.DeleteFromFamily : field === 4 ? Kind.DeleteFromRow : field === 5 ? Kind.AddToCell : Kind.MergeToCell;
    } else {
      skipField(r, k);
    }
  }
  if (r.pos !== end) throw new WireError('Mutation overruns its length');
  const after = r.pos;
  r.pos = start;
  let m: Mutation | undefined;
  switch (kind) {
    case Kind.SetCell:
      m = decodeSetCell(r, stop);
      break;
    case Kind.DeleteFromColumn:
      m = decodeDeleteFromColumn(r, stop);
      break;
    case Kind.DeleteFromFamily:
      m = { kind: 'deleteFromFamily', family: decodeFamilyOnly(r, stop) };
      break;
    case Kind.DeleteFromRow:
      while (r.pos < stop) skipField(r, readKey(r));
      m = DELETE_FROM_ROW;
      break;
    case Kind.AddToCell:
      m = decodeAggregate(r, stop, 'addToCell');
      break;
    case Kind.MergeToCell:
      m = decodeAggregate(r, stop, 'mergeToCell');
      break;
    case Kind.None:
      throw invalidArgument('Mutation has no mutation set: exactly one of set_cell, add_to_cell, merge_to_cell, delete_from_column, delete_from_family, delete_from_row must be set');
  }
  r.pos = after;
  return m;
}

const DELETE_FROM_ROW: Mutation = Object.freeze({ kind: 'deleteFromRow' });
const EMPTY = Buffer.alloc(0);

function decodeSetCell(r: Reader, end: number): Mutation {
  let family = '';
  let qualifier = '';
  let timestamp = 0;
  let value: Uint8Array = EMPTY;
  while (r.pos < end) {
    const k = readKey(r);
    switch (k) {
      case (1 << 3) | WIRE_LEN:
        family = readString(r);
        break;
      case (2 << 3) | WIRE_LEN:
        qualifier = readBytesLatin1(r);
        break;
      case (3 << 3) | WIRE_VARINT:
        timestamp = checkedInt64(r, 'SetCell.timestamp_micros');
        break;
      case (4 << 3) | WIRE_LEN: {
        const e = readLengthEnd(r);
        value = copyOut(r.buf, r.pos, e);
        r.pos = e;
        break;
      }
      default:
        skipField(r, k);
    }
  }
  return { kind: 'setCell', family, qualifier, timestamp, value };
}

function decodeDeleteFromColumn(r: Reader, end: number): Mutation {
  let family = '';
  let qualifier = '';
  let start = 0;
  let stop = 0;
  while (r.pos < end) {
    const k = readKey(r);
    switch (k) {
      case (1 << 3) | WIRE_LEN:
        family = readString(r);
        break;
      case (2 << 3) | WIRE_LEN:
        qualifier = readBytesLatin1(r);
        break;
      case (3 << 3) | WIRE_LEN: {
        const e = readLengthEnd(r);
        // A repeated sub-message replaces the earlier one (as protobufjs decodes it).
        start = 0;
        stop = 0;
        while (r.pos < e) {
          const kk = readKey(r);
          if (kk === ((1 << 3) | WIRE_VARINT)) start = checkedInt64(r, 'DeleteFromColumn.time_range.start_timestamp_micros');
          else if (kk === ((2 << 3) | WIRE_VARINT)) stop = checkedInt64(r, 'DeleteFromColumn.time_range.end_timestamp_micros');
          else skipField(r, kk);
        }
        break;
      }
      default:
        skipField(r, k);
    }
  }
  return { kind: 'deleteFromColumn', family, qualifier, start, end: stop === 0 ? undefined : stop };
}

function decodeFamilyOnly(r: Reader, end: number): string {
  let family = '';
  while (r.pos < end) {
    const k = readKey(r);
    if (k === ((1 << 3) | WIRE_LEN)) family = readString(r);
    else skipField(r, k);
  }
  return family;
}

function decodeAggregate(r: Reader, end: number, op: 'addToCell' | 'mergeToCell'): Mutation | undefined {
  let family = '';
  let qualifier: WireValue = NULL_VALUE;
  let timestamp: WireValue = NULL_VALUE;
  let input: WireValue = NULL_VALUE;
  while (r.pos < end) {
    const k = readKey(r);
    switch (k) {
      case (1 << 3) | WIRE_LEN:
        family = readString(r);
        break;
      case (2 << 3) | WIRE_LEN:
        qualifier = decodeValue(r, readLengthEnd(r));
        break;
      case (3 << 3) | WIRE_LEN:
        timestamp = decodeValue(r, readLengthEnd(r));
        break;
      case (4 << 3) | WIRE_LEN:
        input = decodeValue(r, readLengthEnd(r));
        break;
      default:
        skipField(r, k);
    }
  }
  return aggregateMutation(op, family, qualifier, timestamp, input);
}

const OTHER_VALUE_FIELDS: Readonly<Record<number, string>> = {
  3: 'string_value',
  4: 'array_value',
  10: 'bool_value',
  11: 'float_value',
  12: 'timestamp_value',
  13: 'date_value',
};

/** A google.bigtable.v2.Value in [r.pos, end): its `kind` oneof (last member wins). */
function decodeValue(r: Reader, end: number): WireValue {
  let v: WireValue = NULL_VALUE;
  while (r.pos < end) {
    const k = readKey(r);
    const field = k >>> 3;
    const wt = k & 7;
    if ((field === 8 || field === 2) && wt === WIRE_LEN) {
      const e = readLengthEnd(r);
      v = { kind: 'bytes', bytes: copyOut(r.buf, r.pos, e) };
      r.pos = e;
    } else if (field === 9 && wt === WIRE_VARINT) {
      v = { kind: 'timestamp', micros: checkedInt64(r, 'Value.raw_timestamp_micros') };
    } else if (field === 6 && wt === WIRE_VARINT) {
      v = { kind: 'int', value: readInt64BigInt(r) };
    } else {
      const other = OTHER_VALUE_FIELDS[field];
      if (other !== undefined) v = { kind: 'other', field: other };
      skipField(r, k);
    }
  }
  if (r.pos !== end) throw new WireError('Value overruns its length');
  return v;
}

function checkedInt64(r: Reader, field: string): number {
  const v = readInt64Number(r);
  if (Number.isNaN(v)) throw invalidArgument(`${field} is out of the range tabletop supports (integers of magnitude at most 2^53-1)`);
  return v;
}

function readString(r: Reader): string {
  const end = readLengthEnd(r);
  const s = utf8(r.buf, r.pos, end);
  r.pos = end;
  return s;
}

function readBytesLatin1(r: Reader): ByteString {
  const end = readLengthEnd(r);
  const s = latin1(r.buf, r.pos, end);
  r.pos = end;
  return s;
}
