import { COUNTERS, type Column, newColumn } from '../column.js';
import { type BoundarySet, bucketOf } from '../key-buckets.js';
import { LatencySketch } from '../latency-sketch.js';

/** Columns for the insight tests. */

/** A column of 1,000 buckets with a few filled, edges and two latency sketches. */
export function sampleColumn(start = Date.UTC(2026, 0, 1), setId = 3): Column {
  const col = newColumn(start, 10_000, setId, 1000);
  col.counters.write_ops[0] = 5;
  col.counters.write_ops[999] = 120;
  col.counters.write_bytes[999] = 123_456_789_012;
  col.counters.read_ops[500] = 1;
  col.counters.rows_read[500] = 64;
  col.counters.rows_returned[500] = 3;
  col.counters.cells_returned[500] = 9;
  col.counters.read_bytes[500] = 70_000;
  col.counters.serving_micros[500] = 812.4;
  col.maxRowBytes[500] = 4096;
  col.firstEdge = { min: '\x00a', max: 'b\xff' };
  col.lastEdge = { min: 'ts#0001', max: 'ts#9999' };
  const s = new LatencySketch();
  for (const us of [90, 120, 4000]) s.add(us);
  col.latency[999] = s;
  col.latency[3] = new LatencySketch();
  col.latency[3].add(1.5);
  return col;
}

/**
 * A stand-in for the query side's re-binning (rebin.ts, part B) in tests of
 * the recording: each bucket's figures go to the bucket of `onto` that holds
 * the bucket's first key.
 */
export function rebinByStart(column: Column, from: BoundarySet, onto: BoundarySet): Column {
  const out = newColumn(column.startMillis, column.durationMillis, onto.setId, onto.starts.length);
  for (let i = 0; i < column.buckets; i++) {
    const j = bucketOf(onto.starts, from.starts[i] ?? '', 0);
    for (const c of COUNTERS) out.counters[c][j]! += column.counters[c][i]!;
    out.maxRowBytes[j] = Math.max(out.maxRowBytes[j]!, column.maxRowBytes[i]!);
    const s = column.latency[i];
    if (s !== undefined) (out.latency[j] ??= new LatencySketch()).merge(s);
  }
  out.firstEdge = column.firstEdge;
  out.lastEdge = column.lastEdge;
  return out;
}
