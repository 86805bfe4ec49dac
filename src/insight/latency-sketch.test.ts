import { describe, expect, it } from 'vitest';
import { seededRandom } from '../testing/random.js';
import { LatencySketch } from './latency-sketch.js';

/** The exact q-quantile of `values` (nearest rank). */
function exactQuantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

describe('the latency sketch', () => {
  it('gives p50 and p99 within a bin (≤ 19% above) and the exact max', () => {
    const random = seededRandom(3);
    // Log-normal-ish latencies from ~50 µs to seconds.
    const values = Array.from({ length: 10_000 }, () => Math.exp(4 + random() * random() * 10));
    const s = new LatencySketch();
    for (const v of values) s.add(v);
    expect(s.count).toBe(10_000);
    expect(s.max).toBe(Math.max(...values));
    for (const q of [0.5, 0.99]) {
      const exact = exactQuantile(values, q);
      expect(s.quantile(q)).toBeGreaterThanOrEqual(exact);
      expect(s.quantile(q)).toBeLessThanOrEqual(exact * 2 ** 0.25 * 1.0001);
    }
    expect(s.quantile(1)).toBe(s.max);
  });

  it('is empty at 0, and takes latencies below 1 µs and beyond a day into its end bins', () => {
    const s = new LatencySketch();
    expect(s.quantile(0.5)).toBe(0);
    s.add(0);
    s.add(0.3);
    s.add(1e12);
    expect(s.count).toBe(3);
    expect(s.quantile(1)).toBe(1e12);
    expect(s.quantile(0.5)).toBeLessThanOrEqual(2 ** 0.25);
    expect(s.max).toBe(1e12);
  });

  it('merges as if the requests had been added to one sketch, and round-trips its sparse form', () => {
    const a = new LatencySketch();
    const b = new LatencySketch();
    const both = new LatencySketch();
    for (let i = 1; i < 500; i++) {
      (i % 3 === 0 ? a : b).add(i * 37);
      both.add(i * 37);
    }
    a.merge(b);
    expect(a.toSparse()).toEqual(both.toSparse());
    expect(a.max).toBe(both.max);
    const back = LatencySketch.fromSparse(a.toSparse(), a.max);
    expect(back.count).toBe(a.count);
    for (const q of [0.1, 0.5, 0.9, 0.99]) expect(back.quantile(q)).toBe(a.quantile(q));
    expect(() => LatencySketch.fromSparse([[144, 1]], 1)).toThrow(/out of range/);
  });
});
