import { describe, expect, it } from 'vitest';
import { type Column, newColumn } from './column.js';
import { LatencySketch } from './latency-sketch.js';
import { TierRollup, retentionStart, tierSpecs } from './tiers.js';

const T0 = Date.UTC(2026, 0, 1);
const SPECS = tierSpecs(10_000);

/** A 10 s column of set 1 with `writes` write ops in each of its 3 buckets, one latency of `latency` µs in bucket 1. */
function fine(startMillis: number, writes: number, latency = 100, setId = 1): Column {
  const col = newColumn(startMillis, 10_000, setId, 3);
  col.counters.write_ops.fill(writes);
  col.maxRowBytes[2] = writes * 10;
  (col.latency[1] = new LatencySketch()).add(latency);
  col.lastEdge = { min: `k${writes}`, max: `k${writes}` };
  return col;
}

describe('time tiers', () => {
  it('are 10 s × 360, 1 min × 1,440 and 1 h × 336 by default', () => {
    expect(SPECS.map((s) => [s.millis, s.keep])).toEqual([
      [10_000, 360],
      [60_000, 1440],
      [3_600_000, 336],
    ]);
    expect(retentionStart(SPECS[0]!, T0 + 3_600_000 + 5_000)).toBe(T0);
    expect(retentionStart(SPECS[2]!, T0 + 14 * 86_400_000)).toBe(T0);
  });

  it('sum six 10 s columns into one 1 min column, which closes when the next minute starts', () => {
    const rollup = new TierRollup(SPECS);
    for (let i = 0; i < 6; i++) {
      const closed = rollup.add(fine(T0 + i * 10_000, i + 1, 100 * (i + 1)));
      expect(closed.map((c) => c.tier)).toEqual([0]);
    }
    const closed = rollup.add(fine(T0 + 60_000, 100));
    expect(closed.map((c) => [c.tier, c.column.startMillis])).toEqual([
      [0, T0 + 60_000],
      [1, T0],
    ]);
    const minute = closed[1]!.column;
    expect(minute.durationMillis).toBe(60_000);
    expect([...minute.counters.write_ops]).toEqual([21, 21, 21]);
    expect(minute.maxRowBytes[2]).toBe(60);
    expect(minute.latency[1]!.count).toBe(6);
    expect(minute.latency[1]!.max).toBe(600);
    expect(minute.lastEdge).toEqual({ min: 'k1', max: 'k6' });
  });

  it('closes the open minute and hour on the timer without traffic, the hour holding its minutes', () => {
    const rollup = new TierRollup(SPECS);
    rollup.add(fine(T0, 1));
    rollup.add(fine(T0 + 70_000, 2));
    expect(rollup.advance(T0 + 119_999)).toEqual([]);
    const minute = rollup.advance(T0 + 120_000);
    expect(minute.map((c) => [c.tier, c.column.startMillis, c.column.counters.write_ops[0]])).toEqual([[1, T0 + 60_000, 2]]);
    const hour = rollup.advance(T0 + 3_600_000);
    expect(hour.map((c) => [c.tier, c.column.startMillis, c.column.counters.write_ops[0]])).toEqual([[2, T0, 3]]);
  });

  it('re-bins onto the newer boundary set when it changes inside a coarser column', () => {
    const calls: [number, number][] = [];
    const rollup = new TierRollup(SPECS, (column, onto) => {
      calls.push([column.setId, onto.setId]);
      const moved = newColumn(column.startMillis, column.durationMillis, onto.setId, onto.buckets);
      moved.counters.write_ops[0] = column.counters.write_ops.reduce((a, b) => a + b, 0);
      return moved;
    });
    rollup.add(fine(T0, 1, 100, 1));
    rollup.add(fine(T0 + 10_000, 2, 100, 2));
    const [, minute] = rollup.add(fine(T0 + 60_000, 0, 100, 2));
    expect(calls).toEqual([[1, 2]]);
    expect(minute!.column.setId).toBe(2);
    expect([...minute!.column.counters.write_ops]).toEqual([5, 2, 2]);
  });

  it('refuses to mix boundary sets without a re-binning', () => {
    const rollup = new TierRollup(SPECS);
    rollup.add(fine(T0, 1, 100, 1));
    expect(() => rollup.add(fine(T0 + 10_000, 1, 100, 2))).toThrow(/re-bin/);
  });
});
