import { describe, expect, it } from 'vitest';
import { INSTANCE, createTable, errorOf, family, openDb } from '../../db/testing/db-fixture.js';
import { createSqlEngine } from '../../sql/index.js';
import { dbViewCatalog, logicalViewQueryCheck } from './logical-view-queries.js';

describe("the SQL engine's logical views over the db", () => {
  it('are the db records (query, etag); none for an unknown view or instance', async () => {
    const f = await openDb();
    await createTable(f, [family('cf')], { name: { ...INSTANCE, table: 't' } });
    const v = await f.db.createLogicalView(INSTANCE, 'v', { query: 'SELECT _key FROM t', deletionProtection: false });
    const views = dbViewCatalog(f.db);
    expect(views.logicalView(INSTANCE, 'v')).toEqual({ query: 'SELECT _key FROM t', etag: v.etag });
    expect(views.logicalView(INSTANCE, 'w')).toBeUndefined();
    expect(views.logicalView({ project: 'p', instance: 'nowhere' }, 'v')).toBeUndefined();
    expect(views.materializedView(INSTANCE, 'v')).toBeUndefined();
    const engine = createSqlEngine(f.db, { views });
    expect((await engine.prepare('projects/p/instances/i', 'SELECT * FROM v', new Map())).columns.map((c) => c.name)).toEqual(['_key']);
  });

  it('check a query as the view would have it: positions, unknown tables, and cycles through the new query are INVALID_ARGUMENT', async () => {
    const f = await openDb();
    await createTable(f, [family('cf')], { name: { ...INSTANCE, table: 't' } });
    const check = logicalViewQueryCheck(f.db, dbViewCatalog(f.db));
    await check(INSTANCE, 'a', "SELECT _key, cf['q'] AS q FROM t");
    await f.db.createLogicalView(INSTANCE, 'a', { query: "SELECT _key, cf['q'] AS q FROM t", deletionProtection: false });
    await f.db.createLogicalView(INSTANCE, 'b', { query: 'SELECT q FROM a', deletionProtection: false });

    const bad = await errorOf(() => check(INSTANCE, 'c', 'SELECT nope FROM t'));
    expect(bad).toEqual({
      code: 'InvalidArgument',
      message: 'The query of logical view c is not valid: line 1, column 8: Unrecognized name: nope',
    });
    expect((await errorOf(() => check(INSTANCE, 'c', 'SELECT * FROM missing'))).code).toBe('InvalidArgument');
    expect((await errorOf(() => check(INSTANCE, 'c', 'SELECT * FROM c'))).message).toMatch(/Logical view c reads itself: c -> c/);
    // a now reads b, which reads a: caught before the update is stored, though each view alone was fine.
    const cycle = await errorOf(() => check(INSTANCE, 'a', 'SELECT q AS q, q AS _key FROM b'));
    expect(cycle.code).toBe('InvalidArgument');
    expect(cycle.message).toMatch(/reads itself: b -> a -> b/);
  });
});
