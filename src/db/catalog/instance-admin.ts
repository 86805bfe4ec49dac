import type { MaybePromise } from '../../storage/store.js';
import type { Config } from '../../config.js';
import type { Clock } from '../../model/clock.js';
import { alreadyExists, failedPrecondition, invalidArgument, notFound } from '../../model/errors.js';
import type { InstanceName } from '../../model/names.js';
import { instanceNameString } from '../../model/names.js';
import type {
  AppProfileInfo,
  AppProfileSpec,
  AutoscalingSpec,
  ClusterInfo,
  ClusterSpec,
  ClusterUpdate,
  InstanceInfo,
  InstanceSpec,
} from '../api.js';
import type { Catalog, InstanceEntry } from './catalog.js';
import type { AppProfileRecord, ClusterRecord, TableRecord } from './catalog-state.js';
import {
  validateAppProfileId,
  validateClusterId,
  validateDisplayName,
  validateInstanceId,
  validateLocation,
  validateServeNodes,
} from './validate-names.js';
import { validateAutoscaling } from './validate-autoscaling.js';
import { protectedViews, viewName } from './authorized-views.js';

/** The id of the app profile every instance has. */
export const DEFAULT_APP_PROFILE_ID = 'default';

/**
 * Instance Admin: instances, clusters and app profiles, kept in the catalog.
 *
 * An instance exists once CreateInstance created it, or once a client used it
 * the way an emulator user does without creating it first: CreateTable in an
 * instance that does not exist creates it implicitly (`use`), with one
 * cluster `<instance>-c1` (the id the Cloud console gives a first cluster) in
 * the configured default zone, `config.nodes` serve nodes, and the `default`
 * app profile. Data calls need a table, so they never meet an instance that
 * does not exist (their answer is the table's NOT_FOUND).
 *
 * Nothing else creates an instance: every other call naming one that does
 * not exist answers NOT_FOUND, as Cloud Bigtable does (`find`). That covers
 * the read-only calls (GetInstance, ListTables, GetCluster, ListClusters,
 * the app profiles, ListHotTablets, PingAndWarm, IAM policies, the HTTP API:
 * a client's `instance.exists()` is false for an instance nobody created), and the
 * instance-admin changes to a missing instance (UpdateInstance,
 * DeleteInstance, CreateCluster, UpdateCluster, CreateAppProfile, ...).
 */
export class InstanceAdmin {
  constructor(
    private readonly catalog: Catalog,
    private readonly clock: Clock,
    private readonly config: Config,
    /** Drops the data of tables removed with their instance. */
    private readonly dropTables: (instance: InstanceName, tables: readonly TableRecord[]) => MaybePromise<void>,
  ) {}

  /** The instance, creating it implicitly when it does not exist yet (CreateTable). */
  use(name: InstanceName): InstanceEntry {
    return this.catalog.instance(name) ?? this.materialise(name);
  }

  /** The instance, or NOT_FOUND: it was never created nor used by a CreateTable. */
  find(name: InstanceName): InstanceEntry {
    const entry = this.catalog.instance(name);
    if (entry === undefined) throw notFound(`Instance ${instanceNameString(name)} not found`);
    return entry;
  }

  createInstance(name: InstanceName, spec: InstanceSpec, clusters: ReadonlyMap<string, ClusterSpec>): InstanceInfo {
    validateInstanceId(name.instance);
    validateDisplayName(spec.displayName);
    if (clusters.size === 0) throw invalidArgument('An instance needs at least one cluster');
    const records: ClusterRecord[] = [];
    for (const [id, c] of clusters) records.push(this.clusterRecord(name, id, c));
    const existing = this.catalog.instance(name);
    if (existing?.record.explicit === true) throw alreadyExists(`Instance ${instanceNameString(name)} already exists`);
    if (existing !== undefined) {
      // It was only used so far: creating it now gives it the requested spec and clusters, keeping its tables.
      existing.update({ ...specOf(spec), explicit: true, clusters: records, createTimeMillis: this.nowMillis() });
      return instanceInfo(existing);
    }
    const entry = this.catalog.addInstance({
      project: name.project,
      id: name.instance,
      ...specOf(spec),
      createTimeMillis: this.nowMillis(),
      explicit: true,
      clusters: records,
      appProfiles: [this.defaultAppProfile()],
      tables: [],
    });
    return instanceInfo(entry);
  }

