import { invalidArgument, unimplemented } from '../../model/errors.js';
import { childNameString, instanceNameString } from '../../model/names.js';
import type {
  AppProfileInfo,
  AppProfileSpec,
  AutoscalingSpec,
  ClusterInfo,
  ClusterSpec,
  ClusterUpdate,
  InstanceInfo,
  InstanceSpec,
} from '../../db/api.js';
import { millisToTimestamp } from './int64.js';
import type { Enum, PAppProfile, PCluster, PFieldMask, PInstance } from './proto-types.js';
import { maskPaths } from './table.js';

/** Instance admin: Instance, Cluster and AppProfile messages ↔ model specs and infos. */

// ---- instances ----

export function instanceTypeFromProto(t: Enum | null | undefined): InstanceSpec['type'] {
  if (t == null || t === 'TYPE_UNSPECIFIED' || t === 0 || t === 'PRODUCTION' || t === 1) return 'production';
  if (t === 'DEVELOPMENT' || t === 2) return 'development';
  throw invalidArgument(`Unknown instance type ${String(t)}`);
}

/** The spec of a new instance; `id` is the fallback display name. */
export function instanceSpecFromProto(i: PInstance | null | undefined, id: string): InstanceSpec {
  return {
    displayName: i?.displayName || id,
    type: instanceTypeFromProto(i?.type),
    labels: { ...(i?.labels ?? {}) },
  };
}

/** The fields a PartialUpdateInstance names (or UpdateInstance replaces: display_name, type, labels). */
export function instanceUpdateFromProto(i: PInstance, mask: PFieldMask | null | undefined): Partial<InstanceSpec> {
  const paths = mask === undefined ? ['display_name', 'type', 'labels'] : maskPaths(mask);
  if (paths.length === 0) throw invalidArgument('PartialUpdateInstance: update_mask is required');
  const update: { -readonly [K in keyof InstanceSpec]?: InstanceSpec[K] } = {};
  for (const p of paths) {
    if (p === 'display_name') {
      if (!i.displayName) throw invalidArgument('Instance display_name must not be empty');
      update.displayName = i.displayName;
    } else if (p === 'type') update.type = instanceTypeFromProto(i.type);
    else if (p === 'labels') update.labels = { ...(i.labels ?? {}) };
    else throw invalidArgument(`Instance field "${p}" cannot be updated (supported: display_name, type, labels)`);
  }
  return update;
}

export function instanceToProto(info: InstanceInfo): PInstance {
  return {
    name: instanceNameString(info.name),
    displayName: info.displayName,
    state: 'READY',
    type: info.type === 'development' ? 'DEVELOPMENT' : 'PRODUCTION',
    labels: { ...info.labels },
    createTime: millisToTimestamp(info.createTimeMillis),
  };
}

// ---- clusters ----

function storageTypeFromProto(t: Enum | null | undefined): ClusterSpec['storageType'] {
  if (t == null || t === 'STORAGE_TYPE_UNSPECIFIED' || t === 0 || t === 'SSD' || t === 1) return 'ssd';
  if (t === 'HDD' || t === 2) return 'hdd';
  throw invalidArgument(`Unknown storage type ${String(t)}`);
}

interface PAutoscalingConfig {
  autoscalingLimits?: { minServeNodes?: number | null; maxServeNodes?: number | null } | null;
  autoscalingTargets?: { cpuUtilizationPercent?: number | null; storageUtilizationGibPerNode?: number | null } | null;
}

/** The cluster's autoscaling config message, undefined when absent (manual scaling). */
function autoscalingConfigOf(c: PCluster | null | undefined): PAutoscalingConfig | undefined {
  const cfg = c?.clusterConfig as { clusterAutoscalingConfig?: PAutoscalingConfig | null } | null | undefined;
  return cfg?.clusterAutoscalingConfig ?? undefined;
}

