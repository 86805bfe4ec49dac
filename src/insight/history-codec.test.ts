import { describe, expect, it } from 'vitest';
import { isTabletopError } from '../model/errors.js';
import { type Column, newColumn } from './column.js';
import { sampleColumn } from './testing/columns.js';
import { decodeBoundarySet, decodeColumn, decodeTableName, encodeBoundarySet, encodeColumn, encodeTableName } from './history-codec.js';

describe('the history codec', () => {
  it('round-trips a column: sparse counters, the largest rows, edges and latency sketches', () => {
    const col = sampleColumn();
    const buf = encodeColumn(col);
    // Sparse: a 1,000-bucket column with a few buckets set takes well under a byte per bucket.
    expect(buf.length).toBeLessThan(200);
    const back = decodeColumn(buf);
    expect(back.startMillis).toBe(col.startMillis);
    expect(back.durationMillis).toBe(10_000);
    expect(back.setId).toBe(3);
    expect(back.buckets).toBe(1000);
    for (const [name, values] of Object.entries(col.counters)) {
      // Serving µs are whole numbers in the history.
      expect([...back.counters[name as keyof Column['counters']]]).toEqual([...values].map(Math.round));
    }
    expect([...back.maxRowBytes]).toEqual([...col.maxRowBytes]);
    expect(back.firstEdge).toEqual(col.firstEdge);
    expect(back.lastEdge).toEqual(col.lastEdge);
    expect(back.latency[999]!.count).toBe(3);
    expect(back.latency[999]!.max).toBe(4000);
    expect(back.latency[999]!.quantile(0.5)).toBe(col.latency[999]!.quantile(0.5));
    expect(back.latency[3]!.max).toBe(2);
    expect(back.latency.filter((s) => s !== undefined)).toHaveLength(2);
  });

  it('round-trips an empty column without edges', () => {
    const back = decodeColumn(encodeColumn(newColumn(0, 60_000, 1, 1)));
    expect(back.buckets).toBe(1);
    expect(back.firstEdge).toBeUndefined();
    expect(back.counters.write_ops[0]).toBe(0);
  });

  it('round-trips boundary sets and table names', () => {
    const set = { setId: 7, starts: ['', 'a#1', '\xff\x00'], rows: [10, 20.4, 0], bytes: [100, 2000, 0], estimated: true };
    expect(decodeBoundarySet(encodeBoundarySet(set))).toEqual({ ...set, rows: [10, 20, 0] });
    const name = { project: 'p', instance: 'i', table: 'tä/ble' };
    expect(decodeTableName(encodeTableName(name))).toEqual(name);
  });

  it('reports a damaged column as data loss', () => {
    const buf = encodeColumn(sampleColumn());
    try {
      decodeColumn(buf.subarray(0, buf.length - 3));
      expect.unreachable();
    } catch (e) {
      expect(isTabletopError(e, 'DataLoss')).toBe(true);
    }
  });
});
