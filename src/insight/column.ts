import type { ByteString } from '../model/bytes.js';
import { LatencySketch } from './latency-sketch.js';

/** The summed per-bucket figures of a column (per-second rates at query time). */
export const COUNTERS = [
  /** Read requests that touched the bucket (counted when a read enters it). */
  'read_ops',
  /** Rows written (Google's per-row ops). */
  'write_ops',
  /** Stored bytes a read saw (key + qualifiers + values). */
  'read_bytes',
  /** Bytes the writes added (the write batch's upper bound; deletes 0). */
  'write_bytes',
  /** Rows a read saw, returned or filtered out. */
  'rows_read',
  'rows_returned',
  'cells_returned',
  /** Serving time (µs) of the batches, spread evenly over their rows: Read/Write CPU. */
  'serving_micros',
] as const;
export type Counter = (typeof COUNTERS)[number];

/** The smallest and largest key touched in an edge bucket (re-binning spreads the bucket over them). */
export interface KeySpan {
  min: ByteString;
  max: ByteString;
}

/**
 * One time bucket of one table over one boundary set: dense typed arrays,
 * indexed by bucket. `open` columns take adds; a closed one is a value.
 */
export interface Column {
  readonly startMillis: number;
  readonly durationMillis: number;
  /** The boundary set (BoundarySet.setId) the buckets belong to. */
  readonly setId: number;
  readonly buckets: number;
  readonly counters: Readonly<Record<Counter, Float64Array>>;
  /** Largest row a read saw, per bucket (bytes). */
  readonly maxRowBytes: Float64Array;
  /** Latencies (µs) of the requests whose first key is in the bucket; undefined for a bucket without any. */
  readonly latency: (LatencySketch | undefined)[];
  /** Keys touched in bucket 0 and in the last bucket, undefined while untouched. */
  firstEdge: KeySpan | undefined;
  lastEdge: KeySpan | undefined;
}

/** An empty column of `buckets` buckets. */
export function newColumn(startMillis: number, durationMillis: number, setId: number, buckets: number): Column {
  const counters = {} as Record<Counter, Float64Array>;
  for (const c of COUNTERS) counters[c] = new Float64Array(buckets);
  return {
    startMillis,
    durationMillis,
    setId,
    buckets,
    counters,
    maxRowBytes: new Float64Array(buckets),
    latency: new Array<LatencySketch | undefined>(buckets).fill(undefined),
    firstEdge: undefined,
    lastEdge: undefined,
  };
}

/**
 * Adds `from` into `into` (same boundary set, any time span: a finer column
 * folded into a coarser one): counters add, largest rows and latencies merge,
 * edge spans widen.
 */
export function addInto(into: Column, from: Column): void {
  if (into.setId !== from.setId || into.buckets !== from.buckets) {
    throw new RangeError(`cannot add a column of set ${from.setId} into one of set ${into.setId}: re-bin it first`);
  }
  for (const c of COUNTERS) {
    const a = into.counters[c];
    const b = from.counters[c];
    for (let i = 0; i < a.length; i++) a[i]! += b[i]!;
  }
  for (let i = 0; i < into.buckets; i++) {
    if (from.maxRowBytes[i]! > into.maxRowBytes[i]!) into.maxRowBytes[i] = from.maxRowBytes[i]!;
    const s = from.latency[i];
    if (s !== undefined) (into.latency[i] ??= new LatencySketch()).merge(s);
  }
  into.firstEdge = widenSpan(into.firstEdge, from.firstEdge);
  into.lastEdge = widenSpan(into.lastEdge, from.lastEdge);
}

function widenSpan(a: KeySpan | undefined, b: KeySpan | undefined): KeySpan | undefined {
  if (b === undefined) return a;
  if (a === undefined) return { min: b.min, max: b.max };
  return { min: a.min < b.min ? a.min : b.min, max: a.max > b.max ? a.max : b.max };
}
