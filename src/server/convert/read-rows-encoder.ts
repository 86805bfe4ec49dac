import type { ByteString } from '../../model/bytes.js';
import type { Cell, Row } from '../../model/cell.js';
import {
  fieldSize,
  int64Size,
  utf8Length,
  varintFieldSize,
  varintSize,
  writeFieldHeader,
  writeInt64,
  writeLatin1,
  writeStringField,
  writeVarint,
  writeVarintField,
} from './wire.js';

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
  if (frame.lastScannedRowKey !== undefined) size += fieldSize(frame.lastScannedRowKey.length);
  let statsLen = 0;
  if (frame.stats !== undefined) {
    statsLen = requestStatsSize(frame.stats);
    size += fieldSize(statsLen);
  }
  const buf = Buffer.allocUnsafe(size);
  let pos = 0;
  for (const row of frame.rows) pos = rowChunks(buf, pos, row, valueChunkBytes);
  if (frame.lastScannedRowKey !== undefined)
    pos = writeStringField(buf, pos, 0x12, frame.lastScannedRowKey, frame.lastScannedRowKey.length);
  if (frame.stats !== undefined) {
    pos = writeFieldHeader(buf, pos, 0x1a, statsLen);
    pos = writeRequestStats(buf, pos, frame.stats);
  }
  if (pos !== size) throw new Error(`ReadRowsResponse encoder size mismatch: computed ${size}, wrote ${pos}`);
  return buf;
}

/** Encoded size of one row's chunks (including each chunk's field key and length). */
export function rowSize(row: Row, valueChunkBytes: number = DEFAULT_VALUE_CHUNK_BYTES): number {
  return rowChunks(undefined, 0, row, valueChunkBytes);
}

// What a chunk carries besides its piece of the value: a bit set of these. (Plain constants, not an
// enum: the compiler emits enums as objects, and these are tested for every chunk.)
const PART_KEY = 1;
const PART_FAMILY = 2;
const PART_QUALIFIER = 4;
/** timestamp and labels */
const PART_META = 8;
const PART_COMMIT = 16;

/**
 * The one walk over a row's chunks, which applies the chunk rules: without a
 * buffer it measures them (returns pos plus their size), with one it writes
 * them at pos (returns the position after them).
 */
function rowChunks(buf: Buffer | undefined, pos: number, row: Row, chunk: number): number {
  const cells = row.cells;
  let prev: Cell | undefined;
  for (let i = 0; i < cells.length; i++) {
    const c = cells[i]!;
    const familyChanged = prev === undefined || c.family !== prev.family;
    const qualifierChanged = familyChanged || c.qualifier !== prev!.qualifier;
    const firstPiece = (i === 0 ? PART_KEY : 0) | (familyChanged ? PART_FAMILY : 0) | (qualifierChanged ? PART_QUALIFIER : 0) | PART_META;
    const total = c.value.length;
    const pieces = total > chunk ? Math.ceil(total / chunk) : 1;
    const lastPiece = i === cells.length - 1 ? pieces - 1 : -1;
    for (let p = 0; p < pieces; p++) {
      const parts = (p === 0 ? firstPiece : 0) | (p === lastPiece ? PART_COMMIT : 0);
      const len = chunkBodySize(row.key, c, parts, p, pieces, chunk);
      if (buf === undefined) pos += fieldSize(len);
      else pos = writeChunk(buf, pos, row.key, c, parts, p, pieces, chunk, len);
    }
    prev = c;
  }
  return pos;
}

function pieceLength(total: number, p: number, pieces: number, chunk: number): number {
  return pieces === 1 ? total : p < pieces - 1 ? chunk : total - chunk * (pieces - 1);
}

/**
 * The body size of one chunk. Runs twice per chunk (measure, then write), so the field sizes are
 * spelled out rather than taken from fieldSize(): V8 optimizes this flat form measurably better.
 */
function chunkBodySize(key: ByteString, c: Cell, parts: number, p: number, pieces: number, chunk: number): number {
  let n = 0;
  if (parts & PART_KEY) n += 1 + varintSize(key.length) + key.length;
  if (parts & PART_FAMILY) {
    const f = utf8Length(c.family);
    const w = f === 0 ? 0 : 1 + varintSize(f) + f;
    n += 1 + varintSize(w) + w;
  }
  if (parts & PART_QUALIFIER) {
    const q = c.qualifier.length;
    const w = q === 0 ? 0 : 1 + varintSize(q) + q;
    n += 1 + varintSize(w) + w;
  }
  if (parts & PART_META) {
    if (c.timestamp !== 0) n += 1 + int64Size(c.timestamp);
    const labels = c.labels;
    for (let i = 0; i < labels.length; i++) {
      const b = utf8Length(labels[i]!);
      n += 1 + varintSize(b) + b;
    }
  }
  const v = pieceLength(c.value.length, p, pieces, chunk);
  if (v > 0) n += 1 + varintSize(v) + v;
  if (p < pieces - 1) n += 1 + varintSize(c.value.length);
  if (parts & PART_COMMIT) n += 2;
  return n;
}

