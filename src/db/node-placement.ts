import type { Config } from '../config.js';
import type { LogFields } from '../log.js';
import type { Clock } from '../model/clock.js';
import { childNameString, type InstanceName } from '../model/names.js';
import type { MaybePromise } from '../storage/store.js';
import { autoscale, storageTargetGib } from '../tablet/autoscaler.js';
import { balance, type TabletPlacement } from '../tablet/balancer.js';
import type { Catalog } from './catalog/catalog.js';
import type { ClusterRecord } from './catalog/catalog-state.js';
import type { TableAdmin } from './table-admin.js';
import type { TableRuntime } from './table-runtime.js';
import { VIEW_WINDOW_SECONDS } from './tablet-views.js';

/** The longer window a scale-down must also satisfy (the load meters keep two minutes). */
const SUSTAINED_WINDOW_SECONDS = 110;

export interface NodePlacementDeps {
  readonly tables: TableAdmin;
  readonly catalog: Catalog;
  readonly clock: Clock;
  readonly config: Config;
  /** Records an autoscaling decision: the cluster's serve_nodes, changed in the catalog at once, then made durable. */
  readonly setServeNodes: (instance: InstanceName, clusterId: string, serveNodes: number) => MaybePromise<void>;
  /** Info-level events (splits, merges, moves, resizes, hotspots), with their figures as fields. */
  readonly log: (message: string, fields?: LogFields) => void;
}

type Move = { readonly id: string; readonly from: number | undefined; readonly to: number; readonly reason: string };

/**
 * The node model: a cluster's serve_nodes are its modelled serving nodes.
 * tabletop keeps one copy of the data and does not model replication, so
 * every cluster of an instance is modelled as a full replica serving the
 * instance's whole load (writes reach every cluster by replication; which
 * cluster an app profile would route a read to is not modelled, so each
 * counts every read): each cluster places every tablet of the instance on
 * one of its own nodes and balances them on its own (balancer.ts), and
 * autoscales on its own (autoscaler.ts). With one cluster, the usual case,
 * this is simply the cluster serving the instance. Changing a cluster's node
 * count (UpdateCluster, autoscaling) rebalances it at once: tablets leave
 * removed nodes and spread onto new ones, each move logged with its reason.
 */
export class NodePlacement {
  /** Node of each tablet in each cluster: cluster name → tablet id → node. */
  private readonly placement = new Map<string, Map<string, number>>();
  /** When each cluster last changed size or autoscaling settings (µs): scale-downs wait for it. */
  private readonly lastResize = new Map<string, number>();

  constructor(private readonly deps: NodePlacementDeps) {}

  /** The instance's clusters, in catalog order. */
  clustersOf(instance: InstanceName): readonly ClusterRecord[] {
    return this.deps.catalog.instance(instance)?.clusters ?? [];
  }

  /** The instance's live tables. */
  *tablesOf(instance: InstanceName): Iterable<TableRuntime> {
    for (const r of this.deps.tables.liveTables()) {
      if (r.name.project === instance.project && r.name.instance === instance.instance && !r.deleted) yield r;
    }
  }

  /** The node of a tablet in a cluster, if it has one. */
  nodeOf(instance: InstanceName, clusterId: string, tabletId: string): number | undefined {
    return this.nodesOf(instance, clusterId).get(tabletId);
  }

  /**
   * Places, in every cluster of the instance, the tablets that have no node
   * yet (new tables, children of a split, a new cluster) or whose node is
   * gone (the cluster shrank); moves off removed nodes are logged.
   */
  placeNew(instance: InstanceName): void {
    for (const c of this.clustersOf(instance)) this.placeNewIn(instance, c);
  }

  /** The tablets that replace `parentId` (a split's children, a merge's result) stay on its node in every cluster. */
  inherit(parentId: string, childIds: readonly string[]): void {
    for (const nodeOf of this.placement.values()) {
      const node = nodeOf.get(parentId);
      if (node === undefined) continue;
      for (const id of childIds) nodeOf.set(id, node);
    }
  }

  /** Forgets a tablet that no longer exists. */
  forget(tabletId: string): void {
    for (const nodeOf of this.placement.values()) nodeOf.delete(tabletId);
  }

  /**
   * One round for every instance: each autoscaled cluster is
   * sized to its load, then every cluster's tablets are balanced (a few
   * moves a round). Clusters that no longer exist are forgotten.
   */
  async balanceNodes(): Promise<void> {
    const instances = [...this.deps.catalog.allInstances()].map((e) => ({ project: e.record.project, instance: e.record.id }));
    const live = new Set<string>();
    for (const instance of instances) {
      for (const { id } of this.clustersOf(instance)) {
        live.add(childNameString(instance, 'clusters', id));
        await this.autoscaleCluster(instance, id);
      }
      for (const c of this.clustersOf(instance)) {
        this.placeNewIn(instance, c);
        this.apply(instance, c, balance(this.placements(instance, c), { nodes: c.serveNodes }), '');
      }
    }
    for (const key of this.placement.keys()) if (!live.has(key)) this.placement.delete(key);
    for (const key of this.lastResize.keys()) if (!live.has(key)) this.lastResize.delete(key);
  }

