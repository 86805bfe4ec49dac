import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeySnapshotIterator, SortedKeys } from './sorted-keys.js';

function all(it: KeySnapshotIterator): string[] {
  const out: string[] = [];
  for (let k = it.next(); k !== undefined; k = it.next()) out.push(k);
  return out;
}

describe('SortedKeys', () => {
  it('iterates any range in both directions like a sorted array, and snapshots stay frozen', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ unit: fc.constantFrom('a', 'b', '\x00', '\xff'), maxLength: 6 }), { maxLength: 1500 }),
        fc.string({ maxLength: 3 }),
        fc.option(fc.string({ maxLength: 3 }), { nil: undefined }),
        fc.nat(),
        (keys, start, end, cut) => {
          const s = new SortedKeys();
          const at = keys.length === 0 ? 0 : cut % keys.length;
          for (const k of keys.slice(0, at)) s.insert(k);
          const snap = s.snapshot();
          for (const k of keys.slice(at)) s.insert(k);
          const ref = (n: number): string[] => keys.slice(0, n).sort().filter((k) => k >= start && (end === undefined || k < end));
          expect(all(new KeySnapshotIterator(snap, start, end, false))).toEqual(ref(at));
          expect(all(new KeySnapshotIterator(snap, start, end, true))).toEqual(ref(at).reverse());
          expect(all(new KeySnapshotIterator(s.snapshot(), start, end, false))).toEqual(ref(keys.length));
          expect(all(new KeySnapshotIterator(s.snapshot(), start, end, true))).toEqual(ref(keys.length).reverse());
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('SortedKeys at scale', () => {
  it('keeps 40,000 random keys in order across several levels, with snapshots taken along the way', () => {
    let seed = 12345;
    const rand = (): number => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 2 ** 32;
    };
    const s = new SortedKeys();
    const inserted: string[] = [];
    const seen = new Set<string>();
    const snaps: { snap: ReturnType<SortedKeys['snapshot']>; n: number }[] = [];
    while (inserted.length < 40_000) {
      const k = `k${Math.floor(rand() * 1e9).toString(36)}`;
      if (seen.has(k)) continue;
      seen.add(k);
      s.insert(k);
      inserted.push(k);
      if (inserted.length % 9_999 === 0) snaps.push({ snap: s.snapshot(), n: inserted.length });
    }
    expect(all(new KeySnapshotIterator(s.snapshot(), '', undefined, false))).toEqual([...inserted].sort());
    for (const { snap, n } of snaps) {
      const want = inserted.slice(0, n).sort();
      expect(all(new KeySnapshotIterator(snap, '', undefined, false))).toEqual(want);
      expect(all(new KeySnapshotIterator(snap, 'k5', 'k8', true))).toEqual(want.filter((k) => k >= 'k5' && k < 'k8').reverse());
    }
  });
});
