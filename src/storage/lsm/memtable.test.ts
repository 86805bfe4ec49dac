import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Cell } from '../../model/cell.js';
import type { StoreOp } from '../store.js';
import { decodeFragment, type Entry, NO_DROPS, resolveEntries } from './fragment.js';
import { FRAGMENT_OVERHEAD, fragmentsOf, Memtable, MemRow, ROW_OVERHEAD } from './memtable.js';
import { lowerBound } from './sorted-entries.js';
import { encodeBatch, fragmentOf } from './wal-batch.js';
import { checkIteratorOps, iteratorOpArb } from '../testing/iterator-contract.js';

const op: fc.Arbitrary<StoreOp> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('put' as const),
      family: fc.constantFrom('a', 'b'),
      qualifier: fc.constantFrom('q', 'r'),
      timestamp: fc.constantFrom(1000, 2000, 3000),
      value: fc.uint8Array({ maxLength: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('deleteColumn' as const),
      family: fc.constantFrom('a', 'b'),
      qualifier: fc.constantFrom('q', 'r'),
      start: fc.constant(0),
      end: fc.constantFrom(2000, undefined),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'deleteRow' as const }) },
);

const show = (cells: readonly Cell[]): string[] =>
  cells.map((c) => `${c.family}:${c.qualifier}@${c.timestamp}=${Buffer.from(c.value).toString('hex')}`);

