import { describe, expect, it } from 'vitest';
import { family, openDb } from '../../db/testing/db-fixture.js';
import { isTabletopError } from '../../model/errors.js';
import type { Mutation } from '../../model/mutation.js';
import type { TableName } from '../../model/names.js';
import { parseTableName } from '../../model/names.js';
import { MemoryFileSystem } from '../../storage/fs/memory-fs.js';
import { openDiskEngine } from '../../storage/lsm/disk-engine.js';
import { MV_INSTANCE, startViews } from './testing/harness.js';

const be64 = (n: bigint): Uint8Array => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigInt64(0, n);
  return b;
};
const utf8 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));
const set = (q: string, value: Uint8Array | string): Mutation => ({
  kind: 'setCell',
  family: 'cf',
  qualifier: q,
  timestamp: 1_000_000,
  value: typeof value === 'string' ? utf8(value) : value,
});
const T: TableName = { ...MV_INSTANCE, table: 'sales' };
const view = (id: string) => ({ ...MV_INSTANCE, id });

async function salesDb(engine?: Parameters<typeof openDb>[0]) {
  const fx = await openDb(engine);
  await fx.db.createTable(T, { families: [family('cf')], initialSplits: [], deletionProtection: false });
  return fx;
}

const BY_REGION = `SELECT cf['region'] AS _key, COUNT(*) AS n, SUM(TO_INT64(cf['amount'])) AS total,
  MIN(TO_INT64(cf['amount'])) AS lo, MAX(TO_INT64(cf['amount'])) AS hi FROM sales GROUP BY 1`;

