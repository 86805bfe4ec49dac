/**
 * The one seeded pseudo-random generator of tabletop's tests and benchmarks
 * (mulberry32: 32 bits of state, fast, good enough for test data, not for
 * cryptography), so that a run is repeated from its seed and every target of
 * a benchmark gets the same bytes. fast-check's own generators are for
 * property tests; this is for the data and schedules a test makes itself.
 *
 * Test support only: it imports nothing, so any layer's tests may use it, and
 * no production code may (the build leaves `testing/` folders out).
 */

/** A generator of floats uniform in [0, 1), the same sequence for the same seed (any 32-bit integer, 0 included). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded generator with the helpers a randomised workload wants. */
export class Random {
  /** Uniform in [0, 1). */
  readonly next: () => number;

  constructor(readonly seed: number) {
    this.next = seededRandom(seed);
  }

  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** Uniform integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** A non-empty random subset, in the original order. */
  subset<T>(items: readonly T[]): T[] {
    if (items.length === 0) throw new Error('subset of an empty list');
    for (;;) {
      const out = items.filter(() => this.chance(0.5));
      if (out.length > 0) return out;
    }
  }

  /** The seed from `envVar` when set (to repeat a run), else a fresh one. */
  static seedFrom(envVar: string): number {
    const v = process.env[envVar];
    if (v !== undefined && v.trim() !== '') {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0) throw new Error(`${envVar} must be a non-negative integer, not "${v}"`);
      return n >>> 0;
    }
    return Math.floor(Math.random() * 2 ** 32) >>> 0;
  }
}
