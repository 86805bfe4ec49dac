import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KeyDistribution } from '../db/index.js';
import { seededRandom } from '../testing/random.js';
import { BucketIndex, MAX_BOUNDARY_BYTES, bucketOf, buildBoundaries, shouldRecompute } from './key-buckets.js';

/** An exact distribution over `keys` (sorted here), each row `rowBytes(i)` bytes. */
function exact(keys: string[], rowBytes: (i: number) => number = () => 100): KeyDistribution {
  const sorted = [...keys].sort();
  let bytes = 0;
  const points = sorted.map((key, i) => {
    const p = { key, rowsBefore: i, bytesBefore: bytes };
    bytes += rowBytes(i);
    return p;
  });
  return { exact: true, rows: sorted.length, rowsEstimated: false, bytes, points, largestRows: [] };
}

/** Which bucket each key of `dist` falls in, counted. */
function rowsPerBucket(starts: readonly string[], keys: readonly string[]): number[] {
  const counts = new Array<number>(starts.length).fill(0);
  let hint = 0;
  for (const k of keys) {
    hint = bucketOf(starts, k, hint);
    counts[hint]!++;
  }
  return counts;
}

describe('key buckets', () => {
  it('gives a tiny table one bucket per row, the first from the empty key', () => {
    const keys = Array.from({ length: 300 }, (_, i) => `user#${String(i * 7).padStart(5, '0')}`);
    const set = buildBoundaries(exact(keys), 1);
    expect(set.starts).toHaveLength(300);
    expect(set.starts[0]).toBe('');
    expect(rowsPerBucket(set.starts, keys)).toEqual(new Array(300).fill(1));
    expect(set.rows).toEqual(new Array(300).fill(1));
    expect(set.bytes.reduce((a, b) => a + b, 0)).toBe(300 * 100);
    expect(set.estimated).toBe(false);
  });

  it('cuts 100k skewed rows into ≤ 1,000 buckets within 15% of the mean, sampled or exact', () => {
    const random = seededRandom(7);
    // Skewed: most keys under a few prefixes, lengths varying.
    const keys: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      const prefix = random() < 0.8 ? `hot${Math.floor(random() * 3)}` : `cold${Math.floor(random() * 500)}`;
      keys.push(`${prefix}#${Math.floor(random() * 1e9).toString(36)}#${i}`);
    }
    keys.sort();
    const full = exact(keys, (i) => 50 + (i % 13) * 20);
    const sampled: KeyDistribution = { ...full, exact: false, rowsEstimated: true, points: full.points.filter((_, i) => i % 10 === 0) };
    for (const dist of [full, sampled]) {
      const set = buildBoundaries(dist, 2);
      expect(set.starts.length).toBeLessThanOrEqual(1000);
      expect(set.starts.length).toBeGreaterThanOrEqual(900);
      const counts = rowsPerBucket(set.starts, keys);
      expect(counts).toEqual(set.rows);
      const mean = keys.length / counts.length;
      for (const c of counts.slice(0, -1)) expect(Math.abs(c - mean) / mean).toBeLessThanOrEqual(0.15);
      expect(set.estimated).toBe(dist === sampled);
    }
  });

  it('keeps boundaries to 64 bytes, and rows sharing their first 64 bytes in one bucket', () => {
    const long = 'x'.repeat(100);
    const keys = [...Array.from({ length: 20 }, (_, i) => `${long}${i}`), ...Array.from({ length: 5 }, (_, i) => `y${'z'.repeat(80)}${i}`)];
    const set = buildBoundaries(exact(keys), 3);
    for (const s of set.starts) expect(s.length).toBeLessThanOrEqual(MAX_BOUNDARY_BYTES);
    const counts = rowsPerBucket(set.starts, [...keys].sort());
    expect(counts.reduce((a, b) => a + b, 0)).toBe(25);
    // The 20 rows under one 100-byte prefix cannot be told apart in 64 bytes; the 5 'y…' rows neither.
    expect(set.starts).toHaveLength(2);
    expect(counts).toEqual([20, 5]);
    expect(set.rows).toEqual([20, 5]);
  });

  it('finds a key by the hint or by binary search alike', () => {
    const starts = ['', 'b', 'd', 'f'];
    const cases: [string, number][] = [
      ['', 0],
      ['a', 0],
      ['b', 1],
      ['c', 1],
      ['d', 2],
      ['e\xff', 2],
      ['f', 3],
      ['zzz', 3],
    ];
    for (const [key, want] of cases)
      for (const hint of [-1, 0, 1, 2, 3, 9]) expect(bucketOf(starts, key, hint), `${key} from ${hint}`).toBe(want);
  });

  it('makes an empty table one bucket', () => {
    const set = buildBoundaries(exact([]), 4);
    expect(set.starts).toEqual(['']);
    expect(set.rows).toEqual([0]);
  });

  it('recomputes on a 10% row change (any for exact sets), a tablet change or 10 minutes of writes; big tables once a minute', () => {
    const base = {
      rows: 10_000,
      rowsAtSet: 10_000,
      exactAtSet: false,
      tabletsChanged: false,
      wroteSinceSet: true,
      nowMillis: 120_000,
      setAtMillis: 0,
    };
    expect(shouldRecompute(base)).toBe(false);
    expect(shouldRecompute({ ...base, rows: 10_999 })).toBe(false);
    expect(shouldRecompute({ ...base, rows: 11_000 })).toBe(true);
    expect(shouldRecompute({ ...base, rows: 9_000 })).toBe(true);
    expect(shouldRecompute({ ...base, rows: 301, rowsAtSet: 300, exactAtSet: true })).toBe(true);
    expect(shouldRecompute({ ...base, tabletsChanged: true })).toBe(true);
    expect(shouldRecompute({ ...base, nowMillis: 600_000 })).toBe(true);
    expect(shouldRecompute({ ...base, nowMillis: 600_000, wroteSinceSet: false })).toBe(false);
    const big = { ...base, rows: 200_000, rowsAtSet: 100_000 };
    expect(shouldRecompute({ ...big, nowMillis: 59_999 })).toBe(false);
    expect(shouldRecompute({ ...big, nowMillis: 60_000 })).toBe(true);
  });
});