  getInstance(name: InstanceName): InstanceInfo {
    return instanceInfo(this.find(name));
  }

  listInstances(project: string): InstanceInfo[] {
    return this.catalog.instancesOf(project).map(instanceInfo);
  }

  updateInstance(name: InstanceName, update: Partial<InstanceSpec>): InstanceInfo {
    const entry = this.find(name);
    if (update.displayName !== undefined) validateDisplayName(update.displayName);
    entry.update(specOf({ ...entry.record, ...stripUndefined(update) }));
    return instanceInfo(entry);
  }

  /** Deletes the instance; resolves once its tables' data is gone too. */
  deleteInstance(name: InstanceName): MaybePromise<void> {
    const entry = this.find(name);
    const protectedTables = [...entry.tables.values()].filter((t) => t.deletionProtection).map((t) => t.id);
    if (protectedTables.length > 0) {
      throw failedPrecondition(
        `Instance ${instanceNameString(name)} cannot be deleted: deletion protection is enabled on table(s) ${protectedTables.join(', ')}`,
      );
    }
    const protectedViewNames = [...entry.tables.values()].flatMap((t) =>
      protectedViews(t).map((id) => viewName({ ...name, table: t.id }, id)),
    );
    if (protectedViewNames.length > 0) {
      throw failedPrecondition(
        `Instance ${instanceNameString(name)} cannot be deleted: deletion protection is enabled on authorized view(s) ${protectedViewNames.join(', ')}`,
      );
    }
    const tables = [...entry.tables.values()];
    this.catalog.deleteInstance(name);
    return this.dropTables(name, tables);
  }

  createCluster(instance: InstanceName, clusterId: string, spec: ClusterSpec): ClusterInfo {
    const entry = this.find(instance);
    const record = this.clusterRecord(instance, clusterId, spec);
    if (entry.clusters.some((c) => c.id === clusterId)) {
      throw alreadyExists(`Cluster ${instanceNameString(instance)}/clusters/${clusterId} already exists`);
    }
    entry.update({ clusters: [...entry.clusters, record] });
    return clusterInfo(instance, record);
  }

  getCluster(instance: InstanceName, clusterId: string): ClusterInfo {
    return clusterInfo(instance, this.cluster(this.find(instance), instance, clusterId));
  }

  listClusters(instance: InstanceName): ClusterInfo[] {
    return this.find(instance).clusters.map((c) => clusterInfo(instance, c));
  }

  updateCluster(instance: InstanceName, clusterId: string, update: ClusterUpdate): ClusterInfo {
    const entry = this.find(instance);
    const current = this.cluster(entry, instance, clusterId);
    const next = updatedCluster(current, update);
    entry.update({ clusters: entry.clusters.map((c) => (c.id === clusterId ? next : c)) });
    return clusterInfo(instance, next);
  }

  /** Sets the node count of a cluster (the autoscaler's decision; no checks). */
  setServeNodes(instance: InstanceName, clusterId: string, serveNodes: number): ClusterInfo {
    const entry = this.find(instance);
    const next: ClusterRecord = { ...this.cluster(entry, instance, clusterId), serveNodes };
    entry.update({ clusters: entry.clusters.map((c) => (c.id === clusterId ? next : c)) });
    return clusterInfo(instance, next);
  }

  deleteCluster(instance: InstanceName, clusterId: string): void {
    const entry = this.find(instance);
    this.cluster(entry, instance, clusterId);
    if (entry.clusters.length === 1) {
      throw failedPrecondition(
        `Cluster ${clusterId} is the last cluster of instance ${instance.instance}; an instance needs at least one cluster`,
      );
    }
    const routed = entry.appProfiles.filter((p) => p.routing.kind === 'singleCluster' && p.routing.clusterId === clusterId);
    if (routed.length > 0) {
      throw failedPrecondition(`Cluster ${clusterId} is used by app profile(s) ${routed.map((p) => p.id).join(', ')}`);
    }
    entry.update({ clusters: entry.clusters.filter((c) => c.id !== clusterId) });
  }