  /**
   * A cluster's node count or autoscaling settings changed (an admin call or
   * the autoscaler): the change is logged, and when the count changed the
   * cluster is rebalanced at once, every move logged.
   */
  clusterChanged(instance: InstanceName, clusterId: string, from: number, cause: string): void {
    const name = childNameString(instance, 'clusters', clusterId);
    this.lastResize.set(name, this.deps.clock.nowMicros());
    const cluster = this.clustersOf(instance).find((c) => c.id === clusterId);
    if (cluster === undefined || cluster.serveNodes === from) return;
    this.deps.log(`cluster ${name} resized from ${from} to ${cluster.serveNodes} nodes: ${cause}`, {
      event: 'cluster-resized',
      cluster: name,
      fromNodes: from,
      toNodes: cluster.serveNodes,
      cause,
    });
    const moves = balance(this.placements(instance, cluster), { nodes: cluster.serveNodes, maxMoves: Number.POSITIVE_INFINITY });
    this.apply(instance, cluster, moves, `cluster resized from ${from} to ${cluster.serveNodes} nodes; `);
  }

  /** The node of each tablet in one cluster. */
  private nodesOf(instance: InstanceName, clusterId: string): Map<string, number> {
    const key = childNameString(instance, 'clusters', clusterId);
    let m = this.placement.get(key);
    if (m === undefined) {
      m = new Map();
      this.placement.set(key, m);
    }
    return m;
  }

  private placeNewIn(instance: InstanceName, cluster: ClusterRecord): void {
    const placements = this.placements(instance, cluster);
    if (placements.every((p) => p.node !== undefined && p.node < cluster.serveNodes)) return;
    this.apply(instance, cluster, balance(placements, { nodes: cluster.serveNodes, maxMoves: 0 }), '');
  }

  private placements(instance: InstanceName, cluster: ClusterRecord): TabletPlacement[] {
    const now = this.deps.clock.nowMicros();
    const nodeOf = this.nodesOf(instance, cluster.id);
    const out: TabletPlacement[] = [];
    for (const runtime of this.tablesOf(instance)) {
      for (const t of runtime.tablets.tablets) {
        out.push({
          id: t.id,
          bytes: t.store.stats().bytes,
          load: runtime.meter(t.id).rates(now, VIEW_WINDOW_SECONDS).cpuMicrosPerSec,
          node: nodeOf.get(t.id),
        });
      }
    }
    return out;
  }

  /** Records moves in a cluster, logging those of tablets that had a node (with `why` before their reason). */
  private apply(instance: InstanceName, cluster: ClusterRecord, moves: readonly Move[], why: string): void {
    const nodeOf = this.nodesOf(instance, cluster.id);
    for (const m of moves) {
      nodeOf.set(m.id, m.to);
      if (m.from !== undefined) {
        this.deps.log(
          `moved tablet ${m.id} of ${childNameString(instance, 'clusters', cluster.id)} from node ${m.from} to node ${m.to}: ${why}${m.reason}`,
          {
            event: 'tablet-moved',
            cluster: childNameString(instance, 'clusters', cluster.id),
            tablet: m.id,
            fromNode: m.from,
            toNode: m.to,
            reason: `${why}${m.reason}`,
          },
        );
      }
    }
  }

  /**
   * Sizes a cluster to its load if it is autoscaled (autoscaler.ts), recording
   * and logging any change. The decision is taken on the cluster as it is now
   * and recorded before anything is awaited (an admin call that changed the
   * cluster since the round began is not undone by a decision taken before it),
   * and the resize is applied at once; then its persistence is awaited.
   */
  private async autoscaleCluster(instance: InstanceName, clusterId: string): Promise<void> {
    const cluster = this.clustersOf(instance).find((c) => c.id === clusterId);
    const a = cluster?.autoscaling;
    if (cluster === undefined || a === undefined) return;
    const now = this.deps.clock.nowMicros();
    const name = childNameString(instance, 'clusters', cluster.id);
    if (!this.lastResize.has(name)) this.lastResize.set(name, now);
    let recent = 0;
    let sustained = 0;
    let stored = 0;
    for (const runtime of this.tablesOf(instance)) {
      for (const t of runtime.tablets.tablets) {
        const meter = runtime.meter(t.id);
        recent += meter.rates(now, VIEW_WINDOW_SECONDS).cpuMicrosPerSec;
        sustained += meter.rates(now, SUSTAINED_WINDOW_SECONDS).cpuMicrosPerSec;
        stored += t.store.stats().bytes;
      }
    }
    const decision = autoscale({
      nodes: cluster.serveNodes,
      minNodes: a.minServeNodes,
      maxNodes: a.maxServeNodes,
      cpuTargetPercent: a.cpuUtilizationPercent,
      storageTargetGibPerNode: storageTargetGib(a.storageUtilizationGibPerNode, cluster.storageType),
      recentServingMicrosPerSec: recent,
      recentWindowSeconds: VIEW_WINDOW_SECONDS,
      sustainedServingMicrosPerSec: sustained,
      sustainedWindowSeconds: SUSTAINED_WINDOW_SECONDS,
      storedBytes: stored,
      millisSinceResize: (now - this.lastResize.get(name)!) / 1000,
      scaleDownDelayMillis: this.deps.config.autoscaleDownDelayMillis,
    });
    if (decision.nodes === cluster.serveNodes) return;
    const persisted = this.deps.setServeNodes(instance, cluster.id, decision.nodes);
    this.clusterChanged(instance, cluster.id, cluster.serveNodes, `autoscaling: ${decision.reason}`);
    await persisted;
  }
}
