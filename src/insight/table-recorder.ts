import type { RowBatch, TableAccess } from '../db/index.js';
import type { ByteString } from '../model/bytes.js';
import type { Clock } from '../model/clock.js';
import type { TableName } from '../model/names.js';
import { type Column, type KeySpan, newColumn } from './column.js';
import { type BoundarySet, BucketIndex } from './key-buckets.js';
import { LatencySketch } from './latency-sketch.js';
import { WriteOrderSample } from './write-order.js';

/**
 * Records one table's traffic (db's TableAccess) into the open column of the
 * current time bucket, over the table's current boundary set.
 *
 * Hot-path contract: per row one bucket lookup (the last bucket hit first),
 * a few typed-array adds, and for the edge buckets one or two compares; no
 * allocation, no Map lookup, no clock read. The clock is read once per batch
 * (and per request end): a batch that arrives after the open column's time
 * bucket has ended closes it (it waits in `finished` for the owner's timer,
 * `roll`) and opens the next, so every op lands in the time bucket it
 * happened in, whatever the timer's period.
 *
 * read_ops counts the buckets a read enters: a scan over three buckets is one
 * op in each, a point read one op in its bucket. A request's latency goes to
 * the sketch of its first key's bucket (made at the bucket's first request). Reads in flight at once
 * interleave their batches, so with concurrent scans this is approximate.
 */
export class TableRecorder implements TableAccess {
  private column: Column | undefined;
  /** When the open column's time bucket ends (ms); columns closed by a batch, waiting for roll(). */
  private columnEnd = -Infinity;
  private readonly finished: Column[] = [];
  /** The set the open column is recorded over, and the one the next column will use (when it changed). */
  private set: BoundarySet;
  private nextSet: BoundarySet | undefined;
  /** The open column's set, for the bucket of a key. */
  private index: BucketIndex;
  /** The bucket hit last by a write, by a read; the bucket the current read is in (-1: none yet). */
  private writeHint = 0;
  private writeHintPays = true;
  private readHint = 0;
  private readBucket = -1;
  /** Recent written keys in arrival order (the first key of a batch, at most one per 50 ms): the schema advisor's. */
  readonly writeOrder: WriteOrderSample;
  /** The clock as open() last read it. */
  private nowMillis = 0;

  constructor(
    readonly uid: string,
    readonly name: TableName,
    private readonly clock: Clock,
    /** Length of a time bucket (Config.insightBucketMillis). */
    private readonly bucketMillis: number,
    boundaries: BoundarySet,
  ) {
    this.set = boundaries;
    this.index = new BucketIndex(boundaries.starts);
    this.writeOrder = new WriteOrderSample(Math.min(50, bucketMillis / 10));
  }

  /** The newest boundary set (the next column's). */
  get boundaries(): BoundarySet {
    return this.nextSet ?? this.set;
  }

  /** Takes effect at the next column: the open one stays over the set it started with. */
  setBoundaries(set: BoundarySet): void {
    this.nextSet = set;
  }

  rowsWritten(batch: RowBatch): void {
    const col = this.open();
    const { keys, bytes, count } = batch;
    if (count > 0) this.writeOrder.offer(keys[0]!, this.nowMillis);
    const index = this.index;
    const { write_ops, write_bytes, serving_micros } = col.counters;
    const last = col.buckets - 1;
    const cpu = count > 0 ? batch.cpuMicros / count : 0;
    let hint = this.writeHint;
    // Sequential writes stay in the bucket hit last: try it first while that pays; shuffled ones (a bulk load)
    // skip the two string compares that would miss.
    let tryHint = this.writeHintPays;
    for (let i = 0; i < count; i++) {
      const key = keys[i]!;
      const b = index.of(key, tryHint ? hint : -1);
      tryHint = b === hint;
      hint = b;
      write_ops[hint]!++;
      write_bytes[hint]! += bytes[i]!;
      serving_micros[hint]! += cpu;
      if (hint === 0 || hint === last) touchEdge(col, hint, key);
    }
    this.writeHint = hint;
    this.writeHintPays = tryHint;
  }

