import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseCore } from '../db/api.js';
import { createDatabase } from '../db/index.js';
import { createMemoryEngine } from '../storage/memory/index.js';
import { methodTable } from './grpc-server.js';
import { memoryLogger } from '../testing/memory-logger.js';
import type { CallShape, MethodTable, Resource } from './method-table.js';
import { Metrics } from './metrics.js';
import { type AnyMethod, SERVICES } from './protos.js';
import { DEFAULT_SERVER_TUNING } from './server-config.js';
import { packageDefinition } from './testing/loader-protos.js';

/**
 * The server's method table against the protos (as @grpc/proto-loader loads
 * them from the .proto files, independently of protos.ts): every method
 * once, with its path and call shape; and the resource that each method
 * tabletop implements targets, extracted from requests as a client encodes
 * them (through the table's own decoders, the fast ones included).
 */

const P = 'projects/p';
const I = `${P}/instances/i`;
const T = `${I}/tables/t`;
const AV = `${T}/authorizedViews/v`;
const MV = `${I}/materializedViews/m`;
const C = `${I}/clusters/c`;
const AP = `${I}/appProfiles/a`;
const LV = `${I}/logicalViews/v`;
const B = `${C}/backups/b`;
const O = `${T}/operations/o1`;

const at = (kind: Resource['kind'], name: string): Resource => ({ kind, name });
const set = { setCell: { familyName: 'cf', columnQualifier: Buffer.from('q'), timestampMicros: '1000', value: Buffer.from('v') } };
const iam: [object, Resource | undefined][] = [
  [{ resource: T }, at('table', T)],
  [{ resource: I }, at('instance', I)],
  [{ resource: B }, at('backup', B)],
  [{ resource: AV }, at('authorizedView', AV)],
  [{}, undefined],
];