/** Every field of an autoscaling config message (absent numbers are 0, which validation rejects where 0 is not allowed). */
function autoscalingFromProto(a: PAutoscalingConfig): AutoscalingSpec {
  return {
    minServeNodes: a.autoscalingLimits?.minServeNodes ?? 0,
    maxServeNodes: a.autoscalingLimits?.maxServeNodes ?? 0,
    cpuUtilizationPercent: a.autoscalingTargets?.cpuUtilizationPercent ?? 0,
    storageUtilizationGibPerNode: a.autoscalingTargets?.storageUtilizationGibPerNode ?? 0,
  };
}

/**
 * A new cluster: manual scaling with serve_nodes (0 means 1, as for a
 * development instance), or autoscaling with cluster_config's limits and
 * targets, starting from serve_nodes when given, else from min_serve_nodes.
 */
export function clusterSpecFromProto(c: PCluster | null | undefined, clusterId: string): ClusterSpec {
  if ((c?.encryptionConfig as { kmsKeyName?: string | null } | null | undefined)?.kmsKeyName)
    throw unimplemented(`Cluster ${clusterId}: customer-managed encryption (encryption_config) is not implemented by tabletop yet`);
  if (!c?.location) throw invalidArgument(`Cluster ${clusterId}: location is required (projects/{project}/locations/{zone})`);
  const serveNodes = c.serveNodes ?? 0;
  if (!Number.isInteger(serveNodes) || serveNodes < 0) throw invalidArgument(`Cluster ${clusterId}: serve_nodes must be a positive number`);
  const storageType = storageTypeFromProto(c.defaultStorageType);
  const config = autoscalingConfigOf(c);
  if (config === undefined) return { location: c.location, serveNodes: serveNodes === 0 ? 1 : serveNodes, storageType };
  const autoscaling = autoscalingFromProto(config);
  return { location: c.location, serveNodes: serveNodes === 0 ? autoscaling.minServeNodes : serveNodes, storageType, autoscaling };
}

const AUTOSCALING = 'cluster_config.cluster_autoscaling_config';

/**
 * The fields of an autoscaling config that an update-mask path names, read
 * from the message: the whole config (null when the message has none: switch
 * to manual scaling), or some of its fields.
 */
function autoscalingUpdate(path: string, c: PCluster): Partial<AutoscalingSpec> | null | undefined {
  const config = autoscalingConfigOf(c);
  if (path === 'cluster_config' || path === AUTOSCALING) return config === undefined ? null : autoscalingFromProto(config);
  const all = autoscalingFromProto(config ?? {});
  const fields: Record<string, (keyof AutoscalingSpec)[]> = {
    [`${AUTOSCALING}.autoscaling_limits`]: ['minServeNodes', 'maxServeNodes'],
    [`${AUTOSCALING}.autoscaling_limits.min_serve_nodes`]: ['minServeNodes'],
    [`${AUTOSCALING}.autoscaling_limits.max_serve_nodes`]: ['maxServeNodes'],
    [`${AUTOSCALING}.autoscaling_targets`]: ['cpuUtilizationPercent', 'storageUtilizationGibPerNode'],
    [`${AUTOSCALING}.autoscaling_targets.cpu_utilization_percent`]: ['cpuUtilizationPercent'],
    [`${AUTOSCALING}.autoscaling_targets.storage_utilization_gib_per_node`]: ['storageUtilizationGibPerNode'],
  };
  const named = fields[path];
  if (named === undefined) return undefined;
  const out: { -readonly [K in keyof AutoscalingSpec]?: number } = {};
  for (const f of named) out[f] = all[f];
  return out;
}

/**
 * What an update changes. UpdateCluster (no mask) replaces serve_nodes only;
 * it cannot change the autoscaling config (the proto says so). A
 * PartialUpdateCluster mask names what it sets, as the clients send it:
 * `serve_nodes` with `cluster_config.cluster_autoscaling_config` and no
 * config switches to manual scaling (cbt updatecluster, the Node client's
 * setMetadata({ nodes })); `cluster_config.cluster_autoscaling_config` with a
 * config sets it whole (the Go client's SetAutoscaling); its leaf paths set
 * single limits or targets (the Node client's setMetadata({ minServeNodes,
 * maxServeNodes, cpuUtilizationPercent })).
 */
