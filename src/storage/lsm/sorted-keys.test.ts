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
