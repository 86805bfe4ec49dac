import { describe, expect, it } from 'vitest';
import { isTabletopError } from '../model/errors.js';
import { createMemoryEngine } from '../storage/memory/index.js';
import type { CatalogState } from './catalog/catalog-state.js';
import { createDatabase } from './index.js';
import { INSTANCE, family, openDb } from './testing/db-fixture.js';

describe('materialized views in the db', () => {
  it('loads a catalog written before views existed, and refuses to create one without a maintainer', async () => {
    const old: CatalogState = {
      version: 1,
      nextId: 5,
      instances: [
        {
          project: 'p',
          id: 'i',
          displayName: 'i',
          type: 'production',
          labels: {},
          createTimeMillis: 0,
          explicit: false,
          clusters: [],
          appProfiles: [],
          tables: [],
        },
      ],
    };
    const db = await createDatabase({ engine: createMemoryEngine(), catalog: old });
    expect(db.listMaterializedViews(INSTANCE)).toEqual([]);
    const err = await db
      .createMaterializedView({ ...INSTANCE, id: 'v' }, { query: 'SELECT 1', deletionProtection: false })
      .catch((e: unknown) => e);
    expect(isTabletopError(err, 'FailedPrecondition')).toBe(true);
    expect(db.catalogState().instances[0]!.materializedViews ?? []).toEqual([]);
    await db.close();
  });

  it('keeps internal tables out of ListTables and out of clients’ reach', async () => {
    const { db } = await openDb();
    const spec = { families: [family('cf')], initialSplits: [], deletionProtection: false };
    await db.createTable({ ...INSTANCE, table: 't' }, spec);
    await db.createTable({ ...INSTANCE, table: '$mv.x' }, { ...spec, internal: true });
    expect(db.listTables(INSTANCE).map((t) => t.name.table)).toEqual(['t']);
    // A client cannot create one (the id is not a valid table id), nor mark a valid id internal.
    expect(() => db.createTable({ ...INSTANCE, table: '$mv.y' }, spec)).toThrow(/Invalid table id|table id/i);
    expect(() => db.createTable({ ...INSTANCE, table: 'y' }, { ...spec, internal: true })).toThrow(/must begin with \$/);
  });
});
