import fc from 'fast-check';
import { encodeInt64 } from '../../../model/aggregate/int64.js';
import type { RangeBound, RowRange, RowSet } from '../../../model/key-range.js';
import type { Mutation, ReadModifyWriteRule, RowMutation } from '../../../model/mutation.js';
import { predicateFilter, readFilter } from './filter-arbitrary.js';
import { type FamilyMod, type Op, showOp } from './ops.js';
import {
  AGGREGATE_FAMILIES,
  BOUND_KEYS,
  BULK_ROWS,
  BYTE_FAMILIES,
  FAMILIES,
  FAMILY_NAMES,
  type FamilyName,
  PREFIXES,
  QUALIFIERS,
  ROW_KEYS,
  TABLES,
  TIMESTAMPS,
  type TableId,
  UPDATE_RULES,
  VALUES,
  countSensitive,
} from './universe.js';

/**
 * Op logs for the metamorphic test.
 *
 * Physical garbage collection is the one legitimate difference between the
 * engines: reads apply GC rules at read time, but when a version hidden by
 * a count-based rule (max versions, alone or inside a union or intersection)
 * has been physically collected in one engine and not in the other, deleting
 * the versions above it makes it reappear in the second engine only (Bigtable
 * allows either outcome). Likewise a GC rule relaxed by ModifyColumnFamilies
 * brings back what was hidden but not yet collected. Physical collection
 * happens only in the GC sweep (the memory engine rewrites rows; the disk
 * engine stores the policy and applies it in major compactions, now or later).
 * So a log is one of two kinds:
 *  - `physicalGc: false`: no GC sweep; every operation, including GC-rule
 *    updates and DeleteFromColumn over any time range;
 *  - `physicalGc: true`: GC sweeps, but no GC-rule updates, and
 *    DeleteFromColumn on a count-sensitive family (v1, v2, uni, inter, min)
 *    only over ranges starting at 0: those delete a column's oldest versions,
 *    which never changes how many versions are newer than a surviving one.
 *    (A max-age rule judges each version alone, so any delete is fine there.)
 *    And no clock tick inside a scanWhile (see duringScan).
 * With no rule updates, a family's name fixes its rule (universe.ts), so the
 * generator knows which families are count-sensitive.
 *
 * Nothing else is excluded: operations on missing tables or families, and
 * invalid ones, fail identically everywhere and are compared like results.
 */

export interface OpLog {
  readonly physicalGc: boolean;
  readonly ops: readonly Op[];
}

const value = fc.constantFrom(...VALUES).map((s) => new Uint8Array(Buffer.from(s, 'latin1')));
const key = fc.constantFrom(...ROW_KEYS);
const qualifier = fc.constantFrom(...QUALIFIERS);
const table = fc.constantFrom<TableId>(...TABLES);
const family = fc.constantFrom(...FAMILY_NAMES);
/** Mostly a plain family; sometimes any (a SetCell into an aggregate family fails, identically everywhere). */
const setFamily = fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...BYTE_FAMILIES) }, { weight: 1, arbitrary: family });
const aggregateFamily = fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...AGGREGATE_FAMILIES) }, { weight: 1, arbitrary: family });
const timestamp = fc.constantFrom(...TIMESTAMPS);
const int64 = fc.oneof(
  { weight: 8, arbitrary: fc.bigInt({ min: -5n, max: 5n }) },
  { weight: 1, arbitrary: fc.constantFrom((1n << 63n) - 1n, -(1n << 63n), 1n << 40n) },
);

/** A DeleteFromColumn time range [start, end) over the timestamp grid; start 0 when `fromZero`. */
const timeRange = (fromZero: boolean): fc.Arbitrary<{ start: number; end: number | undefined }> => {
  const grid = [0, ...TIMESTAMPS];
  return fc
    .tuple(fromZero ? fc.constant(0) : fc.integer({ min: 0, max: grid.length - 1 }), fc.integer({ min: 1, max: grid.length }))
    .map(([i, j]) => ({ start: grid[i]!, end: j >= grid.length || j <= i ? undefined : grid[j]! }));
};

function deleteFromColumn(physicalGc: boolean): fc.Arbitrary<Mutation> {
  return fc.tuple(family, qualifier).chain(([f, q]) =>
    timeRange(physicalGc && countSensitive(FAMILIES[f].gcRule)).map(({ start, end }): Mutation => ({
      kind: 'deleteFromColumn',
      family: f,
      qualifier: q,
      start,
      end,
    })),
  );
}

