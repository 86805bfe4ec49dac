import type { ClusterSpec, DatabaseCore } from '../../db/api.js';
import { invalidArgument } from '../../model/errors.js';
import {
  type InstanceName,
  childNameString,
  instanceNameString,
  parseChildName,
  parseInstanceName,
  parseProjectName,
} from '../../model/names.js';
import {
  appProfileSpecFromProto,
  appProfileToProto,
  appProfileUpdateFromProto,
  clusterSpecFromProto,
  clusterToProto,
  clusterUpdateFromProto,
  instanceSpecFromProto,
  instanceToProto,
  instanceUpdateFromProto,
} from '../convert/instance.js';
import {
  type PCreateLogicalViewRequest,
  type PDeleteLogicalViewRequest,
  type PLogicalView,
  type PUpdateLogicalViewRequest,
  logicalViewSpecFromProto,
  logicalViewToProto,
  logicalViewUpdateFromProto,
} from '../convert/logical-view.js';
import { operationToProto } from '../convert/operation.js';
import type {
  PAppProfile,
  PCluster,
  PCreateAppProfileRequest,
  PCreateClusterRequest,
  PCreateInstanceRequest,
  PInstance,
  PNameRequest,
  POperation,
  PParentRequest,
  PPartialUpdateClusterRequest,
  PPartialUpdateInstanceRequest,
  PUpdateAppProfileRequest,
  PListHotTabletsRequest,
} from '../convert/proto-types.js';
import { hotTabletToProto, timestampToMillis } from '../convert/hot-tablet.js';
import { type ServiceSpec, resource, unary } from '../method-table.js';
import { SERVICES } from '../protos.js';
import type { Authorizer } from '../auth/authorizer.js';
import { iamMethods } from './iam.js';
import type { LogicalViewQueryCheck } from './logical-view-queries.js';
import { materializedViewMethods } from './materialized-view-methods.js';
import type { OperationStore } from './operation-store.js';
import { page } from './paging.js';
import { required } from './required.js';

/**
 * google.bigtable.admin.v2.BigtableInstanceAdmin over a DatabaseCore: instances,
 * clusters, app profiles and logical views are kept in the catalog. Calls that
 * return an Operation finish first and return it done. `-` as the instance of a
 * parent lists across all instances of the project. A logical view's query is
 * checked with the SQL engine (`checkViewQuery`) before the db stores it.
 */