export function clusterUpdateFromProto(c: PCluster, mask: PFieldMask | null | undefined): ClusterUpdate {
  if (mask === undefined) {
    if (autoscalingConfigOf(c) !== undefined) {
      throw invalidArgument('UpdateCluster cannot change cluster_config.cluster_autoscaling_config; use PartialUpdateCluster');
    }
    const serveNodes = c.serveNodes ?? 0;
    if (!Number.isInteger(serveNodes) || serveNodes <= 0) throw invalidArgument('UpdateCluster: serve_nodes must be a positive number');
    return { serveNodes };
  }
  const paths = maskPaths(mask);
  if (paths.length === 0) throw invalidArgument('PartialUpdateCluster: update_mask is required');
  let serveNodes: number | undefined;
  let autoscaling: Partial<AutoscalingSpec> | null | undefined;
  for (const p of paths) {
    if (p === 'serve_nodes') {
      const n = c.serveNodes ?? 0;
      if (!Number.isInteger(n) || n <= 0) throw invalidArgument('PartialUpdateCluster: serve_nodes must be a positive number');
      serveNodes = n;
      continue;
    }
    const change = autoscalingUpdate(p, c);
    if (change !== undefined) {
      if ((change === null) !== (autoscaling === null) && autoscaling !== undefined) {
        throw invalidArgument(
          `PartialUpdateCluster: update_mask path "${p}" conflicts with another path of the mask (one clears the autoscaling config, the other sets part of it)`,
        );
      }
      autoscaling = change === null ? null : { ...autoscaling, ...change };
    } else if (p === 'location' || p === 'default_storage_type' || p === 'encryption_config' || p === 'node_scaling_factor') {
      throw invalidArgument(`PartialUpdateCluster: ${p} is immutable`);
    } else {
      throw invalidArgument(
        `PartialUpdateCluster: update_mask path "${p}" is not a cluster field that can be updated (supported: serve_nodes, ${AUTOSCALING} and its autoscaling_limits and autoscaling_targets fields)`,
      );
    }
  }
  return { ...(serveNodes === undefined ? {} : { serveNodes }), ...(autoscaling === undefined ? {} : { autoscaling }) };
}

export function clusterToProto(info: ClusterInfo): PCluster {
  const out: PCluster = {
    name: childNameString(info.instance, 'clusters', info.id),
    location: info.location,
    state: 'READY',
    serveNodes: info.serveNodes,
    defaultStorageType: info.storageType === 'hdd' ? 'HDD' : 'SSD',
  };
  const a = info.autoscaling;
  if (a !== undefined) {
    out.clusterConfig = {
      clusterAutoscalingConfig: {
        autoscalingLimits: { minServeNodes: a.minServeNodes, maxServeNodes: a.maxServeNodes },
        autoscalingTargets: {
          cpuUtilizationPercent: a.cpuUtilizationPercent,
          storageUtilizationGibPerNode: a.storageUtilizationGibPerNode,
        },
      },
    };
  }
  return out;
}

// ---- app profiles ----

const PRIORITIES: Readonly<Record<string, AppProfileSpec['priority']>> = {
  PRIORITY_UNSPECIFIED: 'unspecified',
  PRIORITY_LOW: 'low',
  PRIORITY_MEDIUM: 'medium',
  PRIORITY_HIGH: 'high',
  0: 'unspecified',
  1: 'low',
  2: 'medium',
  3: 'high',
};

function priorityFromProto(p: Enum | null | undefined): AppProfileSpec['priority'] {
  if (p == null) return 'unspecified';
  const v = PRIORITIES[String(p)];
  if (v === undefined) throw invalidArgument(`Unknown app profile priority ${String(p)}`);
  return v;
}

