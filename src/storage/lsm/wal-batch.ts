/**
 * Commit-log payloads: one atomic write batch of one store, or one drop.
 *
 *   payload := batch | drop
 *   batch   := storeId:str rowCount:varint row{rowCount}
 *   row     := key:str fragment:bytes          (fragment: see fragment.ts)
 *   drop    := 0x00 0x00 kind:u8 storeId:str seq:varint what
 *   what    := start:str hasEnd:u8 [end:str]   (kind 1: a key range)
 *            | family:str                      (kind 2: a column family)
 *
 * Each row's fragment carries its own sequence numbers, so replay knows which
 * rows a store has already flushed. A drop starts like a batch of no rows of
 * the store named "" (no store has that name), so versions that predate drops
 * in the commit log find trailing bytes and refuse with DataLoss instead of
 * skipping it.
 */
import { dataLoss } from '../../model/errors.js';
import { RECYCLABLE_HEADER_BYTES as HEADER_BYTES } from '../wal/log-format.js';
import type { RangeDrop } from '../manifest/manifest-state.js';
import type { RowWrite } from '../store.js';
import { encodeOps } from './fragment.js';
import type { RecordArena } from './record-arena.js';
import { ByteReader } from '../../model/byte-reader.js';
import { ByteWriter } from '../../model/byte-writer.js';

/** A row of a batch: its fragment is `payload[start, end)` (no Buffer per row: the memtable keeps the span). */
export interface EncodedRow {
  readonly key: string;
  readonly start: number;
  readonly end: number;
  readonly firstSeq: number;
  readonly lastSeq: number;
}

export interface EncodedBatch {
  /** The commit-log record: header room (RECYCLABLE_HEADER_BYTES) then the payload; frame it with frameRecyclableInPlace. */
  readonly record: Buffer;
  readonly payload: Buffer;
  readonly rows: EncodedRow[];
  readonly lastSeq: number;
}

/** A row's fragment, as a view of the batch's payload. */
export function fragmentOf(batch: { readonly payload: Buffer }, row: EncodedRow): Buffer {
  return batch.payload.subarray(row.start, row.end);
}

/**
 * Encodes a batch, giving its ops sequence numbers from `firstSeq` on. Rows
 * name their fragments' spans in `payload`. The record is allocated from
 * `arena` when given (the memtable that will keep it).
 */
export function encodeBatch(storeId: string, batch: readonly RowWrite[], firstSeq: number, arena?: RecordArena): EncodedBatch {
  let estimate = 16 + storeId.length;
  for (const w of batch) {
    estimate += w.key.length + 16;
    for (const op of w.ops) estimate += 32 + op.kind.length + ('value' in op ? op.value.byteLength + op.qualifier.length : 0);
  }
  const w = new ByteWriter(arena === undefined ? estimate + HEADER_BYTES : arena.reserve(estimate + HEADER_BYTES));
  w.pos = HEADER_BYTES;
  w.str(storeId);
  w.varint(batch.length);
  const rows: EncodedRow[] = new Array(batch.length);
  let seq = firstSeq;
  let i = 0;
  for (const row of batch) {
    w.str(row.key);
    // Reserve a generous length prefix, then patch it: fragments are written in place.
    w.ensure(5);
    const lenAt = w.pos;
    w.pos += 5;
    const start = w.pos;
    encodeOps(w, row.ops, seq);
    patchLength5(w.buf, lenAt, w.pos - start);
    rows[i++] = { key: row.key, start: start - HEADER_BYTES, end: w.pos - HEADER_BYTES, firstSeq: seq, lastSeq: seq + row.ops.length - 1 };
    seq += row.ops.length;
  }
  arena?.commit(w.buf, w.pos);
  const record = w.view();
  return { record, payload: record.subarray(HEADER_BYTES), rows, lastSeq: seq - 1 };
}

