import type { ResourceKind } from '../method-table.js';

/**
 * IAM permissions and roles with the real service's names, and which
 * permission each RPC needs on which resource.
 *
 * Roles (from Google's "Bigtable access control with IAM" page and its
 * roles reference): roles/bigtable.admin holds every bigtable.* permission;
 * roles/bigtable.user reads and writes data and reads metadata;
 * roles/bigtable.reader reads data and metadata; roles/bigtable.viewer reads
 * metadata only; roles/bigtable.editor is admin without setIamPolicy. The
 * service has no roles of its own for authorized views: these roles granted
 * on an authorized view are its roles (reader, user, viewer carry the
 * bigtable.authorizedViews.* permissions, and a grant on a table or above
 * reaches its views by inheritance). The basic roles: roles/owner is admin,
 * roles/editor is bigtable.editor, roles/viewer is bigtable.viewer (no data
 * access). Permissions of other services (monitoring.*, resourcemanager.*) are
 * left out: tabletop checks none.
 */

const collections = {
  appProfiles: ['create', 'delete', 'get', 'list', 'update'],
  authorizedViews: ['create', 'delete', 'get', 'getIamPolicy', 'list', 'mutateRows', 'readRows', 'sampleRowKeys', 'setIamPolicy', 'update'],
  backups: ['create', 'delete', 'get', 'getIamPolicy', 'list', 'read', 'restore', 'setIamPolicy', 'update'],
  clusters: ['create', 'delete', 'get', 'list', 'update'],
  hotTablets: ['list'],
  instances: ['create', 'delete', 'executeQuery', 'get', 'getIamPolicy', 'list', 'ping', 'setIamPolicy', 'update'],
  keyvisualizer: ['get', 'list'],
  locations: ['list'],
  logicalViews: ['create', 'delete', 'get', 'getIamPolicy', 'list', 'readRows', 'setIamPolicy', 'update'],
  materializedViews: ['create', 'delete', 'get', 'getIamPolicy', 'list', 'readRows', 'sampleRowKeys', 'setIamPolicy', 'update'],
  tables: [
    'checkConsistency',
    'create',
    'delete',
    'generateConsistencyToken',
    'get',
    'getIamPolicy',
    'list',
    'mutateRows',
    'readRows',
    'sampleRowKeys',
    'setIamPolicy',
    'undelete',
    'update',
  ],
} as const;

/** Every bigtable.* permission tabletop knows (what roles/bigtable.admin holds). */
export const ALL_PERMISSIONS: ReadonlySet<string> = new Set(
  Object.entries(collections).flatMap(([c, verbs]) => verbs.map((v: string) => `bigtable.${c}.${v}`)),
);

const VIEWER = [
  'appProfiles.get',
  'appProfiles.list',
  'authorizedViews.get',
  'authorizedViews.list',
  'backups.get',
  'backups.list',
  'clusters.get',
  'clusters.list',
  'hotTablets.list',
  'instances.get',
  'instances.list',
  'locations.list',
  'logicalViews.get',
  'logicalViews.list',
  'materializedViews.get',
  'materializedViews.list',
  'tables.checkConsistency',
  'tables.generateConsistencyToken',
  'tables.get',
  'tables.list',
];
const READER = [
  ...VIEWER,
  'authorizedViews.readRows',
  'authorizedViews.sampleRowKeys',
  'instances.executeQuery',
  'instances.ping',
  'keyvisualizer.get',
  'keyvisualizer.list',
  'logicalViews.readRows',
  'materializedViews.readRows',
  'materializedViews.sampleRowKeys',
  'tables.readRows',
  'tables.sampleRowKeys',
];
const USER = [...READER, 'authorizedViews.mutateRows', 'tables.mutateRows'];
const EDITOR = [...ALL_PERMISSIONS].map((p) => p.slice('bigtable.'.length)).filter((p) => !p.endsWith('.setIamPolicy'));

const set = (permissions: readonly string[]): ReadonlySet<string> => new Set(permissions.map((p) => `bigtable.${p}`));

/** The permissions of every role tabletop knows, by role name. */
export const ROLES: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['roles/bigtable.admin', ALL_PERMISSIONS],
  ['roles/bigtable.editor', set(EDITOR)],
  ['roles/bigtable.user', set(USER)],
  ['roles/bigtable.reader', set(READER)],
  ['roles/bigtable.viewer', set(VIEWER)],
  ['roles/owner', ALL_PERMISSIONS],
  ['roles/editor', set(EDITOR)],
  ['roles/viewer', set(VIEWER)],
]);

/** True when `role` holds `permission` (an unknown role holds nothing). */
export function roleGrants(role: string, permission: string): boolean {
  return ROLES.get(role)?.has(permission) === true;
}

