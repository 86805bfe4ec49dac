import { describe, expect, it } from 'vitest';
import type { RowFilter } from '../model/filter/ast.js';
import type { Mutation } from '../model/mutation.js';
import type { TableName } from '../model/names.js';
import type { ValueType } from '../model/value-type.js';
import { createAsyncEngine } from './testing/async-engine.js';
import { ALL, type Fixture, createTable, drain, family, openDb, set } from './testing/db-fixture.js';

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
const add = (n: bigint): Mutation => ({ kind: 'addToCell', family: 'sum', qualifier: 'n', timestamp: 1000, input: { kind: 'int', value: n } });
const increment = (n: bigint) => [{ kind: 'increment' as const, family: 'cf', qualifier: 'n', amount: n }];
/** Matches a row that has a cf:claimed cell. */
const CLAIMED: RowFilter = { kind: 'chain', filters: [{ kind: 'familyRegex', pattern: 'cf' }, { kind: 'qualifierRegex', pattern: 'claimed' }] };

interface Race {
  readonly name: string;
  /** Writes the row's starting state. */
  setup(f: Fixture, table: TableName, key: string): Promise<unknown>;
  first(f: Fixture, table: TableName, key: string): Promise<unknown>;
  second(f: Fixture, table: TableName, key: string): Promise<unknown>;
  /** What the race may end in: one of these per serial order, compared with `outcome`. */
  serialOutcomes: readonly unknown[];
  outcome(row: Record<string, string>, first: unknown, second: unknown): unknown;
}

const races: Race[] = [
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
    second: (f, t, k) => f.db.mutateRows(t, [{ key: k, mutations: [{ kind: 'setCell', family: 'cf', qualifier: 'n', timestamp: -1, value: int64(100n) }] }]),
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
  const [row] = await drain(f.db.readRows(table, { ...ALL, rows: { keys: [key], ranges: [] }, filter: { kind: 'cellsPerColumnLimit', limit: 1 } }));
  const out: Record<string, string> = {};
  for (const c of row?.cells ?? []) {
    const b = Buffer.from(c.value);
    out[`${c.family}:${c.qualifier}`] = b.length === 8 ? String(b.readBigInt64BE()) : b.toString('latin1');
  }
  return out;
}

/** Resolves once `turns` turns of the event loop and then `microtasks` microtasks have passed. */
async function after(turns: number, microtasks: number): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
  for (let i = 0; i < microtasks; i++) await null;
}

/** Microtasks tried after each turn: more than any operation runs through between two turns. */
const MICROTASKS = 16;
/** Turns tried at most: the asynchronous engine's operations take a few each. */
const MAX_TURNS = 60;

for (const engine of ['memory', 'async'] as const) {
  describe(`read-then-write operations against a conflicting write, at every interleaving (${engine} engine)`, () => {
    for (const race of races) {
      it(race.name, async () => {
        const f = await openDb(engine === 'async' ? { engine: createAsyncEngine() } : {});
        const table = await createTable(f, [family('cf'), family('sum', undefined, SUM)]);
        let tried = 0;
        let turns = 0;
        for (let done = false; !done && turns < MAX_TURNS; turns++) {
          for (let micro = 0; micro <= MICROTASKS; micro++) {
            const key = `r${turns}.${micro}`;
            await race.setup(f, table, key);
            let firstDone = false;
            // Counted from before the first operation starts, so that the second one can start at each
            // microtask boundary of the first (a microtask queued after the first one yields runs after it).
            const second = after(turns, micro).then(() => {
              // The second operation starting after the first has finished is a serial order: later points are too.
              if (firstDone) done = true;
              return race.second(f, table, key);
            });
            const first = race.first(f, table, key).finally(() => (firstDone = true));
            const [a, b] = await Promise.all([first, second]);
            const outcome = race.outcome(await rowOf(f, table, key), a, b);
            expect(race.serialOutcomes, `second operation after ${turns} turns and ${micro} microtasks`).toContainEqual(outcome);
            tried++;
          }
        }
        // The grid reached past the first operation's end (the second then runs alone, serially).
        expect(turns).toBeLessThan(MAX_TURNS);
        expect(tried).toBeGreaterThan(MICROTASKS);
        await f.db.close();
      });
    }
  });
}
