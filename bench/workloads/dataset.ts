/**
 * The benchmark data set: row keys, values and load order, all deterministic
 * (seeded) so that every target receives exactly the same bytes.
 *
 * Row i has key "r" + i as 9 decimal digits (10 bytes), one cell in family
 * "cf", qualifier "v", whose value is a slice of a random (incompressible)
 * pool. Keys are laid out so that the prefix "r" + 7 digits covers exactly
 * the 100 rows of one group (rows 100·g … 100·g+99).
 */

import { seededRandom } from '../../src/testing/random.js';

export const FAMILY = 'cf';
export const QUALIFIER = 'v';
export const KEY_LENGTH = 10;
export const MAX_ROWS = 1_000_000_000;
export const GROUP_ROWS = 100;

export function rowKey(i: number): string {
  return 'r' + String(i).padStart(9, '0');
}

/** The prefix shared by exactly the rows of group g (rows 100·g … 100·g+99). */
export function groupPrefix(g: number): string {
  return 'r' + String(g).padStart(7, '0');
}

/** Logical size of one row: key + qualifier + value bytes (what "GiB loaded" and scan MB/s count). */
export function logicalRowBytes(valueSize: number, keyLength = KEY_LENGTH): number {
  return keyLength + QUALIFIER.length + valueSize;
}

/** One seeded PRNG per lane of run `runId`: lanes draw independent, reproducible sequences. */
export function laneRandoms(runId: number, lanes: number): (lane: number) => () => number {
  const randoms = Array.from({ length: lanes }, (_, lane) => seededRandom(runId * 1000 + lane));
  return (lane) => {
    const random = randoms[lane];
    if (random === undefined) throw new Error(`lane ${lane} of ${lanes} has no random sequence`);
    return random;
  };
}

/** A random integer in [0, n). */
export function randomBelow(random: () => number, n: number): number {
  return Math.floor(random() * n);
}

/** The numbers 0 … n-1 in a seeded random order (Fisher–Yates). */
export function shuffledIndices(n: number, seed: number): Uint32Array {
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  const random = seededRandom(seed);
  for (let i = n - 1; i > 0; i--) {
    const j = randomBelow(random, i + 1);
    const t = out[i] as number;
    out[i] = out[j] as number;
    out[j] = t;
  }
  return out;
}

const POOL_BYTES = 1 << 20;

/**
 * Values of a fixed size, different for every row (up to 2^20 rows; beyond
 * that they repeat), taken from one random pool so no per-row allocation is
 * needed. The pool is random so that compression cannot flatter an engine.
 */
export class ValuePool {
  private readonly pool: Buffer;

  constructor(
    readonly size: number,
    seed = 0x7ab1e70b,
  ) {
    this.pool = Buffer.allocUnsafe(POOL_BYTES + size);
    const random = seededRandom(seed);
    for (let i = 0; i < this.pool.length; i += 4) {
      const v = Math.floor(random() * 4294967296);
      for (let b = 0; b < 4 && i + b < this.pool.length; b++) this.pool[i + b] = (v >>> (8 * b)) & 0xff;
    }
  }

  /** Row i's value (a view into the pool: do not modify). 7919 is odd, so offsets differ for 2^20 consecutive rows. */
  value(i: number): Buffer {
    const off = (i * 7919) % POOL_BYTES;
    return this.pool.subarray(off, off + this.size);
  }
}
