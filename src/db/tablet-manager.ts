import type { Config } from '../config.js';
import type { LogFields } from '../log.js';
import { formatBytes } from '../units.js';
import { type ByteString, printable } from '../model/bytes.js';
import type { Clock } from '../model/clock.js';
import { childNameString, type InstanceName, type TableName, tableNameString } from '../model/names.js';
import type { MaybePromise, StorageEngine } from '../storage/store.js';
import { autoscale, storageTargetGib } from '../tablet/autoscaler.js';
import { balance, type TabletPlacement } from '../tablet/balancer.js';
import { chooseLoadSplit } from '../tablet/load-split.js';
import type { LoadRates } from '../tablet/load-meter.js';
import type { Tablet, TabletRecord } from '../tablet/tablet.js';
import type { AutoscalingSpec } from './api.js';
import type { Catalog } from './catalog/catalog.js';
import type { ClusterRecord } from './catalog/catalog-state.js';
import type { TableAdmin } from './table-admin.js';
import type { TableRuntime } from './table-runtime.js';

/** A tablet as users see it (JSON API, CLI, ListHotTablets). */
export interface TabletInfo {
  readonly table: TableName;
  readonly id: string;
  readonly start: ByteString;
  /** Exclusive end; undefined for the last tablet. */
  readonly end: ByteString | undefined;
  /** Bytes stored (compressed SSTables plus memtables in the durable engine): see StoreStats. */
  readonly storedBytes: number;
  /** Uncompressed bytes of the keys and cells held. */
  readonly logicalBytes: number;
  readonly rows: number;
  /** The durable engine estimates row counts (a row in several SSTables counts in each until compaction). */
  readonly rowsEstimated: boolean;
  /** Split children estimate their share of the files they share with their sibling. */
  readonly bytesEstimated: boolean;
  /** The node holding the tablet in each cluster of the instance, in cluster order. */
  readonly placements: readonly TabletPlacementInfo[];
  /** Over the last `windowSeconds`. */
  readonly rates: LoadRates;
  readonly windowSeconds: number;
  /** Set when one row takes most of the tablet's load: no split can help. */
  readonly singleRowHotspot: { readonly key: ByteString; readonly share: number } | undefined;
}

export interface TabletPlacementInfo {
  readonly cluster: string;
  readonly node: number;
}

/** One modelled serving node of a cluster. */
export interface NodeInfo {
  readonly node: number;
  readonly storedBytes: number;
  readonly logicalBytes: number;
  readonly tablets: number;
  /** Serving time per second (µs/s) over the window, summed over its tablets. */
  readonly servingMicrosPerSec: number;
  readonly requestsPerSec: number;
  /** Share (0..1) of the cluster's serving time spent on this node. */
  readonly loadShare: number;
  readonly tabletIds: readonly string[];
}

/** A cluster with its modelled nodes. */
export interface ClusterNodesInfo {
  readonly cluster: string;
  readonly serveNodes: number;
  readonly storageType: 'ssd' | 'hdd';
  readonly autoscaling: AutoscalingSpec | undefined;
  readonly windowSeconds: number;
  /**
   * Serving time per second over all nodes divided by the nodes' capacity
   * (1 s per second each): the modelled CPU utilisation that autoscaling
   * compares with its target.
   */
  readonly servingUtilization: number;
  readonly storedBytes: number;
  readonly nodes: readonly NodeInfo[];
}

export interface HotTabletInfo extends TabletInfo {
  readonly cluster: string;
  /** The tablet's node in that cluster. */
  readonly node: number;
  readonly startMicros: number;
  readonly endMicros: number;
  /**
   * The tablet's serving time as a percent of its node's capacity (1 s of
   * serving per second): what ListHotTablets reports as node_cpu_usage_percent.
   */
  readonly servingPercentOfNode: number;
  /** The tablet's share (0..1) of its node's serving time over the window. */
  readonly shareOfNodeServing: number;
}

