/**
 * Commit-log framing.
 *
 *   log     := record*
 *   record  := crc:u32le length:u32le payload[length]
 *   crc     := crc32c(length:u32le ++ payload), masked (see below)
 *
 * One record holds one write batch (one or more atomic row mutations). The
 * checksum covers the length, so a torn or garbled length is detected. The
 * stored CRC is masked as LevelDB does (rotate right 15, add a constant) so
 * that a CRC of data that itself contains CRCs stays well distributed.
 *
 * Replay reads records until the end of the file. A record that is cut short
 * or fails its checksum ends replay: if nothing valid follows it, it is the
 * torn tail of a write that was never acknowledged (not synced) and is
 * dropped; if a valid record follows, the log is corrupt in the middle and
 * replay fails with DataLoss naming the file and offset.
 *
 * Recyclable framing (commit-log files named `*.wal`; `*.log` files and
 * manifests use the framing above):
 *
 *   record  := crc:u32le length:u32le log:u32le payload[length]
 *   crc     := crc32c(length:u32le ++ log:u32le ++ payload), masked
 *
 * `log` is the file's number (its low 32 bits). A log file whose records are
 * all flushed is reused for a later log by writing over it from its start,
 * so past the new records it still holds records of the log it was before:
 * a record that checks out but names another log ends replay cleanly. After
 * a damaged record, only sync markers naming this log count (found by
 * searching for the 4-byte number; see below).
 *
 * A commit-log file may end in zeros: the writer extends new files with
 * zeros ahead of its writes (LogWriter), and replay ends where only zeros
 * remain.
 *
 * Sync markers (recyclable framing only): a record whose length field has
 * bit 31 set is a marker, not a batch; its 6-byte payload is the file offset
 * up to which the log was durable (covered by a completed fdatasync) when
 * the marker was written, which is always the marker's own offset (a group
 * is written once the one before it is synced). The log writer puts one in front of each group of
 * records it writes, so that replay can tell damage in bytes that had been
 * synced (corruption: DataLoss) from the torn, possibly out-of-order
 * persisted, last group of a power loss (dropped). Files written before
 * markers existed have none; replay treats them the same way.
 *
 * Plain framing has no markers, so it keeps the strict rule (damage followed
 * by any valid record is DataLoss); its one writer, the manifest, syncs each
 * record before writing the next, so a power loss can only tear the last one.
 *
 * DO NOT CHANGE: the on-disk layout is versioned by the file name suffix
 * (sync markers are an extension that older readers refuse as damage).
 */
import { crc32c } from '@node-rs/crc32';

export const HEADER_BYTES = 8;
/** Largest payload accepted (a whole 256 MiB row plus overhead). */
export const MAX_RECORD_BYTES = 300 * 1024 * 1024;

const MASK_DELTA = 0xa282ead8;

export function maskCrc(crc: number): number {
  return (((crc >>> 15) | (crc << 17)) + MASK_DELTA) >>> 0;
}

export function unmaskCrc(masked: number): number {
  const rot = (masked - MASK_DELTA) >>> 0;
  return ((rot >>> 17) | (rot << 15)) >>> 0;
}

/** Frames a payload as one record. */
export function encodeRecord(payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(HEADER_BYTES + payload.byteLength);
  out.writeUInt32LE(payload.byteLength, 4);
  out.set(payload, HEADER_BYTES);
  out.writeUInt32LE(maskCrc(crc32c(out.subarray(4))), 0);
  return out;
}

export type RecordResult =
  | { readonly kind: 'record'; readonly payload: Buffer; readonly next: number }
  | { readonly kind: 'end' }
  | { readonly kind: 'bad'; readonly reason: string };

/** Decodes the record at `offset` of `data`. */
export function decodeRecord(data: Buffer, offset: number): RecordResult {
  return decodeFramed(data, offset, HEADER_BYTES);
}

/**
 * A record whose header is `header` bytes (the checksum first, then the
 * length, then any other field). `flags` are the bits of the length field
 * that are flags, not length (the checksum covers them all).
 */
function decodeFramed(data: Buffer, offset: number, header: number, flags = 0): RecordResult {
  if (offset === data.length) return { kind: 'end' };
  if (offset + header > data.length) return { kind: 'bad', reason: 'truncated header' };
  const length = (data.readUInt32LE(offset + 4) & ~flags) >>> 0;
  if (length > MAX_RECORD_BYTES) return { kind: 'bad', reason: `implausible length ${length}` };
  const end = offset + header + length;
  if (end > data.length) return { kind: 'bad', reason: 'truncated payload' };
  const expected = unmaskCrc(data.readUInt32LE(offset));
  if (crc32c(data.subarray(offset + 4, end)) !== expected) return { kind: 'bad', reason: 'checksum mismatch' };
  return { kind: 'record', payload: data.subarray(offset + header, end), next: end };
}

