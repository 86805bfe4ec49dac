import type { AppProfileInfo, ClusterInfo, Database, InstanceInfo, TableInfo } from '../../db/api.js';
import { notFound } from '../../model/errors.js';
import type { ColumnFamily } from '../../model/family.js';
import { describeGcRule } from '../../model/gc.js';
import { instanceNameString, tableNameString } from '../../model/names.js';

/**
 * The JSON API of the HTTP server (consumed by the web UI and by tools):
 *   GET /api/v1/projects/{project}/instances
 *   GET /api/v1/projects/{project}/instances/{instance}
 *   GET /api/v1/projects/{project}/instances/{instance}/tables
 *   GET /api/v1/projects/{project}/instances/{instance}/tables/{table}
 * Path segments are URL-decoded (the Node client's default project is the
 * literal "{{projectId}}", i.e. %7B%7BprojectId%7D%7D in a URL).
 * Returns undefined when the path is not an API path.
 */
export function routeApi(db: Database, segments: readonly string[]): unknown {
  const [api, v1, projects, project, instances, instance, tables, table, ...rest] = segments;
  if (api !== 'api' || v1 !== 'v1' || projects !== 'projects' || project === undefined) return undefined;
  if (instances === undefined) return undefined;
  if (instances !== 'instances' || rest.length > 0) throw notFound(`No such API path: /${segments.join('/')}`);
  if (instance === undefined) return { instances: db.listInstances(project).map(instanceJson) };
  const name = { project, instance };
  if (tables === undefined) {
    return {
      ...instanceJson(db.getInstance(name)),
      clusters: db.listClusters(name).map(clusterJson),
      appProfiles: db.listAppProfiles(name).map(appProfileJson),
    };
  }
  if (tables !== 'tables') throw notFound(`No such API path: /${segments.join('/')}`);
  if (table === undefined) return { tables: db.listTables(name).sort((a, b) => (a.name.table < b.name.table ? -1 : 1)).map(tableJson) };
  return tableJson(db.getTable({ ...name, table }));
}

function instanceJson(i: InstanceInfo) {
  return {
    name: instanceNameString(i.name),
    project: i.name.project,
    instanceId: i.name.instance,
    displayName: i.displayName,
    type: i.type,
    labels: i.labels,
    createTime: new Date(i.createTimeMillis).toISOString(),
  };
}

function clusterJson(c: ClusterInfo) {
  return { clusterId: c.id, location: c.location, serveNodes: c.serveNodes, storageType: c.storageType };
}

function appProfileJson(p: AppProfileInfo) {
  return { appProfileId: p.id, description: p.description, routing: p.routing, priority: p.priority };
}

function tableJson(t: TableInfo) {
  return {
    name: tableNameString(t.name),
    tableId: t.name.table,
    granularity: t.granularity,
    deletionProtection: t.deletionProtection,
    createTime: new Date(t.createTimeMillis).toISOString(),
    families: t.families.map(familyJson),
  };
}

function familyJson(f: ColumnFamily) {
  return {
    name: f.name,
    /** The rule as a tree ({ kind: 'maxVersions', versions } | { kind: 'maxAge', maxAgeMicros } | union / intersection of rules), null for none. */
    gcRule: f.gcRule ?? null,
    /** The rule as cbt prints it, e.g. "(versions() > 2 || age() > 7d)". */
    gcPolicy: describeGcRule(f.gcRule),
    valueType: f.valueType,
  };
}
