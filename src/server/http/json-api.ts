import type { AppProfileInfo, ClusterInfo, Database, HotTabletInfo, InstanceInfo, NodeInfo, TableInfo, TabletInfo } from '../../db/api.js';
import { type ByteString, printable, toBytes } from '../../model/bytes.js';
import type { LoadRates } from '../../tablet/load-meter.js';
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
 *   GET /api/v1/projects/{project}/instances/{instance}/tables/{table}/tablets
 *   GET /api/v1/projects/{project}/instances/{instance}/nodes
 *   GET /api/v1/projects/{project}/instances/{instance}/hot-tablets
 * Row keys are given base64-encoded (as in Bigtable's JSON mapping of bytes)
 * and in a printable form (printable ASCII as is, other bytes as \xNN).
 * Path segments are URL-decoded (the Node client's default project is the
 * literal "{{projectId}}", i.e. %7B%7BprojectId%7D%7D in a URL).
 * Returns undefined when the path is not an API path.
 */
export function routeApi(db: Database, segments: readonly string[]): unknown {
  const [api, v1, projects, project, instances, instance, tables, table, ...rest] = segments;
  if (api !== 'api' || v1 !== 'v1' || projects !== 'projects' || project === undefined) return undefined;
  if (instances === undefined) return undefined;
  const badPath = (): never => {
    throw notFound(`No such API path: /${segments.join('/')}`);
  };
  if (instances !== 'instances') badPath();
  if (instance === undefined) return { instances: db.listInstances(project).map(instanceJson) };
  const name = { project, instance };
  if (tables === 'nodes' && table === undefined) return { nodes: db.listNodes(name).map(nodeJson) };
  if (tables === 'hot-tablets' && table === undefined) return { hotTablets: db.listHotTablets(name).map(hotTabletJson) };
  if (table !== undefined && rest.length === 1 && rest[0] === 'tablets') {
    return { tablets: db.listTablets({ ...name, table }).map(tabletJson) };
  }
  if (rest.length > 0) badPath();
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

function keyJson(key: ByteString | undefined) {
  return key === undefined ? null : { base64: toBytes(key).toString('base64'), printable: printable(key) };
}

function ratesJson(r: LoadRates) {
  return {
    requestsPerSec: round(r.requestsPerSec),
    rowsReadPerSec: round(r.rowsReadPerSec),
    rowsWrittenPerSec: round(r.rowsWrittenPerSec),
    bytesReadPerSec: round(r.bytesReadPerSec),
    bytesWrittenPerSec: round(r.bytesWrittenPerSec),
    /** Serving time per second, as a share of one core (0..1). */
    cpuShare: round(r.cpuMicrosPerSec / 1e6),
  };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function tabletJson(t: TabletInfo) {
  return {
    tabletId: t.id,
    table: tableNameString(t.table),
    startKey: keyJson(t.start),
    /** null for the last tablet (unbounded). */
    endKey: keyJson(t.end),
    sizeBytes: t.bytes,
    rowCount: t.rows,
    node: t.node,
    windowSeconds: t.windowSeconds,
    rates: ratesJson(t.rates),
    singleRowHotspot: t.singleRowHotspot === undefined ? null : { key: keyJson(t.singleRowHotspot.key), share: round(t.singleRowHotspot.share) },
  };
}

function nodeJson(n: NodeInfo) {
  return {
    node: n.node,
    sizeBytes: n.bytes,
    tabletCount: n.tablets,
    requestsPerSec: round(n.requestsPerSec),
    cpuShare: round(n.cpuMicrosPerSec / 1e6),
    loadShare: round(n.loadShare),
    tablets: n.tabletIds,
  };
}

function hotTabletJson(h: HotTabletInfo) {
  return {
    ...tabletJson(h),
    startTime: new Date(h.startMicros / 1000).toISOString(),
    endTime: new Date(h.endMicros / 1000).toISOString(),
    nodeCpuUsagePercent: round(h.nodeCpuUsagePercent),
  };
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
