/**
 * Cluster autoscaling, as Cloud Bigtable does it: the node count follows the
 * measured load within [min, max] serve nodes, so that CPU utilisation stays
 * at or below the target and stored bytes per node at or below the storage
 * target. Scaling up is prompt (the next check after the recent load calls
 * for more nodes); scaling down is conservative: only when the load of the
 * last two minutes too is well served by fewer nodes, only once the cluster
 * has kept its size for `scaleDownDelayMillis` (10 minutes by default), and
 * by at most 10% of the nodes at a time, the pace Google's scaling guide
 * gives ("not more than 10% in a 10-minute period") to keep latency steady.
 *
 * The node model's CPU is serving time: a node's utilisation is the serving
 * time of the tablets it holds per second, divided by 1 s (one node's
 * capacity), and the cluster's is the average over its nodes. Pure: the
 * figures come in, the node count to have (and why) goes out.
 */

/** Cloud Bigtable's bounds on autoscaling settings (google.bigtable.admin.v2.AutoscalingTargets/Limits). */
export const AUTOSCALING_BOUNDS = Object.freeze({
  minCpuPercent: 10,
  maxCpuPercent: 80,
  /** max_serve_nodes may be at most this many times min_serve_nodes. */
  maxNodesRatio: 10,
  /** Storage targets (GiB per node) by storage type; 0 in a request means the default. */
  storageGibPerNode: {
    ssd: { min: 2560, max: 5120, default: 2560 },
    hdd: { min: 8192, max: 16384, default: 8192 },
  },
});

/** Scaling down removes at most this share of the nodes at a time (at least one). */
export const SCALE_DOWN_STEP = 0.1;

export interface AutoscaleInput {
  /** Current serve nodes. */
  readonly nodes: number;
  readonly minNodes: number;
  readonly maxNodes: number;
  readonly cpuTargetPercent: number;
  readonly storageTargetGibPerNode: number;
  /** Serving time per second (µs/s) of all the cluster's tablets over the recent window. */
  readonly recentServingMicrosPerSec: number;
  readonly recentWindowSeconds: number;
  /** The same over the longer window that a scale-down must also satisfy. */
  readonly sustainedServingMicrosPerSec: number;
  readonly sustainedWindowSeconds: number;
  readonly storedBytes: number;
  /** Time since the cluster last changed size or autoscaling settings. */
  readonly millisSinceResize: number;
  readonly scaleDownDelayMillis: number;
}

export interface AutoscaleDecision {
  /** The node count to have: `input.nodes` when nothing changes. */
  readonly nodes: number;
  /** Why, with the figures (empty when nothing changes). */
  readonly reason: string;
}

const GiB = 1024 ** 3;

export function autoscale(input: AutoscaleInput): AutoscaleDecision {
  const { nodes, minNodes, maxNodes, cpuTargetPercent } = input;
  const clamp = (n: number): number => Math.min(maxNodes, Math.max(minNodes, n));
  const storageNeed = Math.ceil(input.storedBytes / (input.storageTargetGibPerNode * GiB) - 1e-9);
  const need = (servingMicrosPerSec: number): number =>
    clamp(Math.max(1, storageNeed, Math.ceil(servingMicrosPerSec / 1e6 / (cpuTargetPercent / 100) - 1e-9)));
  const cpu = (servingMicrosPerSec: number, seconds: number): string =>
    `CPU ${percent(servingMicrosPerSec / 1e6 / nodes)} of ${nodes} node${nodes === 1 ? '' : 's'} over the last ${seconds} s (target ${cpuTargetPercent}%)`;
  const storage = `storage ${(input.storedBytes / nodes / GiB).toFixed(2)} GiB per node (target ${input.storageTargetGibPerNode} GiB)`;

  if (nodes < minNodes || nodes > maxNodes) {
    return { nodes: clamp(nodes), reason: `${nodes} nodes is outside the limits ${minNodes}-${maxNodes}` };
  }
  const up = need(input.recentServingMicrosPerSec);
  if (up > nodes) {
    const why = storageNeed >= up ? storage : cpu(input.recentServingMicrosPerSec, input.recentWindowSeconds);
    return {
      nodes: up,
      reason: `${why}; ${up} node${up === 1 ? '' : 's'} bring it within target${up === maxNodes ? ` (the maximum is ${maxNodes})` : ''}`,
    };
  }
  const serving = Math.max(input.recentServingMicrosPerSec, input.sustainedServingMicrosPerSec);
  const down = need(serving);
  if (down >= nodes || input.millisSinceResize < input.scaleDownDelayMillis) return { nodes, reason: '' };
  const to = Math.max(down, nodes - Math.max(1, Math.floor(nodes * SCALE_DOWN_STEP)));
  const window =
    input.sustainedServingMicrosPerSec >= input.recentServingMicrosPerSec ? input.sustainedWindowSeconds : input.recentWindowSeconds;
  return {
    nodes: to,
    reason:
      `${cpu(serving, window)} and ${storage}: ${down} node${down === 1 ? '' : 's'} would do; ` +
      `scaling down by at most ${Math.round(SCALE_DOWN_STEP * 100)}% of the nodes once the size has held for ${Math.round(input.scaleDownDelayMillis / 1000)} s`,
  };
}

/** The storage target of a cluster: the configured one, or its storage type's default for 0. */
export function storageTargetGib(configured: number, storageType: 'ssd' | 'hdd'): number {
  return configured > 0 ? configured : AUTOSCALING_BOUNDS.storageGibPerNode[storageType].default;
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}
