import type { LogFields } from '../log.js';
import { formatBytes } from '../units.js';
import { type ByteString, printable } from '../model/bytes.js';
import { type InstanceName, type TableName, tableNameString } from '../model/names.js';
import type { StorageEngine } from '../storage/store.js';
import { chooseLoadSplit } from '../tablet/load-split.js';
import { sizeSplitKey, sizeSplitStep } from '../tablet/size-split.js';
import type { Tablet, TabletRecord } from '../tablet/tablet.js';
import type { ClusterNodesInfo, HotTabletInfo, TabletInfo } from './api.js';
import { NodePlacement, type NodePlacementDeps } from './node-placement.js';
import type { TableRuntime } from './table-runtime.js';
import { hotTabletsView, nodesView, type TabletViewSource, tabletsView } from './tablet-views.js';

/** What the placement needs (the catalog, the tables, the log), and what splits and merges need besides. */
export interface TabletManagerDeps extends NodePlacementDeps {
  readonly engine: StorageEngine;
  /** The catalog as it would be persisted (written atomically with each split or merge). */
  readonly catalogJson: () => string;
  readonly catalogKey: string;
  readonly onError: (e: unknown) => void;
  /** How logs name a table (a materialized view's internal tables by the view's name). */
  readonly describeTable: (name: TableName) => string;
}

/**
 * Tablets over time: splits a tablet that grows past the split size (at its
 * median key) or stays hot (at the key that divides its sampled load), merges
 * small cold neighbours, recognises single-row hotspots instead of splitting
 * them forever, and places tablets on the modelled serving nodes
 * (node-placement.ts), on timers or when asked (`runOnce`). Splits and merges
 * run with the table's writes held back for the moment it takes to swap the
 * tablet map; reads keep going on the snapshot they hold.
 *
 * The listings (`tablets`, `nodes`, `hotTablets`) are read-only views
 * (tablet-views.ts) over what this keeps; the one change they make first is
 * to place tablets that have no node yet.
 */
export class TabletManager {
  /** Since when each tablet's load has been above the split thresholds (µs). */
  private readonly hotSince = new Map<string, number>();
  private readonly coldSince = new Map<string, number>();
  private readonly hotspots = new Map<string, { key: ByteString; share: number }>();
  private readonly placement: NodePlacement;
  private timers: NodeJS.Timeout[] = [];
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly deps: TabletManagerDeps) {
    this.placement = new NodePlacement(deps);
  }

  start(): void {
    const { config } = this.deps;
    if (config.tabletCheckIntervalMillis > 0) {
      const t = setInterval(() => void this.runExclusive(() => this.checkTablets()), config.tabletCheckIntervalMillis);
      t.unref();
      this.timers.push(t);
    }
    if (config.balanceIntervalMillis > 0) {
      const t = setInterval(() => void this.runExclusive(() => this.placement.balanceNodes()), config.balanceIntervalMillis);
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
      await this.placement.balanceNodes();
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

  /** The tablets of a table in key order, with their figures. */
  tablets(runtime: TableRuntime): TabletInfo[] {
    return tabletsView(this.viewOf({ project: runtime.name.project, instance: runtime.name.instance }), runtime);
  }

  /** Each cluster of the instance with its modelled nodes. */
  nodes(instance: InstanceName): ClusterNodesInfo[] {
    return nodesView(this.viewOf(instance));
  }

  /** Tablets with load over the window, in each cluster (or the one named), hottest first. */
  hotTablets(instance: InstanceName, windowSeconds = 60, clusterId?: string): HotTabletInfo[] {
    return hotTabletsView(this.viewOf(instance), windowSeconds, clusterId);
  }

  /** A cluster's node count or autoscaling settings changed: see NodePlacement.clusterChanged. */
  clusterChanged(instance: InstanceName, clusterId: string, from: number, cause: string): void {
    this.placement.clusterChanged(instance, clusterId, from, cause);
  }

  /** What the views read of an instance, once its unplaced tablets have a node. */
  private viewOf(instance: InstanceName): TabletViewSource {
    const nowMicros = this.deps.clock.nowMicros();
    this.placement.placeNew(instance);
    return {
      nowMicros,
      clusters: this.placement.clustersOf(instance),
      tables: [...this.placement.tablesOf(instance)],
      nodeOf: (clusterId, tabletId) => this.placement.nodeOf(instance, clusterId, tabletId) ?? 0,
      singleRowHotspot: (tabletId) => this.hotspots.get(tabletId),
    };
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
      const step = sizeSplitStep(bytes, config.tabletSplitBytes);
      if (step !== undefined) {
        let samples = tablet.store.sampleKeys(step);
        if (samples instanceof Promise) samples = await samples;
        const at = sizeSplitKey(samples, tablet.range);
        if (at !== undefined) {
          await this.split(runtime, tablet, at, `size ${formatBytes(bytes)} > split size ${formatBytes(config.tabletSplitBytes)}`, {
            cause: 'size',
            bytes,
            splitBytes: config.tabletSplitBytes,
          });
          return; // The tablet map changed: look again next round.
        }
      }
      // Load: split where the sampled requests divide, once the load has lasted the window.
      const meter = runtime.meter(tablet.id);
      const rates = meter.rates(now, 1);
      const hot =
        rates.requestsPerSec > config.loadSplitRequestsPerSec ||
        rates.bytesReadPerSec + rates.bytesWrittenPerSec > config.loadSplitBytesPerSec;
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
        await this.split(
          runtime,
          tablet,
          decision.at,
          `load ${load}; the split divides sampled requests ${Math.round((1 - decision.balance) * 100)}/${Math.round(decision.balance * 100)}`,
          {
            cause: 'load',
            requestsPerSec: Math.round(sustained.requestsPerSec),
            bytesPerSec: Math.round(sustained.bytesReadPerSec + sustained.bytesWrittenPerSec),
            windowSeconds,
            balance: decision.balance,
          },
        );
        return;
      }
      if (decision.kind === 'single-row-hotspot' && !this.hotspots.has(tablet.id)) {
        this.hotspots.set(tablet.id, { key: decision.key, share: decision.share });
        this.deps.log(
          `tablet ${tablet.id} of ${this.deps.describeTable(runtime.name)} is hot (${load}) but ${Math.round(decision.share * 100)}% of its requests go to the single row "${printable(decision.key.slice(0, 80))}": a single-row hotspot that no split can fix; change the row key design`,
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
      await this.merge(
        runtime,
        a,
        b,
        `both cold (< ${config.mergeColdRequestsPerSec} requests/s for ${Math.round(config.mergeColdMillis / 1000)} s) and small together (${formatBytes(bytes)})`,
        { bytes },
      );
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
      this.placement.inherit(tablet.id, [leftId, rightId]);
      this.forget(runtime, tablet.id);
    });
    this.deps.log(`split tablet ${tablet.id} of ${this.deps.describeTable(runtime.name)} at "${printable(at.slice(0, 80))}": ${reason}`, {
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
      this.placement.inherit(a.id, [mergedId]);
      const meter = runtime.meter(mergedId);
      meter.absorb(runtime.meter(a.id));
      meter.absorb(runtime.meter(b.id));
      this.forget(runtime, a.id);
      this.forget(runtime, b.id);
    });
    if (mergedId !== '') {
      this.deps.log(`merged tablets ${a.id} and ${b.id} of ${this.deps.describeTable(runtime.name)} into ${mergedId}: ${reason}`, {
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
    this.placement.forget(id);
    this.hotSince.delete(id);
    this.coldSince.delete(id);
    this.hotspots.delete(id);
  }
}
