import type { ByteString } from '../../model/bytes.js';
import { TabletopError, invalidArgument, isTabletopError } from '../../model/errors.js';
import type { Mutation } from '../../model/mutation.js';
import { NULL_VALUE, type WireValue, aggregateMutation } from './aggregate-value.js';
import {
  type Reader,
  WIRE_LEN,
  WIRE_VARINT,
  WireError,
  createReader,
  latin1,
  readInt64BigInt,
  readInt64Number,
  readKey,
  readLengthEnd,
  readString,
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
 * values are views of the request buffer.
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
  const out: Mutable<DecodedMutateRows> = {
    tableName: '',
    authorizedViewName: '',
    appProfileId: '',
    entries: [],
    mutationCount: 0,
    error: undefined,
  };
  try {
    const r = createReader(buf);
    while (r.pos < r.len) readRowsField(r, out);
  } catch (e) {
    out.error = malformed('MutateRowsRequest', e);
  }
  return out;
}

/**
 * decodeMutateRowsRequest of a message that arrived in pieces (the DATA frames
 * it came in), without joining them: a bulk request is megabytes, and joining
 * it was a copy into fresh memory per request. Each top-level field is decoded
 * where it lies; only a field split between two pieces (an entry, ~1 KiB in a
 * bulk load) is copied. Anything out of the ordinary (a top-level field that is
 * not length-delimited, a malformed message) is decoded from the joined pieces
 * instead, so results and error messages are exactly decodeMutateRowsRequest's.
 * Values are views of the pieces.
 */
export function decodeMutateRowsRequestParts(parts: readonly Buffer[]): DecodedMutateRows {
  if (parts.length === 1) return decodeMutateRowsRequest(parts[0]!);
  const out: Mutable<DecodedMutateRows> = {
    tableName: '',
    authorizedViewName: '',
    appProfileId: '',
    entries: [],
    mutationCount: 0,
    error: undefined,
  };
  const pieces = new Pieces(parts);
  try {
    for (;;) {
      // The fields wholly inside the current piece, with one reader; then the one that crosses into the next.
      if (!pieces.decodeWholeFields(out)) return decodeMutateRowsRequest(Buffer.concat(parts));
      const field = pieces.nextLengthDelimitedField();
      if (field === undefined) break;
      if (field === NOT_SIMPLE) return decodeMutateRowsRequest(Buffer.concat(parts));
      readRowsField(createReader(field), out);
    }
  } catch {
    return decodeMutateRowsRequest(Buffer.concat(parts));
  }
  return out;
}

/** Reads one top-level field of a MutateRowsRequest into `out`. */
function readRowsField(r: Reader, out: Mutable<DecodedMutateRows>): void {
  const k = readKey(r);
  if (k === ROWS_ENTRY) {
    const entry = decodeEntry(r, readLengthEnd(r));
    out.mutationCount += entry.sent;
    out.entries.push(entry);
  } else if (!readHeaderField(r, k, ROWS_HEADER, out)) {
    skipField(r, k);
  }
}

const NOT_SIMPLE = Symbol('not a well-formed length-delimited field');

/** fieldEndIn: the field's bytes run past the piece (or the piece is used up). */
const CROSSES = -1;
/** fieldEndIn: not a length-delimited field, or a key or length longer than 32 bits. */
const UNUSUAL = -2;

/**
 * Where the length-delimited field at buf[pos] ends, if its key, its length
 * and its bytes are all inside buf; else CROSSES or UNUSUAL. (Numbers only, so
 * that the hot loop stays monomorphic.)
 */
function fieldEndIn(buf: Buffer, pos: number): number {
  const key = varint32In(buf, pos);
  if (key < 0) return key;
  if ((key & 7) !== WIRE_LEN) return UNUSUAL;
  const length = varint32In(buf, varintEnd);
  if (length < 0) return length;
  const end = varintEnd + length;
  return end <= buf.length ? end : CROSSES;
}

/** Where the last varint32In ended (module-level: no allocation per call). */
let varintEnd = 0;

