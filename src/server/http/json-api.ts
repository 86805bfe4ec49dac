import type {
  AppProfileInfo,
  ClusterInfo,
  ClusterNodesInfo,
  AuthorizedViewInfo,
  HotTabletInfo,
  InstanceInfo,
  MaterializedViewInfo,
  TableInfo,
  TabletInfo,
} from '../../db/api.js';
import { type ByteString, printable, toBytes } from '../../model/bytes.js';
import type { LoadRates } from '../../tablet/load-meter.js';
import { notFound } from '../../model/errors.js';
import type { ColumnFamily } from '../../model/family.js';
import { describeGcRule } from '../../model/gc.js';
import { internalTableOwner } from '../../db/materialized-views.js';
import { childNameString, instanceNameString, tableNameString } from '../../model/names.js';
import type { AdvisorDeps } from '../../insight/advisor/gather.js';
import type { AdvisorThresholds } from '../../insight/advisor/thresholds.js';
import { adviceRoute, simulateRoute } from './advice-routes.js';
import { diagnosticsRoute, heatmapRoute, type InsightApi } from './insight-routes.js';
import type { ServedDatabase } from './served-database.js';

/**
 * The JSON API of the HTTP server (consumed by the web UI, by `tabletop
 * tablets` and by tools). Every path answers NOT_FOUND (404) for an instance
 * that was never created nor used by a CreateTable.
 *   GET /api/v1/projects
 *       every project that has instances, with its instances
 *   GET /api/v1/projects/{project}/instances
 *   GET /api/v1/projects/{project}/instances/{instance}
 *       the instance with its clusters (serveNodes, and autoscaling: limits
 *       and targets, or null for manual scaling) and app profiles
 *   GET /api/v1/projects/{project}/instances/{instance}/materialized-views[/{view}]
 *       the instance's continuous materialized views (also in the instance's own JSON), or one; each with
 *       `maintenance` (pendingRows, rebuilding, rebuilds, evaluationErrors, lastEvaluationError)
 *   GET /api/v1/projects/{project}/instances/{instance}/tables
 *       each table with its storedBytes, rowCount, tabletCount and
 *       `estimates` (which of those are estimates, as a tablet's)
 *   GET /api/v1/projects/{project}/instances/{instance}/tables/{table}
 *       the table (families, GC rules) with the same figures, its tablets,
 *       its hot tablets (hottest first) and its authorized views (id, full
 *       name, deletionProtection, rowPrefixes and familySubsets as keys)
 *   GET /api/v1/projects/{project}/instances/{instance}/tables/{table}/heatmap
 *   GET /api/v1/projects/{project}/instances/{instance}/tables/{table}/diagnostics
 *       the Key Visualizer, from the recording (insight-routes.ts: the query
 *       parameters); 412 when recording is off
 *   GET /api/v1/projects/{project}/instances/{instance}/tables/{table}/tablets
 *       per tablet: keys, storedBytes, logicalBytes, rowCount, `estimates`
 *       (which of those are estimates), its node in each cluster, recent rates
 *   GET /api/v1/projects/{project}/instances/{instance}/logical-views
 *       each logical view (id, full name, query), in id order
 *   GET /api/v1/projects/{project}/instances/{instance}/nodes
 *       per cluster: its modelled nodes, each with the bytes and tablets it
 *       holds and the serving time it spends
 *   GET /api/v1/projects/{project}/instances/{instance}/hot-tablets
 *       tablets with load in each cluster, hottest first
 *   GET /api/v1/projects/{project}/instances/{instance}/advice[?table=T]
 *   GET /api/v1/projects/{project}/instances/{instance}/tables/{table}/simulate?transform=X[&nodes=N]
 *       the schema advisor and its what-if simulation (advice-routes.ts)
 *
 * The figures:
 * - storedBytes: what the tablet takes in storage: the durable engine's
 *   SSTables as written (lz4-compressed, with index and filter) plus its
 *   memtables; the memory engine stores logical bytes. logicalBytes: the
 *   uncompressed keys and cells. Both count overwritten versions and deletes
 *   until a compaction drops them.
 * - rowCount is an estimate in the durable engine (listed in `estimates`): a
 *   row held by several SSTables and memtables counts in each until
 *   compaction. Split children estimate their bytes (and rows) from the
 *   files they share, listed in `estimates` too. The memory engine is exact.
 * - Serving time (servingMicrosPerSec, servingUtilization, the hot tablets'
 *   figures) is the node model's CPU: the time the database spent on its
 *   thread in a tablet's storage reads and writes (the synchronous part of
 *   each call, timed by the clock; not waits for disk, nor gRPC work), not
 *   the CPU time of the process. A node's capacity is 1 s of serving per second,
 *   so servingUtilization (serving seconds per second per node) is what
 *   autoscaling compares with its CPU target. loadShare is a node's share of
 *   its cluster's serving time.
 * - Hot tablets: servingPercentOfNode is the tablet's serving time as a
 *   percent of its node's capacity (what ListHotTablets reports as
 *   node_cpu_usage_percent); shareOfNodeServing is its share (0..1) of what
 *   its node served.
 * Row keys are given base64-encoded (as in Bigtable's JSON mapping of bytes)
 * and in a printable form (printable ASCII as is, other bytes as \xNN).
 * Path segments are URL-decoded (the Node client's default project is the
 * literal "{{projectId}}", i.e. %7B%7BprojectId%7D%7D in a URL).
 * Returns undefined when the path is not an API path (a promise for the
 * heatmap, diagnostics, advice and simulation).
 */
