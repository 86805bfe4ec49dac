import { crc32c } from '@node-rs/crc32';
import { invalidArgument } from '../../model/errors.js';
import type { SqlType, SqlValue } from '../../sql/types.js';
import { PROTO_ROWS_VALUES, writeSqlValue } from './sql-value.js';
import { type Writer, createWriter } from './wire.js';

/**
 * ExecuteQuery's response messages and resume tokens, hand-written: the
 * stream's hot path (data/execute-query-stream.ts decides what goes in each
 * message; this file only writes bytes).
 *
 * ExecuteQueryResponse := results(2) PartialResultSet
 * PartialResultSet := proto_rows_batch(3) { batch_data(1) bytes }, resume_token(5) bytes,
 *                     batch_checksum(6) uint32, reset(7) bool; estimated_batch_size(4) is never written.
 * The metadata member (1) is never sent: the clients reject it.
 */

/** One PartialResultSet; never all empty. */
export interface ExecuteQueryFrame {
  /** A piece of the current batch (a serialized ProtoRows, split at any byte). */
  readonly data?: Uint8Array;
  /** On the piece that ends a batch: CRC32C of the whole batch, never 0. */
  readonly checksum?: number;
  /** Releases every batch since the previous token. */
  readonly token?: Uint8Array;
  /** On the first message of each attempt. */
  readonly reset?: boolean;
}

export function encodeExecuteQueryResponse(f: ExecuteQueryFrame): Buffer {
  const w = createWriter();
  w.uint32((2 << 3) | 2).fork();
  if (f.data !== undefined)
    w.uint32((3 << 3) | 2)
      .fork()
      .uint32((1 << 3) | 2)
      .bytes(f.data)
      .ldelim();
  if (f.token !== undefined) w.uint32((5 << 3) | 2).bytes(f.token);
  if (f.checksum !== undefined) w.uint32(6 << 3).uint32(f.checksum);
  if (f.reset === true) w.uint32(7 << 3).bool(true);
  w.ldelim();
  return w.finish() as Buffer;
}

/** Accumulates whole rows as a serialized ProtoRows (values row-major). */
export class ProtoRowsBatch {
  private w: Writer = createWriter();
  rows = 0;

  constructor(private readonly types: readonly SqlType[]) {}

  add(row: readonly SqlValue[]): void {
    if (row.length !== this.types.length) throw new Error(`a result row has ${row.length} values for ${this.types.length} columns`);
    row.forEach((v, i) => {
      this.w.uint32(PROTO_ROWS_VALUES).fork();
      writeSqlValue(this.w, v, this.types[i]!);
      this.w.ldelim();
    });
    this.rows++;
  }

  /** Bytes so far. */
  get bytes(): number {
    return this.w.len;
  }

  /** The batch's bytes; starts a new batch. */
  take(): Uint8Array {
    const bytes = this.w.finish();
    this.w = createWriter();
    this.rows = 0;
    return bytes;
  }
}

/**
 * The batch and its checksum, never 0 (the Node client reads a 0 checksum as
 * none): when the CRC is 0, the first value's length prefix is written one
 * byte longer (a varint with a redundant continuation byte, which every
 * protobuf reader accepts), which changes the CRC.
 */
export function checksummed(batch: Uint8Array, checksum: (b: Uint8Array) => number = crc32c): { bytes: Uint8Array; crc: number } {
  let bytes = batch;
  for (let attempt = 0; attempt < 4; attempt++) {
    const crc = checksum(bytes) >>> 0;
    if (crc !== 0) return { bytes, crc };
    bytes = padFirstLength(bytes);
  }
  throw new Error('no non-zero checksum for a result batch');
}

/** The batch with its first field's length varint (at offset 1) one byte longer. */
export function padFirstLength(b: Uint8Array): Uint8Array {
  let end = 1;
  while (end < b.length && (b[end]! & 0x80) !== 0) end++;
  if (end >= b.length || end - 1 >= 4) throw new Error('cannot pad the length of a result batch');
  const out = new Uint8Array(b.length + 1);
  out.set(b.subarray(0, end + 1), 0);
  out[end] = b[end]! | 0x80;
  out[end + 1] = 0;
  out.set(b.subarray(end + 1), end + 2);
  return out;
}

// ---------------------------------------------------------------------------
// Resume tokens, big-endian: version(1) = 1, crc32c(prepared_query)(4), rows released(8); or, once the scan
// checkpointed, version(1) = 2, crc32c(4), rows released(8), rows released at the checkpoint(8), the checkpoint's
// row key (the rest).

const TOKEN_V1 = 1;
const TOKEN_V1_BYTES = 13;
const TOKEN_V2 = 2;
const TOKEN_V2_HEAD = 21;

/** Where a resume token resumes: after `rows` rows, counted from a scan checkpoint when there is one. */
export interface ResumePosition {
  readonly rows: number;
  readonly checkpoint?: { readonly key: Uint8Array; readonly base: number } | undefined;
}

/** The token after `rows` rows of the result of `prepared` (and the scan's latest checkpoint). */
export function resumeToken(prepared: Uint8Array, rows: number, checkpoint?: ResumePosition['checkpoint']): Buffer {
  const t = Buffer.alloc(checkpoint === undefined ? TOKEN_V1_BYTES : TOKEN_V2_HEAD + checkpoint.key.byteLength);
  t[0] = checkpoint === undefined ? TOKEN_V1 : TOKEN_V2;
  t.writeUInt32BE(crc32c(prepared) >>> 0, 1);
  t.writeBigUInt64BE(BigInt(rows), 5);
  if (checkpoint !== undefined) {
    t.writeBigUInt64BE(BigInt(checkpoint.base), 13);
    t.set(checkpoint.key, TOKEN_V2_HEAD);
  }
  return t;
}

/** Where a token resumes; InvalidArgument for a token not made by resumeToken() for this prepared query. */
export function resumePosition(prepared: Uint8Array, token: Uint8Array): ResumePosition {
  const t = Buffer.from(token.buffer, token.byteOffset, token.byteLength);
  const v1 = t.length === TOKEN_V1_BYTES && t[0] === TOKEN_V1;
  const v2 = t.length >= TOKEN_V2_HEAD && t[0] === TOKEN_V2;
  if (!v1 && !v2) throw invalidArgument('resume_token is not one this server sent');
  if (t.readUInt32BE(1) !== crc32c(prepared) >>> 0) throw invalidArgument('resume_token belongs to another prepared query');
  const rows = Number(t.readBigUInt64BE(5));
  if (v1) return { rows };
  const base = Number(t.readBigUInt64BE(13));
  if (base > rows) throw invalidArgument('resume_token is not one this server sent');
  return { rows, checkpoint: { key: new Uint8Array(t.subarray(TOKEN_V2_HEAD)), base } };
}
