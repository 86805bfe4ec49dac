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
  it('exist only once a table is created in them: before, every call naming them answers NOT_FOUND and creates nothing', async () => {
    const f = await openDb();
    const dev = { project: 'p', instance: 'dev' };
    const table = { ...dev, table: 't' };
    const calls: [string, () => unknown][] = [
      ['getInstance', () => f.db.getInstance(dev)],
      ['listClusters', () => f.db.listClusters(dev)],
      ['getCluster', () => f.db.getCluster(dev, 'dev-c1')],
      ['listAppProfiles', () => f.db.listAppProfiles(dev)],
      ['getAppProfile', () => f.db.getAppProfile(dev, 'default')],
      ['listTables', () => f.db.listTables(dev)],
      ['getTable', () => f.db.getTable(table)],
      ['listNodes', () => f.db.listNodes(dev)],
      ['listHotTablets', () => f.db.listHotTablets(dev)],
      ['listTablets', () => f.db.listTablets(table)],
      ['readRows', () => f.db.readRows(table, { rows: { keys: ['r'], ranges: [] }, filter: undefined, limit: undefined, reversed: false })],
      ['mutateRow', () => f.db.mutateRow(table, 'r', [set('cf', 'q', 1000, 'x')])],
      ['checkConsistency', () => f.db.checkConsistency(table, 'token')],
      ['updateInstance', () => f.db.updateInstance(dev, { displayName: 'Renamed' })],
      ['deleteInstance', () => f.db.deleteInstance(dev)],
      ['createCluster', () => f.db.createCluster(dev, 'dev-c2', cluster())],
      ['updateCluster', () => f.db.updateCluster(dev, 'dev-c1', { serveNodes: 5 })],
      [
        'createAppProfile',
        () =>
          f.db.createAppProfile(dev, 'batch', { description: '', routing: { kind: 'multiClusterAny', clusterIds: [] }, priority: 'low' }),
      ],
    ];
    for (const [what, call] of calls) expect([what, await codeOf(call)]).toEqual([what, 'NotFound']);
    expect(f.db.listInstances('p')).toEqual([]);
    expect(f.db.catalogState().instances).toEqual([]);

    // A CreateTable that fails creates nothing either; one that succeeds creates the instance.
    expect(
      await codeOf(() => f.db.createTable(table, { families: [family('bad name')], initialSplits: [], deletionProtection: false })),
    ).toBe('InvalidArgument');
    expect(await codeOf(() => f.db.getInstance(dev))).toBe('NotFound');
    await createTable(f, [family('cf')], { name: table });
    expect(f.db.getInstance(dev)).toMatchObject({ name: dev, displayName: 'dev', type: 'production', labels: {} });
    expect(f.db.listClusters(dev)).toEqual([
      { instance: dev, id: 'dev-c1', location: 'projects/p/locations/local', serveNodes: 3, storageType: 'ssd', autoscaling: undefined },
    ]);
    expect(f.db.listInstances('p').map((i) => i.name.instance)).toEqual(['dev']);
    expect(f.db.listInstances('q')).toEqual([]);
  });

  it("get the configured default zone, and --nodes as their cluster's serve nodes", async () => {
    const f = await openDb({ config: { defaultZone: 'us-central1-b', nodes: 5 } });
    await createTable(f, [family('cf')], { name: { project: 'p', instance: 'x', table: 't' } });
    expect(f.db.getCluster({ project: 'p', instance: 'x' }, 'x-c1')).toMatchObject({
      location: 'projects/p/locations/us-central1-b',
      serveNodes: 5,
    });
    expect(f.db.listNodes({ project: 'p', instance: 'x' }).map((c) => [c.cluster, c.nodes.length])).toEqual([['x-c1', 5]]);
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
    expect(await codeOf(() => f.db.listTables({ project: 'q', instance: 'a' }))).toBe('NotFound');
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
    expect(await f.db.updateInstance(name, { displayName: 'Renamed' })).toMatchObject({
      displayName: 'Renamed',
      type: 'production',
      labels: { env: 'test' },
    });
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
    expect(await codeOf(() => f.db.listTables(name))).toBe('NotFound');
    // A CreateTable creates it again (implicitly), empty but for the new table.
    await createTable(f, [family('cf')], { name: t1 });
    expect(f.db.listTables(name).map((t) => t.name.table)).toEqual(['t1']);
    expect(await readAll(f, t1)).toEqual([]);
  });

  it('deleting an instance that does not exist answers NOT_FOUND, as Cloud Bigtable does', async () => {
    const f = await openDb();
    expect(await codeOf(() => f.db.deleteInstance({ project: 'p', instance: 'ghost' }))).toBe('NotFound');
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
    expect(await codeOf(() => f.db.updateCluster(name, 'cluster-a', { location: 'projects/p/locations/elsewhere' }))).toBe(
      'InvalidArgument',
    );
    expect(await codeOf(() => f.db.updateCluster(name, 'cluster-a', { storageType: 'hdd' }))).toBe('InvalidArgument');
    expect(await codeOf(() => f.db.updateCluster(name, 'cluster-a', { serveNodes: 1.5 }))).toBe('InvalidArgument');
  });
});

