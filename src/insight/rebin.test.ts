import { describe, expect, it } from 'vitest';
import { COUNTERS } from './column.js';
import { keyFraction, rebinColumn, rebinLevels } from './rebin.js';
import { at, boundarySet, column } from './testing/synthetic.js';

const sum = (a: ArrayLike<number>): number => Array.from(a).reduce((s, x) => s + x, 0);

describe('keyFraction', () => {
  it('places keys linearly on the first bytes after the shared prefix', () => {
    expect(keyFraction('k5', 'k0', 'k9')).toBeCloseTo(5 / 9, 6);
    expect(keyFraction('k0', 'k0', 'k9')).toBe(0);
    expect(keyFraction('k9', 'k0', 'k9')).toBe(1);
    expect(keyFraction('k45', 'k4', 'k5')).toBeCloseTo(0x35 / 256, 6);
    // To the end of the key space: 0x80 is about half way.
    expect(keyFraction('\x80', '', undefined)).toBeCloseTo(0.5, 6);
  });

  it('is monotone in the key', () => {
    const ks = ['a', 'a\x00', 'a1', 'a10', 'a2', 'b', 'b\xff\xff'];
    const fs = ks.map((k) => keyFraction(k, 'a', 'c'));
    for (let i = 1; i < fs.length; i++) expect(fs[i]!).toBeGreaterThanOrEqual(fs[i - 1]!);
  });
});

describe('rebinColumn', () => {
  // from: ['', k2, k4, k6, k8]; onto: ['', k1, k2, ..., k9]
  const from = boundarySet(1, ['k2', 'k4', 'k6', 'k8']);
  const onto = boundarySet(2, ['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', 'k9']);

  it('conserves every counter in total and splits a middle bucket by key overlap', () => {
    const col = column(from, 0, 10_000, {
      counters: { write_ops: [0, 100, 40, 0, 0], read_bytes: [0, 0, 0, 7, 0], serving_micros: [0, 3, 3, 3, 0] },
    });
    const out = rebinColumn(col, from, onto);
    expect(out.setId).toBe(2);
    expect(out.buckets).toBe(10);
    for (const c of COUNTERS) expect(sum(out.counters[c])).toBeCloseTo(sum(col.counters[c]), 9);
    // [k2, k4) splits evenly over [k2, k3) and [k3, k4).
    expect(out.counters.write_ops[2]).toBeCloseTo(50, 9);
    expect(out.counters.write_ops[3]).toBeCloseTo(50, 9);
    expect(out.counters.write_ops[4]).toBeCloseTo(20, 9);
    expect(out.counters.write_ops[5]).toBeCloseTo(20, 9);
  });

  it('spreads the last bucket over its recorded key span, not to the end of the key space', () => {
    const col = column(from, 0, 10_000, {
      counters: { write_ops: at(5, 90, 4) },
      lastEdge: { min: 'k80', max: 'k99' },
    });
    const out = rebinColumn(col, from, onto);
    expect(sum(out.counters.write_ops)).toBeCloseTo(90, 9);
    // k80..k99 overlaps [k8, k9) and [k9, ∞), nothing beyond, one row each: by rows, not by key space (which gave
    // [k9, ∞) 57 of the span's 265 byte steps), about half each.
    expect(out.counters.write_ops[8]! + out.counters.write_ops[9]!).toBeCloseTo(90, 9);
    expect(out.counters.write_ops[8]!).toBeGreaterThan(35);
    expect(out.counters.write_ops[9]!).toBeGreaterThan(35);
    expect(out.lastEdge).toEqual({ min: 'k9', max: 'k99' });
  });

  it('spreads the first bucket over its span too, and a single touched key lands whole', () => {
    const col = column(from, 0, 10_000, {
      counters: { write_ops: at(5, 10, 0, 4) },
      firstEdge: { min: 'k05', max: 'k05' },
      lastEdge: { min: 'k85', max: 'k85' },
    });
    const out = rebinColumn(col, from, onto);
    expect(out.counters.write_ops[0]).toBe(10);
    expect(out.counters.write_ops[8]).toBe(10);
    expect(out.firstEdge).toEqual({ min: 'k05', max: 'k05' });
  });

  it('without an edge span the last bucket runs to the end of the key space', () => {
    const col = column(from, 0, 10_000, { counters: { write_ops: at(5, 8, 4) } });
    const out = rebinColumn(col, from, onto);
    expect(sum(out.counters.write_ops)).toBeCloseTo(8, 9);
    expect(out.counters.write_ops[9]!).toBeGreaterThan(out.counters.write_ops[8]!);
  });

  it('gives largest rows and latency sketches to every bucket they overlap', () => {
    const col = column(from, 0, 10_000, { maxRowBytes: at(5, 500, 1), latencies: [undefined, [100, 200]] });
    const out = rebinColumn(col, from, onto);
    expect([...out.maxRowBytes]).toEqual([0, 0, 500, 500, 0, 0, 0, 0, 0, 0]);
    expect(out.latency.map((s) => s?.count ?? 0)).toEqual([0, 0, 2, 2, 0, 0, 0, 0, 0, 0]);
    expect(out.latency[2]!.max).toBe(200);
  });

  it('merges onto a coarser set: all of a fine bucket inside one coarse bucket goes there', () => {
    const col = column(onto, 0, 10_000, { counters: { write_ops: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] } });
    const out = rebinColumn(col, onto, from);
    expect([...out.counters.write_ops].map((x) => Math.round(x * 1e9) / 1e9)).toEqual([3, 7, 11, 15, 19]);
  });

  it('copies a column already over the target set and never changes its input', () => {
    const col = column(from, 0, 10_000, { counters: { write_ops: [1, 2, 3, 4, 5] } });
    const out = rebinColumn(col, from, from);
    expect([...out.counters.write_ops]).toEqual([1, 2, 3, 4, 5]);
    out.counters.write_ops[0] = 99;
    expect(col.counters.write_ops[0]).toBe(1);
    expect(() => rebinColumn(col, onto, from)).toThrow(RangeError);
  });
});

describe('rebinLevels', () => {
  it('moves rows per bucket onto another set, conserving the total', () => {
    const from = boundarySet(1, ['b', 'd']);
    const onto = boundarySet(2, ['c']);
    const out = rebinLevels([10, 20, 30], from, onto);
    expect(out[0]! + out[1]!).toBeCloseTo(60, 9);
    expect(out[0]!).toBeCloseTo(20, 9);
  });
});
