import { family, openDb, type Fixture } from '../../db/testing/db-fixture.js';
import type { Mutation } from '../../model/mutation.js';
import type { InstanceName, TableName } from '../../model/names.js';
import { BYTES, INT64 } from '../types.js';
import { MemoryMaterializedSource, MemoryViews } from './memory-views.js';

/**
 * The evaluator tests' data: an in-memory database with instance projects/p/instances/i and
 *  - `t` (families cf, stats): rows r1..r5, p1, p2, q1 (see the cells below), several versions of r1's cf:a;
 *  - `counters` (an int64 sum aggregate family `n` and a bytes family `tag`);
 *  - `visits` (an HLL aggregate family `users`: day1 saw ann, bob, cy; day2 bob, cy, dee);
 *  - `empty` (family cf, no rows);
 * and the views of sqlViews().
 */
export const SQL_INSTANCE: InstanceName = { project: 'p', instance: 'i' };
export const SQL_INSTANCE_NAME = 'projects/p/instances/i';

const be64 = (n: bigint): Uint8Array => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigInt64(0, n);
  return b;
};
const utf8 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));
const MS = 1000;

function set(f: string, q: string, value: Uint8Array | string, ts = 1000 * MS): Mutation {
  return { kind: 'setCell', family: f, qualifier: q, timestamp: ts, value: typeof value === 'string' ? utf8(value) : value };
}

export async function sqlFixture(): Promise<Fixture> {
  const fx = await openDb();
  const t: TableName = { ...SQL_INSTANCE, table: 't' };
  await fx.db.createTable(t, { families: [family('cf'), family('stats')], initialSplits: [], deletionProtection: false });
  const rows: [string, Mutation[]][] = [
    ['r1', [set('cf', 'a', 'old', 500 * MS), set('cf', 'a', 'apple'), set('cf', 'n', be64(10n)), set('stats', 'x', 'r1x')]],
    ['r2', [set('cf', 'a', 'banana'), set('cf', 'n', be64(-3n)), set('stats', 'x', 'r2x')]],
    ['r3', [set('cf', 'a', 'cherry'), set('cf', 'n', be64(10n))]],
    ['r4', [set('cf', 'n', be64(7n)), set('cf', 'bad', new Uint8Array([0xff, 0xfe]))]],
    ['r5', [set('stats', 'only', 'stats-only row')]],
    ['p1', [set('cf', 'a', 'p-one'), set('cf', 'json', '{"name":"ann","tags":["x","y"],"age":31}')]],
    ['p2', [set('cf', 'a', 'p-two')]],
    ['q1', [set('cf', 'a', 'Q')]],
  ];
  await fx.db.mutateRows(
    t,
    rows.map(([key, mutations]) => ({ key, mutations })),
  );

  const counters: TableName = { ...SQL_INSTANCE, table: 'counters' };
  await fx.db.createTable(counters, {
    families: [family('n', undefined, { kind: 'aggregate', aggregator: 'sum', input: 'int64' }), family('tag')],
    initialSplits: [],
    deletionProtection: false,
  });
  const add = (q: string, v: bigint): Mutation => ({
    kind: 'addToCell',
    family: 'n',
    qualifier: q,
    timestamp: 0,
    input: { kind: 'int', value: v },
  });
  await fx.db.mutateRows(counters, [
    { key: 'a', mutations: [add('clicks', 3n), add('clicks', 4n), set('tag', 'k', 'red')] },
    { key: 'b', mutations: [add('clicks', 5n), set('tag', 'k', 'blue')] },
    { key: 'c', mutations: [set('tag', 'k', 'red')] },
  ]);

  const visits: TableName = { ...SQL_INSTANCE, table: 'visits' };
  await fx.db.createTable(visits, {
    families: [family('users', undefined, { kind: 'aggregate', aggregator: 'hll', input: 'bytes' })],
    initialSplits: [],
    deletionProtection: false,
  });
  const visit = (user: string): Mutation => ({
    kind: 'addToCell',
    family: 'users',
    qualifier: 'u',
    timestamp: 0,
    input: { kind: 'bytes', value: utf8(user) },
  });
  await fx.db.mutateRows(visits, [
    { key: 'day1', mutations: ['ann', 'bob', 'cy'].map(visit) },
    { key: 'day2', mutations: ['bob', 'cy', 'dee'].map(visit) },
  ]);

  await fx.db.createTable({ ...SQL_INSTANCE, table: 'empty' }, { families: [family('cf')], initialSplits: [], deletionProtection: false });
  return fx;
}

/**
 * The evaluator tests' views (instance projects/p/instances/i):
 *  - `fruits`: t's rows with cf:a, `_key` passed through (predicates on it narrow the read of t);
 *  - `big`: fruits with n > 5, without the key; `fruit_keys`: fruits' keys renamed `k`;
 *  - `tag_counts`: counters grouped by tag (an aggregating view: no key ranges through it);
 *  - `first_two`: fruits LIMIT 2 (key predicates of a query over it cannot narrow its read);
 *  - `history`: t read with history (UNPACK reads it);
 *  - `broken` (reads a table that does not exist), `with_param` (a parameter), `loop` (itself), `ping`/`pong` (each other);
 *  - the materialized view `mv_tags` (tag BYTES, n INT64: blue 1, red 2).
 */
export function sqlViews(): MemoryViews {
  const i = SQL_INSTANCE;
  return new MemoryViews()
    .setLogical(i, 'fruits', "SELECT _key, cf['a'] AS fruit, TO_INT64(cf['n']) AS n FROM t WHERE cf['a'] IS NOT NULL")
    .setLogical(i, 'big', 'SELECT fruit, n FROM fruits WHERE n > 5')
    .setLogical(i, 'fruit_keys', 'SELECT _key AS k, fruit FROM fruits')
    .setLogical(i, 'tag_counts', "SELECT tag['k'] AS tag, COUNT(*) AS n FROM counters GROUP BY tag['k']")
    .setLogical(i, 'first_two', 'SELECT _key, fruit FROM fruits LIMIT 2')
    .setLogical(i, 'history', 'SELECT _key, cf FROM t(with_history => TRUE)')
    .setLogical(i, 'broken', 'SELECT * FROM gone')
    .setLogical(i, 'with_param', 'SELECT @p AS p')
    .setLogical(i, 'loop', 'SELECT * FROM loop')
    .setLogical(i, 'ping', 'SELECT * FROM pong')
    .setLogical(i, 'pong', 'SELECT * FROM ping')
    .setMaterialized(
      i,
      'mv_tags',
      new MemoryMaterializedSource(
        [
          { name: 'tag', type: BYTES },
          { name: 'n', type: INT64 },
        ],
        [
          [utf8('blue'), 1n],
          [utf8('red'), 2n],
        ],
        'mv-tags-1',
      ),
    );
}