export interface TabletManagerDeps {
  readonly tables: TableAdmin;
  readonly catalog: Catalog;
  readonly engine: StorageEngine;
  readonly clock: Clock;
  readonly config: Config;
  /** The catalog as it would be persisted (written atomically with each split or merge). */
  readonly catalogJson: () => string;
  readonly catalogKey: string;
  /** Records an autoscaling decision: the cluster's serve_nodes, made durable. */
  readonly setServeNodes: (instance: InstanceName, clusterId: string, serveNodes: number) => MaybePromise<void>;
  /** Info-level events (splits, merges, moves, resizes, hotspots), with their figures as fields. */
  readonly log: (message: string, fields?: LogFields) => void;
  readonly onError: (e: unknown) => void;
}

/** The window of recent load that tablet views and decisions use (and autoscaling scales up on). */
const VIEW_WINDOW_SECONDS = 10;
/** The longer window a scale-down must also satisfy (the load meters keep two minutes). */
const SUSTAINED_WINDOW_SECONDS = 110;

/**
 * Tablets over time: splits a tablet that grows past the split size (at its
 * median key) or stays hot (at the key that divides its sampled load), merges
 * small cold neighbours, recognises single-row hotspots instead of splitting
 * them forever, and places tablets on the modelled serving nodes (balancer.ts).
 * Splits and merges run with the table's writes held back for the moment it
 * takes to swap the tablet map; reads keep going on the snapshot they hold.
 *
 * The node model: a cluster's serve_nodes are its modelled serving nodes.
 * tabletop keeps one copy of the data and does not model replication, so
 * every cluster of an instance is modelled as a full replica serving the
 * instance's whole load (writes reach every cluster by replication; which
 * cluster an app profile would route a read to is not modelled, so each
 * counts every read): each cluster places every tablet of the instance on
 * one of its own nodes and balances them on its own, and autoscales on its
 * own. With one cluster, the usual case, this is simply the cluster serving
 * the instance. Changing a cluster's node count (UpdateCluster, autoscaling)
 * rebalances it at once: tablets leave removed nodes and spread onto new
 * ones, each move logged with its reason.
 */