/** A 5-byte padded varint (a valid LEB128 encoding with continuation bits). */
function patchLength5(buf: Buffer, at: number, len: number): void {
  let v = len;
  for (let i = 0; i < 4; i++) {
    buf[at + i] = (v & 0x7f) | 0x80;
    v = Math.floor(v / 128);
  }
  buf[at + 4] = v;
}

export interface DecodedBatch {
  readonly storeId: string;
  readonly payload: Buffer;
  readonly rows: EncodedRow[];
}

/** Decodes a commit-log payload; `where` names the log and record for DataLoss. */
export function decodeBatch(payload: Buffer, where: string): DecodedBatch {
  const fail = (why: string): never => {
    throw dataLoss(`${where}: malformed batch (${why})`);
  };
  const r = new ByteReader(payload, 0, payload.length, fail);
  const storeId = r.str('store id');
  const n = r.varint('row count');
  const rows: EncodedRow[] = [];
  const fr = new ByteReader(payload, 0, 0, fail);
  for (let i = 0; i < n; i++) {
    const key = r.str('key');
    const fragment = r.lengthPrefixed('fragment');
    fr.reset(fragment, 0, fragment.length);
    const firstSeq = fr.varint('base sequence');
    const count = fr.varint('entry count');
    rows.push({ key, start: r.pos - fragment.length, end: r.pos, firstSeq, lastSeq: firstSeq + Math.max(0, count - 1) });
  }
  if (!r.done) fail('trailing bytes');
  return { storeId, payload, rows };
}

/** A drop of a key range or a column family of one store, at sequence number `seq`. */
export type LoggedDrop =
  | { readonly kind: 'range'; readonly storeId: string; readonly drop: RangeDrop }
  | { readonly kind: 'family'; readonly storeId: string; readonly family: string; readonly seq: number };

const DROP_RANGE = 1;
const DROP_FAMILY = 2;

/** Encodes a drop as a commit-log record (header room, then the payload; frame it with frameRecyclableInPlace). */
export function encodeDrop(d: LoggedDrop): Buffer {
  const w = new ByteWriter(
    HEADER_BYTES + 32 + d.storeId.length + (d.kind === 'range' ? d.drop.start.length + (d.drop.end?.length ?? 0) : d.family.length),
  );
  w.pos = HEADER_BYTES;
  w.str('');
  w.varint(0);
  w.u8(d.kind === 'range' ? DROP_RANGE : DROP_FAMILY);
  w.str(d.storeId);
  if (d.kind === 'range') {
    w.varint(d.drop.seq);
    w.str(d.drop.start);
    w.u8(d.drop.end === null ? 0 : 1);
    if (d.drop.end !== null) w.str(d.drop.end);
  } else {
    w.varint(d.seq);
    w.str(d.family);
  }
  return w.view();
}

/** Decodes a commit-log payload, a batch or a drop; `where` names the log and record for DataLoss. */
export function decodeLogged(payload: Buffer, where: string): DecodedBatch | LoggedDrop {
  // A batch's store id is never empty: two zero bytes start a drop.
  if (payload.length < 3 || payload[0] !== 0 || payload[1] !== 0) return decodeBatch(payload, where);
  const fail = (why: string): never => {
    throw dataLoss(`${where}: malformed drop (${why})`);
  };
  const r = new ByteReader(payload, 2, payload.length, fail);
  const kind = r.u8('kind');
  const storeId = r.str('store id');
  const seq = r.varint('sequence');
  let d: LoggedDrop;
  if (kind === DROP_RANGE) {
    const start = r.str('start');
    const hasEnd = r.u8('end flag');
    if (hasEnd > 1) fail(`end flag ${hasEnd}`);
    d = { kind: 'range', storeId, drop: { start, end: hasEnd === 1 ? r.str('end') : null, seq } };
  } else if (kind === DROP_FAMILY) {
    d = { kind: 'family', storeId, family: r.str('family'), seq };
  } else return fail(`kind ${kind}`);
  if (!r.done) fail('trailing bytes');
  return d;
}