export function instanceAdminService(
  db: DatabaseCore,
  operations: OperationStore,
  authorizer: Authorizer,
  checkViewQuery: LogicalViewQueryCheck,
): ServiceSpec {
  /** Instances a parent names: one, or all of the project for `-`. */
  const instancesOf = (parent: string | null | undefined, rpc: string): InstanceName[] => {
    const name = parseInstanceName(required(parent, rpc, 'parent'));
    if (name.instance === '-') return db.listInstances(name.project).map((i) => i.name);
    return [name];
  };

  const methods = {
    CreateInstance: unary<PCreateInstanceRequest, POperation>({ resource: (req) => resource('project', req.parent) }, async (req) => {
      const started = Date.now();
      const project = parseProjectName(required(req.parent, 'CreateInstance', 'parent'));
      const instanceId = required(req.instanceId, 'CreateInstance', 'instance_id');
      const clusters = new Map<string, ClusterSpec>();
      for (const [id, c] of Object.entries(req.clusters ?? {})) clusters.set(id, clusterSpecFromProto(c, id));
      if (clusters.size === 0) throw invalidArgument('CreateInstance needs at least one cluster');
      const name = { project, instance: instanceId };
      const info = await db.createInstance(name, instanceSpecFromProto(req.instance, instanceId), clusters);
      return operationToProto(
        operations.add(instanceNameString(name), { kind: 'instance', instance: info }, 'CreateInstanceMetadata', started),
      );
    }),

    GetInstance: unary<PNameRequest, PInstance>({ resource: (req) => resource('instance', req.name) }, (req) =>
      instanceToProto(db.getInstance(parseInstanceName(required(req.name, 'GetInstance', 'name')))),
    ),

    ListInstances: unary<PParentRequest, { instances: PInstance[]; failedLocations: string[]; nextPageToken: string }>(
      { resource: (req) => resource('project', req.parent) },
      (req) => {
        const project = parseProjectName(required(req.parent, 'ListInstances', 'parent'));
        const { items, nextPageToken } = page(db.listInstances(project), (i) => i.name.instance, 0, req.pageToken);
        return { instances: items.map(instanceToProto), failedLocations: [], nextPageToken };
      },
    ),

    UpdateInstance: unary<PInstance, PInstance>({ resource: (req) => resource('instance', req.name) }, async (req) => {
      const name = parseInstanceName(required(req.name, 'UpdateInstance', 'name'));
      return instanceToProto(await db.updateInstance(name, instanceUpdateFromProto(req, undefined)));
    }),

    PartialUpdateInstance: unary<PPartialUpdateInstanceRequest, POperation>(
      { resource: (req) => resource('instance', req.instance?.name) },
      async (req) => {
        const started = Date.now();
        const instance = req.instance ?? {};
        const name = parseInstanceName(required(instance.name, 'PartialUpdateInstance', 'instance.name'));
        const info = await db.updateInstance(name, instanceUpdateFromProto(instance, req.updateMask ?? { paths: [] }));
        return operationToProto(
          operations.add(instanceNameString(name), { kind: 'instance', instance: info }, 'UpdateInstanceMetadata', started),
        );
      },
    ),

    DeleteInstance: unary<PNameRequest, object>({ resource: (req) => resource('instance', req.name) }, async (req) => {
      await db.deleteInstance(parseInstanceName(required(req.name, 'DeleteInstance', 'name')));
      return {};
    }),

    CreateCluster: unary<PCreateClusterRequest, POperation>({ resource: (req) => resource('instance', req.parent) }, async (req) => {
      const started = Date.now();
      const instance = parseInstanceName(required(req.parent, 'CreateCluster', 'parent'));
      const clusterId = required(req.clusterId, 'CreateCluster', 'cluster_id');
      const info = await db.createCluster(instance, clusterId, clusterSpecFromProto(req.cluster, clusterId));
      return operationToProto(
        operations.add(
          childNameString(instance, 'clusters', clusterId),
          { kind: 'cluster', cluster: info },
          'CreateClusterMetadata',
          started,
        ),
      );
    }),

    GetCluster: unary<PNameRequest, PCluster>({ resource: (req) => resource('cluster', req.name) }, (req) => {
      const n = parseChildName(required(req.name, 'GetCluster', 'name'), 'clusters');
      return clusterToProto(db.getCluster(n, n.id));
    }),

    ListClusters: unary<PParentRequest, { clusters: PCluster[]; failedLocations: string[]; nextPageToken: string }>(
      { resource: (req) => resource('instance', req.parent) },
      (req) => {
        const clusters = instancesOf(req.parent, 'ListClusters').flatMap((i) => db.listClusters(i));
        const { items, nextPageToken } = page(clusters, (c) => childNameString(c.instance, 'clusters', c.id), 0, req.pageToken);
        return { clusters: items.map(clusterToProto), failedLocations: [], nextPageToken };
      },
    ),

    UpdateCluster: unary<PCluster, POperation>({ resource: (req) => resource('cluster', req.name) }, async (req) => {
      const started = Date.now();
      const n = parseChildName(required(req.name, 'UpdateCluster', 'name'), 'clusters');
      const info = await db.updateCluster(n, n.id, clusterUpdateFromProto(req, undefined));
      return operationToProto(
        operations.add(childNameString(n, 'clusters', n.id), { kind: 'cluster', cluster: info }, 'UpdateClusterMetadata', started),
      );
    }),

    PartialUpdateCluster: unary<PPartialUpdateClusterRequest, POperation>(
      { resource: (req) => resource('cluster', req.cluster?.name) },
      async (req) => {
        const started = Date.now();
        const cluster = req.cluster ?? {};
        const n = parseChildName(required(cluster.name, 'PartialUpdateCluster', 'cluster.name'), 'clusters');
        const info = await db.updateCluster(n, n.id, clusterUpdateFromProto(cluster, req.updateMask ?? { paths: [] }));
        return operationToProto(
          operations.add(childNameString(n, 'clusters', n.id), { kind: 'cluster', cluster: info }, 'PartialUpdateClusterMetadata', started),
        );
      },
    ),

    DeleteCluster: unary<PNameRequest, object>({ resource: (req) => resource('cluster', req.name) }, async (req) => {
      const n = parseChildName(required(req.name, 'DeleteCluster', 'name'), 'clusters');
      await db.deleteCluster(n, n.id);
      return {};
    }),

    CreateAppProfile: unary<PCreateAppProfileRequest, PAppProfile>({ resource: (req) => resource('instance', req.parent) }, async (req) => {
      const instance = parseInstanceName(required(req.parent, 'CreateAppProfile', 'parent'));
      const id = required(req.appProfileId, 'CreateAppProfile', 'app_profile_id');
      return appProfileToProto(await db.createAppProfile(instance, id, appProfileSpecFromProto(req.appProfile, id)));
    }),

    GetAppProfile: unary<PNameRequest, PAppProfile>({ resource: (req) => resource('appProfile', req.name) }, (req) => {
      const n = parseChildName(required(req.name, 'GetAppProfile', 'name'), 'appProfiles');
      return appProfileToProto(db.getAppProfile(n, n.id));
    }),

    ListAppProfiles: unary<PParentRequest, { appProfiles: PAppProfile[]; failedLocations: string[]; nextPageToken: string }>(
      { resource: (req) => resource('instance', req.parent) },
      (req) => {
        const profiles = instancesOf(req.parent, 'ListAppProfiles').flatMap((i) => db.listAppProfiles(i));
        const { items, nextPageToken } = page(
          profiles,
          (p) => childNameString(p.instance, 'appProfiles', p.id),
          req.pageSize,
          req.pageToken,
        );
        return { appProfiles: items.map(appProfileToProto), failedLocations: [], nextPageToken };
      },
    ),

    UpdateAppProfile: unary<PUpdateAppProfileRequest, POperation>(
      { resource: (req) => resource('appProfile', req.appProfile?.name) },
      async (req) => {
        const started = Date.now();
        const profile = req.appProfile ?? {};
        const n = parseChildName(required(profile.name, 'UpdateAppProfile', 'app_profile.name'), 'appProfiles');
        const info = await db.updateAppProfile(n, n.id, appProfileUpdateFromProto(profile, req.updateMask, n.id));
        return operationToProto(
          operations.add(
            childNameString(n, 'appProfiles', n.id),
            { kind: 'appProfile', appProfile: info },
            'UpdateAppProfileMetadata',
            started,
          ),
        );
      },
    ),

    DeleteAppProfile: unary<PNameRequest, object>({ resource: (req) => resource('appProfile', req.name) }, async (req) => {
      const n = parseChildName(required(req.name, 'DeleteAppProfile', 'name'), 'appProfiles');
      await db.deleteAppProfile(n, n.id);
      return {};
    }),

    ListHotTablets: unary<PListHotTabletsRequest, { hotTablets: object[]; nextPageToken: string }>(
      { resource: (req) => resource('cluster', req.parent) },
      (req) => {
        // parent: projects/{p}/instances/{i}/clusters/{c}; "-" as the cluster means all clusters.
        const parent = parseChildName(required(req.parent, 'ListHotTablets', 'parent'), 'clusters');
        const instance = { project: parent.project, instance: parent.instance };
        const nowMillis = Date.now();
        const start = timestampToMillis(req.startTime, 'start_time');
        const end = timestampToMillis(req.endTime, 'end_time') ?? nowMillis;
        if (start !== undefined && start > end) throw invalidArgument('ListHotTablets: start_time must not be after end_time');
        // tabletop keeps the last two minutes of load per tablet: the window is clamped to that.
        const windowSeconds = Math.max(1, Math.min(110, Math.round((end - (start ?? end - 60_000)) / 1000)));
        const hot = db.listHotTablets(instance, windowSeconds, parent.id === '-' ? undefined : parent.id);
        const ranked = hot.map((h, i) => ({ rank: String(i).padStart(8, '0'), h }));
        const { items, nextPageToken } = page(ranked, (r) => r.rank, req.pageSize, req.pageToken);
        return { hotTablets: items.map((r) => hotTabletToProto(r.h)), nextPageToken };
      },
    ),

    CreateLogicalView: unary<PCreateLogicalViewRequest, POperation>(
      { resource: (req) => resource('instance', req.parent) },
      async (req) => {
        const started = Date.now();
        const instance = parseInstanceName(required(req.parent, 'CreateLogicalView', 'parent'));
        const id = required(req.logicalViewId, 'CreateLogicalView', 'logical_view_id');
        const spec = logicalViewSpecFromProto(req.logicalView);
        db.getInstance(instance);
        await checkViewQuery(instance, id, spec.query);
        const info = await db.createLogicalView(instance, id, spec);
        return operationToProto(
          operations.add(
            childNameString(instance, 'logicalViews', id),
            { kind: 'logicalView', logicalView: info },
            'CreateLogicalViewMetadata',
            started,
          ),
        );
      },
    ),

    GetLogicalView: unary<PNameRequest, PLogicalView>({ resource: (req) => resource('logicalView', req.name) }, (req) => {
      const n = parseChildName(required(req.name, 'GetLogicalView', 'name'), 'logicalViews');
      return logicalViewToProto(db.getLogicalView(n, n.id));
    }),

    ListLogicalViews: unary<PParentRequest, { logicalViews: PLogicalView[]; nextPageToken: string }>(
      { resource: (req) => resource('instance', req.parent) },
      (req) => {
        const views = instancesOf(req.parent, 'ListLogicalViews').flatMap((i) => db.listLogicalViews(i));
        const { items, nextPageToken } = page(views, (v) => childNameString(v.instance, 'logicalViews', v.id), req.pageSize, req.pageToken);
        return { logicalViews: items.map(logicalViewToProto), nextPageToken };
      },
    ),

    UpdateLogicalView: unary<PUpdateLogicalViewRequest, POperation>(
      { resource: (req) => resource('logicalView', req.logicalView?.name) },
      async (req) => {
        const started = Date.now();
        const view = req.logicalView ?? {};
        const n = parseChildName(required(view.name, 'UpdateLogicalView', 'logical_view.name'), 'logicalViews');
        const update = logicalViewUpdateFromProto(view, req.updateMask);
        const etag = view.etag ?? undefined;
        db.getLogicalView(n, n.id); // NOT_FOUND before the new query is checked
        if (update.query !== undefined) await checkViewQuery(n, n.id, update.query);
        const info = await db.updateLogicalView(n, n.id, update, etag);
        return operationToProto(
          operations.add(
            childNameString(n, 'logicalViews', n.id),
            { kind: 'logicalView', logicalView: info },
            'UpdateLogicalViewMetadata',
            started,
          ),
        );
      },
    ),

    DeleteLogicalView: unary<PDeleteLogicalViewRequest, object>({ resource: (req) => resource('logicalView', req.name) }, async (req) => {
      const n = parseChildName(required(req.name, 'DeleteLogicalView', 'name'), 'logicalViews');
      await db.deleteLogicalView(n, n.id, req.etag ?? undefined);
      return {};
    }),

    ...materializedViewMethods(db, operations, instancesOf),
    ...iamMethods(db, authorizer),
  };

  return {
    service: SERVICES.instanceAdmin,
    methods,
  };
}