function mutation(physicalGc: boolean): fc.Arbitrary<Mutation> {
  return fc.oneof(
    {
      weight: 10,
      arbitrary: fc
        .tuple(setFamily, qualifier, fc.oneof({ weight: 4, arbitrary: timestamp }, { weight: 1, arbitrary: fc.constant(-1) }), value)
        .map(([f, q, ts, v]): Mutation => ({ kind: 'setCell', family: f, qualifier: q, timestamp: ts, value: v })),
    },
    { weight: 3, arbitrary: deleteFromColumn(physicalGc) },
    { weight: 1, arbitrary: family.map((f): Mutation => ({ kind: 'deleteFromFamily', family: f })) },
    { weight: 1, arbitrary: fc.constant<Mutation>({ kind: 'deleteFromRow' }) },
    {
      weight: 3,
      arbitrary: fc.tuple(aggregateFamily, qualifier, timestamp, int64).map(([f, q, ts, n]): Mutation => ({
        kind: 'addToCell',
        family: f,
        qualifier: q,
        timestamp: ts,
        input: { kind: 'int', value: n },
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(aggregateFamily, qualifier, timestamp, fc.option(int64, { nil: undefined, freq: 6 }))
        .map(([f, q, ts, n]): Mutation => ({
          kind: 'mergeToCell',
          family: f,
          qualifier: q,
          timestamp: ts,
          input: n === undefined ? new Uint8Array(0) : encodeInt64(n),
        })),
    },
  );
}

const mutations = (physicalGc: boolean, minLength: number): fc.Arbitrary<Mutation[]> =>
  fc.array(mutation(physicalGc), { minLength, maxLength: 4 });

const entry = (physicalGc: boolean): fc.Arbitrary<RowMutation> => fc.record({ key, mutations: mutations(physicalGc, 1) });

const rmwRule: fc.Arbitrary<ReadModifyWriteRule> = fc.oneof(
  fc
    .tuple(fc.constantFrom(...BYTE_FAMILIES), qualifier, value)
    .map(([f, q, v]): ReadModifyWriteRule => ({ kind: 'append', family: f, qualifier: q, value: v })),
  fc
    .tuple(fc.constantFrom(...BYTE_FAMILIES), qualifier, int64)
    .map(([f, q, amount]): ReadModifyWriteRule => ({ kind: 'increment', family: f, qualifier: q, amount })),
);

const rangeBound: fc.Arbitrary<RangeBound> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<RangeBound>({ kind: 'unbounded' }) },
  { weight: 3, arbitrary: fc.constantFrom(...BOUND_KEYS).map((k): RangeBound => ({ kind: 'closed', key: k })) },
  { weight: 3, arbitrary: fc.constantFrom(...BOUND_KEYS).map((k): RangeBound => ({ kind: 'open', key: k })) },
);

const boundKey = (b: RangeBound): string | undefined => (b.kind === 'unbounded' ? undefined : b.key);

/** A row range whose start is not after its end (equal keys may still make it empty). */
const rowRange: fc.Arbitrary<RowRange> = fc.tuple(rangeBound, rangeBound).map(([a, b]) => {
  const ka = boundKey(a);
  const kb = boundKey(b);
  return ka !== undefined && kb !== undefined && ka > kb ? { start: b, end: a } : { start: a, end: b };
});

const rowSet: fc.Arbitrary<RowSet> = fc.oneof(
  { weight: 2, arbitrary: fc.constant<RowSet>({ keys: [], ranges: [] }) },
  {
    weight: 2,
    arbitrary: fc.array(fc.constantFrom(...BOUND_KEYS), { minLength: 1, maxLength: 3 }).map((keys): RowSet => ({ keys, ranges: [] })),
  },
  { weight: 3, arbitrary: fc.array(rowRange, { minLength: 1, maxLength: 2 }).map((ranges): RowSet => ({ keys: [], ranges })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.array(fc.constantFrom(...BOUND_KEYS), { maxLength: 2 }), fc.array(rowRange, { maxLength: 2 }))
      .map(([keys, ranges]): RowSet => ({ keys, ranges })),
  },
);

const read: fc.Arbitrary<Op> = fc
  .record({
    table,
    rows: rowSet,
    filter: fc.option(readFilter, { nil: undefined, freq: 2 }),
    limit: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }) }),
    reversed: fc.boolean(),
  })
  .map((r): Op => ({ kind: 'read', ...r }));