/** The varint of at most 32 bits at buf[pos]; CROSSES if buf ends inside it, UNUSUAL if it is longer. */
function varint32In(buf: Buffer, pos: number): number {
  let v = 0;
  let scale = 1;
  for (let p = pos; p < pos + 5; p++) {
    if (p >= buf.length) return CROSSES;
    const b = buf[p]!;
    v += (b & 0x7f) * scale;
    if (b < 0x80) {
      varintEnd = p + 1;
      return v <= 0xffffffff ? v : UNUSUAL;
    }
    scale *= 128;
  }
  return UNUSUAL;
}

/** Reads a message in pieces one top-level field at a time. */
class Pieces {
  private part = 0;
  private pos = 0;
  /** bytesFrom[i]: the bytes of pieces i and after. */
  private readonly bytesFrom: number[];

  constructor(private readonly parts: readonly Buffer[]) {
    this.bytesFrom = new Array<number>(parts.length + 1);
    this.bytesFrom[parts.length] = 0;
    for (let i = parts.length - 1; i >= 0; i--) this.bytesFrom[i] = this.bytesFrom[i + 1]! + parts[i]!.length;
    this.skipEmpty();
  }

  /**
   * Decodes the fields that lie wholly inside a piece, from the current one
   * on, up to the first that crosses from one piece into the next; false (nothing more should be read, the caller
   * falls back to the joined decode) at a field that is not length-delimited
   * or whose key or length is longer than 32 bits.
   */
  decodeWholeFields(out: Mutable<DecodedMutateRows>): boolean {
    // Piece after piece, as long as fields end exactly where pieces do.
    for (;;) {
      const buf = this.parts[this.part];
      if (buf === undefined) return true;
      let pos = this.pos;
      let r: Reader | undefined;
      for (;;) {
        const end = fieldEndIn(buf, pos);
        if (end === UNUSUAL) return false;
        if (end === CROSSES) break;
        r ??= createReader(buf);
        r.pos = pos;
        readRowsField(r, out);
        if (r.pos !== end) throw new WireError('field overruns its length');
        pos = end;
      }
      this.pos = pos;
      if (pos < buf.length) return true;
      this.part++;
      this.pos = 0;
    }
  }

  /**
   * The next field (called when it is not wholly inside the current piece),
   * key and length included, copied out of the pieces it spans; undefined at
   * the end; NOT_SIMPLE when it is not a length-delimited field or its bytes
   * are not all there (checked before anything is allocated: the length is
   * the client's word).
   */
  nextLengthDelimitedField(): Buffer | undefined | typeof NOT_SIMPLE {
    if (this.part === this.parts.length) return undefined;
    const available = this.bytesFrom[this.part]! - this.pos;
    const startPart = this.part;
    const startPos = this.pos;
    const key = this.varint32();
    if (key === undefined || (key & 7) !== WIRE_LEN) return NOT_SIMPLE;
    const length = this.varint32();
    if (length === undefined) return NOT_SIMPLE;
    const head = available - (this.part === this.parts.length ? 0 : this.bytesFrom[this.part]! - this.pos);
    const total = head + length;
    if (total > available) return NOT_SIMPLE;
    const field = Buffer.allocUnsafe(total);
    let filled = 0;
    let p = startPart;
    let at = startPos;
    while (filled < total) {
      const piece = this.parts[p]!;
      const take = Math.min(piece.length - at, total - filled);
      piece.copy(field, filled, at, at + take);
      filled += take;
      if (at + take === piece.length) {
        p++;
        at = 0;
      } else {
        at += take;
      }
    }
    this.part = p;
    this.pos = at;
    this.skipEmpty();
    return field;
  }

  /** A varint of at most 32 bits (five bytes), or undefined when it is longer or the message ends inside it. */
  private varint32(): number | undefined {
    let v = 0;
    for (let i = 0; i < 5; i++) {
      if (this.part === this.parts.length) return undefined;
      const b = this.parts[this.part]![this.pos++]!;
      if (this.pos === this.parts[this.part]!.length) {
        this.part++;
        this.pos = 0;
        this.skipEmpty();
      }
      v += (b & 0x7f) * 2 ** (7 * i);
      if (b < 0x80) return v <= 0xffffffff ? v : undefined;
    }
    return undefined;
  }

