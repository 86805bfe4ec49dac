import type { ByteString } from '../model/bytes.js';
import type { Tablet } from '../tablet/tablet.js';
import type { ClusterNodesInfo, HotTabletInfo, NodeInfo, TabletInfo } from './api.js';
import type { ClusterRecord } from './catalog/catalog-state.js';
import type { TableRuntime } from './table-runtime.js';

/** The window of recent load that tablet views and decisions use (and autoscaling scales up on). */
export const VIEW_WINDOW_SECONDS = 10;

/**
 * What the views read, as it is now: the tablets of an instance, its
 * clusters, the node of each tablet in each cluster, and the single-row
 * hotspots recognised. The views only read; placing tablets that have no
 * node yet is the caller's business (node-placement.ts), done before.
 */
export interface TabletViewSource {
  readonly nowMicros: number;
  /** The instance's clusters, in catalog order. */
  readonly clusters: readonly ClusterRecord[];
  /** The instance's live tables. */
  readonly tables: readonly TableRuntime[];
  /** The node of a tablet in a cluster (0 for a tablet not placed yet). */
  nodeOf(clusterId: string, tabletId: string): number;
  singleRowHotspot(tabletId: string): { readonly key: ByteString; readonly share: number } | undefined;
}

/** A table's tablets in key order, with their figures over the view window. */
export function tabletsView(source: TabletViewSource, runtime: TableRuntime): TabletInfo[] {
  return runtime.tablets.tablets.map((t) => tabletInfo(source, runtime, t, VIEW_WINDOW_SECONDS));
}

/** Each cluster with its modelled nodes: what each holds and serves over the view window. */
export function nodesView(source: TabletViewSource): ClusterNodesInfo[] {
  const tablets = allTablets(source, VIEW_WINDOW_SECONDS);
  return source.clusters.map((cluster, ci) => {
    const nodes = Array.from({ length: cluster.serveNodes }, (_, node) => ({
      node,
      storedBytes: 0,
      logicalBytes: 0,
      tablets: 0,
      servingMicrosPerSec: 0,
      requestsPerSec: 0,
      loadShare: 0,
      tabletIds: [] as string[],
    }));
    let serving = 0;
    let stored = 0;
    for (const t of tablets) {
      const n = nodes[t.placements[ci]!.node]!;
      n.storedBytes += t.storedBytes;
      n.logicalBytes += t.logicalBytes;
      n.tablets++;
      n.servingMicrosPerSec += t.rates.cpuMicrosPerSec;
      n.requestsPerSec += t.rates.requestsPerSec;
      n.tabletIds.push(t.id);
      serving += t.rates.cpuMicrosPerSec;
      stored += t.storedBytes;
    }
    return {
      cluster: cluster.id,
      serveNodes: cluster.serveNodes,
      storageType: cluster.storageType,
      autoscaling: cluster.autoscaling,
      windowSeconds: VIEW_WINDOW_SECONDS,
      servingUtilization: serving / 1e6 / cluster.serveNodes,
      storedBytes: stored,
      nodes: nodes.map((n): NodeInfo => ({ ...n, loadShare: serving > 0 ? n.servingMicrosPerSec / serving : 0 })),
    };
  });
}

/**
 * Tablets with load over the window, in each cluster (or the one named), by
 * the serving time they cost their node, hottest first.
 */
export function hotTabletsView(source: TabletViewSource, windowSeconds: number, clusterId: string | undefined): HotTabletInfo[] {
  const now = source.nowMicros;
  const tablets = allTablets(source, windowSeconds);
  const out: HotTabletInfo[] = [];
  source.clusters.forEach((cluster, ci) => {
    if (clusterId !== undefined && cluster.id !== clusterId) return;
    const perNode = new Map<number, number>();
    for (const t of tablets) {
      const node = t.placements[ci]!.node;
      perNode.set(node, (perNode.get(node) ?? 0) + t.rates.cpuMicrosPerSec);
    }
    for (const t of tablets) {
      if (t.rates.cpuMicrosPerSec <= 0) continue;
      const node = t.placements[ci]!.node;
      out.push({
        ...t,
        cluster: cluster.id,
        node,
        startMicros: now - windowSeconds * 1e6,
        endMicros: now,
        servingPercentOfNode: (100 * t.rates.cpuMicrosPerSec) / 1e6,
        shareOfNodeServing: t.rates.cpuMicrosPerSec / (perNode.get(node) ?? 1),
      });
    }
  });
  return out.sort((a, b) => b.servingPercentOfNode - a.servingPercentOfNode);
}

function allTablets(source: TabletViewSource, windowSeconds: number): TabletInfo[] {
  const out: TabletInfo[] = [];
  for (const runtime of source.tables) for (const t of runtime.tablets.tablets) out.push(tabletInfo(source, runtime, t, windowSeconds));
  return out;
}

function tabletInfo(source: TabletViewSource, runtime: TableRuntime, t: Tablet, windowSeconds: number): TabletInfo {
  const stats = t.store.stats();
  return {
    table: runtime.name,
    id: t.id,
    start: t.range.start,
    end: t.range.end,
    storedBytes: stats.bytes,
    logicalBytes: stats.logicalBytes,
    rows: stats.rows,
    rowsEstimated: stats.rowsEstimated,
    bytesEstimated: stats.bytesEstimated,
    placements: source.clusters.map((c) => ({ cluster: c.id, node: source.nodeOf(c.id, t.id) })),
    rates: runtime.meter(t.id).rates(source.nowMicros, windowSeconds),
    windowSeconds,
    singleRowHotspot: source.singleRowHotspot(t.id),
  };
}