describe('continuous materialized views: the query', () => {
  it.each([
    ['SELECT cf AS m FROM sales', /either a GROUP BY clause or .* ORDER BY clause, not both/],
    ["SELECT cf['a'] AS a FROM sales GROUP BY 1 ORDER BY 1", /not both/],
    ["SELECT cf['a'] AS a, COUNT(*) AS n FROM sales GROUP BY 1 LIMIT 3", /LIMIT or OFFSET/],
    ['SELECT * FROM sales ORDER BY _key', /SELECT \*/],
    ["SELECT DISTINCT cf['a'] AS a FROM sales ORDER BY a", /SELECT DISTINCT/],
    ["SELECT cf['a'] AS a, ARRAY_AGG(cf['b']) AS b FROM sales GROUP BY 1", /ARRAY_AGG/],
    ["SELECT cf['a'] AS a, STRING_AGG(cf['b']) AS b FROM sales GROUP BY 1", /aggregate STRING_AGG/],
    ["SELECT cf['a'] AS a, COUNT(DISTINCT cf['b']) AS b FROM sales GROUP BY 1", /DISTINCT/],
    ['SELECT _key AS k, CURRENT_TIMESTAMP() AS t FROM sales ORDER BY k', /non-deterministic function CURRENT_TIMESTAMP/],
    ["SELECT cf['a'] AS a, COUNT(*) FROM sales GROUP BY 1", /needs a name/],
    ["SELECT cf['a'] AS a, COUNT(*) AS n FROM sales GROUP BY 1 HAVING n > 1", /HAVING/],
    ['SELECT _key AS k FROM sales ORDER BY k DESC', /DESC/],
    ["SELECT _key AS k, [cf['a']] AS arr FROM sales ORDER BY k", /type ARRAY/],
    ["SELECT cf['a'] AS a, COUNT(*) AS n FROM sales GROUP BY 1, cf['b']", /GROUP BY expression .* must be one of its columns/],
    ['SELECT _key AS k FROM nope ORDER BY k', /Table not found/],
  ])('refuses %s', async (query, message) => {
    const fx = await salesDb();
    await startViews(fx.db);
    const err = await fx.db.createMaterializedView(view('v'), { query, deletionProtection: false }).catch((e: unknown) => e);
    expect(isTabletopError(err) && (err.code === 'InvalidArgument' || err.code === 'NotFound')).toBe(true);
    expect((err as Error).message).toMatch(message);
    expect(fx.db.listMaterializedViews(MV_INSTANCE)).toEqual([]);
  });

  it('accepts the GROUP BY and ORDER BY forms, and names the view as a table cannot be', async () => {
    const fx = await salesDb();
    await startViews(fx.db);
    await fx.db.createMaterializedView(view('by_region'), { query: BY_REGION, deletionProtection: false });
    await fx.db.createMaterializedView(view('by_amount'), {
      query: "SELECT TO_INT64(cf['amount']) AS amount, _key AS sale FROM sales ORDER BY amount",
      deletionProtection: false,
    });
    expect(fx.db.listMaterializedViews(MV_INSTANCE).map((v) => [v.name.id, v.sourceTable])).toEqual([
      ['by_amount', 'sales'],
      ['by_region', 'sales'],
    ]);
    // Tables, logical views and materialized views share one namespace per instance (FROM finds any of them).
    const dup = await fx.db.createMaterializedView(view('sales'), { query: BY_REGION, deletionProtection: false }).catch((e: unknown) => e);
    expect(isTabletopError(dup, 'AlreadyExists') && dup.message).toMatch(/A table named sales/);
    await fx.db.createLogicalView(MV_INSTANCE, 'lv', { query: 'SELECT 1 AS one', deletionProtection: false });
    const overLogical = await fx.db
      .createMaterializedView(view('lv'), { query: BY_REGION, deletionProtection: false })
      .catch((e: unknown) => e);
    expect(isTabletopError(overLogical, 'AlreadyExists') && overLogical.message).toMatch(/A logical view named lv/);
    const logicalOver = await Promise.resolve()
      .then(() => fx.db.createLogicalView(MV_INSTANCE, 'by_region', { query: 'SELECT 1 AS one', deletionProtection: false }))
      .catch((e: unknown) => e);
    expect(isTabletopError(logicalOver, 'AlreadyExists') && logicalOver.message).toMatch(/already has a materialized view named by_region/);
    const tableOver = await Promise.resolve()
      .then(() =>
        fx.db.createTable(
          { ...MV_INSTANCE, table: 'by_amount' },
          { families: [family('cf')], initialSplits: [], deletionProtection: false },
        ),
      )
      .catch((e: unknown) => e);
    expect(isTabletopError(tableOver, 'AlreadyExists') && tableOver.message).toMatch(/already has a materialized view named by_amount/);
    // The internal tables are not tables to clients.
    expect(fx.db.listTables(MV_INSTANCE).map((t) => t.name.table)).toEqual(['sales']);
    expect(() => parseTableName('projects/p/instances/i/tables/$mv.x')).toThrow(/Invalid table name/);
  });
});

describe('continuous materialized views: reading through SQL', () => {
  it('reads a view as a table; predicates on a raw BYTES `_key` read only their rows', async () => {
    const fx = await salesDb();
    const h = await startViews(fx.db);
    await fx.db.mutateRows(
      T,
      ['east', 'west', 'north', 'south', 'east'].map((region, i) => ({
        key: `s${i}`,
        mutations: [set('region', region), set('amount', be64(BigInt(i + 1)))],
      })),
    );
    await fx.db.createMaterializedView(view('by_region'), { query: BY_REGION, deletionProtection: false });
    const all = await h.sql('SELECT _key, n FROM by_region');
    expect(all).toEqual({ rows: ['_key=b"east" n=2', '_key=b"north" n=1', '_key=b"south" n=1', '_key=b"west" n=1'], rowsScanned: 4 });
    expect(await h.sql("SELECT n, total FROM by_region WHERE _key = b'east'")).toEqual({ rows: ['n=2 total=6'], rowsScanned: 1 });
    expect(await h.sql("SELECT _key FROM by_region WHERE _key >= b's'")).toEqual({
      rows: ['_key=b"south"', '_key=b"west"'],
      rowsScanned: 2,
    });
    // An encoded key (two key columns) has no key ranges: the whole view is read, the result is the same.
    await fx.db.createMaterializedView(view('by_pair'), {
      query: "SELECT cf['region'] AS region, TO_INT64(cf['amount']) AS amount, COUNT(*) AS n FROM sales GROUP BY 1, 2",
      deletionProtection: false,
    });
    expect(await h.sql("SELECT amount FROM by_pair WHERE region = b'east' ORDER BY amount")).toEqual({
      rows: ['amount=1', 'amount=5'],
      rowsScanned: 5,
    });
  });
});