/** For each method tabletop implements: requests, and the resource each targets. */
const CASES: Record<string, [object, Resource | undefined][]> = {
  'Bigtable/ReadRows': [
    [{ tableName: T, rowsLimit: '3' }, at('table', T)],
    [{ authorizedViewName: AV }, at('authorizedView', AV)],
    [{ materializedViewName: MV }, at('materializedView', MV)],
    [{}, undefined],
  ],
  'Bigtable/SampleRowKeys': [
    [{ tableName: T }, at('table', T)],
    [{ authorizedViewName: AV }, at('authorizedView', AV)],
    [{ materializedViewName: MV }, at('materializedView', MV)],
  ],
  'Bigtable/MutateRow': [
    [{ tableName: T, rowKey: Buffer.from('k'), mutations: [set] }, at('table', T)],
    [{ authorizedViewName: AV, rowKey: Buffer.from('k'), mutations: [set] }, at('authorizedView', AV)],
    [{ rowKey: Buffer.from('k') }, undefined],
  ],
  'Bigtable/MutateRows': [
    [{ tableName: T, entries: [{ rowKey: Buffer.from('k'), mutations: [set] }] }, at('table', T)],
    [{ authorizedViewName: AV, entries: [] }, at('authorizedView', AV)],
  ],
  'Bigtable/CheckAndMutateRow': [
    [{ tableName: T, rowKey: Buffer.from('k'), trueMutations: [set] }, at('table', T)],
    [{ authorizedViewName: AV, rowKey: Buffer.from('k') }, at('authorizedView', AV)],
  ],
  'Bigtable/ReadModifyWriteRow': [
    [
      { tableName: T, rowKey: Buffer.from('k'), rules: [{ familyName: 'cf', columnQualifier: Buffer.from('n'), incrementAmount: '1' }] },
      at('table', T),
    ],
    [{ authorizedViewName: AV, rowKey: Buffer.from('k') }, at('authorizedView', AV)],
  ],
  'Bigtable/PingAndWarm': [
    [{ name: I, appProfileId: 'a' }, at('instance', I)],
    [{}, undefined],
  ],
  'BigtableTableAdmin/CreateTable': [[{ parent: I, tableId: 't' }, at('instance', I)]],
  'BigtableTableAdmin/ListTables': [[{ parent: I }, at('instance', I)]],
  'BigtableTableAdmin/GetTable': [[{ name: T }, at('table', T)]],
  'BigtableTableAdmin/UpdateTable': [
    [{ table: { name: T, deletionProtection: true }, updateMask: { paths: ['deletion_protection'] } }, at('table', T)],
    [{ updateMask: { paths: [] } }, undefined],
  ],
  'BigtableTableAdmin/DeleteTable': [[{ name: T }, at('table', T)]],
  'BigtableTableAdmin/ModifyColumnFamilies': [[{ name: T, modifications: [{ id: 'cf', create: {} }] }, at('table', T)]],
  'BigtableTableAdmin/DropRowRange': [[{ name: T, deleteAllDataFromTable: true }, at('table', T)]],
  'BigtableTableAdmin/GenerateConsistencyToken': [[{ name: T }, at('table', T)]],
  'BigtableTableAdmin/CheckConsistency': [[{ name: T, consistencyToken: 'x' }, at('table', T)]],
  'BigtableTableAdmin/CreateAuthorizedView': [[{ parent: T, authorizedViewId: 'v' }, at('table', T)]],
  'BigtableTableAdmin/ListAuthorizedViews': [[{ parent: T }, at('table', T)]],
  'BigtableTableAdmin/GetAuthorizedView': [[{ name: AV }, at('authorizedView', AV)]],
  'BigtableTableAdmin/UpdateAuthorizedView': [
    [{ authorizedView: { name: AV }, updateMask: { paths: ['deletion_protection'] } }, at('authorizedView', AV)],
    [{ ignoreWarnings: true }, undefined],
  ],
  'BigtableTableAdmin/DeleteAuthorizedView': [[{ name: AV, etag: 'e' }, at('authorizedView', AV)]],
  'BigtableTableAdmin/CreateBackup': [[{ parent: C, backupId: 'b' }, at('cluster', C)]],
  'BigtableTableAdmin/GetBackup': [[{ name: B }, at('backup', B)]],
  'BigtableTableAdmin/ListBackups': [
    [{ parent: C }, at('cluster', C)],
    [{ parent: `${I}/clusters/-` }, at('instance', I)],
  ],
  'BigtableTableAdmin/UpdateBackup': [[{ backup: { name: B }, updateMask: { paths: ['expire_time'] } }, at('backup', B)]],
  'BigtableTableAdmin/DeleteBackup': [[{ name: B }, at('backup', B)]],
  'BigtableTableAdmin/RestoreTable': [[{ parent: I, tableId: 't', backup: B }, at('backup', B)]],
  'BigtableTableAdmin/CopyBackup': [[{ parent: C, backupId: 'b2', sourceBackup: B }, at('cluster', C)]],
  'BigtableTableAdmin/GetIamPolicy': iam,
  'BigtableTableAdmin/SetIamPolicy': iam,
  'BigtableTableAdmin/TestIamPermissions': iam,
  'BigtableInstanceAdmin/CreateInstance': [[{ parent: P, instanceId: 'i' }, at('project', P)]],
  'BigtableInstanceAdmin/GetInstance': [[{ name: I }, at('instance', I)]],
  'BigtableInstanceAdmin/ListInstances': [[{ parent: P }, at('project', P)]],
  'BigtableInstanceAdmin/UpdateInstance': [[{ name: I, displayName: 'd' }, at('instance', I)]],
  'BigtableInstanceAdmin/PartialUpdateInstance': [[{ instance: { name: I }, updateMask: { paths: ['display_name'] } }, at('instance', I)]],
  'BigtableInstanceAdmin/DeleteInstance': [[{ name: I }, at('instance', I)]],
  'BigtableInstanceAdmin/CreateCluster': [[{ parent: I, clusterId: 'c' }, at('instance', I)]],
  'BigtableInstanceAdmin/GetCluster': [[{ name: C }, at('cluster', C)]],
  'BigtableInstanceAdmin/ListClusters': [[{ parent: I }, at('instance', I)]],
  'BigtableInstanceAdmin/UpdateCluster': [[{ name: C, serveNodes: 3 }, at('cluster', C)]],
  'BigtableInstanceAdmin/PartialUpdateCluster': [[{ cluster: { name: C }, updateMask: { paths: ['serve_nodes'] } }, at('cluster', C)]],
  'BigtableInstanceAdmin/DeleteCluster': [[{ name: C }, at('cluster', C)]],
  'BigtableInstanceAdmin/CreateAppProfile': [[{ parent: I, appProfileId: 'a' }, at('instance', I)]],
  'BigtableInstanceAdmin/GetAppProfile': [[{ name: AP }, at('appProfile', AP)]],
  'BigtableInstanceAdmin/ListAppProfiles': [[{ parent: I }, at('instance', I)]],
  'BigtableInstanceAdmin/UpdateAppProfile': [
    [{ appProfile: { name: AP, description: 'd' }, updateMask: { paths: ['description'] } }, at('appProfile', AP)],
  ],
  'BigtableInstanceAdmin/DeleteAppProfile': [[{ name: AP, ignoreWarnings: true }, at('appProfile', AP)]],
  'BigtableInstanceAdmin/CreateLogicalView': [[{ parent: I, logicalViewId: 'v' }, at('instance', I)]],
  'BigtableInstanceAdmin/GetLogicalView': [[{ name: LV }, at('logicalView', LV)]],
  'BigtableInstanceAdmin/ListLogicalViews': [[{ parent: I }, at('instance', I)]],
  'BigtableInstanceAdmin/UpdateLogicalView': [
    [{ logicalView: { name: LV, query: 'SELECT 1' }, updateMask: { paths: ['query'] } }, at('logicalView', LV)],
  ],
  'BigtableInstanceAdmin/DeleteLogicalView': [[{ name: LV, etag: 'e' }, at('logicalView', LV)]],
  'BigtableInstanceAdmin/CreateMaterializedView': [[{ parent: I, materializedViewId: 'm' }, at('instance', I)]],
  'BigtableInstanceAdmin/GetMaterializedView': [[{ name: MV }, at('materializedView', MV)]],
  'BigtableInstanceAdmin/ListMaterializedViews': [[{ parent: I }, at('instance', I)]],
  'BigtableInstanceAdmin/UpdateMaterializedView': [[{ materializedView: { name: MV } }, at('materializedView', MV)]],
  'BigtableInstanceAdmin/DeleteMaterializedView': [[{ name: MV, etag: 'e' }, at('materializedView', MV)]],
  'BigtableInstanceAdmin/ListHotTablets': [[{ parent: C }, at('cluster', C)]],
  'BigtableInstanceAdmin/GetIamPolicy': iam,
  'BigtableInstanceAdmin/SetIamPolicy': iam,
  'BigtableInstanceAdmin/TestIamPermissions': iam,
  'Operations/GetOperation': [[{ name: O }, at('operation', O)]],
  'Operations/ListOperations': [
    [{ name: I }, at('instance', I)],
    [{ name: T }, at('table', T)],
    [{ name: 'operations' }, undefined],
    [{}, undefined],
  ],
  'Operations/DeleteOperation': [[{ name: O }, at('operation', O)]],
  'Operations/CancelOperation': [[{ name: O }, at('operation', O)]],
  'Operations/WaitOperation': [[{ name: O, timeout: { seconds: '1' } }, at('operation', O)]],
};