  private skipEmpty(): void {
    while (this.part < this.parts.length && this.pos === this.parts[this.part]!.length) {
      this.part++;
      this.pos = 0;
    }
  }
}

export function decodeMutateRowRequest(buf: Uint8Array): DecodedMutateRow {
  const out: Mutable<DecodedMutateRow> = {
    tableName: '',
    authorizedViewName: '',
    appProfileId: '',
    key: '',
    mutations: [],
    sent: 0,
    error: undefined,
  };
  try {
    const r = createReader(buf);
    // The row's own fields are interleaved with the request's: one pass decodes both.
    while (r.pos < r.len) {
      const k = readKey(r);
      if (!readEntryField(r, k, ROW_KEY, ROW_MUTATION, out) && !readHeaderField(r, k, ROW_HEADER, out)) skipField(r, k);
    }
  } catch (e) {
    // A malformed request has no usable row part.
    const { tableName, authorizedViewName, appProfileId } = out;
    return { tableName, authorizedViewName, appProfileId, key: '', mutations: [], sent: 0, error: malformed('MutateRowRequest', e) };
  }
  return out;
}

/** The decoders fill in their results as they go. */
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The key (field number and wire type) of a length-delimited field. */
const lenKey = (field: number): number => (field << 3) | WIRE_LEN;

/** The two requests carry the same names and the same row part, under different field numbers. */
interface HeaderKeys {
  readonly tableName: number;
  readonly appProfileId: number;
  readonly authorizedViewName: number;
}

const ROWS_HEADER: HeaderKeys = { tableName: lenKey(1), appProfileId: lenKey(3), authorizedViewName: lenKey(5) };
const ROW_HEADER: HeaderKeys = { tableName: lenKey(1), appProfileId: lenKey(4), authorizedViewName: lenKey(6) };
const ROWS_ENTRY = lenKey(2);
const ENTRY_KEY = lenKey(1);
const ENTRY_MUTATION = lenKey(2);
const ROW_KEY = lenKey(2);
const ROW_MUTATION = lenKey(3);

/** Reads field `k` into `out` if it is one of the request's names; false if it is not. */
function readHeaderField(r: Reader, k: number, keys: HeaderKeys, out: Mutable<DecodedMutateRows> | Mutable<DecodedMutateRow>): boolean {
  if (k === keys.tableName) out.tableName = readString(r);
  else if (k === keys.appProfileId) out.appProfileId = readString(r);
  else if (k === keys.authorizedViewName) out.authorizedViewName = readString(r);
  else return false;
  return true;
}

/** Reads field `k` into `entry` if it is the row key or a mutation; false if it is neither. */
function readEntryField(r: Reader, k: number, keyKey: number, mutationKey: number, entry: Mutable<DecodedEntry>): boolean {
  if (k === keyKey) {
    entry.key = readBytesLatin1(r);
  } else if (k === mutationKey) {
    const end = readLengthEnd(r);
    entry.sent++;
    entry.error = decodeMutationInto(r, end, entry, entry.error);
  } else {
    return false;
  }
  return true;
}

function malformed(what: string, e: unknown): TabletopError {
  if (isTabletopError(e)) return e;
  const reason = e instanceof Error ? e.message : String(e);
  return invalidArgument(`Malformed ${what}: ${reason}`);
}

/** A MutateRowsRequest.Entry between r.pos and end. */
function decodeEntry(r: Reader, end: number): DecodedEntry {
  const entry: Mutable<DecodedEntry> = { key: '', mutations: [], sent: 0, error: undefined };
  while (r.pos < end) {
    const k = readKey(r);
    if (!readEntryField(r, k, ENTRY_KEY, ENTRY_MUTATION, entry)) skipField(r, k);
  }
  if (r.pos !== end) throw new WireError('sub-message overruns its length');
  return entry;
}

