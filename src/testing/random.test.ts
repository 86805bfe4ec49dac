import { describe, expect, it } from 'vitest';
import { Random, seededRandom } from './random.js';

describe('seededRandom', () => {
  it("is mulberry32: the benchmarks' data set, made before this module, stays the same bytes", () => {
    const r = seededRandom(1);
    expect([r(), r(), r()].map((x) => x * 2 ** 32)).toEqual([2693262067, 11749833, 2265367787]);
  });

  it('repeats a sequence from its seed, 0 included, and stays in [0, 1)', () => {
    for (const seed of [0, 7, 0xffffffff]) {
      const a = seededRandom(seed);
      const b = seededRandom(seed);
      const xs = Array.from({ length: 1000 }, () => a());
      expect(Array.from({ length: 1000 }, () => b())).toEqual(xs);
      expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
      expect(new Set(xs).size).toBeGreaterThan(990);
    }
    expect(seededRandom(1)()).not.toBe(seededRandom(2)());
  });
});

describe('Random', () => {
  it('draws integers in their bounds, covering them', () => {
    const r = new Random(5);
    const ints = new Set(Array.from({ length: 500 }, () => r.int(3, 6)));
    expect([...ints].sort()).toEqual([3, 4, 5, 6]);
    const below = new Set(Array.from({ length: 500 }, () => r.below(3)));
    expect([...below].sort()).toEqual([0, 1, 2]);
  });

  it('picks from a list and makes non-empty subsets in order', () => {
    const r = new Random(9);
    const items = ['a', 'b', 'c', 'd'];
    for (let i = 0; i < 100; i++) {
      expect(items).toContain(r.pick(items));
      const s = r.subset(items);
      expect(s.length).toBeGreaterThan(0);
      expect(s).toEqual(items.filter((x) => s.includes(x)));
    }
    expect(() => r.pick([])).toThrow();
    expect(() => r.subset([])).toThrow();
  });

  it('takes its seed from the environment when set, and refuses a bad one', () => {
    process.env['TABLETOP_TEST_SEED'] = '42';
    expect(Random.seedFrom('TABLETOP_TEST_SEED')).toBe(42);
    process.env['TABLETOP_TEST_SEED'] = '-1';
    expect(() => Random.seedFrom('TABLETOP_TEST_SEED')).toThrow(/non-negative integer/);
    delete process.env['TABLETOP_TEST_SEED'];
    expect(Number.isInteger(Random.seedFrom('TABLETOP_TEST_SEED'))).toBe(true);
  });
});