function createTable(t: fc.Arbitrary<TableId>): fc.Arbitrary<Op> {
  return fc
    .record({
      table: t,
      // Mostly every family (in a random creation order), so that most mutations find theirs.
      families: fc.oneof(
        { weight: 3, arbitrary: fc.shuffledSubarray([...FAMILY_NAMES], { minLength: FAMILY_NAMES.length }) },
        { weight: 1, arbitrary: fc.shuffledSubarray([...FAMILY_NAMES], { minLength: 1 }) },
      ),
      splits: fc.subarray([...BOUND_KEYS], { maxLength: 3 }),
    })
    .map((r): Op => ({ kind: 'createTable', ...r }));
}

function familyMod(physicalGc: boolean): fc.Arbitrary<FamilyMod> {
  const mods: fc.Arbitrary<FamilyMod>[] = [
    family.map((f: FamilyName): FamilyMod => ({ kind: 'create', family: f })),
    family.map((f: FamilyName): FamilyMod => ({ kind: 'drop', family: f })),
  ];
  if (!physicalGc) {
    mods.push(fc.tuple(family, fc.constantFrom(...UPDATE_RULES)).map(([f, gcRule]): FamilyMod => ({ kind: 'update', family: f, gcRule })));
  }
  return fc.oneof(...mods);
}

type Weighted = readonly [kind: Op['kind'], weight: number, arbitrary: fc.Arbitrary<Op>];

/**
 * Operations that may run while a scan holds its snapshot (none closes the
 * database or a table). With physical GC, no clock tick: a reader judges
 * max age by the time its request started, while a sweep after a tick
 * collects by the later time, and a range the reader opens after the sweep
 * then lacks cells that the other engine, not having collected them yet,
 * still shows (physical GC timing again).
 */
function duringScan(physicalGc: boolean, exclude: ReadonlySet<string>): Weighted[] {
  const all = weightedOps(physicalGc, new Set());
  const allowed = new Set<Op['kind']>([
    'mutateRow',
    'mutateRows',
    'bulkLoad',
    'checkAndMutate',
    'readModifyWrite',
    'dropRowRange',
    'modifyFamilies',
    'gcSweep',
    'flush',
    'compact',
  ]);
  if (!physicalGc) allowed.add('tick');
  return all.filter(([kind]) => allowed.has(kind) && !exclude.has(kind) && !exclude.has(`during:${kind}`));
}

function weightedOps(physicalGc: boolean, exclude: ReadonlySet<string>): Weighted[] {
  const ops: Weighted[] = [
    ['mutateRow', 20, fc.record({ table, key, mutations: mutations(physicalGc, 1) }).map((r): Op => ({ kind: 'mutateRow', ...r }))],
    [
      'bulkLoad',
      3,
      fc
        .record({
          table,
          start: fc.integer({ min: 0, max: BULK_ROWS - 1 }),
          count: fc.integer({ min: 1, max: BULK_ROWS }),
          family: fc.constantFrom(...BYTE_FAMILIES),
          timestamp: timestamp,
          load: fc.nat(999),
          size: fc.constantFrom(1, 40, 300, 3000),
          delete: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
        })
        .map((r): Op => ({ kind: 'bulkLoad', ...r, count: Math.min(r.count, BULK_ROWS - r.start) })),
    ],
    [
      'mutateRows',
      12,
      fc
        .record({ table, entries: fc.array(entry(physicalGc), { minLength: 1, maxLength: 4 }) })
        .map((r): Op => ({ kind: 'mutateRows', ...r })),
    ],
    [
      'concurrentMutations',
      4,
      fc
        .record({ table, entries: fc.uniqueArray(entry(physicalGc), { minLength: 2, maxLength: 4, selector: (e) => e.key }) })
        .map((r): Op => ({ kind: 'concurrentMutations', ...r })),
    ],
    [
      'checkAndMutate',
      6,
      fc
        .record({
          table,
          key,
          predicate: fc.option(predicateFilter, { nil: undefined, freq: 4 }),
          trueMutations: mutations(physicalGc, 0),
          falseMutations: mutations(physicalGc, 0),
        })
        .map((r): Op => ({ kind: 'checkAndMutate', ...r })),
    ],
    [
      'readModifyWrite',
      6,
      fc
        .record({ table, key, rules: fc.array(rmwRule, { minLength: 1, maxLength: 3 }) })
        .map((r): Op => ({ kind: 'readModifyWrite', ...r })),
    ],
    ['read', 20, read],
    [
      'dropRowRange',
      2,
      fc
        .record({ table, prefix: fc.option(fc.constantFrom(...PREFIXES), { nil: undefined, freq: 4 }) })
        .map((r): Op => ({ kind: 'dropRowRange', ...r })),
    ],
    [
      'modifyFamilies',
      2,
      fc
        .record({ table, mods: fc.array(familyMod(physicalGc), { minLength: 1, maxLength: 2 }) })
        .map((r): Op => ({ kind: 'modifyFamilies', ...r })),
    ],
    // Frequent, so that a deleted table soon exists again (most attempts find it exists: AlreadyExists).
    ['createTable', 6, createTable(table)],
    ['deleteTable', 1, table.map((t): Op => ({ kind: 'deleteTable', table: t }))],
    ['deleteInstance', 1, fc.constant<Op>({ kind: 'deleteInstance' })],
    ['tick', 4, fc.integer({ min: 1, max: 8 }).map((n): Op => ({ kind: 'tick', millis: n * 500 }))],
    ['flush', 4, fc.constant<Op>({ kind: 'flush' })],
    ['compact', 4, fc.boolean().map((major): Op => ({ kind: 'compact', major }))],
    ['restart', 2, fc.constant<Op>({ kind: 'restart' })],
    ['crash', 2, fc.option(fc.nat(), { nil: undefined }).map((tornSeed): Op => ({ kind: 'crash', tornSeed }))],
  ];
  if (physicalGc) ops.push(['gcSweep', 4, fc.constant<Op>({ kind: 'gcSweep' })]);
  return ops.filter(([kind]) => !exclude.has(kind));
}