export const RECYCLABLE_HEADER_BYTES = 12;

/** Frames a recyclable record of log `log` in place: `buf` holds RECYCLABLE_HEADER_BYTES of room, then the payload. */
export function frameRecyclableInPlace(buf: Buffer, log: number): Buffer {
  buf.writeUInt32LE(buf.length - RECYCLABLE_HEADER_BYTES, 4);
  buf.writeUInt32LE(log >>> 0, 8);
  buf.writeUInt32LE(maskCrc(crc32c(buf.subarray(4))), 0);
  return buf;
}

/** Frames a payload as one recyclable record of log `log`. */
export function encodeRecyclableRecord(payload: Uint8Array, log: number): Buffer {
  const out = Buffer.allocUnsafe(RECYCLABLE_HEADER_BYTES + payload.byteLength);
  out.set(payload, RECYCLABLE_HEADER_BYTES);
  return frameRecyclableInPlace(out, log);
}

/** Bit 31 of a recyclable record's length field: the record is a sync marker. */
const MARKER_FLAG = 0x80000000;
const MARKER_PAYLOAD_BYTES = 6;

/** A sync marker of log `log`: the log was durable up to file offset `syncedThrough` when it was written. */
export function encodeSyncMarker(syncedThrough: number, log: number): Buffer {
  const out = Buffer.allocUnsafe(RECYCLABLE_HEADER_BYTES + MARKER_PAYLOAD_BYTES);
  out.writeUIntLE(syncedThrough, RECYCLABLE_HEADER_BYTES, MARKER_PAYLOAD_BYTES);
  out.writeUInt32LE((MARKER_PAYLOAD_BYTES | MARKER_FLAG) >>> 0, 4);
  out.writeUInt32LE(log >>> 0, 8);
  out.writeUInt32LE(maskCrc(crc32c(out.subarray(4))), 0);
  return out;
}

export type RecyclableResult =
  RecordResult | { readonly kind: 'stale' } | { readonly kind: 'marker'; readonly syncedThrough: number; readonly next: number };

/**
 * Decodes the recyclable record at `offset`: a batch record, a sync marker,
 * or 'stale', an intact record of another log (the file's earlier life).
 */
export function decodeRecyclableRecord(data: Buffer, offset: number, log: number): RecyclableResult {
  const r = decodeFramed(data, offset, RECYCLABLE_HEADER_BYTES, MARKER_FLAG);
  if (r.kind !== 'record') return r;
  if (data.readUInt32LE(offset + 8) !== log >>> 0) return { kind: 'stale' };
  if ((data.readUInt32LE(offset + 4) & MARKER_FLAG) === 0) return r;
  if (r.payload.length !== MARKER_PAYLOAD_BYTES) return { kind: 'bad', reason: `sync marker of ${r.payload.length} bytes` };
  return { kind: 'marker', syncedThrough: r.payload.readUIntLE(0, MARKER_PAYLOAD_BYTES), next: r.next };
}

/**
 * True when an intact sync marker of log `log` after `from` says the log was
 * durable past `from`: the damaged record there had been synced, so the
 * damage is corruption, not the torn last group of a power loss.
 *
 * A group is written only once the one before it is synced, so a genuine
 * marker always says the log was durable up to the marker itself. Only such
 * markers count: a marker-shaped value inside a record's payload (a cell
 * value can hold any bytes) would have to guess its own file offset.
 */
export function syncedPastRecyclable(data: Buffer, from: number, log: number): boolean {
  const number = Buffer.allocUnsafe(4);
  number.writeUInt32LE(log >>> 0);
  for (let at = data.indexOf(number, from + 9); at >= 0; at = data.indexOf(number, at + 1)) {
    const r = decodeRecyclableRecord(data, at - 8, log);
    if (r.kind === 'marker' && r.syncedThrough === at - 8 && r.syncedThrough > from) return true;
  }
  return false;
}

/** True when some valid record starts at an offset after `from` (used to tell corruption from a torn tail). */
export function validRecordAfter(data: Buffer, from: number): boolean {
  for (let off = from + 1; off + HEADER_BYTES <= data.length; off++) {
    const length = data.readUInt32LE(off + 4);
    if (length === 0 || length > data.length - off - HEADER_BYTES) continue;
    if (decodeRecord(data, off).kind === 'record') return true;
  }
  return false;
}
