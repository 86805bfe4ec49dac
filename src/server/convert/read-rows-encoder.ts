import type { ByteString } from '../../model/bytes.js';
import type { Cell, Row } from '../../model/cell.js';
import { int64Size, varintSize, writeInt64, writeVarint } from './wire.js';

/**
 * Hand-written serializer of google.bigtable.v2.ReadRowsResponse: one frame of
 * whole rows → one Buffer, sizes computed first, no protobuf objects.
 * Plugged in as the `responseSerialize` of ReadRows.
 *
 * Grammar (field numbers):
 *   ReadRowsResponse := chunks(1) CellChunk* | last_scanned_row_key(2) bytes | request_stats(3) RequestStats
 *   CellChunk        := row_key(1) bytes | family_name(2) StringValue{value(1)} | qualifier(3) BytesValue{value(1)}
 *                     | timestamp_micros(4) int64 | labels(5) string* | value(6) bytes | value_size(7) int32
 *                     | commit_row(9) bool
 *   RequestStats     := full_read_stats_view(1) { read_iteration_stats(1) { rows_seen_count(1), rows_returned_count(2),
 *                       cells_seen_count(3), cells_returned_count(4) }, request_latency_stats(2)
 *                       { frontend_server_latency(1) Duration { seconds(1), nanos(2) } } }
 *
 * Chunk rules (docs bigtable-wire.md, "ReadRows response rules"):
 *  - a row's first chunk carries row_key, family_name, qualifier (present even when empty),
 *    timestamp, labels and value; later cells carry family_name only when the family changes
 *    (always with qualifier) and qualifier only when it changes;
 *  - a value longer than `valueChunkBytes` is split: the first piece carries the cell's metadata
 *    and value_size = total length, middle pieces only value and value_size, the last piece
 *    value_size 0 (absent);
 *  - commit_row on the row's last chunk; rows are never split across frames.
 *
 * Worked example: row "r1" with one cell f:q @1000 = "v" encodes as
 *   0a 16                      chunks, 22 bytes
 *     0a 02 72 31              row_key "r1"
 *     12 03 0a 01 66           family_name { value: "f" }
 *     1a 03 0a 01 71           qualifier { value: "q" }
 *     20 e8 07                 timestamp_micros 1000
 *     32 01 76                 value "v"
 *     48 01                    commit_row true
 */

export interface ReadRowsFrame {
  /** Whole rows, cells in output order (family creation order, qualifier asc, timestamp desc). */
  readonly rows: readonly Row[];
  /** A heartbeat: the last row key the scan examined (sent in a frame without rows). */
  readonly lastScannedRowKey?: ByteString;
  /** The trailing request-stats frame (REQUEST_STATS_FULL). */
  readonly stats?: ReadRowsStats;
}

export interface ReadRowsStats {
  readonly rowsSeen: number;
  readonly rowsReturned: number;
  readonly cellsSeen: number;
  readonly cellsReturned: number;
  /** Server-side latency of the request. */
  readonly latencyMicros: number;
}

/** Values longer than this are split into several chunks (each piece at most this long). */
export const DEFAULT_VALUE_CHUNK_BYTES = 1024 * 1024;

export function encodeReadRowsResponse(frame: ReadRowsFrame, valueChunkBytes: number = DEFAULT_VALUE_CHUNK_BYTES): Buffer {
  let size = 0;
  for (const row of frame.rows) size += rowSize(row, valueChunkBytes);
  let lastKeyLen = 0;
  if (frame.lastScannedRowKey !== undefined) {
    lastKeyLen = frame.lastScannedRowKey.length;
    size += 1 + varintSize(lastKeyLen) + lastKeyLen;
  }
  let statsLen = 0;
  if (frame.stats !== undefined) {
    statsLen = requestStatsSize(frame.stats);
    size += 1 + varintSize(statsLen) + statsLen;
  }
  const buf = Buffer.allocUnsafe(size);
  let pos = 0;
  for (const row of frame.rows) pos = writeRow(buf, pos, row, valueChunkBytes);
  if (frame.lastScannedRowKey !== undefined) {
    buf[pos++] = 0x12;
    pos = writeVarint(buf, pos, lastKeyLen);
    pos = writeLatin1(buf, pos, frame.lastScannedRowKey);
  }
  if (frame.stats !== undefined) {
    buf[pos++] = 0x1a;
    pos = writeVarint(buf, pos, statsLen);
    pos = writeRequestStats(buf, pos, frame.stats);
  }
  if (pos !== size) throw new Error(`ReadRowsResponse encoder size mismatch: computed ${size}, wrote ${pos}`);
  return buf;
}

