import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Cell } from '../../model/cell.js';
import { applyStoreOps } from '../row-ops.js';
import type { StoreOp } from '../store.js';
import {
  compactEntries,
  decodeFragment,
  decodePutsOnly,
  encodeEntries,
  encodeOps,
  type Entry,
  NO_DROPS,
  resolveEntries,
} from './fragment.js';
import { ByteWriter } from '../../model/byte-writer.js';

const family = fc.constantFrom('a', 'b');
const qualifier = fc.constantFrom('', 'q', 'r\xff');
const ts = fc.constantFrom(0, 1000, 2000, 3000, 9_007_199_254_740_000);
const op: fc.Arbitrary<StoreOp> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('put' as const), family, qualifier, timestamp: ts, value: fc.uint8Array({ maxLength: 4 }) }),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ family, qualifier, start: ts, end: fc.option(ts, { nil: undefined }) })
      .map(({ family, qualifier, start, end }) => ({
        kind: 'deleteColumn' as const,
        family,
        qualifier,
        start,
        end: end === undefined || end > start ? end : undefined,
      })),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteFamily' as const), family }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'deleteRow' as const }) },
);

const plain = (cells: readonly Cell[]): unknown[] =>
  cells.map((c) => [c.family, c.qualifier, c.timestamp, Buffer.from(c.value).toString('hex')]);

function fragmentsOf(writes: StoreOp[][]): Buffer[] {
  let seq = 1;
  return writes.map((ops) => {
    const w = new ByteWriter(16);
    encodeOps(w, ops, seq);
    seq += ops.length;
    return Buffer.from(w.view());
  });
}

function decodeAll(frags: Buffer[]): Entry[] {
  const out: Entry[] = [];
  for (const f of frags) decodeFragment(f, 'test', out);
  return out;
}

describe('row fragments', () => {
  it('resolve to the same cells as applying the ops in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(op, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        (writes, shuffle) => {
          let expected: readonly Cell[] = [];
          for (const ops of writes) expected = applyStoreOps(expected, ops);
          const frags = fragmentsOf(writes);
          if (shuffle) frags.reverse();
          expect(plain(resolveEntries('k', decodeAll(frags), Number.MAX_SAFE_INTEGER, NO_DROPS))).toEqual(plain(expected));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('the puts-only fast path agrees with full resolution whenever it answers', () => {
    let answered = 0;
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 8 }), (ops, snapshot) => {
        const [frag] = fragmentsOf([ops]);
        const fast = decodePutsOnly(frag!, snapshot, 'test');
        if (fast !== undefined) {
          answered++;
          expect(plain(fast)).toEqual(plain(resolveEntries('k', decodeAll([frag!]), snapshot, NO_DROPS)));
        }
      }),
      { numRuns: 500 },
    );
    expect(answered).toBeGreaterThan(20);
  });

  it('see only entries up to the snapshot sequence', () => {
    fc.assert(
      fc.property(fc.array(fc.array(op, { minLength: 1, maxLength: 4 }), { minLength: 2, maxLength: 6 }), fc.nat(), (writes, cut) => {
        const n = cut % writes.length;
        let expected: readonly Cell[] = [];
        let seq = 0;
        for (const ops of writes.slice(0, n)) {
          expected = applyStoreOps(expected, ops);
          seq += ops.length;
        }
        expect(plain(resolveEntries('k', decodeAll(fragmentsOf(writes)), seq, NO_DROPS))).toEqual(plain(expected));
      }),
    );
  });

  it('compaction (partial or bottommost) preserves what reads see, including data below it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(op, { minLength: 1, maxLength: 5 }), { minLength: 2, maxLength: 8 }),
        fc.nat(),
        fc.boolean(),
        (writes, cutRaw, bottom) => {
          let expected: readonly Cell[] = [];
          for (const ops of writes) expected = applyStoreOps(expected, ops);
          const frags = fragmentsOf(writes);
          // Compact the newer part; the older part stays below unless bottommost covers all.
          const cut = bottom ? 0 : cutRaw % frags.length;
          const older = frags.slice(0, cut);
          const merged = compactEntries('k', decodeAll(frags.slice(cut)), NO_DROPS, cut === 0);
          const w = new ByteWriter(16);
          encodeEntries(w, merged);
          const all = decodeAll([...older, Buffer.from(w.view())]);
          expect(plain(resolveEntries('k', all, Number.MAX_SAFE_INTEGER, NO_DROPS))).toEqual(plain(expected));
          if (cut === 0) expect(merged.every((e) => e.tag === 1)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('store-level family and range drops hide older puts only', () => {
    const frags = fragmentsOf([
      [{ kind: 'put', family: 'a', qualifier: 'q', timestamp: 1000, value: Buffer.from('old') }],
      [{ kind: 'put', family: 'b', qualifier: 'q', timestamp: 1000, value: Buffer.from('b') }],
      [{ kind: 'put', family: 'a', qualifier: 'q', timestamp: 2000, value: Buffer.from('new') }],
    ]);
    const familyDrop = { familyDropSeq: (f: string) => (f === 'a' ? 2 : 0), rangeDropSeq: () => 0 };
    expect(plain(resolveEntries('k', decodeAll(frags), 99, familyDrop))).toEqual([
      ['a', 'q', 2000, Buffer.from('new').toString('hex')],
      ['b', 'q', 1000, Buffer.from('b').toString('hex')],
    ]);
    const rangeDrop = { familyDropSeq: () => 0, rangeDropSeq: () => 3 };
    expect(resolveEntries('k', decodeAll(frags), 99, rangeDrop)).toHaveLength(1);
  });

  it('reports malformed bytes as DataLoss naming the place', () => {
    const [frag] = fragmentsOf([[{ kind: 'put', family: 'a', qualifier: 'q', timestamp: 5, value: Buffer.from('v') }]]);
    for (let cut = 0; cut < frag!.length; cut++) {
      expect(() => decodeFragment(frag!.subarray(0, cut), 'file 7 offset 9')).toThrow(
        expect.objectContaining({ code: 'DataLoss', message: expect.stringContaining('file 7 offset 9') }),
      );
    }
  });
});