/** Row writes issued together, mostly on one row of one table. */
function burst(physicalGc: boolean, exclude: ReadonlySet<string>): fc.Arbitrary<Op> {
  const writes = new Set<Op['kind']>(['mutateRow', 'checkAndMutate', 'readModifyWrite']);
  const kinds = weightedOps(physicalGc, new Set()).filter(([kind]) => writes.has(kind) && !exclude.has(`burst:${kind}`));
  const write = fc.oneof(...kinds.map(([, weight, arbitrary]) => ({ weight, arbitrary })));
  return fc
    .tuple(
      table,
      key,
      fc.array(fc.tuple(write, fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) })), {
        minLength: 2,
        maxLength: 5,
      }),
    )
    .map(([t, k, list]): Op => ({
      kind: 'burst',
      ops: list.map(([o, sameRow]) => ({ ...o, table: t, ...(sameRow && 'key' in o ? { key: k } : {}) }) as Op),
    }));
}

function op(physicalGc: boolean, exclude: ReadonlySet<string>): fc.Arbitrary<Op> {
  const ops = weightedOps(physicalGc, exclude);
  if (!exclude.has('burst')) ops.push(['burst', 4, burst(physicalGc, exclude)]);
  if (!exclude.has('scanWhile')) {
    const during = duringScan(physicalGc, exclude);
    const scanWhile = fc
      .record({
        table,
        rows: rowSet,
        filter: fc.option(readFilter, { nil: undefined, freq: 3 }),
        limit: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }) }),
        reversed: fc.boolean(),
        first: fc.integer({ min: 0, max: 2 }),
        during: fc.array(fc.oneof(...during.map(([, weight, arbitrary]) => ({ weight, arbitrary }))), { minLength: 1, maxLength: 3 }),
      })
      .map((r): Op => ({ kind: 'scanWhile', ...r }));
    ops.push(['scanWhile', 4, scanWhile]);
  }
  return fc.oneof(...ops.map(([, weight, arbitrary]) => ({ weight, arbitrary })));
}

/** Shows an op log one operation a line, numbered as the transcripts number them. */
export function showOpLog(log: OpLog): string {
  const lines = log.ops.map((o, i) => `  ${String(i).padStart(3)} ${showOp(o)}`);
  return `OpLog(physicalGc=${log.physicalGc}, ${log.ops.length} ops)\n${lines.join('\n')}`;
}

export interface OpLogOptions {
  readonly physicalGc: boolean;
  /** At most this many random operations after the two CreateTables. */
  readonly maxOps: number;
  /**
   * Operation kinds never generated, to explore past a known failure: a kind
   * (`deleteInstance`), or `during:kind` / `burst:kind` for only inside
   * scanWhile / burst.
   */
  readonly exclude?: ReadonlySet<string>;
}

/** An op log: both tables created first, then up to `maxOps` random operations. */
export function opLog({ physicalGc, maxOps, exclude = new Set() }: OpLogOptions): fc.Arbitrary<OpLog> {
  return fc
    .tuple(
      createTable(fc.constant('t0')),
      createTable(fc.constant('t1')),
      fc.array(op(physicalGc, exclude), { maxLength: maxOps, size: 'max' }),
    )
    .map(([c0, c1, rest]) => {
      const log: OpLog = { physicalGc, ops: [c0, c1, ...rest] };
      return Object.assign(log, { [fc.toStringMethod]: () => showOpLog(log) });
    });
}
