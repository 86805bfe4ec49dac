import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loaderMethod } from '../testing/loader-codecs.js';
import { streamCall, unaryCall, unaryError } from '../testing/raw-client.js';
import { type TestServer, startTestServer } from '../testing/test-server.js';

/** Table admin, instance admin, operations and IAM on the wire, through a raw grpc-js client. */

const PROJECT = 'projects/p';
const INSTANCE = `${PROJECT}/instances/i`;
const b = (s: string) => Buffer.from(s, 'latin1');
let ts: TestServer;

beforeAll(async () => {
  ts = await startTestServer();
});

afterAll(async () => {
  await ts.stop();
  expect(ts.log.filter((l) => l.startsWith('error'))).toEqual([]);
});

const decodeAny = (service: string, method: string, any: { type_url: string; value: Buffer }) =>
  loaderMethod(service, method).responseDeserialize(any.value) as any;

describe('table admin', () => {
  it('creates a table with GC rules, an aggregate family and initial splits, and reads it back in every view', async () => {
    const created = await unaryCall(ts.clients.tableAdmin, 'CreateTable', {
      parent: INSTANCE,
      tableId: 'views',
      table: {
        columnFamilies: {
          stats: { gcRule: { union: { rules: [{ maxNumVersions: 2 }, { maxAge: { seconds: '86400' } }] } } },
          counters: { valueType: { aggregateType: { inputType: { int64Type: {} }, sum: {} } } },
          plain: {},
        },
      },
      initialSplits: [{ key: b('m') }],
    });
    expect(created.name).toBe(`${INSTANCE}/tables/views`);
    expect(created.granularity).toBe('MILLIS');
    expect(Object.keys(created.columnFamilies)).toEqual(['stats', 'counters', 'plain']);

    const get = (view?: string) =>
      unaryCall(ts.clients.tableAdmin, 'GetTable', { name: `${INSTANCE}/tables/views`, ...(view ? { view } : {}) });
    expect(Object.keys(await get('NAME_ONLY'))).toEqual(['name']);
    const schema = await get();
    expect(schema.columnFamilies.stats.gcRule.union.rules).toEqual([
      { maxNumVersions: 2, rule: 'maxNumVersions' },
      { maxAge: { seconds: '86400' }, rule: 'maxAge' },
    ]);
    expect(schema.columnFamilies.counters.valueType.aggregateType.sum).toEqual({});
    expect(schema.columnFamilies.plain).toEqual({});
    expect(schema.clusterStates).toBeUndefined();
    const replication = await get('REPLICATION_VIEW');
    expect(Object.values(replication.clusterStates).every((s: any) => s.replicationState === 'READY')).toBe(true);
    expect(Object.keys(replication.clusterStates).length).toBeGreaterThan(0);
    const full = await get('FULL');
    expect(full).toMatchObject({ granularity: 'MILLIS' });
    expect(Object.values(full.clusterStates).every((s: any) => s.encryptionInfo[0].encryptionType === 'GOOGLE_DEFAULT_ENCRYPTION')).toBe(
      true,
    );
  });

  it('rejects bad ids, duplicates and unknown tables with the right codes', async () => {
    expect((await unaryError(ts.clients.tableAdmin, 'CreateTable', { parent: INSTANCE, tableId: 'bad id!', table: {} })).code).toBe(
      status.INVALID_ARGUMENT,
    );
    expect((await unaryError(ts.clients.tableAdmin, 'CreateTable', { parent: 'projects/p', tableId: 'x', table: {} })).code).toBe(
      status.INVALID_ARGUMENT,
    );
    await unaryCall(ts.clients.tableAdmin, 'CreateTable', { parent: INSTANCE, tableId: 'dup', table: {} });
    expect((await unaryError(ts.clients.tableAdmin, 'CreateTable', { parent: INSTANCE, tableId: 'dup', table: {} })).code).toBe(
      status.ALREADY_EXISTS,
    );
    expect((await unaryError(ts.clients.tableAdmin, 'GetTable', { name: `${INSTANCE}/tables/missing` })).code).toBe(status.NOT_FOUND);
    expect((await unaryError(ts.clients.tableAdmin, 'DeleteTable', { name: `${INSTANCE}/tables/missing` })).code).toBe(status.NOT_FOUND);
    expect(
      (
        await unaryError(ts.clients.tableAdmin, 'CreateTable', {
          parent: INSTANCE,
          tableId: 'cs',
          table: { changeStreamConfig: { retentionPeriod: { seconds: '3600' } } },
        })
      ).code,
    ).toBe(status.UNIMPLEMENTED);
  });

  it('lists tables in pages', async () => {
    const inst = `${PROJECT}/instances/paging`;
    for (const id of ['c', 'a', 'e', 'b', 'd'])
      await unaryCall(ts.clients.tableAdmin, 'CreateTable', { parent: inst, tableId: id, table: {} });
    const all = await unaryCall(ts.clients.tableAdmin, 'ListTables', { parent: inst });
    expect(all.tables.map((t: any) => t.name.split('/').pop())).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(all.tables.every((t: any) => Object.keys(t).join() === 'name')).toBe(true);
    const seen: string[] = [];
    let pageToken = '';
    do {
      const page = await unaryCall(ts.clients.tableAdmin, 'ListTables', { parent: inst, pageSize: 2, pageToken });
      expect(page.tables.length).toBeLessThanOrEqual(2);
      seen.push(...page.tables.map((t: any) => t.name.split('/').pop()));
      pageToken = page.nextPageToken ?? '';
    } while (pageToken !== '');
    expect(seen).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect((await unaryError(ts.clients.tableAdmin, 'ListTables', { parent: inst, pageToken: '%%%' })).code).toBe(status.INVALID_ARGUMENT);
  });

  it('serves authorized views: operations with typed metadata, response views, masks, limits, and reads through them', async () => {
    const table = `${INSTANCE}/tables/tenants`;
    const name = `${table}/authorizedViews/acme`;
    const ADMIN = 'google.bigtable.admin.v2.BigtableTableAdmin';
    await unaryCall(ts.clients.tableAdmin, 'CreateTable', { parent: INSTANCE, tableId: 'tenants', table: { columnFamilies: { cf: {} } } });
    const subsetView = { rowPrefixes: [b('acme#')], familySubsets: { cf: { qualifiers: [b('name')], qualifierPrefixes: [b('tel')] } } };
    const op = await unaryCall(ts.clients.tableAdmin, 'CreateAuthorizedView', {
      parent: table,
      authorizedViewId: 'acme',
      authorizedView: { subsetView },
    });
    expect(op.done).toBe(true);
    expect(op.response.type_url).toBe('type.googleapis.com/google.bigtable.admin.v2.AuthorizedView');
    expect(op.metadata.type_url).toBe('type.googleapis.com/google.bigtable.admin.v2.CreateAuthorizedViewMetadata');
    const created = decodeAny(ADMIN, 'GetAuthorizedView', op.response);
    expect(created).toMatchObject({ name, deletionProtection: false, subsetView: { rowPrefixes: [b('acme#')] } });
    expect(await unaryCall(ts.clients.operations, 'GetOperation', { name: op.name })).toEqual(op);

    // Get: BASIC by default (no subset), FULL (3) with it, NAME_ONLY (1) the name alone; List: NAME_ONLY by default.
    expect(await unaryCall(ts.clients.tableAdmin, 'GetAuthorizedView', { name })).toEqual({
      name,
      etag: created.etag,
      deletionProtection: false,
    });
    expect(
      (await unaryCall(ts.clients.tableAdmin, 'GetAuthorizedView', { name, view: 3 })).subsetView.familySubsets.cf.qualifierPrefixes,
    ).toEqual([b('tel')]);
    expect(await unaryCall(ts.clients.tableAdmin, 'GetAuthorizedView', { name, view: 'NAME_ONLY' })).toEqual({ name });
    expect(await unaryCall(ts.clients.tableAdmin, 'ListAuthorizedViews', { parent: table })).toEqual({
      authorizedViews: [{ name }],
      nextPageToken: '',
    });

    // Update without a mask changes the fields the request sets; a path it does not know, a bad name, past the limits: INVALID_ARGUMENT.
    const updated = await unaryCall(ts.clients.tableAdmin, 'UpdateAuthorizedView', { authorizedView: { name, deletionProtection: true } });
    expect(updated.metadata.type_url).toBe('type.googleapis.com/google.bigtable.admin.v2.UpdateAuthorizedViewMetadata');
    expect(decodeAny(ADMIN, 'GetAuthorizedView', updated.response)).toMatchObject({
      deletionProtection: true,
      subsetView: { rowPrefixes: [b('acme#')] },
    });
    for (const request of [
      { authorizedView: { name }, updateMask: { paths: ['etag'] } },
      { authorizedView: { name: `${table}/acme` }, updateMask: { paths: ['deletion_protection'] } },
      {
        authorizedView: {
          name,
          subsetView: {
            rowPrefixes: [b('')],
            familySubsets: { cf: { qualifierPrefixes: Array.from({ length: 11 }, (_, i) => b(`p${i}`)) } },
          },
        },
        updateMask: { paths: ['subset_view'] },
      },
    ]) {
      expect((await unaryError(ts.clients.tableAdmin, 'UpdateAuthorizedView', request)).code).toBe(status.INVALID_ARGUMENT);
    }

    // Data through the view: the rows under its prefix, its columns only.
    await unaryCall(ts.clients.data, 'MutateRow', {
      tableName: table,
      rowKey: b('acme#1'),
      mutations: ['name', 'secret', 'tel1'].map((q) => ({
        setCell: { familyName: 'cf', columnQualifier: b(q), timestampMicros: '1000', value: b(q) },
      })),
    });
    const read = await streamCall(ts.clients.data, 'ReadRows', { authorizedViewName: name });
    const qualifiers = read.messages.flatMap((m: any) => m.chunks.map((c: any) => c.qualifier?.value.toString()));
    expect(qualifiers).toEqual(['name', 'tel1']);
    expect((await unaryError(ts.clients.tableAdmin, 'DeleteTable', { name: table })).code).toBe(status.FAILED_PRECONDITION);
  });

  it('changes deletion protection through a done long-running operation that GetOperation returns', async () => {
    const name = `${INSTANCE}/tables/protected`;
    await unaryCall(ts.clients.tableAdmin, 'CreateTable', { parent: INSTANCE, tableId: 'protected', table: {} });
    const op = await unaryCall(ts.clients.tableAdmin, 'UpdateTable', {
      table: { name, deletionProtection: true },
      updateMask: { paths: ['deletion_protection'] },
    });
    expect(op.done).toBe(true);
    expect(op.response.type_url).toBe('type.googleapis.com/google.bigtable.admin.v2.Table');
    expect(decodeAny('google.bigtable.admin.v2.BigtableTableAdmin', 'GetTable', op.response)).toMatchObject({
      name,
      deletionProtection: true,
    });
    expect(op.metadata.type_url).toBe('type.googleapis.com/google.bigtable.admin.v2.UpdateTableMetadata');
    const again = await unaryCall(ts.clients.operations, 'GetOperation', { name: op.name });
    expect(again).toEqual(op);
    const listed = await unaryCall(ts.clients.operations, 'ListOperations', { name });
    expect(listed.operations.map((o: any) => o.name)).toContain(op.name);
    expect((await unaryError(ts.clients.operations, 'GetOperation', { name: `${op.name}-nope` })).code).toBe(status.NOT_FOUND);

    expect((await unaryError(ts.clients.tableAdmin, 'DeleteTable', { name })).code).toBe(status.FAILED_PRECONDITION);
    expect((await unaryError(ts.clients.tableAdmin, 'UpdateTable', { table: { name }, updateMask: { paths: ['granularity'] } })).code).toBe(
      status.INVALID_ARGUMENT,
    );
    expect((await unaryError(ts.clients.tableAdmin, 'UpdateTable', { table: { name }, updateMask: {} })).code).toBe(
      status.INVALID_ARGUMENT,
    );
    await unaryCall(ts.clients.tableAdmin, 'UpdateTable', {
      table: { name, deletionProtection: false },
      updateMask: { paths: ['deletion_protection'] },
    });
    await unaryCall(ts.clients.tableAdmin, 'DeleteTable', { name });
  });

  it('modifies column families: create, update with and without a mask, drop', async () => {
    const name = `${INSTANCE}/tables/families`;
    await unaryCall(ts.clients.tableAdmin, 'CreateTable', {
      parent: INSTANCE,
      tableId: 'families',
      table: {
        columnFamilies: {
          a: { gcRule: { maxNumVersions: 3 } },
          agg: { valueType: { aggregateType: { inputType: { int64Type: {} }, max: {} } } },
        },
      },
    });
    const modify = (modifications: object[]) => unaryCall(ts.clients.tableAdmin, 'ModifyColumnFamilies', { name, modifications });
    let t = await modify([{ id: 'b', create: { gcRule: { maxAge: { seconds: '60' } } } }]);
    expect(Object.keys(t.columnFamilies)).toEqual(['a', 'agg', 'b']);
    t = await modify([{ id: 'a', update: { gcRule: { maxNumVersions: 1 } }, updateMask: { paths: ['gc_rule'] } }]);
    expect(t.columnFamilies.a.gcRule).toEqual({ maxNumVersions: 1, rule: 'maxNumVersions' });
    t = await modify([{ id: 'a', update: {} }]);
    expect(t.columnFamilies.a).toEqual({});
    t = await modify([{ id: 'b', drop: true }]);
    expect(Object.keys(t.columnFamilies)).toEqual(['a', 'agg']);
    expect((await unaryError(ts.clients.tableAdmin, 'ModifyColumnFamilies', { name, modifications: [{ id: 'a', create: {} }] })).code).toBe(
      status.ALREADY_EXISTS,
    );
    expect(
      (await unaryError(ts.clients.tableAdmin, 'ModifyColumnFamilies', { name, modifications: [{ id: 'zz', drop: true }] })).code,
    ).toBe(status.NOT_FOUND);
    expect((await unaryError(ts.clients.tableAdmin, 'ModifyColumnFamilies', { name, modifications: [] })).code).toBe(
      status.INVALID_ARGUMENT,
    );
    const changeType = await unaryError(ts.clients.tableAdmin, 'ModifyColumnFamilies', {
      name,
      modifications: [
        {
          id: 'agg',
          update: { valueType: { aggregateType: { inputType: { int64Type: {} }, sum: {} } } },
          updateMask: { paths: ['value_type'] },
        },
      ],
    });
    expect(changeType).toMatchObject({ code: status.INVALID_ARGUMENT, details: expect.stringMatching(/cannot be changed/) });
  });

  it('drops row ranges, and issues and checks consistency tokens', async () => {
    const name = `${INSTANCE}/tables/drops`;
    await unaryCall(ts.clients.tableAdmin, 'CreateTable', { parent: INSTANCE, tableId: 'drops', table: { columnFamilies: { f: {} } } });
    await streamCall(ts.clients.data, 'MutateRows', {
      tableName: name,
      entries: ['a1', 'a2', 'b1'].map((k) => ({
        rowKey: b(k),
        mutations: [{ setCell: { familyName: 'f', columnQualifier: b('q'), timestampMicros: '1000', value: b('v') } }],
      })),
    });
    await unaryCall(ts.clients.tableAdmin, 'DropRowRange', { name, rowKeyPrefix: b('a') });
    const r = await streamCall<any>(ts.clients.data, 'ReadRows', { tableName: name });
    expect(r.messages.flatMap((m) => m.chunks.filter((c: any) => c.rowKey).map((c: any) => c.rowKey.toString()))).toEqual(['b1']);
    await unaryCall(ts.clients.tableAdmin, 'DropRowRange', { name, deleteAllDataFromTable: true });
    expect((await streamCall(ts.clients.data, 'ReadRows', { tableName: name })).messages).toEqual([]);
    expect((await unaryError(ts.clients.tableAdmin, 'DropRowRange', { name })).code).toBe(status.INVALID_ARGUMENT);
    const { consistencyToken } = await unaryCall(ts.clients.tableAdmin, 'GenerateConsistencyToken', { name });
    expect(consistencyToken.length).toBeGreaterThan(0);
    expect(await unaryCall(ts.clients.tableAdmin, 'CheckConsistency', { name, consistencyToken })).toEqual({ consistent: true });
    expect((await unaryError(ts.clients.tableAdmin, 'CheckConsistency', { name })).code).toBe(status.INVALID_ARGUMENT);
  });

  it('answers snapshots, table undelete and schema bundles with UNIMPLEMENTED', async () => {
    for (const [method, req] of [
      ['UndeleteTable', { name: `${INSTANCE}/tables/t` }],
      ['ListSnapshots', { parent: `${INSTANCE}/clusters/c` }],
      ['GetSchemaBundle', { name: 'x' }],
    ] as const) {
      const e = await unaryError(ts.clients.tableAdmin, method, req);
      expect([method, e.code]).toEqual([method, status.UNIMPLEMENTED]);
      expect(e.details).toMatch(/not implemented by tabletop yet/);
    }
  });
});