// ---------------------------------------------------------------------------
// Which resources a permission can be asked about (TestIamPermissions).

/** The resource kind a permission's collection acts on. */
const COLLECTION_KIND: Readonly<Record<keyof typeof collections, ResourceKind>> = {
  appProfiles: 'appProfile',
  authorizedViews: 'authorizedView',
  backups: 'backup',
  clusters: 'cluster',
  hotTablets: 'cluster',
  instances: 'instance',
  keyvisualizer: 'table',
  locations: 'project',
  logicalViews: 'logicalView',
  materializedViews: 'materializedView',
  tables: 'table',
};

/** The kinds under each kind (a grant on a resource reaches these). */
const DESCENDANTS: Partial<Record<ResourceKind, readonly ResourceKind[]>> = {
  project: ['instance', 'cluster', 'appProfile', 'table', 'authorizedView', 'logicalView', 'materializedView', 'backup'],
  instance: ['cluster', 'appProfile', 'table', 'authorizedView', 'logicalView', 'materializedView', 'backup'],
  table: ['authorizedView'],
  cluster: ['backup'],
};

/** The parent of each kind of resource that a collection of resources holds (create and list act on it). */
const PARENT: Partial<Record<ResourceKind, ResourceKind>> = {
  instance: 'project',
  cluster: 'instance',
  appProfile: 'instance',
  table: 'instance',
  logicalView: 'instance',
  materializedView: 'instance',
  authorizedView: 'table',
  backup: 'cluster',
};

/**
 * True when `permission` makes sense on a resource of `kind`: it acts on that kind or a kind under it (what a
 * policy there can grant); `create` and `list` act on the parent (bigtable.tables.create on an instance, not
 * on a table). The service answers INVALID_ARGUMENT for others in TestIamPermissions.
 */
export function permissionAppliesTo(permission: string, kind: ResourceKind): boolean {
  if (!ALL_PERMISSIONS.has(permission)) return false;
  const [, collection, verb] = permission.split('.') as [string, keyof typeof collections, string];
  const items = COLLECTION_KIND[collection];
  const parent = PARENT[items];
  const target = (verb === 'create' || verb === 'list') && parent !== undefined && collection !== 'hotTablets' ? parent : items;
  return target === kind || (DESCENDANTS[kind] ?? []).includes(target);
}

// ---------------------------------------------------------------------------
// What each RPC needs.

/**
 * What a method needs: the permissions the caller must hold, all of them, on the resource its request names
 * (method-table.ts `resource(request)`: the request's resource, or its parent for a create or list), by the
 * kind of that resource. `ANY_CALLER` needs none (TestIamPermissions answers what the caller holds). A
 * request naming a resource of a kind the entry does not list is refused.
 */
export type MethodNeed = Readonly<Partial<Record<ResourceKind, readonly string[]>>> | typeof ANY_CALLER;

export const ANY_CALLER = 'any caller';

const tables = (verb: string): readonly string[] => [`bigtable.tables.${verb}`];
const on = (collection: string, verb: string): readonly string[] => [`bigtable.${collection}.${verb}`];

/** The `verb` permission of the resource an operation belongs to, by its kind (Operations: `{resource}/operations/{id}`). */
function ofOperationTarget(verb: 'get' | 'update'): MethodNeed {
  return {
    instance: on('instances', verb),
    cluster: on('clusters', verb),
    appProfile: on('appProfiles', verb),
    table: on('tables', verb),
    authorizedView: on('authorizedViews', verb),
    logicalView: on('logicalViews', verb),
    materializedView: on('materializedViews', verb),
    backup: on('backups', verb),
  };
}

const TABLE_ADMIN = 'google.bigtable.admin.v2.BigtableTableAdmin';
const INSTANCE_ADMIN = 'google.bigtable.admin.v2.BigtableInstanceAdmin';
const DATA = 'google.bigtable.v2.Bigtable';
const OPERATIONS = 'google.longrunning.Operations';

/**
 * The method table of access control, by method path. Data calls naming an authorized view need the
 * bigtable.authorizedViews.* permission on the view (bigtable.tables.* on the table is not enough by itself; the
 * predefined roles that hold one hold the other, and a grant on the table reaches its views). ReadModifyWriteRow
 * needs readRows and mutateRows, as the service's audit log lists. ExecuteQuery and PrepareQuery need
 * bigtable.instances.executeQuery on the instance, and read on every table and view the query reads
 * (data/query-needs.ts, worked out from the request).
 * DropRowRange is a data write (bigtable.tables.mutateRows). Operations need the get (Get, Wait, List) or update
 * (Delete, Cancel) permission of the resource they belong to.
 */
