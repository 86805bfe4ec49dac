import { describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../../storage/fs/memory-fs.js';
import { openDiskEngine } from '../../storage/lsm/disk-engine.js';
import { INSTANCE, codeOf, createTable, errorOf, family, openDb } from '../testing/db-fixture.js';

const Q = "SELECT _key, cf['a'] AS a FROM t";

describe('logical views', () => {
  it('are created, read, listed in id order, updated by field and deleted', async () => {
    const f = await openDb();
    await createTable(f, [family('cf')], { name: { ...INSTANCE, table: 't' } });
    const created = await f.db.createLogicalView(INSTANCE, 'v2', { query: Q, deletionProtection: false });
    expect(created).toEqual({ instance: INSTANCE, id: 'v2', query: Q, deletionProtection: false, etag: expect.any(String) });
    await f.db.createLogicalView(INSTANCE, 'v1', { query: 'SELECT 1 AS one', deletionProtection: true });
    expect(f.db.getLogicalView(INSTANCE, 'v2')).toEqual(created);
    expect(f.db.listLogicalViews(INSTANCE).map((v) => [v.id, v.deletionProtection])).toEqual([
      ['v1', true],
      ['v2', false],
    ]);

    const renamed = await f.db.updateLogicalView(INSTANCE, 'v2', { query: 'SELECT _key FROM t' });
    expect(renamed).toMatchObject({ id: 'v2', query: 'SELECT _key FROM t', deletionProtection: false });
    expect(renamed.etag).not.toBe(created.etag);
    const protectedView = await f.db.updateLogicalView(INSTANCE, 'v2', { deletionProtection: true });
    expect(protectedView).toMatchObject({ query: 'SELECT _key FROM t', deletionProtection: true });
    expect(protectedView.etag).not.toBe(renamed.etag);

    expect(await codeOf(() => f.db.deleteLogicalView(INSTANCE, 'v2'))).toBe('FailedPrecondition');
    await f.db.updateLogicalView(INSTANCE, 'v2', { deletionProtection: false });
    await f.db.deleteLogicalView(INSTANCE, 'v2');
    expect(await codeOf(() => f.db.getLogicalView(INSTANCE, 'v2'))).toBe('NotFound');
    expect(f.db.listLogicalViews(INSTANCE).map((v) => v.id)).toEqual(['v1']);
  });

  it('check etags on update and delete (ABORTED on a stale one), and accept none', async () => {
    const f = await openDb();
    await createTable(f, [family('cf')]);
    const v = await f.db.createLogicalView(INSTANCE, 'v', { query: Q, deletionProtection: false });
    const next = await f.db.updateLogicalView(INSTANCE, 'v', { query: 'SELECT 2 AS two' }, v.etag);
    const stale = await errorOf(() => f.db.updateLogicalView(INSTANCE, 'v', { query: 'SELECT 3 AS three' }, v.etag));
    expect(stale.code).toBe('Aborted');
    expect(stale.message).toContain('projects/p/instances/i/logicalViews/v');
    expect(f.db.getLogicalView(INSTANCE, 'v').query).toBe('SELECT 2 AS two');
    expect(await codeOf(() => f.db.deleteLogicalView(INSTANCE, 'v', v.etag))).toBe('Aborted');
    await f.db.deleteLogicalView(INSTANCE, 'v', next.etag);
    expect(f.db.listLogicalViews(INSTANCE)).toEqual([]);
  });

  it('refuse bad ids and queries, ids taken by a view or a table, and instances that do not exist', async () => {
    const f = await openDb();
    await createTable(f, [family('cf')], { name: { ...INSTANCE, table: 't' } });
    await f.db.createLogicalView(INSTANCE, 'v', { query: Q, deletionProtection: false });
    expect(await codeOf(() => f.db.createLogicalView(INSTANCE, 'v', { query: Q, deletionProtection: false }))).toBe('AlreadyExists');
    expect(await codeOf(() => f.db.createLogicalView(INSTANCE, 't', { query: Q, deletionProtection: false }))).toBe('AlreadyExists');
    expect(
      await codeOf(() => f.db.createTable({ ...INSTANCE, table: 'v' }, { families: [], initialSplits: [], deletionProtection: false })),
    ).toBe('AlreadyExists');
    expect(await codeOf(() => f.db.createLogicalView(INSTANCE, 'bad id', { query: Q, deletionProtection: false }))).toBe('InvalidArgument');
    expect(await codeOf(() => f.db.createLogicalView(INSTANCE, 'w', { query: '  ', deletionProtection: false }))).toBe('InvalidArgument');
    expect(await codeOf(() => f.db.updateLogicalView(INSTANCE, 'v', { query: '' }))).toBe('InvalidArgument');
    expect(await codeOf(() => f.db.updateLogicalView(INSTANCE, 'missing', { query: Q }))).toBe('NotFound');
    expect(await codeOf(() => f.db.deleteLogicalView(INSTANCE, 'missing'))).toBe('NotFound');
    const other = { project: 'p', instance: 'nowhere' };
    expect(await codeOf(() => f.db.createLogicalView(other, 'v', { query: Q, deletionProtection: false }))).toBe('NotFound');
    expect(await codeOf(() => f.db.listLogicalViews(other))).toBe('NotFound');
  });

  it('leave with their instance; a table that a view reads may be deleted', async () => {
    const f = await openDb();
    const t = { ...INSTANCE, table: 't' };
    await createTable(f, [family('cf')], { name: t });
    await f.db.createLogicalView(INSTANCE, 'v', { query: Q, deletionProtection: true });
    await f.db.deleteTable(t);
    expect(f.db.getLogicalView(INSTANCE, 'v').query).toBe(Q);
    await f.db.deleteInstance(INSTANCE);
    await createTable(f, [family('cf')], { name: t });
    expect(f.db.listLogicalViews(INSTANCE)).toEqual([]);
  });

  it('are durable: a reopened database has them with their etags; a catalog without views loads', async () => {
    const fs = new MemoryFileSystem();
    const first = await openDb({ engine: await openDiskEngine({ fs, dir: 'db' }) });
    await createTable(first, [family('cf')], { name: { ...INSTANCE, table: 't' } });
    await first.db.createLogicalView(INSTANCE, 'v', { query: Q, deletionProtection: true });
    const updated = await first.db.updateLogicalView(INSTANCE, 'v', { query: 'SELECT _key FROM t' });
    await first.db.close();

    const second = await openDb({ engine: await openDiskEngine({ fs, dir: 'db' }) });
    expect(second.db.listLogicalViews(INSTANCE)).toEqual([updated]);
    // A fresh etag after the reopen still differs from every earlier one.
    const again = await second.db.updateLogicalView(INSTANCE, 'v', { deletionProtection: false });
    expect(again.etag).not.toBe(updated.etag);
    await second.db.close();

    // A catalog written before logical views existed (no logicalViews field) loads with none.
    const f = await openDb();
    await createTable(f, [family('cf')]);
    const { createDatabase } = await import('../index.js');
    const state = f.db.catalogState();
    expect(state.instances[0]).not.toHaveProperty('logicalViews');
    const old = await createDatabase({ engine: f.engine, catalog: state, config: { gcSweepIntervalMillis: 0 } });
    expect(old.listLogicalViews(INSTANCE)).toEqual([]);
  });
});