describe('autoscaling', () => {
  const name = { project: 'p', instance: 'autoscaled' };
  const limits = (min: number, max: number, cpu = 50, storage = 0) => ({
    minServeNodes: min,
    maxServeNodes: max,
    cpuUtilizationPercent: cpu,
    storageUtilizationGibPerNode: storage,
  });

  it('is stored on create, with the storage default filled in and the node count kept within the limits', async () => {
    const f = await openDb();
    await f.db.createInstance(name, spec, new Map([['auto-ssd', { ...cluster(), serveNodes: 1, autoscaling: limits(2, 6, 60) }]]));
    expect(f.db.getCluster(name, 'auto-ssd')).toMatchObject({ serveNodes: 2, autoscaling: limits(2, 6, 60, 2560) });
    await f.db.createCluster(name, 'auto-hdd', {
      ...cluster('us-east1-c'),
      storageType: 'hdd',
      serveNodes: 9,
      autoscaling: limits(1, 4, 70, 10000),
    });
    expect(f.db.getCluster(name, 'auto-hdd')).toMatchObject({ serveNodes: 4, autoscaling: limits(1, 4, 70, 10000) });
    await f.db.createCluster(name, 'auto-hdd2', { ...cluster('us-east1-d'), storageType: 'hdd', serveNodes: 1, autoscaling: limits(1, 4) });
    expect(f.db.getCluster(name, 'auto-hdd2').autoscaling?.storageUtilizationGibPerNode).toBe(8192);
    // The catalog keeps it across a restart.
    expect(f.db.catalogState().instances[0]!.clusters.map((c) => c.autoscaling?.maxServeNodes)).toEqual([6, 4, 4]);
  });

  it('is validated as Cloud Bigtable validates it (INVALID_ARGUMENT)', async () => {
    const f = await openDb();
    await f.db.createInstance(name, spec, new Map([['manual-c1', cluster()]]));
    const bad: [string, ClusterSpec][] = [
      ['no limits', { ...cluster(), autoscaling: limits(0, 0) }],
      ['min above max', { ...cluster(), autoscaling: limits(5, 4) }],
      ['max over 10 x min', { ...cluster(), autoscaling: limits(2, 21) }],
      ['max over what tabletop models', { ...cluster(), autoscaling: limits(200, 1001) }],
      ['cpu under 10%', { ...cluster(), autoscaling: limits(1, 3, 9) }],
      ['cpu over 80%', { ...cluster(), autoscaling: limits(1, 3, 81) }],
      ['no cpu target', { ...cluster(), autoscaling: limits(1, 3, 0) }],
      ['ssd storage under 2560', { ...cluster(), autoscaling: limits(1, 3, 50, 2559) }],
      ['ssd storage over 5120', { ...cluster(), autoscaling: limits(1, 3, 50, 5121) }],
      ['hdd storage under 8192', { ...cluster(), storageType: 'hdd', autoscaling: limits(1, 3, 50, 5120) }],
      ['manual with 1001 nodes', cluster('z', 1001)],
    ];
    for (const [why, c] of bad)
      expect([why, await codeOf(() => f.db.createCluster(name, 'auto-cluster', c))]).toEqual([why, 'InvalidArgument']);
    expect(await codeOf(() => f.db.createCluster(name, 'auto-cluster', { ...cluster(), autoscaling: limits(2, 20, 80, 5120) }))).toBe(
      'none',
    );
  });

  it('switches between manual and autoscaling as the clients do, and sets single limits and targets', async () => {
    const f = await openDb();
    await f.db.createInstance(name, spec, new Map([['switching', cluster('us-east1-b', 3)]]));
    // A limit alone cannot turn autoscaling on: the limits and the CPU target are needed.
    expect(await codeOf(() => f.db.updateCluster(name, 'switching', { autoscaling: { minServeNodes: 2 } }))).toBe('InvalidArgument');
    expect(
      (await f.db.updateCluster(name, 'switching', { autoscaling: { minServeNodes: 4, maxServeNodes: 8, cpuUtilizationPercent: 50 } }))
        .serveNodes,
    ).toBe(4);
    // Autoscaling sets the node count: serve_nodes alone is refused, with the way out named.
    const refused = await Promise.resolve()
      .then(() => f.db.updateCluster(name, 'switching', { serveNodes: 5 }))
      .then(
        () => 'accepted',
        (e: Error) => e.message,
      );
    expect(refused).toMatch(/is autoscaled \(4-8 nodes\).*clear cluster_config.cluster_autoscaling_config/);
    expect(await codeOf(() => f.db.updateCluster(name, 'switching', { serveNodes: 5, autoscaling: { maxServeNodes: 9 } }))).toBe(
      'InvalidArgument',
    );
    // Single fields change in place; the node count follows the limits.
    expect(await f.db.updateCluster(name, 'switching', { autoscaling: { maxServeNodes: 6 } })).toMatchObject({
      serveNodes: 4,
      autoscaling: limits(4, 6, 50, 2560),
    });
    expect(await f.db.updateCluster(name, 'switching', { autoscaling: { minServeNodes: 5, cpuUtilizationPercent: 70 } })).toMatchObject({
      serveNodes: 5,
      autoscaling: limits(5, 6, 70, 2560),
    });
    expect(await codeOf(() => f.db.updateCluster(name, 'switching', { autoscaling: { cpuUtilizationPercent: 90 } }))).toBe(
      'InvalidArgument',
    );
    // Cleared with a node count: manual scaling at that count (cbt updatecluster, the Node client's setMetadata({ nodes })).
    expect(await f.db.updateCluster(name, 'switching', { autoscaling: null, serveNodes: 7 })).toEqual({
      instance: name,
      id: 'switching',
      location: 'projects/p/locations/us-east1-b',
      serveNodes: 7,
      storageType: 'ssd',
      autoscaling: undefined,
    });
    expect(await f.db.updateCluster(name, 'switching', { serveNodes: 2 })).toMatchObject({ serveNodes: 2, autoscaling: undefined });
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
        f.db.createAppProfile(name, 'p1', {
          ...anyRouting,
          routing: { kind: 'singleCluster', clusterId: 'nope-cluster', allowTransactionalWrites: false },
        }),
      ),
    ).toBe('InvalidArgument');
    expect(
      await codeOf(() =>
        f.db.createAppProfile(name, 'p2', { ...anyRouting, routing: { kind: 'multiClusterAny', clusterIds: ['nope-cluster'] } }),
      ),
    ).toBe('InvalidArgument');
    expect(await codeOf(() => f.db.getAppProfile(name, 'missing'))).toBe('NotFound');
    expect(await codeOf(() => f.db.deleteAppProfile(name, 'missing'))).toBe('NotFound');
    // A cluster that a single-cluster profile routes to cannot go.
    await f.db.createCluster(name, 'cluster-b', cluster());
    await f.db.createAppProfile(name, 'pinned', {
      ...anyRouting,
      routing: { kind: 'singleCluster', clusterId: 'cluster-b', allowTransactionalWrites: false },
    });
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