  createAppProfile(instance: InstanceName, profileId: string, spec: AppProfileSpec): AppProfileInfo {
    validateAppProfileId(profileId);
    const entry = this.find(instance);
    if (entry.appProfiles.some((p) => p.id === profileId)) {
      throw alreadyExists(`App profile ${instanceNameString(instance)}/appProfiles/${profileId} already exists`);
    }
    this.checkRouting(entry, spec.routing);
    const record: AppProfileRecord = { id: profileId, ...appProfileSpecOf(spec), etag: this.catalog.newId('etag-') };
    entry.update({ appProfiles: [...entry.appProfiles, record] });
    return appProfileInfo(instance, record);
  }

  getAppProfile(instance: InstanceName, profileId: string): AppProfileInfo {
    return appProfileInfo(instance, this.appProfile(this.find(instance), instance, profileId));
  }

  listAppProfiles(instance: InstanceName): AppProfileInfo[] {
    return this.find(instance).appProfiles.map((p) => appProfileInfo(instance, p));
  }

  updateAppProfile(instance: InstanceName, profileId: string, update: Partial<AppProfileSpec>): AppProfileInfo {
    const entry = this.find(instance);
    const current = this.appProfile(entry, instance, profileId);
    const spec = appProfileSpecOf({ ...current, ...stripUndefined(update) });
    this.checkRouting(entry, spec.routing);
    const next: AppProfileRecord = { id: profileId, ...spec, etag: this.catalog.newId('etag-') };
    entry.update({ appProfiles: entry.appProfiles.map((p) => (p.id === profileId ? next : p)) });
    return appProfileInfo(instance, next);
  }

  deleteAppProfile(instance: InstanceName, profileId: string): void {
    const entry = this.find(instance);
    this.appProfile(entry, instance, profileId);
    entry.update({ appProfiles: entry.appProfiles.filter((p) => p.id !== profileId) });
  }

  private materialise(name: InstanceName): InstanceEntry {
    return this.catalog.addInstance({
      project: name.project,
      id: name.instance,
      displayName: name.instance,
      type: 'production',
      labels: {},
      createTimeMillis: this.nowMillis(),
      explicit: false,
      clusters: [
        {
          id: `${name.instance}-c1`,
          location: `projects/${name.project}/locations/${this.config.defaultZone}`,
          serveNodes: this.config.nodes,
          storageType: 'ssd',
        },
      ],
      appProfiles: [this.defaultAppProfile()],
      tables: [],
    });
  }

  private defaultAppProfile(): AppProfileRecord {
    return {
      id: DEFAULT_APP_PROFILE_ID,
      description: 'Default app profile',
      routing: { kind: 'multiClusterAny', clusterIds: [] },
      priority: 'unspecified',
      etag: this.catalog.newId('etag-'),
    };
  }

  private clusterRecord(instance: InstanceName, id: string, spec: ClusterSpec): ClusterRecord {
    validateClusterId(id);
    const location = spec.location === '' ? `projects/${instance.project}/locations/${this.config.defaultZone}` : spec.location;
    validateLocation(location);
    if (spec.autoscaling === undefined) {
      validateServeNodes(spec.serveNodes);
      return { id, location, serveNodes: spec.serveNodes, storageType: spec.storageType };
    }
    const autoscaling = validateAutoscaling(id, spec.autoscaling, spec.storageType);
    return { id, location, serveNodes: withinLimits(spec.serveNodes, autoscaling), storageType: spec.storageType, autoscaling };
  }

  private cluster(entry: InstanceEntry, instance: InstanceName, clusterId: string): ClusterRecord {
    const c = entry.clusters.find((x) => x.id === clusterId);
    if (c === undefined) throw notFound(`Cluster ${instanceNameString(instance)}/clusters/${clusterId} not found`);
    return c;
  }

  private appProfile(entry: InstanceEntry, instance: InstanceName, profileId: string): AppProfileRecord {
    const p = entry.appProfiles.find((x) => x.id === profileId);
    if (p === undefined) throw notFound(`App profile ${instanceNameString(instance)}/appProfiles/${profileId} not found`);
    return p;
  }

