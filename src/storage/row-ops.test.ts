import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { type Cell, cell } from '../model/cell.js';
import { applyStoreOps, applyStoreOpsSized, rowBytes } from './row-ops.js';
import type { StoreOp } from './store.js';

const put = (family: string, qualifier: string, timestamp: number, v = 0): StoreOp => ({
  kind: 'put',
  family,
  qualifier,
  timestamp,
  value: new Uint8Array([v]),
});
const show = (cells: readonly Cell[]): string[] => cells.map((x) => `${x.family}:${x.qualifier}@${x.timestamp}=${x.value[0]}`);

describe('applyStoreOps', () => {
  it('merges a run of puts in one pass: sorted, later put of a coordinate wins', () => {
    const base = [cell('f', 'b', 5, new Uint8Array([9]))];
    const out = applyStoreOps(base, [
      put('g', 'a', 1, 1),
      put('f', 'b', 5, 2),
      put('f', 'a', 1, 3),
      put('f', 'b', 7, 4),
      put('g', 'a', 1, 5),
    ]);
    expect(show(out)).toEqual(['f:a@1=3', 'f:b@7=4', 'f:b@5=2', 'g:a@1=5']);
    expect(show(base)).toEqual(['f:b@5=9']);
  });

  it('returns the input itself when deletes remove nothing', () => {
    const base = [cell('f', 'a', 5, new Uint8Array([1]))];
    const ops: StoreOp[] = [
      { kind: 'deleteFamily', family: 'g' },
      { kind: 'deleteColumn', family: 'f', qualifier: 'a', start: 6, end: undefined },
      { kind: 'deleteColumn', family: 'f', qualifier: 'a', start: 0, end: 5 },
    ];
    expect(applyStoreOps(base, ops)).toBe(base);
    expect(applyStoreOps([], [{ kind: 'deleteRow' }])).toEqual([]);
  });

  it('interleaves puts and deletes in order', () => {
    const out = applyStoreOps(
      [],
      [put('f', 'a', 1), put('f', 'a', 2), { kind: 'deleteColumn', family: 'f', qualifier: 'a', start: 2, end: 3 }, put('f', 'b', 1)],
    );
    expect(show(out)).toEqual(['f:a@1=0', 'f:b@1=0']);
  });

  it('rowBytes counts the key and each cell', () => {
    expect(rowBytes('key', [cell('fam', 'q', 1, new Uint8Array(10))])).toBe(3 + 3 + 1 + 10 + 8);
  });
});

describe('applyStoreOpsSized', () => {
  it('keeps the row size equal to rowBytes over random write sequences', () => {
    const putOp = fc.record({
      kind: fc.constant('put' as const),
      family: fc.constantFrom('a', 'b'),
      qualifier: fc.constantFrom('', 'q', 'qq'),
      timestamp: fc.constantFrom(1000, 2000, 3000),
      value: fc.uint8Array({ maxLength: 8 }),
    });
    const op: fc.Arbitrary<StoreOp> = fc.oneof(
      { weight: 6, arbitrary: putOp },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('deleteColumn' as const),
          family: fc.constantFrom('a', 'b'),
          qualifier: fc.constantFrom('q', 'qq'),
          start: fc.constant(0),
          end: fc.constantFrom(2000, undefined),
        }),
      },
      { weight: 1, arbitrary: fc.constant({ kind: 'deleteRow' as const }) },
    );
    fc.assert(
      fc.property(fc.array(fc.array(op, { minLength: 1, maxLength: 3 }), { maxLength: 30 }), (writes) => {
        let cells: readonly Cell[] = [];
        let bytes = 0;
        for (const ops of writes) {
          const sized = applyStoreOpsSized('row-key', cells, bytes, ops);
          expect(sized.cells).toEqual(applyStoreOps(cells, ops));
          cells = sized.cells;
          // An emptied row has no size; the store drops it.
          bytes = cells.length === 0 ? 0 : sized.bytes;
          expect(bytes).toBe(cells.length === 0 ? 0 : rowBytes('row-key', cells));
        }
      }),
      { numRuns: 500 },
    );
  });
});