function routingFromProto(a: PAppProfile, id: string): AppProfileSpec['routing'] | undefined {
  const kind =
    a.routingPolicy ??
    (a.multiClusterRoutingUseAny != null
      ? 'multiClusterRoutingUseAny'
      : a.singleClusterRouting != null
        ? 'singleClusterRouting'
        : undefined);
  if (kind === 'multiClusterRoutingUseAny') {
    if (a.multiClusterRoutingUseAny?.rowAffinity != null)
      throw unimplemented(`App profile ${id}: row affinity routing is not implemented by tabletop yet`);
    return { kind: 'multiClusterAny', clusterIds: [...(a.multiClusterRoutingUseAny?.clusterIds ?? [])] };
  }
  if (kind === 'singleClusterRouting') {
    const s = a.singleClusterRouting ?? {};
    if (!s.clusterId) throw invalidArgument(`App profile ${id}: single_cluster_routing.cluster_id is required`);
    return { kind: 'singleCluster', clusterId: s.clusterId, allowTransactionalWrites: s.allowTransactionalWrites === true };
  }
  return undefined;
}

function isolationPriority(a: PAppProfile, id: string): AppProfileSpec['priority'] | undefined {
  if (a.dataBoostIsolationReadOnly != null)
    throw unimplemented(`App profile ${id}: Data Boost isolation is not implemented by tabletop yet`);
  if (a.standardIsolation != null) return priorityFromProto(a.standardIsolation.priority);
  if (a.priority != null) return priorityFromProto(a.priority);
  return undefined;
}

export function appProfileSpecFromProto(a: PAppProfile | null | undefined, id: string): AppProfileSpec {
  const p = a ?? {};
  const routing = routingFromProto(p, id);
  if (routing === undefined)
    throw invalidArgument(`App profile ${id}: a routing policy is required (multi_cluster_routing_use_any or single_cluster_routing)`);
  return { description: p.description ?? '', routing, priority: isolationPriority(p, id) ?? 'unspecified' };
}

export function appProfileUpdateFromProto(a: PAppProfile, mask: PFieldMask | null | undefined, id: string): Partial<AppProfileSpec> {
  const paths = maskPaths(mask);
  if (paths.length === 0) throw invalidArgument('UpdateAppProfile: update_mask is required');
  const update: { -readonly [K in keyof AppProfileSpec]?: AppProfileSpec[K] } = {};
  for (const p of paths) {
    if (p === 'description') update.description = a.description ?? '';
    else if (p === 'multi_cluster_routing_use_any' || p === 'single_cluster_routing') {
      const routing = routingFromProto(a, id);
      if (routing === undefined) throw invalidArgument(`UpdateAppProfile: ${p} is named in update_mask but not set`);
      update.routing = routing;
    } else if (p === 'priority' || p === 'standard_isolation' || p === 'standard_isolation.priority') {
      update.priority = isolationPriority(a, id) ?? 'unspecified';
    } else if (p === 'data_boost_isolation_read_only' || p.startsWith('data_boost_isolation_read_only.')) {
      throw unimplemented('UpdateAppProfile: Data Boost isolation is not implemented by tabletop yet');
    } else {
      throw invalidArgument(
        `UpdateAppProfile: update_mask path "${p}" is not supported (supported: description, multi_cluster_routing_use_any, single_cluster_routing, standard_isolation)`,
      );
    }
  }
  return update;
}

export function appProfileToProto(info: AppProfileInfo): PAppProfile {
  const out: PAppProfile = {
    name: childNameString(info.instance, 'appProfiles', info.id),
    etag: info.etag,
    description: info.description,
    standardIsolation: { priority: priorityToProto(info.priority) },
  };
  if (info.routing.kind === 'multiClusterAny') out.multiClusterRoutingUseAny = { clusterIds: [...info.routing.clusterIds] };
  else out.singleClusterRouting = { clusterId: info.routing.clusterId, allowTransactionalWrites: info.routing.allowTransactionalWrites };
  return out;
}

function priorityToProto(p: AppProfileSpec['priority']): string {
  return p === 'unspecified' ? 'PRIORITY_UNSPECIFIED' : `PRIORITY_${p.toUpperCase()}`;
}