describe('instance admin', () => {
  it('creates, reads, lists, updates and deletes instances, clusters and app profiles', async () => {
    const name = `${PROJECT}/instances/prod-1`;
    const op = await unaryCall(ts.clients.instanceAdmin, 'CreateInstance', {
      parent: PROJECT,
      instanceId: 'prod-1',
      instance: { displayName: 'Production', type: 'PRODUCTION', labels: { env: 'prod' } },
      clusters: { 'prod-1-c1': { location: `${PROJECT}/locations/us-central1-b`, serveNodes: 3, defaultStorageType: 'SSD' } },
    });
    expect(op.done).toBe(true);
    expect(op.response.type_url).toBe('type.googleapis.com/google.bigtable.admin.v2.Instance');
    expect(decodeAny('google.bigtable.admin.v2.BigtableInstanceAdmin', 'GetInstance', op.response)).toMatchObject({
      name,
      displayName: 'Production',
      state: 'READY',
    });
    expect(await unaryCall(ts.clients.operations, 'GetOperation', { name: op.name })).toEqual(op);

    expect(await unaryCall(ts.clients.instanceAdmin, 'GetInstance', { name })).toMatchObject({
      displayName: 'Production',
      type: 'PRODUCTION',
      labels: { env: 'prod' },
    });
    const listed = await unaryCall(ts.clients.instanceAdmin, 'ListInstances', { parent: PROJECT });
    expect(listed.instances.map((i: any) => i.name)).toContain(name);

    const updated = await unaryCall(ts.clients.instanceAdmin, 'PartialUpdateInstance', {
      instance: { name, displayName: 'Prod!' },
      updateMask: { paths: ['display_name'] },
    });
    expect(decodeAny('google.bigtable.admin.v2.BigtableInstanceAdmin', 'GetInstance', updated.response)).toMatchObject({
      displayName: 'Prod!',
      labels: { env: 'prod' },
    });
    expect(await unaryCall(ts.clients.instanceAdmin, 'UpdateInstance', { name, displayName: 'Again', type: 'DEVELOPMENT' })).toMatchObject({
      displayName: 'Again',
      type: 'DEVELOPMENT',
    });

    const clusterOp = await unaryCall(ts.clients.instanceAdmin, 'CreateCluster', {
      parent: name,
      clusterId: 'prod-1-c2',
      cluster: { location: `${PROJECT}/locations/europe-west1-b`, serveNodes: 1 },
    });
    expect(clusterOp.response.type_url).toBe('type.googleapis.com/google.bigtable.admin.v2.Cluster');
    const clusters = await unaryCall(ts.clients.instanceAdmin, 'ListClusters', { parent: name });
    expect(clusters.clusters.map((c: any) => c.name.split('/').pop())).toEqual(['prod-1-c1', 'prod-1-c2']);
    await unaryCall(ts.clients.instanceAdmin, 'PartialUpdateCluster', {
      cluster: { name: `${name}/clusters/prod-1-c2`, serveNodes: 4 },
      updateMask: { paths: ['serve_nodes'] },
    });
    expect(await unaryCall(ts.clients.instanceAdmin, 'GetCluster', { name: `${name}/clusters/prod-1-c2` })).toMatchObject({
      serveNodes: 4,
      state: 'READY',
    });
    const everywhere = await unaryCall(ts.clients.instanceAdmin, 'ListClusters', { parent: `${PROJECT}/instances/-` });
    expect(everywhere.clusters.map((c: any) => c.name)).toContain(`${name}/clusters/prod-1-c2`);
    await unaryCall(ts.clients.instanceAdmin, 'DeleteCluster', { name: `${name}/clusters/prod-1-c2` });
    expect((await unaryError(ts.clients.instanceAdmin, 'GetCluster', { name: `${name}/clusters/prod-1-c2` })).code).toBe(status.NOT_FOUND);

    const profile = await unaryCall(ts.clients.instanceAdmin, 'CreateAppProfile', {
      parent: name,
      appProfileId: 'batch',
      appProfile: {
        description: 'batch jobs',
        singleClusterRouting: { clusterId: 'prod-1-c1' },
        standardIsolation: { priority: 'PRIORITY_LOW' },
      },
    });
    expect(profile).toMatchObject({
      name: `${name}/appProfiles/batch`,
      description: 'batch jobs',
      singleClusterRouting: { clusterId: 'prod-1-c1' },
      standardIsolation: { priority: 'PRIORITY_LOW' },
    });
    const profileOp = await unaryCall(ts.clients.instanceAdmin, 'UpdateAppProfile', {
      appProfile: { name: `${name}/appProfiles/batch`, description: 'nightly' },
      updateMask: { paths: ['description'] },
    });
    expect(decodeAny('google.bigtable.admin.v2.BigtableInstanceAdmin', 'GetAppProfile', profileOp.response)).toMatchObject({
      description: 'nightly',
    });
    const profiles = await unaryCall(ts.clients.instanceAdmin, 'ListAppProfiles', { parent: name });
    expect(profiles.appProfiles.map((p: any) => p.name)).toContain(`${name}/appProfiles/batch`);
    await unaryCall(ts.clients.instanceAdmin, 'DeleteAppProfile', { name: `${name}/appProfiles/batch`, ignoreWarnings: true });
    expect((await unaryError(ts.clients.instanceAdmin, 'GetAppProfile', { name: `${name}/appProfiles/batch` })).code).toBe(
      status.NOT_FOUND,
    );

    await unaryCall(ts.clients.instanceAdmin, 'DeleteInstance', { name });
    expect(
      (await unaryCall(ts.clients.instanceAdmin, 'ListInstances', { parent: PROJECT })).instances?.map((i: any) => i.name) ?? [],
    ).not.toContain(name);
  });

  it('rejects malformed instance requests', async () => {
    expect(
      (
        await unaryError(ts.clients.instanceAdmin, 'CreateInstance', {
          parent: PROJECT,
          instanceId: 'no-clusters-x',
          instance: { displayName: 'x' },
        })
      ).code,
    ).toBe(status.INVALID_ARGUMENT);
    expect((await unaryError(ts.clients.instanceAdmin, 'GetCluster', { name: `${INSTANCE}/tables/x` })).code).toBe(status.INVALID_ARGUMENT);
    expect((await unaryError(ts.clients.instanceAdmin, 'ListInstances', { parent: 'p' })).code).toBe(status.INVALID_ARGUMENT);
    expect((await unaryError(ts.clients.instanceAdmin, 'ListHotTablets', { parent: `${INSTANCE}/clusters/c` })).code).toBe(
      status.NOT_FOUND,
    );
    expect((await unaryError(ts.clients.instanceAdmin, 'CreateMaterializedView', { parent: INSTANCE })).code).toBe(status.INVALID_ARGUMENT);
  });
});