/** Encoded size of one row's chunks (including each chunk's field key and length). */
export function rowSize(row: Row, valueChunkBytes: number = DEFAULT_VALUE_CHUNK_BYTES): number {
  let size = 0;
  const cells = row.cells;
  let prev: Cell | undefined;
  for (let i = 0; i < cells.length; i++) {
    const c = cells[i]!;
    const last = i === cells.length - 1;
    const familyChanged = prev === undefined || c.family !== prev.family;
    const qualifierChanged = familyChanged || c.qualifier !== prev!.qualifier;
    const total = c.value.length;
    const pieces = total > valueChunkBytes ? Math.ceil(total / valueChunkBytes) : 1;
    for (let p = 0; p < pieces; p++) {
      const len = chunkBodySize(row.key, c, i === 0 && p === 0, p === 0 && familyChanged, p === 0 && qualifierChanged, p === 0, p, pieces, valueChunkBytes, last && p === pieces - 1);
      size += 1 + varintSize(len) + len;
    }
    prev = c;
  }
  return size;
}

function pieceLength(total: number, p: number, pieces: number, chunk: number): number {
  return pieces === 1 ? total : p < pieces - 1 ? chunk : total - chunk * (pieces - 1);
}

function chunkBodySize(
  key: ByteString,
  c: Cell,
  withKey: boolean,
  withFamily: boolean,
  withQualifier: boolean,
  withMeta: boolean,
  p: number,
  pieces: number,
  chunk: number,
  commit: boolean,
): number {
  let n = 0;
  if (withKey) n += 1 + varintSize(key.length) + key.length;
  if (withFamily) {
    const f = utf8Length(c.family);
    const w = f === 0 ? 0 : 1 + varintSize(f) + f;
    n += 1 + varintSize(w) + w;
  }
  if (withQualifier) {
    const q = c.qualifier.length;
    const w = q === 0 ? 0 : 1 + varintSize(q) + q;
    n += 1 + varintSize(w) + w;
  }
  if (withMeta) {
    if (c.timestamp !== 0) n += 1 + int64Size(c.timestamp);
    for (const l of c.labels) {
      const b = utf8Length(l);
      n += 1 + varintSize(b) + b;
    }
  }
  const v = pieceLength(c.value.length, p, pieces, chunk);
  if (v > 0) n += 1 + varintSize(v) + v;
  if (pieces > 1 && p < pieces - 1) n += 1 + varintSize(c.value.length);
  if (commit) n += 2;
  return n;
}

function writeRow(buf: Buffer, pos: number, row: Row, chunk: number): number {
  const cells = row.cells;
  let prev: Cell | undefined;
  for (let i = 0; i < cells.length; i++) {
    const c = cells[i]!;
    const last = i === cells.length - 1;
    const familyChanged = prev === undefined || c.family !== prev.family;
    const qualifierChanged = familyChanged || c.qualifier !== prev!.qualifier;
    const total = c.value.length;
    const pieces = total > chunk ? Math.ceil(total / chunk) : 1;
    for (let p = 0; p < pieces; p++) {
      const withKey = i === 0 && p === 0;
      const withFamily = p === 0 && familyChanged;
      const withQualifier = p === 0 && qualifierChanged;
      const withMeta = p === 0;
      const commit = last && p === pieces - 1;
      const len = chunkBodySize(row.key, c, withKey, withFamily, withQualifier, withMeta, p, pieces, chunk, commit);
      buf[pos++] = 0x0a;
      pos = writeVarint(buf, pos, len);
      if (withKey) {
        buf[pos++] = 0x0a;
        pos = writeVarint(buf, pos, row.key.length);
        pos = writeLatin1(buf, pos, row.key);
      }
      if (withFamily) {
        const f = utf8Length(c.family);
        buf[pos++] = 0x12;
        if (f === 0) buf[pos++] = 0;
        else {
          pos = writeVarint(buf, pos, 1 + varintSize(f) + f);
          buf[pos++] = 0x0a;
          pos = writeVarint(buf, pos, f);
          pos = writeUtf8(buf, pos, c.family, f);
        }
      }
      if (withQualifier) {
        const q = c.qualifier.length;
        buf[pos++] = 0x1a;
        if (q === 0) buf[pos++] = 0;
        else {
          pos = writeVarint(buf, pos, 1 + varintSize(q) + q);
          buf[pos++] = 0x0a;
          pos = writeVarint(buf, pos, q);
          pos = writeLatin1(buf, pos, c.qualifier);
        }
      }
      if (withMeta) {
        if (c.timestamp !== 0) {
          buf[pos++] = 0x20;
          pos = writeInt64(buf, pos, c.timestamp);
        }
        for (const l of c.labels) {
          const b = utf8Length(l);
          buf[pos++] = 0x2a;
          pos = writeVarint(buf, pos, b);
          pos = writeUtf8(buf, pos, l, b);
        }
      }
      const v = pieceLength(total, p, pieces, chunk);
      if (v > 0) {
        buf[pos++] = 0x32;
        pos = writeVarint(buf, pos, v);
        const from = p * chunk;
        buf.set(c.value.subarray(from, from + v), pos);
        pos += v;
      }
      if (pieces > 1 && p < pieces - 1) {
        buf[pos++] = 0x38;
        pos = writeVarint(buf, pos, total);
      }
      if (commit) {
        buf[pos++] = 0x48;
        buf[pos++] = 1;
      }
    }
    prev = c;
  }
  return pos;
}