describe('MemRow.cellsAsOf', () => {
  it('agrees with full resolution at every snapshot it answers, on top of older data', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(op, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 30 }),
        fc.array(op, { maxLength: 3 }),
        fc.nat(),
        (writes, olderOps, cut) => {
          // Older (flushed) data for the row: sequence numbers below the memtable's.
          const older: Entry[] =
            olderOps.length === 0
              ? []
              : decodeFragment(((b) => fragmentOf(b, b.rows[0]!))(encodeBatch('s', [{ key: 'k', ops: olderOps }], 1)), 'older');
          const olderCells = resolveEntries('k', [...older], Number.MAX_SAFE_INTEGER, NO_DROPS);
          const mem = new Memtable();
          let seq = 100;
          const snapshots: number[] = [];
          for (const ops of writes) {
            const e = encodeBatch('s', [{ key: 'k', ops }], seq);
            mem.add('k', Buffer.from(fragmentOf(e, e.rows[0]!)), e.rows[0]!.firstSeq, e.rows[0]!.lastSeq);
            seq = e.lastSeq + 1;
            snapshots.push(e.lastSeq);
          }
          const row = mem.get('k');
          if (!(row instanceof MemRow)) throw new Error('a row written twice is a MemRow');
          // Ask at an increasing series of snapshots, like reads over time.
          const start = cut % snapshots.length;
          for (const s of snapshots.slice(start)) {
            const fast = row.cellsAsOf(s, () => olderCells);
            const full = resolveEntries('k', [...older, ...row.entries()], s, NO_DROPS);
            expect(fast).toBeDefined();
            expect(show(fast!)).toEqual(show(full));
          }
          // An older snapshot than the cache is declined.
          if (start > 0) expect(row.cellsAsOf(snapshots[0]!, () => olderCells)).toBeUndefined();
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('Memtable lookups and views', () => {
  /** A fragment that names its write, so that results can be compared to the writes in order. */
  const frag = (n: number): Buffer => Buffer.from(`w${n}`);
  const names = (v: ReturnType<Memtable['get']>): string[] => (v === undefined ? [] : fragmentsOf(v).map((b) => b.toString()));

  it('agree with the writes in arrival order while the lookup index catches up a few entries at a time', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            { weight: 4, arbitrary: fc.record({ add: fc.constantFrom('a', 'b', 'c', 'd', 'e', '\x00', '\xff') }) },
            { weight: 1, arbitrary: fc.record({ get: fc.constantFrom('a', 'c', 'e', 'z') }) },
            { weight: 1, arbitrary: fc.constant({ view: true }) },
          ),
          {
            maxLength: 300,
          },
        ),
        fc.integer({ min: 1, max: 9 }),
        (steps, chunk) => {
          const mem = new Memtable(chunk);
          const model = new Map<string, string[]>();
          let n = 0;
          for (const step of steps) {
            if ('add' in step) {
              n++;
              mem.add(step.add, frag(n), n, n);
              model.set(step.add, [...(model.get(step.add) ?? []), `w${n}`]);
            } else if ('get' in step) {
              expect(names(mem.get(step.get))).toEqual(model.get(step.get) ?? []);
            } else {
              const seen: [string, string[]][] = [];
              const c = mem.view().cursor();
              for (c.first(); c.valid; c.next()) seen.push([c.key, names(c.value)]);
              c.close();
              expect(seen).toEqual([...model].sort((x, y) => (x[0] < y[0] ? -1 : 1)));
            }
          }
          expect(mem.empty).toBe(n === 0);
          // Once every entry is indexed, the row count is exact.
          for (let i = 0; i < steps.length; i++) mem.get('z');
          expect(mem.size).toBe(model.size);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('the cursor of a view follows the iterator contract within its bounds, each row with its fragments in arrival order', () => {
    const keyArb = fc.constantFrom('a', 'b', 'c', 'd', 'e', '\x00', '\xff', 'bb');
    fc.assert(
      fc.property(
        fc
          .array(keyArb, { maxLength: 200 })
          .chain((keys) =>
            fc.tuple(
              fc.constant(keys),
              fc.array(iteratorOpArb(keys, keyArb), { minLength: 1, maxLength: 40 }),
              fc.constantFrom('', 'b', 'c'),
              fc.constantFrom(undefined, 'c', 'e'),
            ),
          ),
        ([keys, ops, lower, upper]) => {
          const mem = new Memtable();
          const model = new Map<string, string[]>();
          keys.forEach((k, i) => {
            mem.add(k, frag(i + 1), i + 1, i + 1);
            model.set(k, [...(model.get(k) ?? []), `w${i + 1}`]);
          });
          const rows = [...model].filter(([k]) => k >= lower && (upper === undefined || k < upper)).sort((x, y) => (x[0] < y[0] ? -1 : 1));
          const c = mem.view().cursor(lower, upper);
          checkIteratorOps(
            c,
            rows.map(([k]) => k),
            ops,
            (i) => expect(names(c.value)).toEqual(rows[i]![1]),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a first lookup into a large memtable indexes only a bounded part of it', () => {
    const mem = new Memtable(1000);
    for (let i = 0; i < 20_000; i++) mem.add(`k${i % 15_000}`, frag(i), i + 1, i + 1);
    // Entries of k3 and k14999 lie beyond the first 1,000: found in the sorted runs and the tail.
    expect(names(mem.get('k3'))).toEqual(['w3', 'w15003']);
    expect(names(mem.get('k14999'))).toEqual(['w14999']);
    expect(mem['indexed']).toBe(2000);
  });

  it("sizedRuns: a key's offset, summed over the runs, is the bytes of the rows before it as the memtable counts them", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ maxLength: 4 }), fc.integer({ min: 0, max: 40 })), { maxLength: 300 }),
        fc.array(fc.integer({ min: 1, max: 120 }), { maxLength: 5 }),
        fc.array(fc.string({ maxLength: 4 }), { minLength: 1, maxLength: 20 }),
        (writes, viewsAt, probes) => {
          const mem = new Memtable();
          const views = new Set(viewsAt);
          // Distinct keys: each entry is a row, so the runs' totals are the memtable's bytes and
          // offsets are exact; a view taken midway seals the tail into a run of its own.
          const unique = [...new Map(writes).entries()];
          unique.forEach(([key, len], i) => {
            mem.add(key, Buffer.alloc(len), i + 1, i + 1);
            if (views.has(i)) mem.view();
          });
          const runs = mem.view().sizedRuns();
          const offset = (key: string): number => runs.reduce((n, r) => n + r.before[lowerBound(r.keys, key)]!, 0);
          expect(offset('\uffff\uffff\uffff\uffff\uffff')).toBe(mem.bytes);
          for (const probe of [...probes, ...unique.map(([k]) => k)]) {
            const before = unique
              .filter(([k]) => k < probe)
              .reduce((n, [k, len]) => n + ROW_OVERHEAD + FRAGMENT_OVERHEAD + k.length + len, 0);
            expect(offset(probe)).toBe(before);
          }
          for (const r of runs) for (let p = 1; p < r.before.length; p++) expect(r.before[p]!).toBeGreaterThan(r.before[p - 1]!);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('sizedRuns counts a row once per run however often it was written there', () => {
    const mem = new Memtable();
    for (let i = 0; i < 10; i++) mem.add('a', Buffer.alloc(10), i + 1, i + 1);
    mem.add('b', Buffer.alloc(10), 11, 11);
    const [run] = mem.view().sizedRuns();
    expect(run!.keys).toHaveLength(11);
    expect(run!.before[lowerBound(run!.keys, 'b')]).toBe(ROW_OVERHEAD + 1 + 10 * (FRAGMENT_OVERHEAD + 10));
    expect(run!.before[11]).toBe(2 * (ROW_OVERHEAD + 1) + 11 * (FRAGMENT_OVERHEAD + 10));
  });
});
