/**
 * Commit-log payload: one atomic write batch of one store.
 *
 *   payload := storeId:str rowCount:varint row{rowCount}
 *   row     := key:str fragment:bytes          (fragment: see fragment.ts)
 *
 * Each row's fragment carries its own sequence numbers, so replay knows which
 * rows a store has already flushed.
 */
import { dataLoss } from '../../model/errors.js';
import { RECYCLABLE_HEADER_BYTES as HEADER_BYTES } from '../wal/log-format.js';
import type { RowWrite } from '../store.js';
import { encodeOps } from './fragment.js';
import { ByteReader, ByteWriter } from './varint.js';

export interface EncodedRow {
  readonly key: string;
  readonly fragment: Buffer;
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

/** Encodes a batch, giving its ops sequence numbers from `firstSeq` on. Fragments are views into `payload`. */
export function encodeBatch(storeId: string, batch: readonly RowWrite[], firstSeq: number): EncodedBatch {
  let estimate = 16 + storeId.length;
  for (const w of batch) {
    estimate += w.key.length + 16;
    for (const op of w.ops) estimate += 32 + op.kind.length + ('value' in op ? op.value.byteLength + op.qualifier.length : 0);
  }
  const w = new ByteWriter(estimate + HEADER_BYTES);
  w.pos = HEADER_BYTES;
  w.str(storeId);
  w.varint(batch.length);
  // Fragments are cut out of the final buffer at the end (it may still grow); until then each
  // row's `fragment` is a placeholder and its span is kept in `starts` / `ends`.
  const rows: { key: string; fragment: Buffer; firstSeq: number; lastSeq: number }[] = new Array(batch.length);
  const starts = new Int32Array(batch.length);
  const ends = new Int32Array(batch.length);
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
    const len = w.pos - start;
    patchLength5(w.buf, lenAt, len);
    starts[i] = start - HEADER_BYTES;
    ends[i] = w.pos - HEADER_BYTES;
    rows[i++] = { key: row.key, fragment: EMPTY, firstSeq: seq, lastSeq: seq + row.ops.length - 1 };
    seq += row.ops.length;
  }
  const record = w.view();
  const payload = record.subarray(HEADER_BYTES);
  for (let k = 0; k < rows.length; k++) rows[k]!.fragment = payload.subarray(starts[k]!, ends[k]!);
  return { record, payload, rows, lastSeq: seq - 1 };
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

const EMPTY = Buffer.alloc(0);

export interface DecodedBatch {
  readonly storeId: string;
  readonly rows: EncodedRow[];
}

/** Decodes a commit-log payload; `where` names the log and record for DataLoss. */
export function decodeBatch(payload: Buffer, where: string): DecodedBatch {
  const fail = (what: string): Error => dataLoss(`${where}: malformed batch (${what})`);
  const r = new ByteReader(payload, 0, payload.length, fail);
  const storeId = r.str();
  const n = r.varint();
  const rows: EncodedRow[] = [];
  for (let i = 0; i < n; i++) {
    const key = r.str();
    const fragment = r.bytes();
    const fr = new ByteReader(fragment, 0, fragment.length, fail);
    const firstSeq = fr.varint();
    const count = fr.varint();
    rows.push({ key, fragment, firstSeq, lastSeq: firstSeq + Math.max(0, count - 1) });
  }
  if (!r.done) throw fail('trailing bytes');
  return { storeId, rows };
}
