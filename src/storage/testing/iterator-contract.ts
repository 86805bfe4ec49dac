import fc from 'fast-check';
import { expect } from 'vitest';
import type { ByteString } from '../../model/bytes.js';
import type { KeyIterator } from '../iterator.js';

/**
 * Checks an iterator against the storage iterator contract (../iterator.ts):
 * random positioning and stepping compared with a sorted array of the keys
 * it may expose. Shared by the tests of every implementation.
 */

export type IteratorOp =
  { readonly op: 'first' | 'last' | 'next' | 'prev' } | { readonly op: 'seekGE' | 'seekLT'; readonly key: ByteString };

/** The reference: the position (index into `keys`, or -1) each op leads to from `pos`. */
export function referencePosition(keys: readonly ByteString[], pos: number, o: IteratorOp): number {
  switch (o.op) {
    case 'first':
      return keys.length > 0 ? 0 : -1;
    case 'last':
      return keys.length - 1;
    case 'next':
      return pos + 1 < keys.length ? pos + 1 : -1;
    case 'prev':
      return pos - 1;
    case 'seekGE':
      return keys.findIndex((k) => k >= o.key);
    case 'seekLT': {
      let i = keys.length - 1;
      while (i >= 0 && keys[i]! >= o.key) i--;
      return i;
    }
  }
}

/** Ops over `keys`: seeks to keys near theirs (and to any from `keyArb`), steps weighted up. */
export function iteratorOpArb(keys: readonly ByteString[], keyArb: fc.Arbitrary<ByteString>): fc.Arbitrary<IteratorOp> {
  const near =
    keys.length > 0 ? fc.constantFrom(...keys).chain((k) => fc.constantFrom(k, k + '\x00', k.slice(0, -1), k.slice(0, 1))) : keyArb;
  const key = fc.oneof(near, keyArb, fc.constantFrom('', '\xff\xff\xff\xff'));
  return fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom<IteratorOp>({ op: 'first' }, { op: 'last' }) },
    { weight: 4, arbitrary: fc.constantFrom<IteratorOp>({ op: 'next' }, { op: 'prev' }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constantFrom('seekGE' as const, 'seekLT' as const), key }) },
  );
}

/**
 * Runs `ops` on `it`, which may expose exactly `visible` (ascending), and
 * checks after each that it is valid where the reference is, on the same
 * key; `checkEntry(i)` checks the rest of the entry at visible[i]. A step
 * from no position (next() and prev() REQUIRE valid) is handed to
 * `unpositionedStep` instead (by default it is skipped).
 */
export function checkIteratorOps(
  it: KeyIterator,
  visible: readonly ByteString[],
  ops: readonly IteratorOp[],
  checkEntry: (i: number) => void = () => undefined,
  unpositionedStep: (op: 'next' | 'prev') => void = () => undefined,
): void {
  let pos = -1;
  for (const o of ops) {
    if ((o.op === 'next' || o.op === 'prev') && pos < 0) {
      unpositionedStep(o.op);
      continue;
    }
    if (o.op === 'seekGE' || o.op === 'seekLT') it[o.op](o.key);
    else it[o.op]();
    pos = referencePosition(visible, pos, o);
    expect({ op: o, valid: it.valid }).toEqual({ op: o, valid: pos >= 0 });
    if (pos >= 0) {
      expect(it.key).toBe(visible[pos]);
      checkEntry(pos);
    }
  }
  it.close();
  expect(it.valid).toBe(false);
}