export interface ApiContext {
  readonly db: ServedDatabase;
  /** The recording; undefined when it is off. */
  readonly insight: InsightApi | undefined;
  /** The schema advisor's thresholds that differ from its defaults (ServerTuning.advisorThresholds). */
  readonly advisorThresholds?: Partial<AdvisorThresholds>;
  /** Which projects GET /api/v1/projects lists (authentication on: those the caller may list instances of); default all. */
  readonly visibleProject?: ((project: string) => boolean) | undefined;
}

export function routeApi(ctx: ApiContext, segments: readonly string[], query: URLSearchParams): unknown {
  const { db } = ctx;
  const [api, v1, projects, project, instances, instance, tables, table, ...rest] = segments;
  if (api !== 'api' || v1 !== 'v1' || projects !== 'projects') return undefined;
  if (project === undefined) {
    const visible = ctx.visibleProject ?? (() => true);
    return {
      projects: db
        .listProjects()
        .filter(visible)
        .map((p) => projectJson(db, p)),
    };
  }
  if (instances === undefined) return undefined;
  const badPath = (): never => {
    throw notFound(`No such API path: /${segments.join('/')}`);
  };
  if (instances !== 'instances') badPath();
  if (instance === undefined) return { instances: db.listInstances(project).map(instanceJson) };
  const name = { project, instance };
  if (tables === 'nodes' && table === undefined) return { clusters: db.listNodes(name).map(clusterNodesJson) };
  if (tables === 'hot-tablets' && table === undefined) {
    const views = db.listMaterializedViews(name);
    return { hotTablets: db.listHotTablets(name).map((h) => hotTabletJson(h, views)) };
  }
  if (tables === 'advice' && table === undefined) return adviceRoute(advisorDeps(ctx), name, query);
  if (tables === 'logical-views' && table === undefined) {
    return {
      logicalViews: db.listLogicalViews(name).map((v) => ({ id: v.id, name: childNameString(name, 'logicalViews', v.id), query: v.query })),
    };
  }
  if (tables === 'tables' && table !== undefined && rest.length === 1) {
    const tableName = { ...name, table };
    if (rest[0] === 'tablets') return { tablets: db.listTablets(tableName).map(tabletJson) };
    if (rest[0] === 'simulate') return simulateRoute(advisorDeps(ctx), tableName, query);
    if (rest[0] === 'heatmap' || rest[0] === 'diagnostics') {
      db.getTable(tableName); // NotFound first, whatever the query
      return rest[0] === 'heatmap' ? heatmapRoute(ctx.insight, tableName, query) : diagnosticsRoute(ctx.insight, tableName, query);
    }
  }
  if (rest.length > 0) badPath();
  if (tables === undefined) {
    return {
      ...instanceJson(db.getInstance(name)),
      clusters: db.listClusters(name).map(clusterJson),
      appProfiles: db.listAppProfiles(name).map(appProfileJson),
      materializedViews: db.listMaterializedViews(name).map((v) => materializedViewJson(db, v)),
    };
  }
  if (tables === 'materialized-views' && table === undefined)
    return { materializedViews: db.listMaterializedViews(name).map((v) => materializedViewJson(db, v)) };
  if (tables === 'materialized-views') return materializedViewJson(db, db.getMaterializedView({ ...name, id: table! }));
  if (tables !== 'tables') throw notFound(`No such API path: /${segments.join('/')}`);
  if (table === undefined)
    return {
      tables: db
        .listTables(name)
        .sort((a, b) => (a.name.table < b.name.table ? -1 : 1))
        .map((t) => ({ ...tableJson(t), ...tableSizeJson(db.listTablets(t.name)) })),
    };
  const info = db.getTable({ ...name, table });
  const tablets = db.listTablets(info.name);
  const hot = db.listHotTablets(name).filter((h) => h.table.table === table);
  return {
    ...tableJson(info),
    ...tableSizeJson(tablets),
    tablets: tablets.map(tabletJson),
    hotTablets: hot.map((h) => hotTabletJson(h, [])),
    authorizedViews: db.listAuthorizedViews(info.name).map(authorizedViewJson),
  };
}

/** An authorized view: its row prefixes and each family's qualifiers and qualifier prefixes, as keys ("" = all). */
function authorizedViewJson(v: AuthorizedViewInfo) {
  return {
    id: v.id,
    name: `${tableNameString(v.table)}/authorizedViews/${v.id}`,
    deletionProtection: v.deletionProtection,
    rowPrefixes: v.subset.rowPrefixes.map(keyJson),
    familySubsets: v.subset.familySubsets.map((f) => ({
      family: f.family,
      qualifiers: f.qualifiers.map(keyJson),
      qualifierPrefixes: f.qualifierPrefixes.map(keyJson),
    })),
  };
}

