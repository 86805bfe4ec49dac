import { describe, expect, it } from 'vitest';
import type { ClusterSpec, InstanceSpec } from '../api.js';
import { codeOf, createTable, family, openDb, readAll, set } from '../testing/db-fixture.js';

const spec: InstanceSpec = { displayName: 'My instance', type: 'production', labels: { env: 'test' } };
const cluster = (zone = 'us-east1-b', serveNodes = 3): ClusterSpec => ({
  location: `projects/p/locations/${zone}`,
  serveNodes,
  storageType: 'ssd',
});

describe('implicit instances', () => {
  it('exist with one default cluster but are listed only once used', async () => {
    const f = await openDb();
    expect(f.db.listInstances('p')).toEqual([]);
    const info = f.db.getInstance({ project: 'p', instance: 'dev' });
    expect(info).toMatchObject({ name: { project: 'p', instance: 'dev' }, displayName: 'dev', type: 'production', labels: {} });
    expect(f.db.listClusters({ project: 'p', instance: 'dev' })).toEqual([
      { instance: { project: 'p', instance: 'dev' }, id: 'dev-c1', location: 'projects/p/locations/local', serveNodes: 1, storageType: 'ssd' },
    ]);
    await createTable(f, [family('cf')], { name: { project: 'p', instance: 'other', table: 't' } });
    expect(f.db.listInstances('p').map((i) => i.name.instance)).toEqual(['dev', 'other']);
    expect(f.db.listInstances('q')).toEqual([]);
  });

  it('use the configured default zone', async () => {
    const f = await openDb({ config: { defaultZone: 'us-central1-b', defaultServeNodes: 3 } });
    expect(f.db.getCluster({ project: 'p', instance: 'x' }, 'x-c1')).toMatchObject({
      location: 'projects/p/locations/us-central1-b',
      serveNodes: 3,
    });
  });

  it('keep tables apart: a table of one instance is invisible from another', async () => {
    const f = await openDb();
    const a = { project: 'p', instance: 'a', table: 'shared' };
    const b = { project: 'p', instance: 'b', table: 'shared' };
    await createTable(f, [family('cf')], { name: a });
    expect(await codeOf(() => f.db.getTable(b))).toBe('NotFound');
    expect(await codeOf(() => f.db.mutateRow(b, 'r', [set('cf', 'q', 1000, 'x')]))).toBe('NotFound');
    await createTable(f, [family('other')], { name: b });
    await f.db.mutateRow(a, 'r', [set('cf', 'q', 1000, 'in-a')]);
    expect(await readAll(f, b)).toEqual([]);
    expect(f.db.listTables({ project: 'p', instance: 'a' }).map((t) => t.families.map((x) => x.name))).toEqual([['cf']]);
    expect(f.db.listTables({ project: 'q', instance: 'a' })).toEqual([]);
  });
});

