import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EntryIterator, type EntrySnapshot, SortedEntries } from './sorted-entries.js';
import { checkIteratorOps, iteratorOpArb } from '../testing/iterator-contract.js';

/** The (key, entry numbers) groups an iterator yields. */
function all(snap: EntrySnapshot, start: string, end: string | undefined, reverse: boolean): [string, number[]][] {
  const out: [string, number[]][] = [];
  const it = new EntryIterator(snap, start, end);
  for (reverse ? it.last() : it.first(); it.valid; reverse ? it.prev() : it.next()) out.push([it.key, it.group.slice(0, it.count)]);
  it.close();
  return out;
}

/** What the first `n` entries should yield: distinct keys in order, each with its entry numbers ascending. */
function expected(keys: readonly string[], n: number, start: string, end: string | undefined, reverse: boolean): [string, number[]][] {
  const groups = new Map<string, number[]>();
  keys.slice(0, n).forEach((k, i) => {
    if (k >= start && (end === undefined || k < end)) groups.set(k, [...(groups.get(k) ?? []), i]);
  });
  const out = [...groups].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  return reverse ? out.reverse() : out;
}

class Appender {
  readonly keys: string[] = [];
  readonly sorted = new SortedEntries(this.keys);
  add(k: string): void {
    this.keys.push(k);
    this.sorted.appended();
  }
}

describe('SortedEntries', () => {
  it('groups repeated keys in arrival order, iterates any range both ways, and snapshots stay frozen', () => {
    fc.assert(
      fc.property(
        // Up to 9 bytes: longer than the 5 key bytes a sort compares first (sortEntries), so ties past them occur.
        fc.array(fc.string({ unit: fc.constantFrom('a', 'b', '\x00', '\xff'), maxLength: 9 }), { maxLength: 1500 }),
        fc.string({ maxLength: 3 }),
        fc.option(fc.string({ maxLength: 3 }), { nil: undefined }),
        fc.nat(),
        (keys, start, end, cut) => {
          const s = new Appender();
          const at = keys.length === 0 ? 0 : cut % keys.length;
          for (const k of keys.slice(0, at)) s.add(k);
          const snap = s.sorted.snapshot();
          // One sort so far: the count of distinct keys is exact.
          expect(s.sorted.distinct).toBe(new Set(keys.slice(0, at)).size);
          for (const k of keys.slice(at)) s.add(k);
          for (const reverse of [false, true]) {
            expect(all(snap, start, end, reverse)).toEqual(expected(keys, at, start, end, reverse));
            expect(all(s.sorted.snapshot(), start, end, reverse)).toEqual(expected(keys, keys.length, start, end, reverse));
          }
          // Across runs not yet merged, a key counts once per run: a bound, never an undercount.
          expect(s.sorted.distinct).toBeGreaterThanOrEqual(new Set(keys).size);
          expect(s.sorted.distinct).toBeLessThanOrEqual(keys.length);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('SortedEntries sorting a tail', () => {
  it('orders keys that tie in the bytes after their shared prefix, keys ending inside them, and zero bytes, by whole key', () => {
    const keys = [
      // All share "user#" only (see 'user#9'): the five bytes after it tie for all but one, the rest decides.
      'user#00000017#b',
      'user#00000017#a',
      'user#00000017#a',
      'user#00000017',
      'user#0000001',
      'user#0000001\x00',
      'user#00000017#a\x00',
      'user#00000016#zz',
      'user#0000001\xff',
      'user#9',
    ];
    const s = new Appender();
    for (const k of keys) s.add(k);
    expect(all(s.sorted.snapshot(), '', undefined, false)).toEqual(expected(keys, keys.length, '', undefined, false));
    expect(all(s.sorted.snapshot(), '', undefined, false).map(([k]) => k)).toEqual([
      'user#0000001',
      'user#0000001\x00',
      'user#00000016#zz',
      'user#00000017',
      'user#00000017#a',
      'user#00000017#a\x00',
      'user#00000017#b',
      'user#0000001\xff',
      'user#9',
    ]);
  });
});

describe('SortedEntries merging runs', () => {
  it('merges runs whose keys share different prefixes (each run compares the bytes after its own first)', () => {
    const s = new Appender();
    // Each group becomes a run of its own (a snapshot seals the tail), and the runs merge as they come.
    const groups = [
      ['\x00a'],
      ['a'],
      ['tenant#7#x', 'tenant#7#y'],
      ['tenant#70', 'tenant#7'],
      ['tenant#7#x'],
      ['b', 'a\x00', '\x00a'],
      ['tenant#'],
    ];
    const snaps: { snap: EntrySnapshot; n: number }[] = [];
    for (const g of groups) {
      for (const k of g) s.add(k);
      snaps.push({ snap: s.sorted.snapshot(), n: s.keys.length });
    }
    for (const { snap, n } of snaps) {
      expect(all(snap, '', undefined, false)).toEqual(expected(s.keys, n, '', undefined, false));
      expect(all(snap, '', undefined, true)).toEqual(expected(s.keys, n, '', undefined, true));
    }
  });
});

describe('SortedEntries at scale', () => {
  it('keeps 40,000 random entries in order across several runs, with repeats and snapshots taken along the way', () => {
    let seed = 12345;
    const rand = (): number => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 2 ** 32;
    };
    const s = new Appender();
    const snaps: { snap: EntrySnapshot; n: number }[] = [];
    while (s.keys.length < 40_000) {
      // One write in ten goes to a row written before, possibly in an older run.
      const k =
        s.keys.length > 0 && rand() < 0.1 ? s.keys[Math.floor(rand() * s.keys.length)]! : `k${Math.floor(rand() * 1e9).toString(36)}`;
      s.add(k);
      if (s.keys.length % 9_999 === 0) snaps.push({ snap: s.sorted.snapshot(), n: s.keys.length });
    }
    expect(all(s.sorted.snapshot(), '', undefined, false)).toEqual(expected(s.keys, s.keys.length, '', undefined, false));
    const distinct = new Set(s.keys).size;
    expect(s.sorted.distinct).toBeGreaterThanOrEqual(distinct);
    // Most repeats meet in merges: the estimate stays close.
    expect(s.sorted.distinct).toBeLessThan(distinct + (s.keys.length - distinct) / 2);
    for (const { snap, n } of snaps) {
      expect(all(snap, '', undefined, false)).toEqual(expected(s.keys, n, '', undefined, false));
      expect(all(snap, 'k5', 'k8', true)).toEqual(expected(s.keys, n, 'k5', 'k8', true));
    }
  });

  it('positions, steps both ways and changes direction as the iterator contract says, within bounds', () => {
    const keyArb = fc.string({ unit: fc.constantFrom('a', 'b', '\x00', '\xff'), maxLength: 6 });
    fc.assert(
      fc.property(
        fc
          .array(keyArb, { maxLength: 600 })
          .chain((keys) =>
            fc.tuple(
              fc.constant(keys),
              fc.array(iteratorOpArb(keys, keyArb), { minLength: 1, maxLength: 60 }),
              keyArb,
              fc.option(keyArb, { nil: undefined }),
            ),
          ),
        ([keys, ops, lower, upper]) => {
          const s = new Appender();
          for (const k of keys) s.add(k);
          const groups = expected(keys, keys.length, lower, upper, false);
          const it = new EntryIterator(s.sorted.snapshot(), lower, upper);
          checkIteratorOps(
            it,
            groups.map(([k]) => k),
            ops,
            (i) => expect(it.group.slice(0, it.count)).toEqual(groups[i]![1]),
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});