/** One CellChunk (field 1 of the response) whose body is `len` bytes. */
function writeChunk(
  buf: Buffer,
  pos: number,
  key: ByteString,
  c: Cell,
  parts: number,
  p: number,
  pieces: number,
  chunk: number,
  len: number,
): number {
  pos = writeFieldHeader(buf, pos, 0x0a, len);
  if (parts & PART_KEY) pos = writeStringField(buf, pos, 0x0a, key, key.length);
  if (parts & PART_FAMILY) pos = writeWrappedField(buf, pos, 0x12, c.family, utf8Length(c.family));
  if (parts & PART_QUALIFIER) pos = writeWrappedField(buf, pos, 0x1a, c.qualifier, c.qualifier.length);
  if (parts & PART_META) {
    if (c.timestamp !== 0) {
      buf[pos++] = 0x20;
      pos = writeInt64(buf, pos, c.timestamp);
    }
    const labels = c.labels;
    for (let i = 0; i < labels.length; i++) pos = writeStringField(buf, pos, 0x2a, labels[i]!, utf8Length(labels[i]!));
  }
  const total = c.value.length;
  const v = pieceLength(total, p, pieces, chunk);
  if (v > 0) {
    pos = writeFieldHeader(buf, pos, 0x32, v);
    buf.set(pieces === 1 ? c.value : c.value.subarray(p * chunk, p * chunk + v), pos);
    pos += v;
  }
  if (p < pieces - 1) pos = writeVarintField(buf, pos, 0x38, total);
  if (parts & PART_COMMIT) {
    buf[pos++] = 0x48;
    buf[pos++] = 1;
  }
  return pos;
}

function iterationStatsSize(s: ReadRowsStats): number {
  return varintFieldSize(s.rowsSeen) + varintFieldSize(s.rowsReturned) + varintFieldSize(s.cellsSeen) + varintFieldSize(s.cellsReturned);
}

function latencyMicros(s: ReadRowsStats): number {
  return Math.max(0, Math.round(s.latencyMicros));
}

function durationSeconds(micros: number): number {
  return Math.floor(micros / 1e6);
}

function durationNanos(micros: number): number {
  return (micros - durationSeconds(micros) * 1e6) * 1000;
}

/** Size of the Duration body (seconds(1), nanos(2)). */
function durationSize(micros: number): number {
  return varintFieldSize(durationSeconds(micros)) + varintFieldSize(durationNanos(micros));
}

/** Size of the request_latency_stats body: frontend_server_latency(1) Duration. */
function latencyStatsSize(micros: number): number {
  return fieldSize(durationSize(micros));
}

/** Size of the request_stats body: full_read_stats_view(1) with its key and length. */
function requestStatsSize(s: ReadRowsStats): number {
  return fieldSize(fieldSize(iterationStatsSize(s)) + fieldSize(latencyStatsSize(latencyMicros(s))));
}

function writeRequestStats(buf: Buffer, pos: number, s: ReadRowsStats): number {
  const it = iterationStatsSize(s);
  const micros = latencyMicros(s);
  const lat = latencyStatsSize(micros);
  pos = writeFieldHeader(buf, pos, 0x0a, fieldSize(it) + fieldSize(lat)); // full_read_stats_view
  pos = writeFieldHeader(buf, pos, 0x0a, it); // read_iteration_stats
  pos = writeVarintField(buf, pos, 0x08, s.rowsSeen);
  pos = writeVarintField(buf, pos, 0x10, s.rowsReturned);
  pos = writeVarintField(buf, pos, 0x18, s.cellsSeen);
  pos = writeVarintField(buf, pos, 0x20, s.cellsReturned);
  pos = writeFieldHeader(buf, pos, 0x12, lat); // request_latency_stats
  pos = writeFieldHeader(buf, pos, 0x0a, durationSize(micros)); // frontend_server_latency
  pos = writeVarintField(buf, pos, 0x08, durationSeconds(micros));
  return writeVarintField(buf, pos, 0x10, durationNanos(micros));
}

/** A StringValue / BytesValue field: { value(1) } around the string, or empty for an empty one. */
function writeWrappedField(buf: Buffer, pos: number, key: number, s: string, byteLength: number): number {
  if (byteLength === 0) return writeFieldHeader(buf, pos, key, 0);
  return writeStringField(buf, writeFieldHeader(buf, pos, key, fieldSize(byteLength)), 0x0a, s, byteLength);
}
