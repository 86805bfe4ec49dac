import { describe, expect, it } from 'vitest';
import { family, openDb } from '../../db/testing/db-fixture.js';
import { isTabletopError } from '../../model/errors.js';
import type { Mutation } from '../../model/mutation.js';
import { viewTables } from '../../db/materialized-views.js';
import { MV_INSTANCE, startViews } from './testing/harness.js';

/** Materialized views after failures: family changes without writes, failed builds, a create overtaken by a family drop. */

const T = { ...MV_INSTANCE, table: 'sales' };
const COUNT_ALL = "SELECT '*' AS _key, COUNT(*) AS n FROM sales GROUP BY _key";
const view = (id: string) => ({ ...MV_INSTANCE, id });
const put = (family = 'cf'): Mutation[] => [{ kind: 'setCell', family, qualifier: 'q', timestamp: 1000, value: new Uint8Array([1]) }];

async function eventually(check: () => Promise<void>, millis = 10_000): Promise<void> {
  const deadline = Date.now() + millis;
  for (;;) {
    try {
      return await check();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

describe('materialized views after failures and races', () => {
  it('follows a dropped family without any later write', async () => {
    const fx = await openDb();
    await fx.db.createTable(T, { families: [family('cf'), family('other')], initialSplits: [], deletionProtection: false });
    const h = await startViews(fx.db);
    await fx.db.createMaterializedView(view('v'), { query: COUNT_ALL, deletionProtection: false });
    await fx.db.mutateRow(T, 'a', put('cf'));
    await fx.db.mutateRow(T, 'b', put('other'));
    await h.mv.idle();
    expect(await h.viewRows('v')).toEqual(['_key="*" n=2']);
    await fx.db.modifyColumnFamilies(T, [{ kind: 'drop', family: 'other' }], false);
    await h.mv.idle();
    expect(await h.viewRows('v')).toEqual(await h.queryRows('v'));
    expect(await h.viewRows('v')).toEqual(['_key="*" n=1']);
  });

  it('builds again, backing off, after a build that failed, and converges to the query', async () => {
    const fx = await openDb();
    await fx.db.createTable(T, { families: [family('cf')], initialSplits: [], deletionProtection: false });
    let failures = 0;
    const h = await startViews(fx.db, {
      onBuildBatch: () => {
        if (failures > 0) {
          failures--;
          throw new Error('transient');
        }
      },
    });
    await fx.db.createMaterializedView(view('v'), { query: COUNT_ALL, deletionProtection: false });
    for (const k of ['a1', 'a2', 'b1']) await fx.db.mutateRow(T, k, put());
    await h.mv.idle();
    failures = 1;
    await fx.db.dropRowRange(T, { kind: 'prefix', prefix: 'a' });
    await h.mv.idle();
    await fx.db.mutateRow(T, 'c1', put());
    expect(h.errors.map(String)).toEqual(['Error: transient']);
    await eventually(async () => expect(await h.viewRows('v')).toEqual(['_key="*" n=2']));
    expect(await h.queryRows('v')).toEqual(['_key="*" n=2']);
  });

  it('fails a CreateMaterializedView whose source stops fitting before the first build, instead of hanging', async () => {
    const fx = await openDb();
    await fx.db.createTable(T, { families: [family('cf')], initialSplits: [], deletionProtection: false });
    await startViews(fx.db);
    const created = fx.db.createMaterializedView(view('v'), {
      query: "SELECT cf['r'] AS _key, COUNT(*) AS n FROM sales GROUP BY _key",
      deletionProtection: false,
    });
    await fx.db.modifyColumnFamilies(T, [{ kind: 'drop', family: 'cf' }], false);
    const err = await created.catch((e: unknown) => e);
    expect(isTabletopError(err, 'FailedPrecondition') && err.message).toMatch(/no longer fits its source table/);
    expect(fx.db.listMaterializedViews(MV_INSTANCE)).toEqual([]);
  });

  it('keeps the internal tables out of SQL: FROM `$mv...` is not found', async () => {
    const fx = await openDb();
    await fx.db.createTable(T, { families: [family('cf')], initialSplits: [], deletionProtection: false });
    const h = await startViews(fx.db);
    const info = await fx.db.createMaterializedView(view('v'), { query: COUNT_ALL, deletionProtection: false });
    for (const table of Object.values(viewTables(info))) {
      const err = await h.sql(`SELECT * FROM \`${table.table}\``).catch((e: unknown) => e);
      expect(isTabletopError(err, 'NotFound') && err.message).toMatch(/Table not found/);
    }
  });
});