describe('the bucket index', () => {
  // Byte strings over a small alphabet with NUL and 0xff, sharing prefixes often: ties of words, keys shorter and
  // longer than the word, keys outside the shared prefix.
  const byteString = fc.array(fc.constantFrom(0, 1, 0x30, 0x31, 0x61, 0xfe, 0xff), { maxLength: 12 }).map((b) => String.fromCharCode(...b));
  const withPrefix = fc.tuple(fc.constantFrom('', 'user00', 'user0\xff'), byteString).map(([p, k]) => p + k);

  it('finds the same bucket as the binary search over the strings, from any hint', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(withPrefix, { minLength: 0, maxLength: 40 }),
        fc.array(withPrefix, { maxLength: 30 }),
        fc.integer({ min: -1, max: 45 }),
        (bounds, keys, hint) => {
          const starts = ['', ...bounds.filter((b) => b !== '').sort()];
          const index = new BucketIndex(starts);
          for (const key of [...keys, ...starts])
            expect(index.of(key, hint), JSON.stringify({ starts, key })).toBe(bucketOf(starts, key, -1));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('places keys among 1,000 boundaries (a long shared prefix, skewed words) as the binary search does', () => {
    const rand = seededRandom(11);
    for (const key of [
      (): string => `user${String(Math.floor(rand() * 1e10)).padStart(10, '0')}`,
      // Skewed: most boundaries crowd into a sliver of the word span (one slot holds hundreds).
      (): string =>
        rand() < 0.9 ? `k\x00\x00${String.fromCharCode(Math.floor(rand() * 256))}` : `k${String.fromCharCode(Math.floor(rand() * 256))}`,
    ]) {
      const starts = ['', ...Array.from({ length: 999 }, key).sort()].filter((s, i, a) => i === 0 || s !== a[i - 1]);
      const index = new BucketIndex(starts);
      for (let i = 0; i < 20_000; i++) {
        const k = i % 3 === 0 ? starts[i % starts.length]! : key();
        expect(index.of(k, i % 7 === 0 ? 5 : -1)).toBe(bucketOf(starts, k, -1));
      }
    }
  });
});