describe('IAM with authentication off', () => {
  it('stores policies per resource and answers an anonymous TestIamPermissions with every permission asked', async () => {
    await unaryCall(ts.clients.tableAdmin, 'CreateTable', { parent: INSTANCE, tableId: 'iam', table: {} });
    const resource = `${INSTANCE}/tables/iam`;
    const initial = await unaryCall(ts.clients.tableAdmin, 'GetIamPolicy', { resource });
    const set = await unaryCall(ts.clients.tableAdmin, 'SetIamPolicy', {
      resource,
      policy: { bindings: [{ role: 'roles/bigtable.reader', members: ['user:a@example.com'] }], etag: initial.etag },
    });
    expect(set.bindings).toEqual([{ role: 'roles/bigtable.reader', members: ['user:a@example.com'] }]);
    expect(await unaryCall(ts.clients.tableAdmin, 'GetIamPolicy', { resource })).toEqual(set);
    expect((await unaryError(ts.clients.tableAdmin, 'SetIamPolicy', { resource, policy: { etag: initial.etag } })).code).toBe(
      status.ABORTED,
    );
    expect(
      await unaryCall(ts.clients.tableAdmin, 'TestIamPermissions', {
        resource,
        permissions: ['bigtable.tables.readRows', 'bigtable.tables.mutateRows'],
      }),
    ).toEqual({ permissions: ['bigtable.tables.readRows', 'bigtable.tables.mutateRows'] });
    expect((await unaryError(ts.clients.tableAdmin, 'GetIamPolicy', { resource: `${INSTANCE}/tables/none` })).code).toBe(status.NOT_FOUND);
    expect((await unaryCall(ts.clients.instanceAdmin, 'GetIamPolicy', { resource: INSTANCE })).bindings ?? []).toEqual([]);
  });
});
