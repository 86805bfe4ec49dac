import { describe, expect, it } from 'vitest';
import { Random } from '../testing/random.js';
import { type RowRange, type RowSet, normalizeRowSet, normalizeRowSetInSteps } from './key-range.js';

const key = (r: Random): string => String.fromCharCode(...Array.from({ length: r.int(0, 3) }, () => r.int(0x61, 0x64)));

function randomSet(r: Random, size: number): RowSet {
  const keys = Array.from({ length: r.int(0, size) }, () => key(r));
  const ranges: RowRange[] = Array.from({ length: r.int(0, size) }, () => {
    const a = key(r);
    const b = key(r);
    const [lo, hi] = a <= b ? [a, b] : [b, a];
    return {
      start: r.chance(0.2) ? { kind: 'unbounded' } : { kind: r.chance(0.5) ? 'closed' : 'open', key: lo },
      end: r.chance(0.2) ? { kind: 'unbounded' } : { kind: r.chance(0.5) ? 'closed' : 'open', key: hi },
    };
  });
  return { keys, ranges };
}

describe('normalizeRowSet', () => {
  it('gives sorted, disjoint, non-adjacent ranges that hold exactly the keys of the set', () => {
    const r = new Random(11);
    const all = ['', 'a', 'aa', 'ab', 'b', 'ba', 'bb', 'c', 'cc', 'd', 'dd', 'ddd'];
    for (let trial = 0; trial < 500; trial++) {
      const set = randomSet(r, 4);
      let out: ReturnType<typeof normalizeRowSet>;
      try {
        out = normalizeRowSet(set);
      } catch {
        continue; // an open range (k, k): start after end (tested below)
      }
      for (let i = 1; i < out.length; i++) expect(out[i - 1]!.end !== undefined && out[i - 1]!.end! < out[i]!.start).toBe(true);
      const inSet = (k: string): boolean =>
        (set.keys.length === 0 && set.ranges.length === 0) ||
        set.keys.includes(k) ||
        set.ranges.some(
          (g) =>
            (g.start.kind === 'unbounded' || (g.start.kind === 'closed' ? k >= g.start.key : k > g.start.key)) &&
            (g.end.kind === 'unbounded' || (g.end.kind === 'closed' ? k <= g.end.key : k < g.end.key)),
        );
      const inOut = (k: string): boolean => out.some((g) => k >= g.start && (g.end === undefined || k < g.end));
      for (const k of all) expect(inOut(k), `${JSON.stringify(set)} ${k}`).toBe(inSet(k));
    }
  });

  it('in steps: the same result, pausing every few thousand ranges', async () => {
    const r = new Random(12);
    for (let trial = 0; trial < 50; trial++) {
      const set = randomSet(r, 30);
      let expected: ReturnType<typeof normalizeRowSet> | 'throws';
      try {
        expected = normalizeRowSet(set);
      } catch {
        expected = 'throws';
      }
      if (expected === 'throws') await expect(normalizeRowSetInSteps(set, () => undefined)).rejects.toThrow();
      else expect(await normalizeRowSetInSteps(set, () => undefined)).toEqual(expected);
    }
    const big: RowSet = {
      keys: [],
      ranges: Array.from({ length: 100_000 }, (_, i) => ({
        start: { kind: 'closed', key: `r${String(i * 2).padStart(7, '0')}` },
        end: { kind: 'open', key: `r${String(i * 2 + 1).padStart(7, '0')}` },
      })),
    };
    let pauses = 0;
    const out = await normalizeRowSetInSteps(big, () => {
      pauses++;
      return Promise.resolve();
    });
    expect(out).toEqual(normalizeRowSet(big));
    expect(out.length).toBe(100_000);
    expect(pauses).toBeGreaterThan(20);
    // A range whose start is after its end fails as normalizeRowSet does.
    await expect(
      normalizeRowSetInSteps(
        { keys: [], ranges: [{ start: { kind: 'closed', key: 'b' }, end: { kind: 'closed', key: 'a' } }] },
        () => undefined,
      ),
    ).rejects.toMatchObject({ code: 'InvalidArgument' });
  });
});