/**
 * Decodes one Mutation in [r.pos, end) and appends it. A semantic problem is
 * returned as the entry's (first) error and the rest of the mutation skipped.
 */
function decodeMutationInto(
  r: Reader,
  end: number,
  entry: Mutable<DecodedEntry>,
  error: TabletopError | undefined,
): TabletopError | undefined {
  try {
    const m = decodeMutation(r, end);
    // A first mutation gets an array of exactly one (a push into [] allocates room for 17): most entries have one.
    if (m !== undefined) {
      if (entry.mutations.length === 0) entry.mutations = [m];
      else entry.mutations.push(m);
    }
    return error;
  } catch (e) {
    if (!isTabletopError(e)) throw e;
    r.pos = end;
    return error ?? e;
  }
}

// The members of the Mutation oneof, by field number. (Plain constants: the compiler emits enums as
// objects, and this is looked at for every mutation.)
const NO_MEMBER = 0;
const SET_CELL = 1;
const DELETE_FROM_COLUMN = 2;
const DELETE_FROM_FAMILY = 3;
const DELETE_FROM_ROW = 4;
const ADD_TO_CELL = 5;
const MERGE_TO_CELL = 6;

function decodeMutation(r: Reader, end: number): Mutation | undefined {
  let member = NO_MEMBER;
  let start = 0;
  let stop = 0;
  // Oneof: the last member on the wire wins; remember where it is and decode it at the end.
  while (r.pos < end) {
    const k = readKey(r);
    const field = k >>> 3;
    if ((k & 7) === WIRE_LEN && field >= SET_CELL && field <= MERGE_TO_CELL) {
      stop = readLengthEnd(r);
      start = r.pos;
      r.pos = stop;
      member = field;
    } else {
      skipField(r, k);
    }
  }
  if (r.pos !== end) throw new WireError('Mutation overruns its length');
  const after = r.pos;
  r.pos = start;
  let m: Mutation | undefined;
  switch (member) {
    case SET_CELL:
      m = decodeSetCell(r, stop);
      break;
    case DELETE_FROM_COLUMN:
      m = decodeDeleteFromColumn(r, stop);
      break;
    case DELETE_FROM_FAMILY:
      m = { kind: 'deleteFromFamily', family: decodeFamilyOnly(r, stop) };
      break;
    case DELETE_FROM_ROW:
      while (r.pos < stop) skipField(r, readKey(r));
      m = DELETE_ROW;
      break;
    case ADD_TO_CELL:
      m = decodeAggregate(r, stop, 'addToCell');
      break;
    case MERGE_TO_CELL:
      m = decodeAggregate(r, stop, 'mergeToCell');
      break;
    default:
      throw invalidArgument(
        'Mutation has no mutation set: exactly one of set_cell, add_to_cell, merge_to_cell, delete_from_column, delete_from_family, delete_from_row must be set',
      );
  }
  // A last field whose length runs past the member's end (into the next field or entry) is malformed.
  if (r.pos !== stop) throw new WireError('Mutation member overruns its length');
  r.pos = after;
  return m;
}

const DELETE_ROW: Mutation = Object.freeze({ kind: 'deleteFromRow' });
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
      case (4 << 3) | WIRE_LEN:
        value = readBytesView(r);
        break;
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
        if (r.pos !== e) throw new WireError('DeleteFromColumn.time_range overruns its length');
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
      v = { kind: 'bytes', bytes: readBytesView(r) };
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

function readBytesLatin1(r: Reader): ByteString {
  const end = readLengthEnd(r);
  const s = latin1(r.buf, r.pos, end);
  r.pos = end;
  return s;
}

/**
 * A bytes field as a view of the request buffer, not a copy: the write path
 * copies values into the commit log at once, and the in-memory store copies
 * a value that would pin a large buffer (memory-store.ts). Copying every
 * value here cost an allocation per cell and made the collector run more.
 */
function readBytesView(r: Reader): Uint8Array {
  const end = readLengthEnd(r);
  const b = r.buf.subarray(r.pos, end);
  r.pos = end;
  return b;
}
