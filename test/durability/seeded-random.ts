/** A small seeded PRNG (mulberry32), so that a failing run can be repeated from its seed. */
export class Random {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
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
