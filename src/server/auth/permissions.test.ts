import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseCore } from '../../db/api.js';
import { createDatabase } from '../../db/index.js';
import { createSqlEngine } from '../../sql/index.js';
import { createMemoryEngine } from '../../storage/memory/index.js';
import { memoryLogger } from '../../testing/memory-logger.js';
import { methodTable } from '../grpc-server.js';
import type { MethodTable } from '../method-table.js';
import { Metrics } from '../metrics.js';
import { DEFAULT_SERVER_TUNING } from '../server-config.js';
import { ALL_PERMISSIONS, ANY_CALLER, METHOD_NEEDS, ROLES, permissionAppliesTo, roleGrants } from './permissions.js';

let db: DatabaseCore;
let table: MethodTable;

beforeAll(async () => {
  db = await createDatabase({ engine: createMemoryEngine() });
  table = methodTable({ db, logger: memoryLogger(), metrics: new Metrics(), tuning: DEFAULT_SERVER_TUNING, sql: createSqlEngine(db) });
});

afterAll(async () => {
  await db.close();
});

describe('the permission of each method', () => {
  it('is defined for every method the server serves', () => {
    const served = table.methods.filter((m) => m.handler.kind !== 'reject').map((m) => m.path);
    expect(served.length).toBeGreaterThan(50);
    expect(served.filter((path) => !METHOD_NEEDS.has(path))).toEqual([]);
  });

  it('names only methods the protos define and permissions that exist', () => {
    const paths = new Set(table.methods.map((m) => m.path));
    expect([...METHOD_NEEDS.keys()].filter((path) => !paths.has(path))).toEqual([]);
    const named = [...METHOD_NEEDS.values()].flatMap((need) => (need === ANY_CALLER ? [] : Object.values(need).flat()));
    expect(named.filter((p) => !ALL_PERMISSIONS.has(p))).toEqual([]);
  });

  it('follows the service: reads, writes, views, admin calls on the parent for create and list', () => {
    const need = (service: string, method: string): unknown => METHOD_NEEDS.get(`/google.bigtable.${service}/${method}`);
    expect(need('v2.Bigtable', 'ReadRows')).toMatchObject({
      table: ['bigtable.tables.readRows'],
      authorizedView: ['bigtable.authorizedViews.readRows'],
    });
    expect(need('v2.Bigtable', 'ReadModifyWriteRow')).toMatchObject({ table: ['bigtable.tables.readRows', 'bigtable.tables.mutateRows'] });
    expect(need('v2.Bigtable', 'ExecuteQuery')).toEqual({ instance: ['bigtable.instances.executeQuery'] });
    expect(need('admin.v2.BigtableTableAdmin', 'CreateTable')).toEqual({ instance: ['bigtable.tables.create'] });
    expect(need('admin.v2.BigtableTableAdmin', 'DropRowRange')).toEqual({ table: ['bigtable.tables.mutateRows'] });
    expect(need('admin.v2.BigtableInstanceAdmin', 'CreateInstance')).toEqual({ project: ['bigtable.instances.create'] });
    expect(need('admin.v2.BigtableTableAdmin', 'TestIamPermissions')).toBe(ANY_CALLER);
  });
});

describe('roles', () => {
  const holds = (role: string, ...permissions: string[]): boolean[] => permissions.map((p) => roleGrants(role, p));

  it('reader reads data and metadata, user also writes, viewer reads metadata only', () => {
    const data = ['bigtable.tables.readRows', 'bigtable.tables.sampleRowKeys', 'bigtable.tables.mutateRows', 'bigtable.tables.get'];
    expect(holds('roles/bigtable.reader', ...data)).toEqual([true, true, false, true]);
    expect(holds('roles/bigtable.user', ...data)).toEqual([true, true, true, true]);
    expect(holds('roles/bigtable.viewer', ...data)).toEqual([false, false, false, true]);
    const views = ['bigtable.authorizedViews.readRows', 'bigtable.authorizedViews.mutateRows', 'bigtable.authorizedViews.get'];
    expect(holds('roles/bigtable.reader', ...views)).toEqual([true, false, true]);
    expect(holds('roles/bigtable.user', ...views)).toEqual([true, true, true]);
    expect(holds('roles/bigtable.viewer', ...views)).toEqual([false, false, true]);
    for (const role of ['roles/bigtable.reader', 'roles/bigtable.user', 'roles/bigtable.viewer']) {
      expect(holds(role, 'bigtable.tables.create', 'bigtable.tables.setIamPolicy', 'bigtable.instances.update')).toEqual([
        false,
        false,
        false,
      ]);
    }
  });

  it('admin and owner hold everything; editor and the basic editor all but setIamPolicy; the basic viewer no data', () => {
    for (const role of ['roles/bigtable.admin', 'roles/owner']) expect([...ALL_PERMISSIONS].every((p) => roleGrants(role, p))).toBe(true);
    for (const role of ['roles/bigtable.editor', 'roles/editor']) {
      expect(holds(role, 'bigtable.tables.create', 'bigtable.tables.mutateRows', 'bigtable.tables.getIamPolicy')).toEqual([
        true,
        true,
        true,
      ]);
      expect(holds(role, 'bigtable.tables.setIamPolicy', 'bigtable.instances.setIamPolicy')).toEqual([false, false]);
    }
    expect(ROLES.get('roles/viewer')).toEqual(ROLES.get('roles/bigtable.viewer'));
    expect(holds('roles/bigtable.nonsense', 'bigtable.tables.get')).toEqual([false]);
  });

  it('say which permissions a resource kind can be asked about', () => {
    expect(permissionAppliesTo('bigtable.tables.readRows', 'table')).toBe(true);
    expect(permissionAppliesTo('bigtable.tables.readRows', 'instance')).toBe(true);
    expect(permissionAppliesTo('bigtable.authorizedViews.readRows', 'table')).toBe(true);
    expect(permissionAppliesTo('bigtable.tables.readRows', 'authorizedView')).toBe(false);
    expect(permissionAppliesTo('bigtable.instances.update', 'table')).toBe(false);
    expect(permissionAppliesTo('bigtable.backups.get', 'cluster')).toBe(true);
    expect(permissionAppliesTo('storage.objects.get', 'instance')).toBe(false);
    // create and list act on the parent.
    expect(permissionAppliesTo('bigtable.tables.create', 'instance')).toBe(true);
    expect(permissionAppliesTo('bigtable.tables.create', 'table')).toBe(false);
    expect(permissionAppliesTo('bigtable.tables.list', 'table')).toBe(false);
    expect(permissionAppliesTo('bigtable.authorizedViews.list', 'table')).toBe(true);
    expect(permissionAppliesTo('bigtable.instances.create', 'instance')).toBe(false);
    expect(permissionAppliesTo('bigtable.instances.create', 'project')).toBe(true);
    expect(permissionAppliesTo('bigtable.hotTablets.list', 'cluster')).toBe(true);
  });
});