  private checkRouting(entry: InstanceEntry, routing: AppProfileSpec['routing']): void {
    const ids = routing.kind === 'singleCluster' ? [routing.clusterId] : routing.clusterIds;
    for (const id of ids) {
      if (!entry.clusters.some((c) => c.id === id)) {
        throw invalidArgument(`App profile routes to cluster "${id}", which does not exist in instance ${entry.record.id}`);
      }
    }
  }

  private nowMillis(): number {
    return Math.floor(this.clock.nowMicros() / 1000);
  }
}

/**
 * A cluster after an update: location and storage type are immutable; the
 * node count is set by hand only under manual scaling; switching to
 * autoscaling keeps the count within the limits, switching back keeps it
 * (or takes the one given).
 */
function updatedCluster(current: ClusterRecord, update: ClusterUpdate): ClusterRecord {
  const id = current.id;
  if (update.location !== undefined && update.location !== '' && update.location !== current.location) {
    throw invalidArgument(`The location of cluster ${id} cannot be changed`);
  }
  if (update.storageType !== undefined && update.storageType !== current.storageType) {
    throw invalidArgument(`The storage type of cluster ${id} cannot be changed`);
  }
  const { autoscaling: _, ...manual } = current;
  if (update.autoscaling === null) {
    const serveNodes = update.serveNodes ?? current.serveNodes;
    validateServeNodes(serveNodes);
    return { ...manual, serveNodes };
  }
  if (update.autoscaling !== undefined) {
    if (update.serveNodes !== undefined) {
      throw invalidArgument(
        `Cluster ${id}: serve_nodes cannot be set together with an autoscaling config (autoscaling sets the node count)`,
      );
    }
    if (
      current.autoscaling === undefined &&
      (update.autoscaling.minServeNodes === undefined ||
        update.autoscaling.maxServeNodes === undefined ||
        update.autoscaling.cpuUtilizationPercent === undefined)
    ) {
      throw invalidArgument(
        `Cluster ${id} is scaled manually: to turn autoscaling on, give cluster_config.cluster_autoscaling_config with autoscaling_limits (min_serve_nodes, max_serve_nodes) and autoscaling_targets.cpu_utilization_percent`,
      );
    }
    const autoscaling = validateAutoscaling(id, { ...current.autoscaling, ...stripUndefined(update.autoscaling) }, current.storageType);
    return { ...current, autoscaling, serveNodes: withinLimits(current.serveNodes, autoscaling) };
  }
  if (update.serveNodes === undefined) return current;
  if (current.autoscaling !== undefined) {
    const { minServeNodes: min, maxServeNodes: max } = current.autoscaling;
    throw invalidArgument(
      `Cluster ${id} is autoscaled (${min}-${max} nodes): its serve_nodes are set by autoscaling; clear cluster_config.cluster_autoscaling_config in the same request to scale it by hand (as cbt updatecluster does)`,
    );
  }
  validateServeNodes(update.serveNodes);
  return { ...current, serveNodes: update.serveNodes };
}

function withinLimits(serveNodes: number, a: AutoscalingSpec): number {
  return Math.min(a.maxServeNodes, Math.max(a.minServeNodes, serveNodes));
}

function specOf(s: InstanceSpec): InstanceSpec {
  return { displayName: s.displayName, type: s.type, labels: { ...s.labels } };
}

function appProfileSpecOf(s: AppProfileSpec): AppProfileSpec {
  return { description: s.description, routing: s.routing, priority: s.priority };
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

function instanceInfo(entry: InstanceEntry): InstanceInfo {
  const r = entry.record;
  return {
    name: { project: r.project, instance: r.id },
    displayName: r.displayName,
    type: r.type,
    labels: { ...r.labels },
    createTimeMillis: r.createTimeMillis,
  };
}

function clusterInfo(instance: InstanceName, c: ClusterRecord): ClusterInfo {
  return { instance, id: c.id, location: c.location, serveNodes: c.serveNodes, storageType: c.storageType, autoscaling: c.autoscaling };
}

function appProfileInfo(instance: InstanceName, p: AppProfileRecord): AppProfileInfo {
  return { instance, id: p.id, description: p.description, routing: p.routing, priority: p.priority, etag: p.etag };
}
