import { describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../../storage/fs/memory-fs.js';
import { openDiskEngine } from '../../storage/lsm/disk-engine.js';
import type { IamPolicySpec } from '../api.js';
import { INSTANCE, codeOf, createTable, errorOf, family, openDb } from '../testing/db-fixture.js';
import { EMPTY_POLICY_ETAG, policyResourceOf } from './iam-policies.js';

const I = 'projects/p/instances/i';
const T = `${I}/tables/t`;
const READERS: IamPolicySpec = { version: 1, bindings: [{ role: 'roles/bigtable.reader', members: ['user:a@example.com'] }] };

describe('IAM policies in the catalog', () => {
  it('are stored per resource as set, with a fresh etag each time; a stale etag is ABORTED', async () => {
    const f = await openDb();
    await createTable(f, [family('cf')], { name: { ...INSTANCE, table: 't' } });
    expect(f.db.getIamPolicy(T)).toEqual({ version: 1, bindings: [], etag: EMPTY_POLICY_ETAG });
    const first = await f.db.setIamPolicy(T, READERS, EMPTY_POLICY_ETAG);
    expect(first).toEqual({ ...READERS, etag: expect.any(String) });
    expect(first.etag).not.toBe(EMPTY_POLICY_ETAG);
    expect(f.db.getIamPolicy(T)).toEqual(first);
    expect(f.db.storedIamPolicy(T)).toEqual(first);
    expect(f.db.getIamPolicy(I).bindings).toEqual([]);

    const stale = await errorOf(() => f.db.setIamPolicy(T, { version: 1, bindings: [] }, EMPTY_POLICY_ETAG));
    expect(stale.code).toBe('Aborted');
    expect(stale.message).toContain(T);
    const second = await f.db.setIamPolicy(T, { version: 1, bindings: [] }, first.etag);
    expect(second.etag).not.toBe(first.etag);
    // No etag: the set is unconditional.
    const third = await f.db.setIamPolicy(T, READERS);
    expect(third.bindings).toEqual(READERS.bindings);
    expect((await f.db.setIamPolicy(T, { version: 0, bindings: [] })).version).toBe(1);
  });

  it('keep conditions as given, in version 3 policies only', async () => {
    const f = await openDb();
    await createTable(f, [family('cf')], { name: { ...INSTANCE, table: 't' } });
    const condition = {
      expression: 'request.time < timestamp("2030-01-01T00:00:00Z")',
      title: 'until 2030',
      description: 'd',
      location: '',
    };
    const conditional = { role: 'roles/bigtable.user', members: ['user:b@example.com'], condition };
    expect(await codeOf(() => f.db.setIamPolicy(T, { version: 1, bindings: [conditional] }))).toBe('InvalidArgument');
    const set = await f.db.setIamPolicy(T, { version: 3, bindings: [conditional] });
    expect(f.db.getIamPolicy(T).bindings).toEqual([conditional]);
    expect(set.version).toBe(3);
    expect(await codeOf(() => f.db.setIamPolicy(T, { version: 2, bindings: [] }))).toBe('InvalidArgument');
  });

  it('need a resource that exists and can hold one: instances, tables, views; backups are NOT_FOUND', async () => {
    const f = await openDb();
    await createTable(f, [family('cf')], { name: { ...INSTANCE, table: 't' } });
    await f.db.createLogicalView(INSTANCE, 'lv', { query: 'SELECT 1 AS one', deletionProtection: false });
    await f.db.setIamPolicy(`${I}/logicalViews/lv`, READERS);
    expect(await codeOf(() => f.db.setIamPolicy(`${T}/authorizedViews/v`, READERS))).toBe('NotFound');
    await f.db.createAuthorizedView({ ...INSTANCE, table: 't' }, 'v', {
      subset: { rowPrefixes: [''], familySubsets: [] },
      deletionProtection: false,
    });
    await f.db.setIamPolicy(`${T}/authorizedViews/v`, READERS);
    expect(await codeOf(() => f.db.getIamPolicy(`${I}/tables/none`))).toBe('NotFound');
    expect(await codeOf(() => f.db.getIamPolicy(`${I}/logicalViews/none`))).toBe('NotFound');
    expect(await codeOf(() => f.db.getIamPolicy(`${I}/materializedViews/none`))).toBe('NotFound');
    expect(await codeOf(() => f.db.getIamPolicy(`${I}/clusters/c/backups/b`))).toBe('NotFound');
    expect(await codeOf(() => f.db.setIamPolicy('projects/p/instances/nowhere', READERS))).toBe('NotFound');
    expect(await codeOf(() => f.db.getIamPolicy(`${I}/appProfiles/default`))).toBe('InvalidArgument');
    expect(await codeOf(() => f.db.getIamPolicy('projects/p'))).toBe('InvalidArgument');
    expect(await codeOf(() => f.db.getIamPolicy(`${I}/tables/`))).toBe('InvalidArgument');
  });

  it('go with their resource: a deleted table takes its and its views’ policies, a re-created one starts empty', async () => {
    const f = await openDb();
    await createTable(f, [family('cf')], { name: { ...INSTANCE, table: 't' } });
    await createTable(f, [family('cf')], { name: { ...INSTANCE, table: 't2' } });
    await f.db.setIamPolicy(T, READERS);
    await f.db.createAuthorizedView({ ...INSTANCE, table: 't' }, 'v', {
      subset: { rowPrefixes: [''], familySubsets: [] },
      deletionProtection: false,
    });
    await f.db.setIamPolicy(`${T}/authorizedViews/v`, READERS);
    await f.db.setIamPolicy(`${I}/tables/t2`, READERS);
    await f.db.setIamPolicy(I, READERS);
    await f.db.deleteTable({ ...INSTANCE, table: 't' });
    expect(f.db.storedIamPolicy(T)).toBeUndefined();
    expect(f.db.storedIamPolicy(`${T}/authorizedViews/v`)).toBeUndefined();
    expect(f.db.storedIamPolicy(`${I}/tables/t2`)?.bindings).toEqual(READERS.bindings);
    await createTable(f, [family('cf')], { name: { ...INSTANCE, table: 't' } });
    expect(f.db.getIamPolicy(T).bindings).toEqual([]);

    // A refused delete keeps the policy.
    await f.db.updateTable({ ...INSTANCE, table: 't2' }, { deletionProtection: true });
    expect(await codeOf(() => f.db.deleteTable({ ...INSTANCE, table: 't2' }))).toBe('FailedPrecondition');
    expect(f.db.storedIamPolicy(`${I}/tables/t2`)).toBeDefined();
    await f.db.updateTable({ ...INSTANCE, table: 't2' }, { deletionProtection: false });

    await f.db.createLogicalView(INSTANCE, 'lv', { query: 'SELECT 1 AS one', deletionProtection: false });
    await f.db.setIamPolicy(`${I}/logicalViews/lv`, READERS);
    await f.db.deleteLogicalView(INSTANCE, 'lv');
    expect(f.db.storedIamPolicy(`${I}/logicalViews/lv`)).toBeUndefined();

    await f.db.deleteInstance(INSTANCE);
    await createTable(f, [family('cf')], { name: { ...INSTANCE, table: 't' } });
    expect(f.db.getIamPolicy(I).bindings).toEqual([]);
    expect(f.db.storedIamPolicy(I)).toBeUndefined();
  });

  it('survive a restart, etags included; a catalog written before policies loads with none', async () => {
    const fs = new MemoryFileSystem();
    const first = await openDb({ engine: await openDiskEngine({ fs, dir: 'db' }) });
    await createTable(first, [family('cf')], { name: { ...INSTANCE, table: 't' } });
    const onTable = await first.db.setIamPolicy(T, READERS);
    const onInstance = await first.db.setIamPolicy(I, {
      version: 1,
      bindings: [{ role: 'roles/bigtable.admin', members: ['domain:example.com'] }],
    });
    await first.db.close();

    const second = await openDb({ engine: await openDiskEngine({ fs, dir: 'db' }) });
    expect(second.db.getIamPolicy(T)).toEqual(onTable);
    expect(second.db.getIamPolicy(I)).toEqual(onInstance);
    expect(await codeOf(() => second.db.setIamPolicy(T, READERS, EMPTY_POLICY_ETAG))).toBe('Aborted');
    const next = await second.db.setIamPolicy(T, READERS, onTable.etag);
    expect(next.etag).not.toBe(onTable.etag);
    await second.db.close();

    const f = await openDb();
    await createTable(f, [family('cf')]);
    const state = f.db.catalogState();
    expect(state.instances[0]).not.toHaveProperty('iamPolicies');
    const { createDatabase } = await import('../index.js');
    const old = await createDatabase({ engine: f.engine, catalog: state, config: { gcSweepIntervalMillis: 0 } });
    expect(old.getIamPolicy(I)).toEqual({ version: 1, bindings: [], etag: EMPTY_POLICY_ETAG });
  });

  it('name their resource kind from the name', () => {
    expect(policyResourceOf(I)).toEqual({ kind: 'instance', instance: INSTANCE });
    expect(policyResourceOf(`${T}/authorizedViews/v`)?.kind).toBe('authorizedView');
    expect(policyResourceOf(`${I}/clusters/c/backups/b`)?.kind).toBe('backup');
    expect(policyResourceOf(`${I}/materializedViews/m`)?.kind).toBe('materializedView');
    expect(policyResourceOf(`${I}/clusters/c`)).toBeUndefined();
    expect(policyResourceOf(`${T}/columnFamilies/f`)).toBeUndefined();
    expect(policyResourceOf('projects/p/zones/z')).toBeUndefined();
  });
});