export const METHOD_NEEDS: ReadonlyMap<string, MethodNeed> = new Map<string, MethodNeed>([
  // ---- data ----
  [
    `/${DATA}/ReadRows`,
    { table: tables('readRows'), authorizedView: on('authorizedViews', 'readRows'), materializedView: on('materializedViews', 'readRows') },
  ],
  [
    `/${DATA}/SampleRowKeys`,
    {
      table: tables('sampleRowKeys'),
      authorizedView: on('authorizedViews', 'sampleRowKeys'),
      materializedView: on('materializedViews', 'sampleRowKeys'),
    },
  ],
  [`/${DATA}/MutateRow`, { table: tables('mutateRows'), authorizedView: on('authorizedViews', 'mutateRows') }],
  [`/${DATA}/MutateRows`, { table: tables('mutateRows'), authorizedView: on('authorizedViews', 'mutateRows') }],
  [`/${DATA}/CheckAndMutateRow`, { table: tables('mutateRows'), authorizedView: on('authorizedViews', 'mutateRows') }],
  [
    `/${DATA}/ReadModifyWriteRow`,
    {
      table: ['bigtable.tables.readRows', 'bigtable.tables.mutateRows'],
      authorizedView: ['bigtable.authorizedViews.readRows', 'bigtable.authorizedViews.mutateRows'],
    },
  ],
  [`/${DATA}/PingAndWarm`, { instance: on('instances', 'ping') }],
  [`/${DATA}/PrepareQuery`, { instance: on('instances', 'executeQuery') }],
  [`/${DATA}/ExecuteQuery`, { instance: on('instances', 'executeQuery') }],
  // ---- table admin ----
  [`/${TABLE_ADMIN}/CreateTable`, { instance: tables('create') }],
  [`/${TABLE_ADMIN}/ListTables`, { instance: tables('list') }],
  [`/${TABLE_ADMIN}/GetTable`, { table: tables('get') }],
  [`/${TABLE_ADMIN}/UpdateTable`, { table: tables('update') }],
  [`/${TABLE_ADMIN}/DeleteTable`, { table: tables('delete') }],
  [`/${TABLE_ADMIN}/ModifyColumnFamilies`, { table: tables('update') }],
  [`/${TABLE_ADMIN}/DropRowRange`, { table: tables('mutateRows') }],
  [`/${TABLE_ADMIN}/GenerateConsistencyToken`, { table: tables('generateConsistencyToken') }],
  [`/${TABLE_ADMIN}/CheckConsistency`, { table: tables('checkConsistency') }],
  [`/${TABLE_ADMIN}/CreateAuthorizedView`, { table: on('authorizedViews', 'create') }],
  [`/${TABLE_ADMIN}/ListAuthorizedViews`, { table: on('authorizedViews', 'list') }],
  [`/${TABLE_ADMIN}/GetAuthorizedView`, { authorizedView: on('authorizedViews', 'get') }],
  [`/${TABLE_ADMIN}/UpdateAuthorizedView`, { authorizedView: on('authorizedViews', 'update') }],
  [`/${TABLE_ADMIN}/DeleteAuthorizedView`, { authorizedView: on('authorizedViews', 'delete') }],
  // Backups: the service also wants bigtable.tables.readRows on CreateBackup's table and bigtable.tables.create
  // on RestoreTable's instance; the access check looks at the one resource a request names (the parent cluster,
  // the backup), so these need the backup permission there.
  [`/${TABLE_ADMIN}/CreateBackup`, { cluster: on('backups', 'create') }],
  [`/${TABLE_ADMIN}/GetBackup`, { backup: on('backups', 'get') }],
  [`/${TABLE_ADMIN}/ListBackups`, { cluster: on('backups', 'list'), instance: on('backups', 'list') }],
  [`/${TABLE_ADMIN}/UpdateBackup`, { backup: on('backups', 'update') }],
  [`/${TABLE_ADMIN}/DeleteBackup`, { backup: on('backups', 'delete') }],
  [`/${TABLE_ADMIN}/RestoreTable`, { backup: on('backups', 'restore') }],
  [`/${TABLE_ADMIN}/CopyBackup`, { cluster: on('backups', 'create') }],
  [
    `/${TABLE_ADMIN}/GetIamPolicy`,
    { table: tables('getIamPolicy'), authorizedView: on('authorizedViews', 'getIamPolicy'), backup: on('backups', 'getIamPolicy') },
  ],
  [
    `/${TABLE_ADMIN}/SetIamPolicy`,
    { table: tables('setIamPolicy'), authorizedView: on('authorizedViews', 'setIamPolicy'), backup: on('backups', 'setIamPolicy') },
  ],
  [`/${TABLE_ADMIN}/TestIamPermissions`, ANY_CALLER],
  // ---- instance admin ----
  [`/${INSTANCE_ADMIN}/CreateInstance`, { project: on('instances', 'create') }],
  [`/${INSTANCE_ADMIN}/GetInstance`, { instance: on('instances', 'get') }],
  [`/${INSTANCE_ADMIN}/ListInstances`, { project: on('instances', 'list') }],
  [`/${INSTANCE_ADMIN}/UpdateInstance`, { instance: on('instances', 'update') }],
  [`/${INSTANCE_ADMIN}/PartialUpdateInstance`, { instance: on('instances', 'update') }],
  [`/${INSTANCE_ADMIN}/DeleteInstance`, { instance: on('instances', 'delete') }],
  [`/${INSTANCE_ADMIN}/CreateCluster`, { instance: on('clusters', 'create') }],
  [`/${INSTANCE_ADMIN}/GetCluster`, { cluster: on('clusters', 'get') }],
  [`/${INSTANCE_ADMIN}/ListClusters`, { instance: on('clusters', 'list') }],
  [`/${INSTANCE_ADMIN}/UpdateCluster`, { cluster: on('clusters', 'update') }],
  [`/${INSTANCE_ADMIN}/PartialUpdateCluster`, { cluster: on('clusters', 'update') }],
  [`/${INSTANCE_ADMIN}/DeleteCluster`, { cluster: on('clusters', 'delete') }],
  [`/${INSTANCE_ADMIN}/CreateAppProfile`, { instance: on('appProfiles', 'create') }],
  [`/${INSTANCE_ADMIN}/GetAppProfile`, { appProfile: on('appProfiles', 'get') }],
  [`/${INSTANCE_ADMIN}/ListAppProfiles`, { instance: on('appProfiles', 'list') }],
  [`/${INSTANCE_ADMIN}/UpdateAppProfile`, { appProfile: on('appProfiles', 'update') }],
  [`/${INSTANCE_ADMIN}/DeleteAppProfile`, { appProfile: on('appProfiles', 'delete') }],
  [`/${INSTANCE_ADMIN}/ListHotTablets`, { cluster: on('hotTablets', 'list') }],
  [`/${INSTANCE_ADMIN}/CreateLogicalView`, { instance: on('logicalViews', 'create') }],
  [`/${INSTANCE_ADMIN}/GetLogicalView`, { logicalView: on('logicalViews', 'get') }],
  [`/${INSTANCE_ADMIN}/ListLogicalViews`, { instance: on('logicalViews', 'list') }],
  [`/${INSTANCE_ADMIN}/UpdateLogicalView`, { logicalView: on('logicalViews', 'update') }],
  [`/${INSTANCE_ADMIN}/DeleteLogicalView`, { logicalView: on('logicalViews', 'delete') }],
  [`/${INSTANCE_ADMIN}/CreateMaterializedView`, { instance: on('materializedViews', 'create') }],
  [`/${INSTANCE_ADMIN}/GetMaterializedView`, { materializedView: on('materializedViews', 'get') }],
  [`/${INSTANCE_ADMIN}/ListMaterializedViews`, { instance: on('materializedViews', 'list') }],
  [`/${INSTANCE_ADMIN}/UpdateMaterializedView`, { materializedView: on('materializedViews', 'update') }],
  [`/${INSTANCE_ADMIN}/DeleteMaterializedView`, { materializedView: on('materializedViews', 'delete') }],
  [
    `/${INSTANCE_ADMIN}/GetIamPolicy`,
    {
      instance: on('instances', 'getIamPolicy'),
      logicalView: on('logicalViews', 'getIamPolicy'),
      materializedView: on('materializedViews', 'getIamPolicy'),
    },
  ],
  [
    `/${INSTANCE_ADMIN}/SetIamPolicy`,
    {
      instance: on('instances', 'setIamPolicy'),
      logicalView: on('logicalViews', 'setIamPolicy'),
      materializedView: on('materializedViews', 'setIamPolicy'),
    },
  ],
  [`/${INSTANCE_ADMIN}/TestIamPermissions`, ANY_CALLER],
  // ---- operations ----
  [`/${OPERATIONS}/GetOperation`, ofOperationTarget('get')],
  [`/${OPERATIONS}/WaitOperation`, ofOperationTarget('get')],
  [`/${OPERATIONS}/ListOperations`, ofOperationTarget('get')],
  [`/${OPERATIONS}/DeleteOperation`, ofOperationTarget('update')],
  [`/${OPERATIONS}/CancelOperation`, ofOperationTarget('update')],
]);