describe('instances', () => {
  it('are created with their clusters and the default app profile', async () => {
    const f = await openDb();
    const name = { project: 'p', instance: 'prod-1' };
    f.clock.setMicros(1_700_000_000_123_456);
    const info = await f.db.createInstance(name, spec, new Map([['prod-1-c1', cluster()]]));
    expect(info).toEqual({ name, ...spec, createTimeMillis: 1_700_000_000_123 });
    expect(f.db.getInstance(name)).toEqual(info);
    expect(f.db.listClusters(name).map((c) => c.id)).toEqual(['prod-1-c1']);
    expect(f.db.listAppProfiles(name).map((p) => p.id)).toEqual(['default']);
    expect(f.db.listInstances('p').map((i) => i.name.instance)).toEqual(['prod-1']);
  });

  it('reject invalid ids, display names and specs', async () => {
    const f = await openDb();
    const clusters = new Map([['good-cluster', cluster()]]);
    for (const id of ['ab', 'Upper-case', '1starts-with-digit', 'ends-with-hyphen-', 'x'.repeat(34)]) {
      expect(await codeOf(() => f.db.createInstance({ project: 'p', instance: id }, spec, clusters))).toBe('InvalidArgument');
    }
    const name = { project: 'p', instance: 'valid-id' };
    expect(await codeOf(() => f.db.createInstance(name, { ...spec, displayName: 'abc' }, clusters))).toBe('InvalidArgument');
    expect(await codeOf(() => f.db.createInstance(name, spec, new Map()))).toBe('InvalidArgument');
    expect(await codeOf(() => f.db.createInstance(name, spec, new Map([['c', cluster()]])))).toBe('InvalidArgument');
    expect(await codeOf(() => f.db.createInstance(name, spec, new Map([['good-cluster', { ...cluster(), location: 'us-east1-b' }]])))).toBe(
      'InvalidArgument',
    );
    expect(await codeOf(() => f.db.createInstance(name, spec, new Map([['good-cluster', cluster('z', -1)]])))).toBe('InvalidArgument');
    expect(f.db.listInstances('p')).toEqual([]);
  });

  it('cannot be created twice, but an implicitly used one can be created and keeps its tables', async () => {
    const f = await openDb();
    const name = { project: 'p', instance: 'used-first' };
    const table = { ...name, table: 't' };
    await createTable(f, [family('cf')], { name: table });
    await f.db.mutateRow(table, 'r', [set('cf', 'q', 1000, 'kept')]);
    await f.db.createInstance(name, spec, new Map([['used-first-c9', cluster()]]));
    expect(f.db.getInstance(name).displayName).toBe('My instance');
    expect(f.db.listClusters(name).map((c) => c.id)).toEqual(['used-first-c9']);
    expect(await readAll(f, table)).toEqual(['r: cf:q@1=kept']);
    expect(await codeOf(() => f.db.createInstance(name, spec, new Map([['used-first-c9', cluster()]])))).toBe('AlreadyExists');
  });

  it('are updated partially', async () => {
    const f = await openDb();
    const name = { project: 'p', instance: 'upd-instance' };
    await f.db.createInstance(name, spec, new Map([['upd-cluster', cluster()]]));
    expect(await f.db.updateInstance(name, { displayName: 'Renamed' })).toMatchObject({ displayName: 'Renamed', type: 'production', labels: { env: 'test' } });
    expect((await f.db.updateInstance(name, { labels: { a: 'b' } })).labels).toEqual({ a: 'b' });
    expect(await codeOf(() => f.db.updateInstance(name, { displayName: 'x' }))).toBe('InvalidArgument');
  });

  it('deleting an instance deletes its tables, unless one is protected', async () => {
    const f = await openDb();
    const name = { project: 'p', instance: 'doomed' };
    const t1 = { ...name, table: 't1' };
    const t2 = { ...name, table: 't2' };
    await createTable(f, [family('cf')], { name: t1 });
    await createTable(f, [family('cf')], { name: t2, deletionProtection: true });
    await f.db.mutateRow(t1, 'r', [set('cf', 'q', 1000, 'x')]);
    const error = await codeOf(() => f.db.deleteInstance(name));
    expect(error).toBe('FailedPrecondition');
    expect(f.db.listTables(name)).toHaveLength(2);
    await f.db.updateTable(t2, { deletionProtection: false });
    await f.db.deleteInstance(name);
    expect(await codeOf(() => f.db.getTable(t1))).toBe('NotFound');
    // Used again, the instance exists again (implicitly), empty.
    expect(f.db.listTables(name)).toEqual([]);
    await createTable(f, [family('cf')], { name: t1 });
    expect(await readAll(f, t1)).toEqual([]);
  });

  it('deleting an instance that was never used succeeds (it only existed implicitly)', async () => {
    const f = await openDb();
    await f.db.deleteInstance({ project: 'p', instance: 'ghost' });
    expect(f.db.listInstances('p')).toEqual([]);
  });
});

describe('clusters', () => {
  const name = { project: 'p', instance: 'with-clusters' };

  it('are created, read, listed, updated and deleted', async () => {
    const f = await openDb();
    await f.db.createInstance(name, spec, new Map([['cluster-a', cluster('us-east1-b')]]));
    expect(await f.db.createCluster(name, 'cluster-b', cluster('europe-west1-c', 5))).toEqual({
      instance: name,
      id: 'cluster-b',
      location: 'projects/p/locations/europe-west1-c',
      serveNodes: 5,
      storageType: 'ssd',
    });
    expect(f.db.listClusters(name).map((c) => c.id)).toEqual(['cluster-a', 'cluster-b']);
    expect((await f.db.updateCluster(name, 'cluster-b', { serveNodes: 7 })).serveNodes).toBe(7);
    expect(f.db.getCluster(name, 'cluster-b').serveNodes).toBe(7);
    await f.db.deleteCluster(name, 'cluster-b');
    expect(f.db.listClusters(name).map((c) => c.id)).toEqual(['cluster-a']);
  });

  it('report precise errors', async () => {
    const f = await openDb();
    await f.db.createInstance(name, spec, new Map([['cluster-a', cluster()]]));
    expect(await codeOf(() => f.db.createCluster(name, 'cluster-a', cluster()))).toBe('AlreadyExists');
    expect(await codeOf(() => f.db.createCluster(name, 'Bad_Id', cluster()))).toBe('InvalidArgument');
    expect(await codeOf(() => f.db.getCluster(name, 'missing-cluster'))).toBe('NotFound');
    expect(await codeOf(() => f.db.deleteCluster(name, 'missing-cluster'))).toBe('NotFound');
    expect(await codeOf(() => f.db.deleteCluster(name, 'cluster-a'))).toBe('FailedPrecondition');
    expect(await codeOf(() => f.db.updateCluster(name, 'cluster-a', { location: 'projects/p/locations/elsewhere' }))).toBe('InvalidArgument');
    expect(await codeOf(() => f.db.updateCluster(name, 'cluster-a', { storageType: 'hdd' }))).toBe('InvalidArgument');
    expect(await codeOf(() => f.db.updateCluster(name, 'cluster-a', { serveNodes: 1.5 }))).toBe('InvalidArgument');
  });
});