function advisorDeps(ctx: ApiContext): AdvisorDeps {
  return {
    db: ctx.db,
    history: ctx.insight?.source,
    ...(ctx.advisorThresholds === undefined ? {} : { advisorThresholds: ctx.advisorThresholds }),
  };
}

function projectJson(db: ServedDatabase, project: string) {
  return { projectId: project, instances: db.listInstances(project).map(instanceJson) };
}

/** A table's size over its tablets; `estimates` names the figures that are estimates (as a tablet's). */
function tableSizeJson(tablets: readonly TabletInfo[]) {
  let storedBytes = 0;
  let rowCount = 0;
  let bytesEstimated = false;
  let rowsEstimated = false;
  for (const t of tablets) {
    storedBytes += t.storedBytes;
    rowCount += t.rows;
    bytesEstimated ||= t.bytesEstimated;
    rowsEstimated ||= t.rowsEstimated;
  }
  const estimates = [...(bytesEstimated ? ['storedBytes'] : []), ...(rowsEstimated ? ['rowCount'] : [])];
  return { storedBytes, rowCount, tabletCount: tablets.length, estimates };
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
    servingMicrosPerSec: Math.round(r.cpuMicrosPerSec),
  };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function tabletJson(t: TabletInfo) {
  const estimates = [...(t.bytesEstimated ? ['storedBytes', 'logicalBytes'] : []), ...(t.rowsEstimated ? ['rowCount'] : [])];
  return {
    tabletId: t.id,
    table: tableNameString(t.table),
    startKey: keyJson(t.start),
    /** null for the last tablet (unbounded). */
    endKey: keyJson(t.end),
    storedBytes: t.storedBytes,
    logicalBytes: t.logicalBytes,
    rowCount: t.rows,
    estimates,
    /** The tablet's node in each cluster. */
    nodes: t.placements.map((p) => ({ clusterId: p.cluster, node: p.node })),
    windowSeconds: t.windowSeconds,
    rates: ratesJson(t.rates),
    singleRowHotspot:
      t.singleRowHotspot === undefined ? null : { key: keyJson(t.singleRowHotspot.key), share: round(t.singleRowHotspot.share) },
  };
}

function clusterNodesJson(c: ClusterNodesInfo) {
  return {
    clusterId: c.cluster,
    serveNodes: c.serveNodes,
    storageType: c.storageType,
    autoscaling: c.autoscaling ?? null,
    windowSeconds: c.windowSeconds,
    servingUtilization: round(c.servingUtilization),
    storedBytes: c.storedBytes,
    nodes: c.nodes.map((n) => ({
      node: n.node,
      storedBytes: n.storedBytes,
      logicalBytes: n.logicalBytes,
      tabletCount: n.tablets,
      requestsPerSec: round(n.requestsPerSec),
      servingMicrosPerSec: Math.round(n.servingMicrosPerSec),
      servingUtilization: round(n.servingMicrosPerSec / 1e6),
      loadShare: round(n.loadShare),
      tablets: n.tabletIds,
    })),
  };
}

/** `tableLabel`: the table's id, or for a materialized view's internal table `materialized view <id> (data)`. */
function hotTabletJson(h: HotTabletInfo, views: readonly MaterializedViewInfo[]) {
  const owner = internalTableOwner(h.table.table, views);
  return {
    ...tabletJson(h),
    tableLabel: owner === undefined ? h.table.table : `materialized view ${owner.view} (${owner.part})`,
    clusterId: h.cluster,
    node: h.node,
    startTime: new Date(h.startMicros / 1000).toISOString(),
    endTime: new Date(h.endMicros / 1000).toISOString(),
    servingPercentOfNode: round(h.servingPercentOfNode),
    shareOfNodeServing: round(h.shareOfNodeServing),
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
  return {
    clusterId: c.id,
    location: c.location,
    serveNodes: c.serveNodes,
    storageType: c.storageType,
    autoscaling: c.autoscaling ?? null,
  };
}

function appProfileJson(p: AppProfileInfo) {
  return { appProfileId: p.id, description: p.description, routing: p.routing, priority: p.priority };
}

/** A view's record, with how its maintenance is going (`maintenance`: pending rows, rebuilds, evaluation errors). */
function materializedViewJson(db: ServedDatabase, v: MaterializedViewInfo) {
  const status = db.materializedViewStatus?.(v.name);
  return {
    name: `projects/${v.name.project}/instances/${v.name.instance}/materializedViews/${v.name.id}`,
    materializedViewId: v.name.id,
    query: v.query,
    sourceTable: v.sourceTable,
    deletionProtection: v.deletionProtection,
    etag: v.etag,
    createTime: new Date(v.createTimeMillis).toISOString(),
    ...(status === undefined
      ? {}
      : {
          maintenance: {
            ...status,
            lastEvaluationError:
              status.lastEvaluationError === undefined
                ? null
                : { ...status.lastEvaluationError, time: new Date(status.lastEvaluationError.timeMillis).toISOString() },
          },
        }),
  };
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