function iterationStatsSize(s: ReadRowsStats): number {
  let n = 0;
  if (s.rowsSeen !== 0) n += 1 + varintSize(s.rowsSeen);
  if (s.rowsReturned !== 0) n += 1 + varintSize(s.rowsReturned);
  if (s.cellsSeen !== 0) n += 1 + varintSize(s.cellsSeen);
  if (s.cellsReturned !== 0) n += 1 + varintSize(s.cellsReturned);
  return n;
}

function durationSize(micros: number): { seconds: number; nanos: number; size: number } {
  const seconds = Math.floor(micros / 1e6);
  const nanos = (micros - seconds * 1e6) * 1000;
  let size = 0;
  if (seconds !== 0) size += 1 + varintSize(seconds);
  if (nanos !== 0) size += 1 + varintSize(nanos);
  return { seconds, nanos, size };
}

function latencyStatsSize(micros: number): number {
  const d = durationSize(micros).size;
  return 1 + varintSize(d) + d;
}

function fullViewSize(s: ReadRowsStats): number {
  const it = iterationStatsSize(s);
  const lat = latencyStatsSize(Math.max(0, Math.round(s.latencyMicros)));
  return 1 + varintSize(it) + it + 1 + varintSize(lat) + lat;
}

function requestStatsSize(s: ReadRowsStats): number {
  const full = fullViewSize(s);
  return 1 + varintSize(full) + full;
}

function writeRequestStats(buf: Buffer, pos: number, s: ReadRowsStats): number {
  const full = fullViewSize(s);
  buf[pos++] = 0x0a; // full_read_stats_view
  pos = writeVarint(buf, pos, full);
  const it = iterationStatsSize(s);
  buf[pos++] = 0x0a; // read_iteration_stats
  pos = writeVarint(buf, pos, it);
  const counts = [s.rowsSeen, s.rowsReturned, s.cellsSeen, s.cellsReturned];
  for (let i = 0; i < 4; i++) {
    const v = counts[i]!;
    if (v !== 0) {
      buf[pos++] = ((i + 1) << 3) | 0;
      pos = writeVarint(buf, pos, v);
    }
  }
  const micros = Math.max(0, Math.round(s.latencyMicros));
  const lat = latencyStatsSize(micros);
  buf[pos++] = 0x12; // request_latency_stats
  pos = writeVarint(buf, pos, lat);
  const d = durationSize(micros);
  buf[pos++] = 0x0a; // frontend_server_latency
  pos = writeVarint(buf, pos, d.size);
  if (d.seconds !== 0) {
    buf[pos++] = 0x08;
    pos = writeVarint(buf, pos, d.seconds);
  }
  if (d.nanos !== 0) {
    buf[pos++] = 0x10;
    pos = writeVarint(buf, pos, d.nanos);
  }
  return pos;
}

/** UTF-8 byte length; names and labels are ASCII in practice, so check that cheaply first. */
function utf8Length(s: string): number {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return Buffer.byteLength(s, 'utf8');
  return s.length;
}

function writeUtf8(buf: Buffer, pos: number, s: string, byteLength: number): number {
  if (byteLength === s.length) return writeLatin1(buf, pos, s);
  return pos + buf.write(s, pos, byteLength, 'utf8');
}

function writeLatin1(buf: Buffer, pos: number, s: ByteString): number {
  const n = s.length;
  if (n <= 32) {
    for (let i = 0; i < n; i++) buf[pos + i] = s.charCodeAt(i);
    return pos + n;
  }
  return pos + buf.write(s, pos, n, 'latin1');
}