describe('app profiles', () => {
  const name = { project: 'p', instance: 'with-profiles' };

  it('are created, read, listed, updated (new etag) and deleted', async () => {
    const f = await openDb();
    await f.db.createInstance(name, spec, new Map([['cluster-a', cluster()]]));
    const created = await f.db.createAppProfile(name, 'batch', {
      description: 'batch jobs',
      routing: { kind: 'singleCluster', clusterId: 'cluster-a', allowTransactionalWrites: true },
      priority: 'low',
    });
    expect(created).toMatchObject({ instance: name, id: 'batch', description: 'batch jobs', priority: 'low' });
    expect(f.db.getAppProfile(name, 'batch')).toEqual(created);
    expect(f.db.listAppProfiles(name).map((p) => p.id)).toEqual(['default', 'batch']);
    const updated = await f.db.updateAppProfile(name, 'batch', { description: 'nightly' });
    expect(updated.description).toBe('nightly');
    expect(updated.routing).toEqual(created.routing);
    expect(updated.etag).not.toBe(created.etag);
    await f.db.deleteAppProfile(name, 'batch');
    expect(f.db.listAppProfiles(name).map((p) => p.id)).toEqual(['default']);
  });

  it('report precise errors', async () => {
    const f = await openDb();
    await f.db.createInstance(name, spec, new Map([['cluster-a', cluster()]]));
    const anyRouting = { description: '', routing: { kind: 'multiClusterAny' as const, clusterIds: [] }, priority: 'high' as const };
    expect(await codeOf(() => f.db.createAppProfile(name, 'default', anyRouting))).toBe('AlreadyExists');
    expect(await codeOf(() => f.db.createAppProfile(name, 'bad id', anyRouting))).toBe('InvalidArgument');
    expect(
      await codeOf(() =>
        f.db.createAppProfile(name, 'p1', { ...anyRouting, routing: { kind: 'singleCluster', clusterId: 'nope-cluster', allowTransactionalWrites: false } }),
      ),
    ).toBe('InvalidArgument');
    expect(await codeOf(() => f.db.createAppProfile(name, 'p2', { ...anyRouting, routing: { kind: 'multiClusterAny', clusterIds: ['nope-cluster'] } }))).toBe(
      'InvalidArgument',
    );
    expect(await codeOf(() => f.db.getAppProfile(name, 'missing'))).toBe('NotFound');
    expect(await codeOf(() => f.db.deleteAppProfile(name, 'missing'))).toBe('NotFound');
    // A cluster that a single-cluster profile routes to cannot go.
    await f.db.createCluster(name, 'cluster-b', cluster());
    await f.db.createAppProfile(name, 'pinned', { ...anyRouting, routing: { kind: 'singleCluster', clusterId: 'cluster-b', allowTransactionalWrites: false } });
    expect(await codeOf(() => f.db.deleteCluster(name, 'cluster-b'))).toBe('FailedPrecondition');
  });
});

describe('catalog state', () => {
  it('is plain data that round-trips through JSON and reopens with the data', async () => {
    const f = await openDb();
    const name = await createTable(f, [family('b'), family('a', { kind: 'maxVersions', versions: 2 })], { splits: ['m', '\xff\x00'] });
    await f.db.mutateRow(name, 'z', [set('a', '\x00\xff', 1000, 'v')]);
    const state = JSON.parse(JSON.stringify(f.db.catalogState())) as ReturnType<typeof f.db.catalogState>;
    expect(state).toEqual(f.db.catalogState());
    // A second database over the same engine, from the persisted catalog.
    const { createDatabase } = await import('../index.js');
    const db2 = await createDatabase({ engine: f.engine, catalog: state, config: { gcSweepIntervalMillis: 0 } });
    expect(db2.getTable(name).families.map((x) => x.name)).toEqual(['b', 'a']);
    const rows = [];
    const reader = db2.readRows(name, { rows: { keys: [], ranges: [] }, filter: undefined, limit: undefined, reversed: false });
    for (let r = await reader.next(); r !== undefined; r = await reader.next()) rows.push(r.key);
    reader.close();
    expect(rows).toEqual(['z']);
    expect(await db2.sampleRowKeys(name)).toMatchObject([{ key: 'm' }, { key: '\xff\x00' }, { key: '' }]);
  });
});
