import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TabletopDatabase } from '../../db/index.js';
import { createDatabase } from '../../db/index.js';
import { createSqlEngine } from '../../sql/index.js';
import type { SqlEngine } from '../../sql/engine.js';
import { createMemoryEngine } from '../../storage/memory/index.js';
import { wrapPreparedQuery } from '../convert/prepared-query.js';
import { dbViewCatalog } from '../admin/logical-view-queries.js';
import { queryNeeds } from './query-needs.js';

const I = 'projects/p/instances/i';
const PREPARE = '/google.bigtable.v2.Bigtable/PrepareQuery';
const EXECUTE = '/google.bigtable.v2.Bigtable/ExecuteQuery';

let db: TabletopDatabase;
let sql: SqlEngine;

beforeAll(async () => {
  db = await createDatabase({ engine: createMemoryEngine() });
  await db.createTable({ project: 'p', instance: 'i', table: 't' }, { families: [], initialSplits: [], deletionProtection: false });
  await db.createLogicalView({ project: 'p', instance: 'i' }, 'lv', { query: 'SELECT _key FROM t', deletionProtection: false });
  sql = createSqlEngine(db, { views: dbViewCatalog(db) });
});

afterAll(async () => {
  await db.close();
});

describe('what a GoogleSQL request needs', () => {
  it('PrepareQuery: read on every table and view its query reads', () => {
    const needs = queryNeeds(sql).get(PREPARE)!;
    expect(needs({ instanceName: I, query: 'SELECT _key FROM t' })).toEqual([
      { permission: 'bigtable.tables.readRows', resource: `${I}/tables/t` },
    ]);
    expect(needs({ instanceName: I, query: 'SELECT _key FROM lv' })).toEqual([
      { permission: 'bigtable.logicalViews.readRows', resource: `${I}/logicalViews/lv` },
    ]);
    // A query that does not analyze needs nothing more: the handler answers its error.
    expect(needs({ instanceName: I, query: 'SELECT _key FROM nowhere' })).toEqual([]);
    expect(needs({ instanceName: I })).toEqual([]);
  });

  it('ExecuteQuery: the same, from the prepared query it carries', async () => {
    const prepared = await sql.prepare(I, 'SELECT _key FROM t', new Map());
    const needs = queryNeeds(sql).get(EXECUTE)!;
    expect(needs({ instanceName: I, preparedQuery: Buffer.from(wrapPreparedQuery(prepared)) })).toEqual([
      { permission: 'bigtable.tables.readRows', resource: `${I}/tables/t` },
    ]);
    expect(needs({ instanceName: I, preparedQuery: Buffer.from([9, 9]) })).toEqual([]);
  });

  it('is nothing without an engine that tells what a query reads', () => {
    expect(queryNeeds(undefined).size).toBe(0);
    const { reads: _, ...withoutReads } = sql;
    expect(queryNeeds(withoutReads).size).toBe(0);
  });
});