export class TabletManager {
  /** Node of each tablet in each cluster: cluster name → tablet id → node. */
  private readonly placement = new Map<string, Map<string, number>>();
  /** When each cluster last changed size or autoscaling settings (µs): scale-downs wait for it. */
  private readonly lastResize = new Map<string, number>();
  /** Since when each tablet's load has been above the split thresholds (µs). */
  private readonly hotSince = new Map<string, number>();
  private readonly coldSince = new Map<string, number>();
  private readonly hotspots = new Map<string, { key: ByteString; share: number }>();
  private timers: NodeJS.Timeout[] = [];
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly deps: TabletManagerDeps) {}

  start(): void {
    const { config } = this.deps;
    if (config.tabletCheckIntervalMillis > 0) {
      const t = setInterval(() => void this.runExclusive(() => this.checkTablets()), config.tabletCheckIntervalMillis);
      t.unref();
      this.timers.push(t);
    }
    if (config.balanceIntervalMillis > 0) {
      const t = setInterval(() => void this.runExclusive(() => this.balanceNodes()), config.balanceIntervalMillis);
      t.unref();
      this.timers.push(t);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await this.running;
  }

  /** One round of checks, autoscaling and balancing now (tests and tools). */
  async runOnce(): Promise<void> {
    await this.runExclusive(async () => {
      await this.checkTablets();
      await this.balanceNodes();
    });
  }

  private async runExclusive(fn: () => Promise<void> | void): Promise<void> {
    if (this.running !== undefined || this.stopped) return;
    const run = (async () => {
      try {
        await fn();
      } catch (e) {
        this.deps.onError(e);
      }
    })();
    this.running = run;
    await run;
    this.running = undefined;
  }

  // ---- views ----

  tablets(runtime: TableRuntime): TabletInfo[] {
    const now = this.deps.clock.nowMicros();
    const instance = instanceOf(runtime.name);
    const clusters = this.clustersOf(instance);
    for (const c of clusters) this.placeNew(instance, c);
    return runtime.tablets.tablets.map((t) => this.info(runtime, t, clusters, now));
  }

  nodes(instance: InstanceName): ClusterNodesInfo[] {
    const now = this.deps.clock.nowMicros();
    const clusters = this.clustersOf(instance);
    const tablets: TabletInfo[] = [];
    for (const c of clusters) this.placeNew(instance, c);
    for (const runtime of this.runtimesOf(instance)) for (const t of runtime.tablets.tablets) tablets.push(this.info(runtime, t, clusters, now));
    return clusters.map((cluster, ci) => {
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
        nodes: nodes.map((n) => ({ ...n, loadShare: serving > 0 ? n.servingMicrosPerSec / serving : 0 })),
      };
    });
  }

  /**
   * Tablets with load over the window, in each cluster of the instance (or
   * the one named), by the serving time they cost their node, hottest first.
   */
  hotTablets(instance: InstanceName, windowSeconds = 60, clusterId?: string): HotTabletInfo[] {
    const now = this.deps.clock.nowMicros();
    const clusters = this.clustersOf(instance);
    for (const c of clusters) this.placeNew(instance, c);
    const tablets: TabletInfo[] = [];
    for (const runtime of this.runtimesOf(instance)) {
      for (const t of runtime.tablets.tablets) tablets.push(this.info(runtime, t, clusters, now, windowSeconds));
    }
    const out: HotTabletInfo[] = [];
    clusters.forEach((cluster, ci) => {
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

  private info(runtime: TableRuntime, t: Tablet, clusters: readonly ClusterRecord[], now: number, windowSeconds = VIEW_WINDOW_SECONDS): TabletInfo {
    const stats = t.store.stats();
    const instance = instanceOf(runtime.name);
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
      placements: clusters.map((c) => ({ cluster: c.id, node: this.nodesOf(instance, c.id).get(t.id) ?? 0 })),
      rates: runtime.meter(t.id).rates(now, windowSeconds),
      windowSeconds,
      singleRowHotspot: this.hotspots.get(t.id),
    };
  }

  private *runtimesOf(instance: InstanceName): Iterable<TableRuntime> {
    for (const r of this.deps.tables.liveTables()) {
      if (r.name.project === instance.project && r.name.instance === instance.instance && !r.deleted) yield r;
    }
  }

  private clustersOf(instance: InstanceName): readonly ClusterRecord[] {
    return this.deps.catalog.instance(instance)?.clusters ?? [];
  }

  // ---- placement ----

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

  /**
   * Places the tablets that have no node in the cluster yet (new tables,
   * children of a split, a new cluster) or whose node is gone (the cluster
   * shrank); moves off removed nodes are logged.
   */
  private placeNew(instance: InstanceName, cluster: ClusterRecord): void {
    const placements = this.placements(instance, cluster);
    if (placements.every((p) => p.node !== undefined && p.node < cluster.serveNodes)) return;
    this.apply(instance, cluster, balance(placements, { nodes: cluster.serveNodes, maxMoves: 0 }), '');
  }

  private placements(instance: InstanceName, cluster: ClusterRecord): TabletPlacement[] {
    const now = this.deps.clock.nowMicros();
    const nodeOf = this.nodesOf(instance, cluster.id);
    const out: TabletPlacement[] = [];
    for (const runtime of this.runtimesOf(instance)) {
      for (const t of runtime.tablets.tablets) {
        out.push({ id: t.id, bytes: t.store.stats().bytes, load: runtime.meter(t.id).rates(now, VIEW_WINDOW_SECONDS).cpuMicrosPerSec, node: nodeOf.get(t.id) });
      }
    }
    return out;
  }

  /** Records moves in a cluster, logging those of tablets that had a node (with `why` before their reason). */
  private apply(instance: InstanceName, cluster: ClusterRecord, moves: readonly { id: string; from: number | undefined; to: number; reason: string }[], why: string): void {
    const nodeOf = this.nodesOf(instance, cluster.id);
    for (const m of moves) {
      nodeOf.set(m.id, m.to);
      if (m.from !== undefined) {
        this.deps.log(`moved tablet ${m.id} of ${childNameString(instance, 'clusters', cluster.id)} from node ${m.from} to node ${m.to}: ${why}${m.reason}`, {
          event: 'tablet-moved',
          cluster: childNameString(instance, 'clusters', cluster.id),
          tablet: m.id,
          fromNode: m.from,
          toNode: m.to,
          reason: `${why}${m.reason}`,
        });
      }
    }
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
      for (const c of this.clustersOf(instance)) {
        live.add(childNameString(instance, 'clusters', c.id));
        if (c.autoscaling !== undefined) await this.autoscaleCluster(instance, c);
      }
      for (const c of this.clustersOf(instance)) {
        this.placeNew(instance, c);
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
    this.deps.log(`cluster ${name} resized from ${from} to ${cluster.serveNodes} nodes: ${cause}`, { event: 'cluster-resized', cluster: name, fromNodes: from, toNodes: cluster.serveNodes, cause });
    const moves = balance(this.placements(instance, cluster), { nodes: cluster.serveNodes, maxMoves: Number.POSITIVE_INFINITY });
    this.apply(instance, cluster, moves, `cluster resized from ${from} to ${cluster.serveNodes} nodes; `);
  }

  /** Sizes an autoscaled cluster to its load (autoscaler.ts), recording and logging any change. */
  private async autoscaleCluster(instance: InstanceName, cluster: ClusterRecord): Promise<void> {
    const a = cluster.autoscaling!;
    const now = this.deps.clock.nowMicros();
    const name = childNameString(instance, 'clusters', cluster.id);
    if (!this.lastResize.has(name)) this.lastResize.set(name, now);
    let recent = 0;
    let sustained = 0;
    let stored = 0;
    for (const runtime of this.runtimesOf(instance)) {
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
    await this.deps.setServeNodes(instance, cluster.id, decision.nodes);
    this.clusterChanged(instance, cluster.id, cluster.serveNodes, `autoscaling: ${decision.reason}`);
  }

  // ---- splits and merges ----

  private async checkTablets(): Promise<void> {
    for (const runtime of this.deps.tables.liveTables()) {
      if (this.stopped) return;
      if (runtime.deleted) continue;
      await this.checkTable(runtime);
    }
  }

  private async checkTable(runtime: TableRuntime): Promise<void> {
    const { config, clock } = this.deps;
    const now = clock.nowMicros();
    const windowSeconds = Math.max(1, Math.min(110, Math.round(config.loadSplitWindowMillis / 1000)));
    for (const tablet of runtime.tablets.tablets) {
      // Size: split at the median key by bytes.
      const bytes = tablet.store.stats().bytes;
      if (bytes > config.tabletSplitBytes) {
        let samples = tablet.store.sampleKeys(Math.max(1, Math.floor(bytes / 2)));
        if (samples instanceof Promise) samples = await samples;
        const at = samples.find((s) => s.key > tablet.range.start && (tablet.range.end === undefined || s.key < tablet.range.end))?.key;
        if (at !== undefined) {
          await this.split(runtime, tablet, at, `size ${formatBytes(bytes)} > split size ${formatBytes(config.tabletSplitBytes)}`, { cause: 'size', bytes, splitBytes: config.tabletSplitBytes });
          return; // The tablet map changed: look again next round.
        }
      }
      // Load: split where the sampled requests divide, once the load has lasted the window.
      const meter = runtime.meter(tablet.id);
      const rates = meter.rates(now, 1);
      const hot = rates.requestsPerSec > config.loadSplitRequestsPerSec || rates.bytesReadPerSec + rates.bytesWrittenPerSec > config.loadSplitBytesPerSec;
      if (!hot) {
        this.hotSince.delete(tablet.id);
        continue;
      }
      const since = this.hotSince.get(tablet.id) ?? now;
      this.hotSince.set(tablet.id, since);
      if (now - since < config.loadSplitWindowMillis * 1000) continue;
      const sustained = meter.rates(now, windowSeconds);
      const decision = chooseLoadSplit(meter.sampledKeys(), tablet.range, config.hotRowShare);
      const load = `${Math.round(sustained.requestsPerSec)} requests/s, ${formatBytes(sustained.bytesReadPerSec + sustained.bytesWrittenPerSec)}/s over ${windowSeconds} s`;
      if (decision.kind === 'split' && (tablet.range.end === undefined || decision.at < tablet.range.end)) {
        this.hotspots.delete(tablet.id);
        await this.split(runtime, tablet, decision.at, `load ${load}; the split divides sampled requests ${Math.round((1 - decision.balance) * 100)}/${Math.round(decision.balance * 100)}`, {
          cause: 'load',
          requestsPerSec: Math.round(sustained.requestsPerSec),
          bytesPerSec: Math.round(sustained.bytesReadPerSec + sustained.bytesWrittenPerSec),
          windowSeconds,
          balance: decision.balance,
        });
        return;
      }
      if (decision.kind === 'single-row-hotspot' && !this.hotspots.has(tablet.id)) {
        this.hotspots.set(tablet.id, { key: decision.key, share: decision.share });
        this.deps.log(
          `tablet ${tablet.id} of ${tableNameString(runtime.name)} is hot (${load}) but ${Math.round(decision.share * 100)}% of its requests go to the single row "${printable(decision.key.slice(0, 80))}": a single-row hotspot that no split can fix; change the row key design`,
          {
            event: 'single-row-hotspot',
            table: tableNameString(runtime.name),
            tablet: tablet.id,
            rowKey: printable(decision.key.slice(0, 80)),
            share: decision.share,
            requestsPerSec: Math.round(sustained.requestsPerSec),
          },
        );
      }
    }
    await this.checkMerges(runtime, now);
  }

  private async checkMerges(runtime: TableRuntime, now: number): Promise<void> {
    const { config } = this.deps;
    const tablets = runtime.tablets.tablets;
    const windowSeconds = Math.max(1, Math.min(110, Math.round(config.mergeColdMillis / 1000)));
    const cold = tablets.map((t) => {
      const rates = runtime.meter(t.id).rates(now, windowSeconds);
      const isCold = rates.requestsPerSec < config.mergeColdRequestsPerSec;
      if (!isCold) this.coldSince.delete(t.id);
      else if (!this.coldSince.has(t.id)) this.coldSince.set(t.id, now);
      return isCold && now - this.coldSince.get(t.id)! >= config.mergeColdMillis * 1000;
    });
    const record = this.deps.tables.tableRecord(runtime.name);
    const keep = new Set(record.initialSplits ?? []);
    for (let i = 0; i + 1 < tablets.length; i++) {
      const a = tablets[i]!;
      const b = tablets[i + 1]!;
      if (!cold[i] || !cold[i + 1] || keep.has(b.range.start)) continue;
      const bytes = a.store.stats().bytes + b.store.stats().bytes;
      if (bytes >= config.tabletSplitBytes / 4) continue;
      await this.merge(runtime, a, b, `both cold (< ${config.mergeColdRequestsPerSec} requests/s for ${Math.round(config.mergeColdMillis / 1000)} s) and small together (${formatBytes(bytes)})`, { bytes });
      return;
    }
  }

  /** Splits a tablet at `at`: the children share the parent's data until compaction. */
  async split(runtime: TableRuntime, tablet: Tablet, at: ByteString, reason: string, figures: LogFields = {}): Promise<void> {
    const began = performance.now();
    const { tables, catalog, engine } = this.deps;
    await runtime.gate.exclusive(async () => {
      const map = runtime.tablets;
      const index = map.indexOfId(tablet.id);
      if (index < 0 || runtime.deleted) return;
      const leftId = `${runtime.uid}.${catalog.newId('')}`;
      const rightId = `${runtime.uid}.${catalog.newId('')}`;
      const records: TabletRecord[] = map.records();
      records.splice(index, 1, { id: leftId, start: tablet.range.start, end: at }, { id: rightId, start: at, end: tablet.range.end });
      // The catalog names the children only from the moment the split is recorded (in the same
      // atomic step): catalog writes made while the engine flushes the parent keep naming the parent.
      const before = tables.tableRecord(runtime.name).tablets;
      const catalogWithChange = (): string => {
        tables.setTablets(runtime.name, records);
        return this.deps.catalogJson();
      };
      try {
        await engine.splitStore(tablet.id, at, leftId, rightId, { key: this.deps.catalogKey, value: catalogWithChange });
      } catch (e) {
        tables.setTablets(runtime.name, before);
        throw e;
      }
      const [left, right] = await Promise.all([engine.openStore(leftId), engine.openStore(rightId)]);
      runtime.tablets = map.replace(index, index, [
        { id: leftId, range: { start: tablet.range.start, end: at }, store: left },
        { id: rightId, range: { start: at, end: tablet.range.end }, store: right },
      ]);
      // The children stay on their parent's node in every cluster (until the balancer moves them).
      for (const nodeOf of this.placement.values()) {
        const node = nodeOf.get(tablet.id);
        if (node === undefined) continue;
        nodeOf.set(leftId, node);
        nodeOf.set(rightId, node);
      }
      this.forget(runtime, tablet.id);
    });
    this.deps.log(`split tablet ${tablet.id} of ${tableNameString(runtime.name)} at "${printable(at.slice(0, 80))}": ${reason}`, {
      event: 'tablet-split',
      table: tableNameString(runtime.name),
      tablet: tablet.id,
      at: printable(at.slice(0, 80)),
      reason,
      ...figures,
      millis: Math.round(performance.now() - began),
    });
  }

  /** Merges two neighbouring tablets. */
  async merge(runtime: TableRuntime, a: Tablet, b: Tablet, reason: string, figures: LogFields = {}): Promise<void> {
    const began = performance.now();
    const { tables, catalog, engine } = this.deps;
    let mergedId = '';
    await runtime.gate.exclusive(async () => {
      const map = runtime.tablets;
      const index = map.indexOfId(a.id);
      if (index < 0 || map.tablets[index + 1]?.id !== b.id || runtime.deleted) return;
      mergedId = `${runtime.uid}.${catalog.newId('')}`;
      const records = map.records();
      records.splice(index, 2, { id: mergedId, start: a.range.start, end: b.range.end });
      const before = tables.tableRecord(runtime.name).tablets;
      const catalogWithChange = (): string => {
        tables.setTablets(runtime.name, records);
        return this.deps.catalogJson();
      };
      try {
        await engine.mergeStores(a.id, b.id, mergedId, { key: this.deps.catalogKey, value: catalogWithChange });
      } catch (e) {
        tables.setTablets(runtime.name, before);
        throw e;
      }
      const store = await engine.openStore(mergedId);
      runtime.tablets = map.replace(index, index + 1, [{ id: mergedId, range: { start: a.range.start, end: b.range.end }, store }]);
      for (const nodeOf of this.placement.values()) {
        const node = nodeOf.get(a.id);
        if (node !== undefined) nodeOf.set(mergedId, node);
      }
      const meter = runtime.meter(mergedId);
      meter.absorb(runtime.meter(a.id));
      meter.absorb(runtime.meter(b.id));
      this.forget(runtime, a.id);
      this.forget(runtime, b.id);
    });
    if (mergedId !== '') {
      this.deps.log(`merged tablets ${a.id} and ${b.id} of ${tableNameString(runtime.name)} into ${mergedId}: ${reason}`, {
        event: 'tablets-merged',
        table: tableNameString(runtime.name),
        tablets: [a.id, b.id],
        merged: mergedId,
        reason,
        ...figures,
        millis: Math.round(performance.now() - began),
      });
    }
  }

  private forget(runtime: TableRuntime, id: string): void {
    runtime.meters.delete(id);
    for (const nodeOf of this.placement.values()) nodeOf.delete(id);
    this.hotSince.delete(id);
    this.coldSince.delete(id);
    this.hotspots.delete(id);
  }
}

function instanceOf(name: TableName): InstanceName {
  return { project: name.project, instance: name.instance };
}