/** What the protos define: every method of the four services, by path, with its proto-loader definition. */
function protoMethods(): Map<string, AnyMethod> {
  const out = new Map<string, AnyMethod>();
  for (const service of Object.values(SERVICES)) {
    for (const m of Object.values(packageDefinition()[service] as unknown as Record<string, AnyMethod>)) out.set(m.path, m);
  }
  return out;
}

function shapeOf(m: AnyMethod): CallShape {
  if (m.requestStream) return m.responseStream ? 'bidi' : 'clientStream';
  return m.responseStream ? 'serverStream' : 'unary';
}

let db: DatabaseCore;
let table: MethodTable;

beforeAll(async () => {
  db = await createDatabase({ engine: createMemoryEngine() });
  table = methodTable({ db, logger: memoryLogger(), metrics: new Metrics(), tuning: DEFAULT_SERVER_TUNING });
});

afterAll(async () => {
  await db.close();
});

describe("the server's method table", () => {
  it('holds every method the protos define exactly once, with its call shape, and nothing else', () => {
    const protos = protoMethods();
    const paths = table.methods.map((m) => m.path);
    expect(new Set(paths).size).toBe(paths.length);
    expect([...paths].sort()).toEqual([...protos.keys()].sort());
    for (const m of table.methods) expect([m.path, m.shape]).toEqual([m.path, shapeOf(protos.get(m.path)!)]);
    // Methods that stream requests are all answered UNIMPLEMENTED (tabletop implements none).
    expect(table.methods.filter((m) => m.shape === 'clientStream' || m.shape === 'bidi').every((m) => m.handler.kind === 'reject')).toBe(
      true,
    );
  });

  it('has a resource case for every method tabletop implements, and no other', () => {
    const implemented = table.methods.filter((m) => m.handler.kind !== 'reject').map((m) => m.label);
    expect(implemented.sort()).toEqual(Object.keys(CASES).sort());
  });

  it.each(Object.entries(CASES))('%s: targets the resource its request names', (label, cases) => {
    const m = table.methods.find((x) => x.label === label)!;
    const proto = protoMethods().get(m.path)!;
    for (const [request, expected] of cases) {
      const bytes = proto.requestSerialize(request) as Buffer;
      expect([request, m.resource(m.decode(bytes))]).toEqual([request, expected]);
      if (m.decodeParts !== undefined && bytes.length > 1) {
        const parts = [bytes.subarray(0, 1), bytes.subarray(1)];
        expect([request, m.resource(m.decodeParts(parts))]).toEqual([request, expected]);
      }
    }
    // A request that does not decode targets nothing.
    expect(m.resource(m.decode(Buffer.from([0xff, 0xff, 0xff])))).toBeUndefined();
  });

  it('leaves the resource of the methods it does not implement undefined (their requests are not read)', () => {
    for (const m of table.methods.filter((x) => x.handler.kind === 'reject'))
      expect([m.label, m.resource({ tableName: T, name: I, parent: I })]).toEqual([m.label, undefined]);
  });
});