describe('continuous materialized views: maintenance', () => {
  it('builds from existing rows, then follows inserts, updates that move a row between groups, and deletes', async () => {
    const fx = await salesDb();
    const h = await startViews(fx.db);
    await fx.db.mutateRows(T, [
      { key: 's1', mutations: [set('region', 'east'), set('amount', be64(10n))] },
      { key: 's2', mutations: [set('region', 'east'), set('amount', be64(5n))] },
      { key: 's3', mutations: [set('region', 'west'), set('amount', be64(7n))] },
    ]);
    await fx.db.createMaterializedView(view('v'), { query: BY_REGION, deletionProtection: false });
    expect(await h.viewRows('v')).toEqual(['_key=b"east" n=2 total=15 lo=5 hi=10', '_key=b"west" n=1 total=7 lo=7 hi=7']);
    // Insert; move s1 from east to west; delete s3.
    await fx.db.mutateRow(T, 's4', [set('region', 'north'), set('amount', be64(1n))]);
    await fx.db.mutateRow(T, 's1', [set('region', 'west')]);
    await fx.db.mutateRow(T, 's3', [{ kind: 'deleteFromRow' }]);
    await h.mv.idle();
    expect(await h.viewRows('v')).toEqual([
      '_key=b"east" n=1 total=5 lo=5 hi=5',
      '_key=b"north" n=1 total=1 lo=1 hi=1',
      '_key=b"west" n=1 total=10 lo=10 hi=10',
    ]);
    // The last member leaves: the group's row goes.
    await fx.db.mutateRow(T, 's4', [{ kind: 'deleteFromRow' }]);
    await h.mv.idle();
    expect((await h.viewRows('v')).sort()).toEqual((await h.queryRows('v')).sort());
    expect((await h.viewRows('v')).map((r) => r.split(' ')[0])).toEqual(['_key=b"east"', '_key=b"west"']);
    expect(h.errors).toEqual([]);
  });

  it("groups by a SELECT alias that shadows a column: the service's `'*' AS _key ... GROUP BY _key`", async () => {
    const fx = await salesDb();
    const h = await startViews(fx.db);
    await fx.db.mutateRows(
      T,
      ['s1', 's2', 's3'].map((key) => ({ key, mutations: [set('region', 'east')] })),
    );
    await fx.db.createMaterializedView(view('all'), {
      query: "SELECT '*' AS _key, COUNT(*) AS count FROM sales GROUP BY _key",
      deletionProtection: false,
    });
    expect(await h.viewRows('all')).toEqual(['_key="*" count=3']);
  });

  it('recomputes MIN and MAX from the remaining members when the extreme one leaves or changes', async () => {
    const fx = await salesDb();
    const h = await startViews(fx.db);
    await fx.db.createMaterializedView(view('v'), { query: BY_REGION, deletionProtection: false });
    await fx.db.mutateRows(
      T,
      [3n, 9n, 4n, 1n].map((n, i) => ({ key: `s${i}`, mutations: [set('region', 'east'), set('amount', be64(n))] })),
    );
    await h.mv.idle();
    expect(await h.viewRows('v')).toEqual(['_key=b"east" n=4 total=17 lo=1 hi=9']);
    await fx.db.mutateRow(T, 's1', [{ kind: 'deleteFromRow' }]); // the max, 9
    await fx.db.mutateRow(T, 's3', [set('amount', be64(6n))]); // the min, 1, becomes 6
    await h.mv.idle();
    expect(await h.viewRows('v')).toEqual(['_key=b"east" n=3 total=13 lo=3 hi=6']);
  });

  it('keeps HLL sketches, ANY_VALUE, AVG and the bit aggregates equal to the query run from scratch', async () => {
    const fx = await salesDb();
    const h = await startViews(fx.db);
    const query = `SELECT cf['region'] AS _key, HLL_COUNT.INIT(cf['user']) AS users, ANY_VALUE(cf['user']) AS some_user,
      AVG(TO_INT64(cf['amount'])) AS mean, BIT_AND(TO_INT64(cf['amount'])) AS band, BIT_OR(TO_INT64(cf['amount'])) AS bor,
      BIT_XOR(TO_INT64(cf['amount'])) AS bxor, COUNT(cf['user']) AS with_user FROM sales GROUP BY 1`;
    await fx.db.createMaterializedView(view('v'), { query, deletionProtection: false });
    const users = ['ann', 'bob', 'cy', 'dee', 'ann', 'bob'];
    await fx.db.mutateRows(
      T,
      users.map((u, i) => ({
        key: `s${i}`,
        mutations: [set('region', i % 2 === 0 ? 'east' : 'west'), set('user', u), set('amount', be64(BigInt(i * 3 + 1)))],
      })),
    );
    await fx.db.mutateRow(T, 's0', [{ kind: 'deleteFromColumn', family: 'cf', qualifier: 'user', start: 0, end: undefined }]);
    await fx.db.mutateRow(T, 's2', [{ kind: 'deleteFromRow' }]);
    await h.mv.idle();
    const rows = await h.viewRows('v');
    expect(rows).toHaveLength(2);
    expect([...rows].sort()).toEqual((await h.queryRows('v')).sort());
    // A view over an HLL aggregate family merges its sketches.
    const visits: TableName = { ...MV_INSTANCE, table: 'visits' };
    await fx.db.createTable(visits, {
      families: [family('users', undefined, { kind: 'aggregate', aggregator: 'hll', input: 'bytes' })],
      initialSplits: [],
      deletionProtection: false,
    });
    const visit = (u: string): Mutation => ({
      kind: 'addToCell',
      family: 'users',
      qualifier: 'u',
      timestamp: 0,
      input: { kind: 'bytes', value: utf8(u) },
    });
    await fx.db.mutateRows(visits, [
      { key: 'day1', mutations: ['ann', 'bob', 'cy'].map(visit) },
      { key: 'day2', mutations: ['bob', 'cy', 'dee'].map(visit) },
    ]);
    await fx.db.createMaterializedView(view('uniq'), {
      query: "SELECT 'all' AS _key, HLL_COUNT.MERGE(users['u']) AS n, HLL_COUNT.MERGE_PARTIAL(users['u']) AS sketch FROM visits GROUP BY 1",
      deletionProtection: false,
    });
    expect((await h.viewRows('uniq'))[0]).toMatch(/^_key="all" n=4 sketch=b"/);
    await fx.db.mutateRow(visits, 'day2', [{ kind: 'deleteFromRow' }]);
    await h.mv.idle();
    expect((await h.viewRows('uniq'))[0]).toMatch(/^_key="all" n=3 /);
    expect((await h.viewRows('uniq')).sort()).toEqual((await h.queryRows('uniq')).sort());
    expect(h.errors).toEqual([]);
  });

  it('keeps a secondary index (ORDER BY): one row per source row, re-keyed, in the order of its key', async () => {
    const fx = await salesDb();
    const h = await startViews(fx.db);
    await fx.db.createMaterializedView(view('ix'), {
      query:
        "SELECT cf['region'] AS region, TO_INT64(cf['amount']) AS amount, _key AS sale FROM sales WHERE cf['amount'] IS NOT NULL ORDER BY region, amount",
      deletionProtection: false,
    });
    await fx.db.mutateRows(T, [
      { key: 's1', mutations: [set('region', 'west'), set('amount', be64(-2n))] },
      { key: 's2', mutations: [set('region', 'east'), set('amount', be64(5n))] },
      { key: 's3', mutations: [set('amount', be64(3n))] },
      { key: 's4', mutations: [set('region', 'east')] },
    ]);
    await fx.db.mutateRow(T, 's1', [set('amount', be64(-9n))]);
    await h.mv.idle();
    expect(await h.viewRows('ix')).toEqual([
      'region=NULL amount=3 sale=b"s3"',
      'region=b"east" amount=5 sale=b"s2"',
      'region=b"west" amount=-9 sale=b"s1"',
    ]);
    await fx.db.mutateRow(T, 's2', [{ kind: 'deleteFromColumn', family: 'cf', qualifier: 'amount', start: 0, end: undefined }]);
    await h.mv.idle();
    expect(await h.viewRows('ix')).toEqual(['region=NULL amount=3 sale=b"s3"', 'region=b"west" amount=-9 sale=b"s1"']);
  });

  it('follows changes of the source families: analyzed again and rebuilt, or left as it was once the query no longer fits', async () => {
    const fx = await openDb();
    await fx.db.createTable(T, { families: [family('other'), family('cf')], initialSplits: [], deletionProtection: false });
    const h = await startViews(fx.db);
    await fx.db.createMaterializedView(view('v'), { query: BY_REGION, deletionProtection: false });
    await fx.db.mutateRow(T, 's1', [set('region', 'east'), set('amount', be64(2n))]);
    // `other` goes: `cf` moves to the first place of the table's shape.
    await fx.db.modifyColumnFamilies(T, [{ kind: 'drop', family: 'other' }], false);
    await fx.db.mutateRow(T, 's2', [set('region', 'east'), set('amount', be64(3n))]);
    await h.mv.idle();
    expect(await h.viewRows('v')).toEqual(['_key=b"east" n=2 total=5 lo=2 hi=3']);
    expect(h.errors).toEqual([]);
    // Dropping the family the query reads: reported once, the view stays as it was, writes are not applied.
    await fx.db.modifyColumnFamilies(T, [{ kind: 'drop', family: 'cf' }], false);
    await fx.db.modifyColumnFamilies(T, [{ kind: 'create', family: 'x', gcRule: undefined, valueType: { kind: 'bytes' } }], false);
    await fx.db.mutateRow(T, 's3', [{ kind: 'setCell', family: 'x', qualifier: 'q', timestamp: 0, value: utf8('v') }]);
    await fx.db.mutateRow(T, 's4', [{ kind: 'setCell', family: 'x', qualifier: 'q', timestamp: 0, value: utf8('v') }]);
    await h.mv.idle();
    expect(h.errors).toHaveLength(1);
    expect(String(h.errors[0])).toMatch(/no longer fits its source table sales/);
    expect(await h.viewRows('v')).toEqual(['_key=b"east" n=2 total=5 lo=2 hi=3']);
    // The family back: the view is rebuilt from what the table holds now.
    await fx.db.modifyColumnFamilies(T, [{ kind: 'create', family: 'cf', gcRule: undefined, valueType: { kind: 'bytes' } }], false);
    await fx.db.mutateRow(T, 's5', [set('region', 'west'), set('amount', be64(9n))]);
    await h.mv.idle();
    expect(await h.viewRows('v')).toEqual(['_key=b"west" n=1 total=9 lo=9 hi=9']);
  });

  it('follows cells that expire under an age rule, without a write', async () => {
    const fx = await openDb();
    const day = { kind: 'maxAge' as const, maxAgeMicros: 1_000_000 };
    await fx.db.createTable(T, { families: [family('cf'), family('short', day)], initialSplits: [], deletionProtection: false });
    const h = await startViews(fx.db);
    const query =
      "SELECT cf['region'] AS _key, COUNT(*) AS n, COUNT(short['flag']) AS flagged FROM sales WHERE short['gone'] IS NULL GROUP BY 1";
    await fx.db.createMaterializedView(view('v'), { query, deletionProtection: false });
    const now = (): number => fx.clock.nowMicros();
    const short = (q: string, ts: number): Mutation => ({
      kind: 'setCell',
      family: 'short',
      qualifier: q,
      timestamp: ts,
      value: utf8('1'),
    });
    await fx.db.mutateRows(T, [
      { key: 's1', mutations: [set('region', 'east'), short('flag', now())] },
      { key: 's2', mutations: [set('region', 'east'), short('gone', now())] },
      { key: 's3', mutations: [short('flag', now())] },
    ]);
    await h.mv.idle();
    expect(await h.viewRows('v')).toEqual(['_key=b"east" n=1 flagged=1']);
    fx.clock.advanceMillis(2000);
    await h.mv.recheckExpiring();
    await h.mv.idle();
    // s1's flag expired; s2's `gone` expired, so it passes WHERE now; s3 expired whole.
    expect(await h.viewRows('v')).toEqual(['_key=b"east" n=2 flagged=0']);
    expect((await h.viewRows('v')).sort()).toEqual((await h.queryRows('v')).sort());
  });

  it('deletes a view with its data, honours the etag and deletion protection, and keeps the source table while views read it', async () => {
    const fx = await salesDb();
    await startViews(fx.db);
    const info = await fx.db.createMaterializedView(view('v'), { query: BY_REGION, deletionProtection: true });
    const refused = await Promise.resolve()
      .then(() => fx.db.deleteTable(T))
      .catch((e: unknown) => e);
    expect(isTabletopError(refused, 'FailedPrecondition')).toBe(true);
    expect(isTabletopError(await fx.db.deleteMaterializedView(view('v')).catch((e: unknown) => e), 'FailedPrecondition')).toBe(true);
    const updated = await fx.db.updateMaterializedView(view('v'), { deletionProtection: false }, info.etag);
    expect(updated.etag).not.toBe(info.etag);
    expect(isTabletopError(await fx.db.deleteMaterializedView(view('v'), info.etag).catch((e: unknown) => e), 'Aborted')).toBe(true);
    await fx.db.deleteMaterializedView(view('v'), updated.etag);
    // Every generation's internal tables go with it (the current pair and the one a rebuild replaced).
    expect(fx.db.catalogState().instances[0]!.tables.map((t) => t.id)).toEqual(['sales']);
    await fx.db.deleteTable(T);
  });
});

describe('continuous materialized views: durability', () => {
  it('survives a clean restart and a crash of the durable engine, converging to the query', async () => {
    const fs = new MemoryFileSystem();
    const open = async (files: MemoryFileSystem) => {
      const engine = await openDiskEngine({ fs: files, dir: 'db', onBackgroundError: () => undefined });
      const fx = await openDb({ engine });
      return { fx, h: await startViews(fx.db) };
    };
    let { fx, h } = await open(fs);
    await fx.db.createTable(T, { families: [family('cf')], initialSplits: [], deletionProtection: false });
    await fx.db.createMaterializedView(view('v'), { query: BY_REGION, deletionProtection: false });
    for (let i = 0; i < 20; i++) await fx.db.mutateRow(T, `s${i}`, [set('region', `r${i % 3}`), set('amount', be64(BigInt(i)))]);
    await h.mv.close();
    await fx.db.close();

    ({ fx, h } = await open(fs));
    expect((await h.viewRows('v')).sort()).toEqual((await h.queryRows('v')).sort());
    expect(await h.viewRows('v')).toHaveLength(3);
    // Acknowledged writes the views have not caught up with, then a crash: the view is rebuilt at the next start.
    for (let i = 0; i < 10; i++) await fx.db.mutateRow(T, `s${i}`, [set('region', 'late')]);
    const crashed = fs.crash();
    await fx.db.close();

    ({ fx, h } = await open(crashed));
    await h.mv.idle();
    expect((await h.viewRows('v')).sort()).toEqual((await h.queryRows('v')).sort());
    expect((await h.viewRows('v')).some((r) => r.startsWith('_key=b"late" n=10 '))).toBe(true);
    await h.mv.close();
    await fx.db.close();
  });
});
