import { ByteReader } from '../model/byte-reader.js';
import { ByteWriter } from '../model/byte-writer.js';
import { dataLoss } from '../model/errors.js';
import type { TableName } from '../model/names.js';
import { COUNTERS, type Column, type KeySpan, newColumn } from './column.js';
import type { BoundarySet } from './key-buckets.js';
import { LatencySketch } from './latency-sketch.js';

/**
 * The byte forms of what the history store keeps (history-store.ts): a closed
 * column, a boundary set, a table's name. Columns are sparse: per metric
 * (COUNTERS, then the largest row) the non-zero buckets as (bucket delta,
 * value) pairs, the edge spans, and per bucket with requests its latency
 * sketch's non-empty bins. Counters are stored as whole numbers (serving µs
 * rounded per bucket), latencies' maxima to the next whole µs.
 */

const FORMAT = 1;
const HAS_FIRST_EDGE = 1;
const HAS_LAST_EDGE = 2;

export function encodeColumn(col: Column): Buffer {
  const w = new ByteWriter(64 + col.buckets);
  w.u8(FORMAT);
  w.varint(col.startMillis);
  w.varint(col.durationMillis);
  w.varint(col.setId);
  w.varint(col.buckets);
  for (const c of COUNTERS) sparse(w, col.counters[c]);
  sparse(w, col.maxRowBytes);
  w.u8((col.firstEdge === undefined ? 0 : HAS_FIRST_EDGE) | (col.lastEdge === undefined ? 0 : HAS_LAST_EDGE));
  if (col.firstEdge !== undefined) span(w, col.firstEdge);
  if (col.lastEdge !== undefined) span(w, col.lastEdge);
  let sketches = 0;
  for (const s of col.latency) if (s !== undefined) sketches++;
  w.varint(sketches);
  let prev = 0;
  for (let b = 0; b < col.buckets; b++) {
    const s = col.latency[b];
    if (s === undefined) continue;
    w.varint(b - prev);
    prev = b;
    w.varint(Math.ceil(s.max));
    const bins = s.toSparse();
    w.varint(bins.length);
    let prevBin = 0;
    for (const [bin, n] of bins) {
      w.varint(bin - prevBin);
      prevBin = bin;
      w.varint(n);
    }
  }
  return Buffer.from(w.view());
}

export function decodeColumn(buf: Uint8Array): Column {
  const r = reader(buf, 'history column');
  const format = r.u8('format');
  if (format !== FORMAT) fail('history column', `format ${format} is not ${FORMAT}`);
  const start = r.varint('start');
  const duration = r.varint('duration');
  const setId = r.varint('set id');
  const buckets = r.varint('bucket count');
  const col = newColumn(start, duration, setId, buckets);
  for (const c of COUNTERS) unsparse(r, col.counters[c], c);
  unsparse(r, col.maxRowBytes, 'max_row_bytes');
  const edges = r.u8('edge flags');
  if ((edges & HAS_FIRST_EDGE) !== 0) col.firstEdge = readSpan(r);
  if ((edges & HAS_LAST_EDGE) !== 0) col.lastEdge = readSpan(r);
  const sketches = r.varint('sketch count');
  let b = 0;
  for (let i = 0; i < sketches; i++) {
    b += r.varint('sketch bucket');
    if (b >= buckets) fail('history column', `latency bucket ${b} of ${buckets}`);
    const max = r.varint('latency max');
    const pairs: [number, number][] = [];
    const n = r.varint('bin count');
    let bin = 0;
    for (let j = 0; j < n; j++) {
      bin += r.varint('bin');
      pairs.push([bin, r.varint('bin count')]);
    }
    col.latency[b] = LatencySketch.fromSparse(pairs, max);
  }
  if (!r.done) fail('history column', 'trailing bytes');
  return col;
}

/** The boundary set a column names, from its header alone. */
export function columnSetId(buf: Uint8Array): number {
  const r = reader(buf, 'history column');
  r.u8('format');
  r.varint('start');
  r.varint('duration');
  return r.varint('set id');
}

export function encodeBoundarySet(set: BoundarySet): Buffer {
  const w = new ByteWriter(64 + set.starts.length * 8);
  w.u8(FORMAT);
  w.varint(set.setId);
  w.u8(set.estimated ? 1 : 0);
  w.varint(set.starts.length);
  for (let i = 0; i < set.starts.length; i++) {
    w.str(set.starts[i]!);
    w.varint(Math.round(set.rows[i] ?? 0));
    w.varint(Math.round(set.bytes[i] ?? 0));
  }
  return Buffer.from(w.view());
}

export function decodeBoundarySet(buf: Uint8Array): BoundarySet {
  const r = reader(buf, 'history boundary set');
  const format = r.u8('format');
  if (format !== FORMAT) fail('history boundary set', `format ${format} is not ${FORMAT}`);
  const setId = r.varint('set id');
  const estimated = r.u8('estimated') === 1;
  const n = r.varint('bucket count');
  const starts: string[] = [];
  const rows: number[] = [];
  const bytes: number[] = [];
  for (let i = 0; i < n; i++) {
    starts.push(r.str('boundary'));
    rows.push(r.varint('rows'));
    bytes.push(r.varint('bytes'));
  }
  return { setId, starts, rows, bytes, estimated };
}

export function encodeTableName(name: TableName): Buffer {
  return Buffer.from(JSON.stringify([name.project, name.instance, name.table]), 'utf8');
}

export function decodeTableName(buf: Uint8Array): TableName {
  const v = JSON.parse(Buffer.from(buf).toString('utf8')) as unknown;
  if (!Array.isArray(v) || v.length !== 3 || !v.every((x) => typeof x === 'string')) fail('history table name', 'not a name');
  const [project, instance, table] = v as [string, string, string];
  return { project, instance, table };
}

function sparse(w: ByteWriter, values: Float64Array): void {
  let n = 0;
  for (let i = 0; i < values.length; i++) if (Math.round(values[i]!) > 0) n++;
  w.varint(n);
  let prev = 0;
  for (let i = 0; i < values.length; i++) {
    const v = Math.round(values[i]!);
    if (v <= 0) continue;
    w.varint(i - prev);
    prev = i;
    w.varint(v);
  }
}

function unsparse(r: ByteReader, into: Float64Array, what: string): void {
  const n = r.varint(`${what} count`);
  let i = 0;
  for (let j = 0; j < n; j++) {
    i += r.varint(`${what} bucket`);
    if (i >= into.length) fail('history column', `${what} bucket ${i} of ${into.length}`);
    into[i] = r.varint(what);
  }
}

function span(w: ByteWriter, s: KeySpan): void {
  w.str(s.min);
  w.str(s.max);
}

function readSpan(r: ByteReader): KeySpan {
  return { min: r.str('edge min'), max: r.str('edge max') };
}

function reader(buf: Uint8Array, what: string): ByteReader {
  const b = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  return new ByteReader(b, 0, b.length, (reason) => fail(what, reason));
}

function fail(what: string, reason: string): never {
  throw dataLoss(`insight history: damaged ${what}: ${reason}`);
}
