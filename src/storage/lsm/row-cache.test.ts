import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Cell } from '../../model/cell.js';
import { applyStoreOps, newestOfColumns } from '../row-ops.js';
import type { ColumnRef, StoreOp } from '../store.js';
import { RowCache } from './row-cache.js';

const family = fc.constantFrom('a', 'a0', 'b');
const qualifier = fc.constantFrom('', 'q', 'q\u0000', 'r\u00ff');
const op: fc.Arbitrary<StoreOp> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('put' as const),
      family,
      qualifier,
      timestamp: fc.integer({ min: 0, max: 6 }).map((t) => t * 1000),
      value: fc.uint8Array({ maxLength: 2 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('deleteColumn' as const),
      family,
      qualifier,
      start: fc.constantFrom(0, 2000),
      end: fc.constantFrom(3000, undefined),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteFamily' as const), family }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'deleteRow' as const }) },
);
const column: fc.Arbitrary<ColumnRef> = fc.record({ family, qualifier });

const show = (cells: readonly Cell[]): string[] =>
  cells.map((c) => `${c.family}:${JSON.stringify(c.qualifier)}@${c.timestamp}=${Buffer.from(c.value).toString('hex')}`);

describe('RowCache', () => {
  it('holds what applyStoreOps gives, after every write, and the newest cell of any columns', () => {
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 8 }),
        fc.array(fc.array(op, { minLength: 1, maxLength: 4 }), { maxLength: 20 }),
        fc.array(column, { maxLength: 4 }),
        (initial, writes, asked) => {
          const start = applyStoreOps([], initial);
          const cache = new RowCache(start);
          let expected = start;
          const handedOut: { cells: readonly Cell[]; shown: string[] }[] = [];
          for (const ops of writes) {
            cache.apply(ops);
            expected = applyStoreOps(expected, ops);
            const cells = cache.cells();
            expect(show(cells)).toEqual(show(expected));
            expect(show(cache.newest(asked))).toEqual(show(newestOfColumns(expected, asked)));
            handedOut.push({ cells, shown: show(cells) });
          }
          // What was handed out never changes with later writes.
          for (const h of handedOut) expect(show(h.cells)).toEqual(h.shown);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('keeps what it handed out unchanged while a hot column gains versions and its newest one is replaced', () => {
    const cache = new RowCache([]);
    const value = new Uint8Array(8);
    for (let t = 1; t <= 1000; t++) cache.apply([{ kind: 'put', family: 'f', qualifier: 'c', timestamp: t * 1000, value }]);
    const before = cache.cells();
    expect(before).toHaveLength(1000);
    expect(before[0]!.timestamp).toBe(1_000_000);
    // A put at the newest timestamp replaces that version; the array handed out stays as it was.
    const replacement = new Uint8Array([1]);
    cache.apply([{ kind: 'put', family: 'f', qualifier: 'c', timestamp: 1_000_000, value: replacement }]);
    expect(before[0]!.value).toBe(value);
    expect(cache.newest([{ family: 'f', qualifier: 'c' }])[0]!.value).toBe(replacement);
    expect(cache.cells()).toHaveLength(1000);
  });
});

describe('newestOfColumns', () => {
  it('finds the newest version of each column once, in storage order', () => {
    const v = new Uint8Array(0);
    const cells = applyStoreOps(
      [],
      [
        { kind: 'put', family: 'a', qualifier: 'x', timestamp: 1, value: v },
        { kind: 'put', family: 'a', qualifier: 'x', timestamp: 5, value: v },
        { kind: 'put', family: 'b', qualifier: '', timestamp: 3, value: v },
      ],
    );
    const got = newestOfColumns(cells, [
      { family: 'b', qualifier: '' },
      { family: 'a', qualifier: 'x' },
      { family: 'a', qualifier: 'x' },
      { family: 'a', qualifier: 'y' },
    ]);
    expect(got.map((c) => `${c.family}:${c.qualifier}@${c.timestamp}`)).toEqual(['a:x@5', 'b:@3']);
  });
});
