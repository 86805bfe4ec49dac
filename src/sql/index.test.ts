import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Fixture } from '../db/testing/db-fixture.js';
import { family } from '../db/testing/db-fixture.js';
import { fromBytes } from '../model/bytes.js';
import { isTabletopError } from '../model/errors.js';
import { PREPARED_QUERY_EXPIRED, createSqlEngine } from './index.js';
import type { SqlEngine } from './engine.js';
import { BYTES, INT64, type SqlValue } from './types.js';
import { SQL_INSTANCE, SQL_INSTANCE_NAME, sqlFixture } from './testing/fixture.js';
import { MemoryMaterializedSource, MemoryViews } from './testing/memory-views.js';

let fx: Fixture;
let engine: SqlEngine;

beforeEach(async () => {
  fx = await sqlFixture();
  engine = createSqlEngine(fx.db);
});
afterEach(async () => {
  await fx.db.close();
});

async function all(rows: AsyncIterable<readonly SqlValue[]>): Promise<(readonly SqlValue[])[]> {
  const out: (readonly SqlValue[])[] = [];
  for await (const r of rows) out.push(r);
  return out;
}

const keys = (rows: (readonly SqlValue[])[]): string[] => rows.map((r) => fromBytes(r[0] as Uint8Array));

async function failure(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (e) {
    if (isTabletopError(e)) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('expected a failure');
}

describe('createSqlEngine', () => {
  it('prepares columns and parameter types, and executes the token with parameters', async () => {
    const p = await engine.prepare(
      SQL_INSTANCE_NAME,
      'SELECT _key, TO_INT64(cf[@q]) + @d AS n FROM t WHERE _key = @k',
      new Map([
        ['k', BYTES],
        ['q', BYTES],
        ['d', INT64],
      ]),
    );
    expect(p.columns).toEqual([
      { name: '_key', type: BYTES },
      { name: 'n', type: INT64 },
    ]);
    const params = new Map<string, SqlValue>([
      ['k', new Uint8Array(Buffer.from('r1'))],
      ['q', new Uint8Array(Buffer.from('n'))],
      ['d', 5n],
    ]);
    const result = engine.execute(SQL_INSTANCE_NAME, p.token, { params });
    expect(await all(result.rows)).toEqual([[new Uint8Array(Buffer.from('r1')), 15n]]);
    expect(result.stats()).toEqual({ rowsScanned: 1, rowsReturned: 1, peakHeldBytes: 0, spilledRuns: 0 });
  });

  it('resumes after skipRows rows of the same deterministic order', async () => {
    for (const query of ['SELECT _key FROM t', "SELECT _key FROM t ORDER BY cf['a'] DESC", 'SELECT _key, COUNT(*) FROM t GROUP BY _key']) {
      const p = await engine.prepare(SQL_INSTANCE_NAME, query, new Map());
      const whole = keys(await all(engine.execute(SQL_INSTANCE_NAME, p.token, { params: new Map() }).rows));
      const rest = keys(await all(engine.execute(SQL_INSTANCE_NAME, p.token, { params: new Map(), skipRows: 3 }).rows));
      expect(whole.length).toBe(8);
      expect(rest).toEqual(whole.slice(3));
    }
  });

  it('stops reading when the signal aborts', async () => {
    const p = await engine.prepare(SQL_INSTANCE_NAME, 'SELECT _key FROM t', new Map());
    const controller = new AbortController();
    const result = engine.execute(SQL_INSTANCE_NAME, p.token, { params: new Map(), signal: controller.signal });
    const got: string[] = [];
    for await (const row of result.rows) {
      got.push(fromBytes(row[0] as Uint8Array));
      if (got.length === 2) controller.abort();
    }
    expect(got).toEqual(['p1', 'p2']);
    expect(result.stats().rowsScanned).toBe(2);
  });

  it('expires a prepared query when its table changes shape, and prepares again', async () => {
    const p = await engine.prepare(SQL_INSTANCE_NAME, 'SELECT * FROM t WHERE _key = "r1"', new Map());
    await fx.db.modifyColumnFamilies(
      { ...SQL_INSTANCE, table: 't' },
      [{ kind: 'create', family: 'extra', gcRule: undefined, valueType: family('x').valueType }],
      false,
    );
    const e = await failure(all(engine.execute(SQL_INSTANCE_NAME, p.token, { params: new Map() }).rows));
    expect(e.code).toBe('FailedPrecondition');
    expect(e.message.startsWith(PREPARED_QUERY_EXPIRED)).toBe(true);
    const again = await engine.prepare(SQL_INSTANCE_NAME, 'SELECT * FROM t WHERE _key = "r1"', new Map());
    expect(again.columns.map((c) => c.name)).toEqual(['_key', 'cf', 'stats', 'extra']);
    expect(await all(engine.execute(SQL_INSTANCE_NAME, again.token, { params: new Map() }).rows)).toHaveLength(1);
  });

  it('expires a prepared query whose table was deleted', async () => {
    const p = await engine.prepare(SQL_INSTANCE_NAME, 'SELECT _key FROM empty', new Map());
    await fx.db.deleteTable({ ...SQL_INSTANCE, table: 'empty' });
    const e = await failure(all(engine.execute(SQL_INSTANCE_NAME, p.token, { params: new Map() }).rows));
    expect(e.code).toBe('FailedPrecondition');
    expect((await failure(engine.prepare(SQL_INSTANCE_NAME, 'SELECT _key FROM empty', new Map()))).code).toBe('NotFound');
  });

  it('expires a prepared query when a logical view it reads changes, even through another view, or goes', async () => {
    const views = new MemoryViews()
      .setLogical(SQL_INSTANCE, 'v', "SELECT _key, cf['a'] AS a FROM t")
      .setLogical(SQL_INSTANCE, 'outer_v', 'SELECT a FROM v');
    const withViews = createSqlEngine(fx.db, { views });
    const direct = await withViews.prepare(SQL_INSTANCE_NAME, "SELECT a FROM v WHERE _key = 'r1'", new Map());
    const nested = await withViews.prepare(SQL_INSTANCE_NAME, 'SELECT COUNT(*) AS n FROM outer_v', new Map());
    expect(await all(withViews.execute(SQL_INSTANCE_NAME, nested.token, { params: new Map() }).rows)).toEqual([[8n]]);

    views.setLogical(SQL_INSTANCE, 'v', "SELECT _key, cf['a'] AS a FROM t WHERE _key > 'q'"); // same columns, new etag
    for (const p of [direct, nested]) {
      const e = await failure(all(withViews.execute(SQL_INSTANCE_NAME, p.token, { params: new Map() }).rows));
      expect([e.code, e.message.startsWith(PREPARED_QUERY_EXPIRED)]).toEqual(['FailedPrecondition', true]);
    }
    const again = await withViews.prepare(SQL_INSTANCE_NAME, 'SELECT COUNT(*) AS n FROM outer_v', new Map());
    expect(await all(withViews.execute(SQL_INSTANCE_NAME, again.token, { params: new Map() }).rows)).toEqual([[6n]]);

    views.deleteLogical(SQL_INSTANCE, 'v');
    const gone = await failure(all(withViews.execute(SQL_INSTANCE_NAME, again.token, { params: new Map() }).rows));
    expect(gone.code).toBe('FailedPrecondition');
    expect(await failure(withViews.prepare(SQL_INSTANCE_NAME, 'SELECT * FROM v', new Map()))).toMatchObject({
      code: 'NotFound',
      message: 'line 1, column 15: Table not found: v',
    });
  });

  it('reads a materialized view through its source, and expires plans when its fingerprint changes', async () => {
    const views = new MemoryViews();
    const columns = [
      { name: 'k', type: BYTES },
      { name: 'n', type: INT64 },
    ];
    views.setMaterialized(SQL_INSTANCE, 'mv', new MemoryMaterializedSource(columns, [[new Uint8Array([1]), 5n]], 'one'));
    const withViews = createSqlEngine(fx.db, { views });
    const p = await withViews.prepare(SQL_INSTANCE_NAME, 'SELECT n + 1 AS m FROM mv', new Map());
    const result = withViews.execute(SQL_INSTANCE_NAME, p.token, { params: new Map() });
    expect(await all(result.rows)).toEqual([[6n]]);
    expect(result.stats()).toEqual({ rowsScanned: 1, rowsReturned: 1, peakHeldBytes: 0, spilledRuns: 0 });
    views.setMaterialized(SQL_INSTANCE, 'mv', new MemoryMaterializedSource(columns, [], 'two'));
    const e = await failure(all(withViews.execute(SQL_INSTANCE_NAME, p.token, { params: new Map() }).rows));
    expect(e.code).toBe('FailedPrecondition');
  });

  it('rejects a token that is not one, or belongs to another instance', async () => {
    const bad = await failure(all(engine.execute(SQL_INSTANCE_NAME, new Uint8Array([1, 2, 3]), { params: new Map() }).rows));
    expect(bad.code).toBe('InvalidArgument');
    const p = await engine.prepare(SQL_INSTANCE_NAME, 'SELECT 1 AS one', new Map());
    const other = await failure(all(engine.execute('projects/p/instances/other', p.token, { params: new Map() }).rows));
    expect(other.code).toBe('InvalidArgument');
  });

  it('names syntax errors by position (InvalidArgument)', async () => {
    const e = await failure(engine.prepare(SQL_INSTANCE_NAME, 'SELECT FROM t', new Map()));
    expect(e.code).toBe('InvalidArgument');
    expect(e.message).toMatch(/^line 1, column \d+: /);
  });

  it('streams a large scan with bounded reads: LIMIT reads only what it returns', async () => {
    const t = { ...SQL_INSTANCE, table: 'big' };
    await fx.db.createTable(t, { families: [family('cf')], initialSplits: [], deletionProtection: false });
    const entries = Array.from({ length: 2000 }, (_v, i) => ({
      key: `k${String(i).padStart(5, '0')}`,
      mutations: [{ kind: 'setCell' as const, family: 'cf', qualifier: 'q', timestamp: 1000, value: new Uint8Array([i % 256]) }],
    }));
    await fx.db.mutateRows(t, entries);
    const p = await engine.prepare(SQL_INSTANCE_NAME, 'SELECT _key, cf FROM big LIMIT 10', new Map());
    const result = engine.execute(SQL_INSTANCE_NAME, p.token, { params: new Map() });
    expect(await all(result.rows)).toHaveLength(10);
    expect(result.stats().rowsScanned).toBe(10);
    const count = await engine.prepare(SQL_INSTANCE_NAME, 'SELECT COUNT(*) AS n FROM big WHERE _key >= "k01000"', new Map());
    const c = engine.execute(SQL_INSTANCE_NAME, count.token, { params: new Map() });
    expect(await all(c.rows)).toEqual([[1000n]]);
    expect(c.stats().rowsScanned).toBe(1000);
  });
});

describe('what a query reads', () => {
  it('names the tables and views it reads directly, not what a logical view reads (definer rights)', async () => {
    const views = new MemoryViews().setLogical(SQL_INSTANCE, 'v', "SELECT _key, cf['a'] AS a FROM t");
    views.setMaterialized(SQL_INSTANCE, 'mv', new MemoryMaterializedSource([{ name: 'n', type: INT64 }], [], 'one'));
    const withViews = createSqlEngine(fx.db, { views });
    const reads = (text: string): unknown => withViews.reads!(SQL_INSTANCE_NAME, { text, paramTypes: new Map() });
    expect(reads("SELECT _key FROM t WHERE _key = 'r1'")).toEqual({ tables: ['t'], logicalViews: [], materializedViews: [] });
    expect(reads('SELECT a FROM v')).toEqual({ tables: [], logicalViews: ['v'], materializedViews: [] });
    expect(reads('SELECT n FROM mv')).toEqual({ tables: [], logicalViews: [], materializedViews: ['mv'] });
    expect(reads('SELECT _key, _timestamp FROM UNPACK((SELECT _key, cf FROM empty(with_history => TRUE)))')).toEqual({
      tables: ['empty'],
      logicalViews: [],
      materializedViews: [],
    });
    expect(reads('SELECT 1 AS one')).toEqual({ tables: [], logicalViews: [], materializedViews: [] });
    expect(() => reads('SELECT _key FROM nowhere')).toThrow(/Table not found/);

    const p = await withViews.prepare(SQL_INSTANCE_NAME, 'SELECT _key FROM t WHERE _key = @k', new Map([['k', BYTES]]));
    expect(withViews.reads!(SQL_INSTANCE_NAME, { token: p.token })).toEqual({ tables: ['t'], logicalViews: [], materializedViews: [] });
    expect(() => withViews.reads!(SQL_INSTANCE_NAME, { token: new Uint8Array([1]) })).toThrow(/Invalid prepared query/);
  });
});