  rowsRead(batch: RowBatch): void {
    const col = this.open();
    const { keys, bytes, cellsReturned, count } = batch;
    const index = this.index;
    const { read_ops, rows_read, read_bytes, serving_micros, rows_returned, cells_returned } = col.counters;
    const maxRowBytes = col.maxRowBytes;
    const last = col.buckets - 1;
    const cpu = count > 0 ? batch.cpuMicros / count : 0;
    let hint = this.readHint;
    let entered = this.readBucket;
    // The rows come in reading order, so the keys an edge bucket saw are bounded by the first and last of them:
    // two compares per edge bucket and batch instead of per row (a new table's one bucket is all edge).
    let firstEdgeFrom = -1;
    let firstEdgeTo = -1;
    let lastEdgeFrom = -1;
    let lastEdgeTo = -1;
    for (let i = 0; i < count; i++) {
      const key = keys[i]!;
      hint = index.of(key, hint);
      if (hint !== entered) {
        read_ops[hint]!++;
        entered = hint;
      }
      const size = bytes[i] ?? 0;
      rows_read[hint]!++;
      read_bytes[hint]! += size;
      serving_micros[hint]! += cpu;
      if (size > maxRowBytes[hint]!) maxRowBytes[hint] = size;
      const cells = cellsReturned?.[i] ?? 0;
      if (cells > 0) {
        rows_returned[hint]!++;
        cells_returned[hint]! += cells;
      }
      if (hint === 0) {
        if (firstEdgeFrom < 0) firstEdgeFrom = i;
        firstEdgeTo = i;
      } else if (hint === last) {
        if (lastEdgeFrom < 0) lastEdgeFrom = i;
        lastEdgeTo = i;
      }
    }
    if (firstEdgeFrom >= 0) {
      touchEdge(col, 0, keys[firstEdgeFrom]!);
      touchEdge(col, 0, keys[firstEdgeTo]!);
    }
    if (lastEdgeFrom >= 0) {
      touchEdge(col, last, keys[lastEdgeFrom]!);
      touchEdge(col, last, keys[lastEdgeTo]!);
    }
    this.readBucket = entered;
    this.readHint = hint;
  }

  requestEnded(kind: 'read' | 'write', firstKey: ByteString | undefined, latencyMicros: number): void {
    const col = this.open();
    if (kind === 'read') this.readBucket = -1;
    const b = firstKey === undefined ? 0 : this.index.of(firstKey, kind === 'read' ? this.readHint : this.writeHint);
    (col.latency[b] ??= new LatencySketch()).add(latencyMicros);
  }

  /**
   * Takes the columns whose time bucket is over, oldest first: those a batch
   * closed, and the open one once the clock has left its bucket. Empty while
   * the open column is current or there was no traffic (then no column is
   * kept at all).
   */
  roll(): Column[] {
    const done = this.finished.splice(0);
    const col = this.column;
    if (col !== undefined && this.clock.nowMicros() / 1000 >= this.columnEnd) {
      this.column = undefined;
      done.push(col);
    }
    return done;
  }

  /** The open column (live; it keeps taking adds), undefined while there is none. */
  get openColumn(): Column | undefined {
    return this.column;
  }

  /** Takes every column, whether or not its time is over (at shutdown), oldest first. */
  flush(): Column[] {
    const done = this.finished.splice(0);
    if (this.column !== undefined) done.push(this.column);
    this.column = undefined;
    return done;
  }

  private open(): Column {
    const now = (this.nowMillis = this.clock.nowMicros() / 1000);
    if (this.column !== undefined) {
      if (now < this.columnEnd) return this.column;
      this.finished.push(this.column);
      this.column = undefined;
    }
    if (this.nextSet !== undefined) {
      this.set = this.nextSet;
      this.index = new BucketIndex(this.set.starts);
      this.nextSet = undefined;
      this.writeHint = 0;
      this.readHint = 0;
      this.readBucket = -1;
    }
    const start = Math.floor(now / this.bucketMillis) * this.bucketMillis;
    this.columnEnd = start + this.bucketMillis;
    this.column = newColumn(start, this.bucketMillis, this.set.setId, this.set.starts.length);
    return this.column;
  }
}

function touchEdge(col: Column, bucket: number, key: ByteString): void {
  if (bucket !== 0) col.lastEdge = widen(col.lastEdge, key);
  else if (col.buckets > 1) col.firstEdge = widen(col.firstEdge, key);
  // One bucket (a new table's set): the first bucket is the last, one span serves both.
  else col.firstEdge = col.lastEdge = widen(col.firstEdge, key);
}

function widen(span: KeySpan | undefined, key: ByteString): KeySpan {
  if (span === undefined) return { min: key, max: key };
  if (key < span.min) span.min = key;
  else if (key > span.max) span.max = key;
  return span;
}
