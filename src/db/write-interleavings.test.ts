import { describe, expect, it } from 'vitest';
import type { RowFilter } from '../model/filter/index.js';
import type { Mutation } from '../model/mutation.js';
import type { TableName } from '../model/names.js';
import type { ValueType } from '../model/value-type.js';
import { createAsyncEngine } from './testing/async-engine.js';
import { ALL, type Fixture, createTable, drain, family, openDb, set } from './testing/db-fixture.js';
import { raceAtEveryPoint } from './testing/race.js';

/**
 * Serializability of the operations that read a row and write it back
 * (AddToCell in MutateRow(s), CheckAndMutateRow, ReadModifyWriteRow), racing
 * a conflicting write on the same row that starts at every interleaving
 * point: after each microtask, on each turn of the event loop, until the
 * first operation has finished. Each race must end as one of its serial
 * orders would.
 *
 * What this guards: MutateRows takes no row locks while no row of the table
 * is locked, relying on running without yielding from its read to its
 * write, and taking the locks before it waits for anything (write-path.ts).
 * An `await` between a read and a write without the lock lets the
 * conflicting write in at that microtask, and a race below ends in a state no
 * serial order gives (a lost update, two winners).
 */

const SUM: ValueType = { kind: 'aggregate', aggregator: 'sum', input: 'int64' };
const int64 = (n: bigint): Uint8Array => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(n);
  return new Uint8Array(b);
};
const add = (n: bigint): Mutation => ({
  kind: 'addToCell',
  family: 'sum',
  qualifier: 'n',
  timestamp: 1000,
  input: { kind: 'int', value: n },
});
const increment = (n: bigint) => [{ kind: 'increment' as const, family: 'cf', qualifier: 'n', amount: n }];
/** Matches a row that has a cf:claimed cell. */
const CLAIMED: RowFilter = {
  kind: 'chain',
  filters: [
    { kind: 'familyRegex', pattern: 'cf' },
    { kind: 'qualifierRegex', pattern: 'claimed' },
  ],
};

interface ReadWriteRace {
  readonly name: string;
  /** Writes the row's starting state. */
  setup(f: Fixture, table: TableName, key: string): Promise<unknown>;
  first(f: Fixture, table: TableName, key: string): Promise<unknown>;
  second(f: Fixture, table: TableName, key: string): Promise<unknown>;
  /** What the race may end in: one of these per serial order, compared with `outcome`. */
  serialOutcomes: readonly unknown[];
  outcome(row: Record<string, string>, first: unknown, second: unknown): unknown;
}

const races: ReadWriteRace[] = [
  {
    name: 'AddToCell in MutateRows against AddToCell in MutateRow',
    setup: (f, t, k) => f.db.mutateRow(t, k, [add(0n)]),
    first: (f, t, k) => f.db.mutateRows(t, [{ key: k, mutations: [add(1n)] }]),
    second: (f, t, k) => f.db.mutateRow(t, k, [add(10n)]),
    serialOutcomes: ['11'],
    outcome: (row) => row['sum:n'],
  },
  {
    name: 'AddToCell in MutateRows against AddToCell in a CheckAndMutateRow branch',
    setup: (f, t, k) => f.db.mutateRow(t, k, [add(0n)]),
    first: (f, t, k) => f.db.mutateRows(t, [{ key: k, mutations: [add(1n)] }]),
    second: (f, t, k) => f.db.checkAndMutateRow(t, k, undefined, [add(10n)], []),
    serialOutcomes: ['11'],
    outcome: (row) => row['sum:n'],
  },
  {
    name: 'ReadModifyWriteRow against ReadModifyWriteRow',
    setup: (f, t, k) => f.db.mutateRow(t, k, [{ kind: 'setCell', family: 'cf', qualifier: 'n', timestamp: 1000, value: int64(0n) }]),
    first: (f, t, k) => f.db.readModifyWriteRow(t, k, increment(1n)),
    second: (f, t, k) => f.db.readModifyWriteRow(t, k, increment(10n)),
    // The final value, and what each call answered.
    serialOutcomes: [
      ['11', '1', '11'],
      ['11', '11', '10'],
    ],
    outcome: (row, first, second) => [row['cf:n'], counterOf(first), counterOf(second)],
  },
  {
    name: 'ReadModifyWriteRow against a SetCell in MutateRows',
    setup: (f, t, k) => f.db.mutateRow(t, k, [{ kind: 'setCell', family: 'cf', qualifier: 'n', timestamp: 1000, value: int64(0n) }]),
    first: (f, t, k) => f.db.readModifyWriteRow(t, k, increment(1n)),
    // At server time, the timestamp the increment writes at: the later write replaces the earlier.
    second: (f, t, k) =>
      f.db.mutateRows(t, [{ key: k, mutations: [{ kind: 'setCell', family: 'cf', qualifier: 'n', timestamp: -1, value: int64(100n) }] }]),
    serialOutcomes: [
      ['100', '1'],
      ['101', '101'],
    ],
    outcome: (row, first) => [row['cf:n'], counterOf(first)],
  },
  {
    name: 'CheckAndMutateRow against CheckAndMutateRow: one claim wins',
    setup: (f, t, k) => f.db.mutateRow(t, k, [set('cf', 'other', 1000, 'x')]),
    first: (f, t, k) => f.db.checkAndMutateRow(t, k, CLAIMED, [], [set('cf', 'claimed', 1000, 'first')]),
    second: (f, t, k) => f.db.checkAndMutateRow(t, k, CLAIMED, [], [set('cf', 'claimed', 1000, 'second')]),
    serialOutcomes: [
      ['first', false, true],
      ['second', true, false],
    ],
    outcome: (row, first, second) => [row['cf:claimed'], first, second],
  },
];

function counterOf(row: unknown): string {
  const cell = (row as { cells: { value: Uint8Array }[] }).cells[0]!;
  return String(Buffer.from(cell.value).readBigInt64BE());
}

/** The row's newest cell of each column, "family:qualifier" → value (int64 values as numbers, others as text). */
async function rowOf(f: Fixture, table: TableName, key: string): Promise<Record<string, string>> {
  const [row] = await drain(
    f.db.readRows(table, { ...ALL, rows: { keys: [key], ranges: [] }, filter: { kind: 'cellsPerColumnLimit', limit: 1 } }),
  );
  const out: Record<string, string> = {};
  for (const c of row?.cells ?? []) {
    const b = Buffer.from(c.value);
    out[`${c.family}:${c.qualifier}`] = b.length === 8 ? String(b.readBigInt64BE()) : b.toString('latin1');
  }
  return out;
}

for (const engine of ['memory', 'async'] as const) {
  describe(`read-then-write operations against a conflicting write, at every interleaving (${engine} engine)`, () => {
    for (const race of races) {
      it(race.name, async () => {
        const f = await openDb(engine === 'async' ? { engine: createAsyncEngine() } : {});
        const table = await createTable(f, [family('cf'), family('sum', undefined, SUM)]);
        let key = '';
        let n = 0;
        const points = await raceAtEveryPoint({
          setup: () => race.setup(f, table, (key = `r${n++}`)),
          first: () => race.first(f, table, key),
          second: () => race.second(f, table, key),
          check: async (a, b, point) => expect(race.serialOutcomes, point).toContainEqual(race.outcome(await rowOf(f, table, key), a, b)),
        });
        expect(points).toBeGreaterThan(16);
        await f.db.close();
      });
    }
  });
}
