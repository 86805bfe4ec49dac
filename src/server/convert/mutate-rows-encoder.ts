import { varintSize, writeVarint } from './wire.js';

/**
 * Hand-written serializer of google.bigtable.v2.MutateRowsResponse (one
 * status per entry; plugged in as the `responseSerialize` of MutateRows).
 *
 *   MutateRowsResponse := entries(1) Entry*
 *   Entry              := index(1) int64 | status(2) google.rpc.Status
 *   Status             := code(1) int32 | message(2) string
 *
 * An OK entry is `0a 02 12 00` for index 0 (the status is present but empty).
 */

export interface EntryStatus {
  readonly index: number;
  /** gRPC status code number; 0 is OK. */
  readonly code: number;
  readonly message: string;
}

export interface MutateRowsFrame {
  readonly entries: readonly EntryStatus[];
}

export function encodeMutateRowsResponse(frame: MutateRowsFrame): Buffer {
  let size = 0;
  const statusSizes: number[] = [];
  const messageBytes: number[] = [];
  for (const e of frame.entries) {
    const m = Buffer.byteLength(e.message, 'utf8');
    const s = (e.code !== 0 ? 1 + varintSize(e.code) : 0) + (m > 0 ? 1 + varintSize(m) + m : 0);
    const body = (e.index !== 0 ? 1 + varintSize(e.index) : 0) + 1 + varintSize(s) + s;
    statusSizes.push(s);
    messageBytes.push(m);
    size += 1 + varintSize(body) + body;
  }
  const buf = Buffer.allocUnsafe(size);
  let pos = 0;
  for (let i = 0; i < frame.entries.length; i++) {
    const e = frame.entries[i]!;
    const s = statusSizes[i]!;
    const m = messageBytes[i]!;
    const body = (e.index !== 0 ? 1 + varintSize(e.index) : 0) + 1 + varintSize(s) + s;
    buf[pos++] = 0x0a;
    pos = writeVarint(buf, pos, body);
    if (e.index !== 0) {
      buf[pos++] = 0x08;
      pos = writeVarint(buf, pos, e.index);
    }
    buf[pos++] = 0x12;
    pos = writeVarint(buf, pos, s);
    if (e.code !== 0) {
      buf[pos++] = 0x08;
      pos = writeVarint(buf, pos, e.code);
    }
    if (m > 0) {
      buf[pos++] = 0x12;
      pos = writeVarint(buf, pos, m);
      pos += buf.write(e.message, pos, m, 'utf8');
    }
  }
  if (pos !== size) throw new Error(`MutateRowsResponse encoder size mismatch: computed ${size}, wrote ${pos}`);
  return buf;
}
