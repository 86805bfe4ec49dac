import { invalidArgument } from '../../model/errors.js';
import { LIMITS } from '../../model/limits.js';
import { AUTOSCALING_BOUNDS } from '../../tablet/autoscaler.js';
import type { AutoscalingSpec, ClusterSpec } from '../api.js';

/**
 * The checks Cloud Bigtable makes of a cluster's autoscaling config
 * (google.bigtable.admin.v2.AutoscalingLimits / AutoscalingTargets), all
 * INVALID_ARGUMENT: both limits given, 1 <= min <= max <= 10 × min; a CPU
 * target of 10-80%; a storage target of 0 (the default: 2560 GiB per node on
 * SSD, 8192 on HDD) or 2560-5120 GiB per node on SSD, 8192-16384 on HDD.
 * Returns the config with the storage default filled in.
 */
export function validateAutoscaling(
  clusterId: string,
  a: Partial<AutoscalingSpec>,
  storageType: ClusterSpec['storageType'],
): AutoscalingSpec {
  function bad(why: string): never {
    throw invalidArgument(`Cluster ${clusterId}: invalid autoscaling config: ${why}`);
  }
  const { minServeNodes: min, maxServeNodes: max, cpuUtilizationPercent: cpu } = a;
  const storage = a.storageUtilizationGibPerNode ?? 0;
  if (min === undefined || max === undefined || !(min > 0) || !(max > 0)) {
    bad('autoscaling_limits needs min_serve_nodes and max_serve_nodes (both at least 1)');
  }
  if (!Number.isInteger(min) || !Number.isInteger(max)) bad(`min_serve_nodes ${min} and max_serve_nodes ${max} must be whole numbers`);
  if (min > max) bad(`min_serve_nodes ${min} is more than max_serve_nodes ${max}`);
  if (max > AUTOSCALING_BOUNDS.maxNodesRatio * min) {
    bad(`max_serve_nodes ${max} is more than ${AUTOSCALING_BOUNDS.maxNodesRatio} times min_serve_nodes ${min}`);
  }
  if (max > LIMITS.maxServeNodes) bad(`max_serve_nodes ${max} is more than the ${LIMITS.maxServeNodes} nodes tabletop models per cluster`);
  const { minCpuPercent, maxCpuPercent } = AUTOSCALING_BOUNDS;
  if (cpu === undefined || !Number.isInteger(cpu) || cpu < minCpuPercent || cpu > maxCpuPercent) {
    bad(`autoscaling_targets.cpu_utilization_percent must be from ${minCpuPercent} to ${maxCpuPercent}, got ${cpu ?? 'none'}`);
  }
  const range = AUTOSCALING_BOUNDS.storageGibPerNode[storageType];
  if (storage !== 0 && (!Number.isInteger(storage) || storage < range.min || storage > range.max)) {
    bad(
      `storage_utilization_gib_per_node must be from ${range.min} to ${range.max} on an ${storageType.toUpperCase()} cluster (or 0 for the default ${range.default}), got ${storage}`,
    );
  }
  // 0 means the default, and the cluster reports the default it means (as Cloud Bigtable does).
  return {
    minServeNodes: min,
    maxServeNodes: max,
    cpuUtilizationPercent: cpu,
    storageUtilizationGibPerNode: storage === 0 ? range.default : storage,
  };
}
