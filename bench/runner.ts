import os from 'node:os';
import type { Bigtable } from '@google-cloud/bigtable';
import type { Options } from './options.js';
import type { Progress } from './progress.js';
import { summaryLine } from './report/figures.js';
import { num } from './report/format.js';
import type { ProbeResult } from './startup/protocol.js';
import { cpuSecondsBetween, mainThreadSecondsBetween, readCpu, rssBytes, untilIdle } from './servers/proc-stats.js';
import { startTarget } from './servers/targets.js';
import type { Target, TargetKind } from './servers/targets.js';
import { createTable, loadRows, nodeClient } from './workloads/node-client.js';
import { createProber } from './startup/run-probe.js';
import type { Prober } from './startup/run-probe.js';
import type {
  Counts,
  Dataset,
  Measured,
  ReportedWorkload,
  RunContext,
  SequenceContext,
  SequenceWorkload,
  ServerWorkload,
  StartupWorkload,
} from './workloads/workload.js';

/**
 * Runs the selected workloads against the selected targets, alternating
 * targets run by run, the order rotating from run to run (A B C, B C A,
 * C A B, ...): drift of a noisy machine hits every target, and no target is
 * always the one that runs first after a server stopped or a load ended. Bulk loads get a freshly started server per run; every other
 * workload runs against one long-lived server per target that holds the
 * data set, after one unrecorded warm-up run.
 */

export interface RunRecord {
  readonly workload: string;
  readonly target: TargetKind;
  /** 1-based. */
  readonly run: number;
  readonly result?: RunResult;
  readonly error?: string;
}

export interface RunResult extends Measured {
  /** Server RSS just before the run (fresh-server workloads only). */
  readonly rssBeforeBytes?: number;
}

export interface TargetInfo {
  readonly kind: TargetKind;
  readonly storage: string;
  readonly durable: boolean;
}

export interface SessionResults {
  readonly records: readonly RunRecord[];
  readonly targets: ReadonlyMap<TargetKind, TargetInfo>;
  readonly warnings: readonly string[];
  readonly startedAt: Date;
  readonly finishedAt: Date;
  /** 1-, 5- and 15-minute load averages of the machine when the session started and ended. */
  readonly loadAverage: { readonly start: readonly number[]; readonly end: readonly number[] };
}

const DATASET: Omit<Dataset, 'rows'> = {
  table: 'data-1k',
  valueSize: 1024,
  writesTable: 'writes',
  countersTable: 'counters',
  loadgenWritesTable: 'lg-writes',
};

interface Live {
  readonly target: Target;
  readonly client: Bigtable;
}

export class Runner {
  private readonly records: RunRecord[] = [];
  private readonly targetInfo = new Map<TargetKind, TargetInfo>();
  private readonly warnings: string[] = [];
  private readonly servers = new Map<TargetKind, Live>();
  private readonly dataset: Dataset;
  private prober: Prober | undefined;

  constructor(
    private readonly options: Options,
    private readonly repoRoot: string,
    private readonly progress: Progress,
  ) {
    this.dataset = { ...DATASET, rows: options.settings.rows };
  }

  async runAll(): Promise<SessionResults> {
    const startedAt = new Date();
    const loadStart = os.loadavg();
    const { workloads } = this.options;
    try {
      for (const [i, w] of workloads.entries()) {
        this.progress.line(`\n[${i + 1}/${workloads.length}] ${w.name}: ${w.title}`);
        if (w.kind === 'startup') await this.runStartup(w);
        else if (w.kind === 'sequence') await this.runSequence(w, i);
        else if (w.freshServer) await this.runFresh(w, i);
        else await this.runOnLongLived(w, i);
      }
    } finally {
      await this.close();
    }
    const loadEnd = os.loadavg();
    const cores = os.availableParallelism();
    const busiest = Math.max(loadStart[0] ?? 0, loadEnd[0] ?? 0);
    if (busiest > cores) {
      this.warn(
        `the machine was busy with other work (1-minute load average up to ${busiest.toFixed(1)} on ${cores} cores): absolute figures are low and noisy; trust the ratios more, and re-run on a quiet machine`,
      );
    }
    return {
      records: this.records,
      targets: this.targetInfo,
      warnings: this.warnings,
      startedAt,
      finishedAt: new Date(),
      loadAverage: { start: loadStart, end: loadEnd },
    };
  }

  private async runFresh(w: ServerWorkload, index: number): Promise<void> {
    const runs = Math.min(this.options.settings.runs, w.maxRuns ?? Infinity);
    for (let run = 1; run <= runs; run++) {
      for (const kind of rotated(this.options.targets, run)) {
        const label = `  ${kind} run ${run}/${runs}`;
        let live: Live | undefined;
        try {
          live = await this.start(kind);
          if (w.warmUp !== undefined && this.options.settings.warmupSeconds > 0) {
            await untilIdle(live.target.process.pid, 120);
            await w.warmUp(this.context(w, live, runId(index, run), this.options.settings.warmupSeconds, `${label} warm-up`));
          }
          const rssBefore = rssBytes(live.target.process.pid);
          const m = await this.runOnce(w, live, runId(index, run), this.options.settings.seconds, label);
          this.record(w, kind, run, { ...m, rssBeforeBytes: rssBefore }, label);
        } catch (e) {
          this.fail(w, kind, run, e, label, live);
        } finally {
          if (live !== undefined) await this.stop(live);
        }
      }
    }
  }

  private async runOnLongLived(w: ServerWorkload, index: number): Promise<void> {
    const { runs, warmupSeconds, seconds } = this.options.settings;
    const { freshServers } = this.options;
    const failed = new Set<TargetKind>();
    if (warmupSeconds > 0 && !freshServers) {
      for (const kind of this.options.targets) {
        const label = `  ${kind} warm-up`;
        try {
          const m = await this.runOnce(w, await this.longLived(kind), runId(index, 0), warmupSeconds, label);
          this.progress.line(`${label}: ${summaryLine(w, m)} (not recorded)`);
        } catch (e) {
          failed.add(kind);
          this.fail(w, kind, 0, e, label, this.servers.get(kind));
        }
      }
    }
    for (let run = 1; run <= runs; run++) {
      for (const kind of rotated(this.options.targets, run)) {
        if (failed.has(kind)) continue; // a workload that failed its warm-up would fail again: do not spend the time
        const label = `  ${kind} run ${run}/${runs}`;
        try {
          if (freshServers) {
            await this.retire(kind);
            const live = await this.longLived(kind);
            await untilIdle(live.target.process.pid, 120);
            if (warmupSeconds > 0) {
              const m = await this.runOnce(w, live, runId(index, 0), warmupSeconds, `${label} warm-up`);
              this.progress.line(`${label} warm-up: ${summaryLine(w, m)} (not recorded)`);
            }
          }
          const m = await this.runOnce(w, await this.longLived(kind), runId(index, run), seconds, label);
          this.record(w, kind, run, m, label);
        } catch (e) {
          failed.add(kind);
          this.fail(w, kind, run, e, label, this.servers.get(kind));
        }
      }
    }
  }

  /**
   * A sequence (the mixed workload): each run starts a fresh server per
   * target (targets alternating), warms it up (when warm-ups are on), waits
   * until it is idle, and runs every phase back to back; each phase becomes
   * a record of its own. A failure is recorded against the whole run's row.
   */
  private async runSequence(w: SequenceWorkload, index: number): Promise<void> {
    const total = w.phases[w.phases.length - 1] ?? w;
    for (let run = 1; run <= this.options.settings.runs; run++) {
      for (const kind of rotated(this.options.targets, run)) {
        const label = `  ${kind} run ${run}/${this.options.settings.runs}`;
        let live: Live | undefined;
        try {
          live = await this.start(kind);
          const pid = live.target.process.pid;
          if (this.options.settings.warmupSeconds > 0) {
            await untilIdle(pid, 120);
            await w.warmUp(this.sequenceContext(live, runId(index, run), `${label} warm-up`));
            this.progress.line(`${label} warm-up: every phase for ${this.options.settings.warmupSeconds} s (not recorded)`);
          }
          await untilIdle(pid, 120);
          for (const { phase, measured } of await w.run(this.sequenceContext(live, runId(index, run), label)))
            this.record(phase, kind, run, measured, `${label} ${phase.name}`);
        } catch (e) {
          this.fail(total, kind, run, e, label, live);
        } finally {
          if (live !== undefined) await this.stop(live);
        }
      }
    }
  }

  private sequenceContext(live: Live, id: number, label: string): SequenceContext {
    return {
      target: live.target,
      client: live.client,
      settings: this.options.settings,
      runId: id,
      task: (phase, total) => {
        const task = this.progress.task(`${label} ${phase.name}`, phase.unitName, total);
        return (n) => task.update(n);
      },
    };
  }

  /**
   * A start-up workload: each run starts each target twice in new probe
   * processes (raw client, then Node client), targets alternating; after one
   * unrecorded raw start of each when warm-ups are on (the first start after
   * a build reads its files from disk). Each workload says how its targets
   * store data, so the Setup section's storage lines stay the long-lived servers'.
   */
  private async runStartup(w: StartupWorkload): Promise<void> {
    this.prober ??= createProber(this.repoRoot);
    const prober = this.prober;
    const variant = (kind: TargetKind) => (kind === 'emulator' ? 'emulator' : w.variant);
    const { startupRuns, warmupSeconds } = this.options.settings;
    const failed = new Set<TargetKind>();
    // The probe starts tabletop as a user does (recording on, the default background threads): the other tabletop
    // targets have no start-up runs of their own.
    const targets = this.options.targets.filter((k) => k === 'tabletop' || k === 'emulator');
    if (warmupSeconds > 0) {
      for (const kind of targets) {
        const label = `  ${kind} warm-up`;
        try {
          const r = await prober.run(variant(kind), 'raw');
          this.progress.line(`${label}: first call after ${num(r.firstCallMs)} ms (not recorded)`);
        } catch (e) {
          failed.add(kind);
          this.fail(w, kind, 0, e, label, undefined);
        }
      }
    }
    for (let run = 1; run <= startupRuns; run++) {
      for (const kind of rotated(targets, run)) {
        if (failed.has(kind)) continue;
        const label = `  ${kind} run ${run}/${startupRuns}`;
        try {
          const raw = await prober.run(variant(kind), 'raw');
          const node = await prober.run(variant(kind), 'node');
          for (const warning of [...raw.warnings, ...node.warnings]) this.warn(warning);
          this.record(w, kind, run, startupMeasured(raw, node), label);
        } catch (e) {
          failed.add(kind);
          this.fail(w, kind, run, e, label, undefined);
        }
      }
    }
  }

  /**
   * Runs one measured run (or warm-up) once the server is idle: background
   * work left by an earlier workload (or by the data set's load) is not
   * billed to this one.
   */
  private async runOnce(w: ServerWorkload, live: Live, id: number, seconds: number, label: string): Promise<Measured> {
    await untilIdle(live.target.process.pid, 120);
    return w.run(this.context(w, live, id, seconds, label));
  }

  private context(w: ServerWorkload, live: Live, id: number, seconds: number, label: string): RunContext {
    const total = w.freshServer ? (w.total?.(this.options.settings) ?? this.options.settings.rows) : undefined;
    const task = this.progress.task(label, w.unitName, total);
    const pid = live.target.process.pid;
    const ctx: RunContext = {
      target: live.target,
      client: live.client,
      settings: this.options.settings,
      dataset: this.dataset,
      seconds,
      runId: id,
      tick: (n) => task.update(n),
      measure: async (body: () => Promise<Counts>): Promise<Measured> => {
        const server0 = readCpu(pid);
        const client0 = process.cpuUsage();
        const t0 = performance.now();
        const counts = await body();
        const wall = (performance.now() - t0) / 1000;
        const client = process.cpuUsage(client0);
        const rss = rssBytes(pid);
        // Writes leave flushes and compactions behind: their CPU is the run's too.
        if (w.writes) await untilIdle(pid, 120);
        const server1 = readCpu(pid);
        const disk = live.target.diskBytes();
        const main = mainThreadSecondsBetween(pid, server0, server1);
        return {
          ...counts,
          seconds: wall,
          serverCpuSeconds: cpuSecondsBetween(server0, server1),
          ...(main === undefined ? {} : { serverMainCpuSeconds: main }),
          clientCpuSeconds: counts.clientCpuSeconds ?? (client.user + client.system) / 1e6,
          clientProcesses: counts.clientProcesses ?? 1,
          serverRssBytes: rss,
          ...(disk === undefined ? {} : { serverDiskBytes: disk }),
        };
      },
    };
    return ctx;
  }

  private record(w: ReportedWorkload, kind: TargetKind, run: number, result: RunResult, label: string): void {
    this.records.push({ workload: w.name, target: kind, run, result });
    this.progress.line(`${label}: ${summaryLine(w, result)}`);
  }

  private fail(w: { readonly name: string }, kind: TargetKind, run: number, e: unknown, label: string, live: Live | undefined): void {
    let message = e instanceof Error ? e.message : String(e);
    if (live !== undefined && !live.target.process.alive()) {
      message += ` (the server exited; its last output:\n${live.target.process.output().slice(-2000)})`;
    }
    this.records.push({ workload: w.name, target: kind, run, error: message });
    this.progress.line(`${label}: FAILED: ${message}`);
  }

  /** Stops the long-lived server of a target, if it has one (--fresh-servers: the next use starts a new one). */
  private async retire(kind: TargetKind): Promise<void> {
    const existing = this.servers.get(kind);
    if (existing === undefined) return;
    this.servers.delete(kind);
    await this.stop(existing);
  }

  /** The long-lived server of a target, started and loaded with the data set on first use (or after it died). */
  private async longLived(kind: TargetKind): Promise<Live> {
    const existing = this.servers.get(kind);
    if (existing !== undefined && existing.target.process.alive()) return existing;
    if (existing !== undefined) {
      this.warn(`${kind}: the server is gone; starting a new one and loading the data set again`);
      this.servers.delete(kind);
      await this.stop(existing);
    }
    const live = await this.start(kind);
    try {
      const table = await createTable(live.client, this.dataset.table);
      const { settings } = this.options;
      const task = this.progress.task(`  ${kind}: loading the data set (not measured)`, 'rows', settings.rows);
      const t0 = performance.now();
      await loadRows(table, {
        rows: settings.rows,
        valueSize: this.dataset.valueSize,
        batchRows: settings.loadBatchRows,
        inFlight: settings.loadInFlight,
        seed: 1,
        tick: (n) => task.update(n),
      });
      task.finish(`${settings.rows.toLocaleString('en-US')} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      for (const t of [this.dataset.writesTable, this.dataset.countersTable, this.dataset.loadgenWritesTable])
        await createTable(live.client, t);
    } catch (e) {
      await this.stop(live);
      throw e;
    }
    this.servers.set(kind, live);
    return live;
  }

  private async start(kind: TargetKind): Promise<Live> {
    const target = await startTarget(kind, {
      repoRoot: this.repoRoot,
      tabletopMode: this.options.tabletopMode,
      warn: (m) => this.warn(m),
      ...(this.options.baseDist === undefined ? {} : { baseDist: this.options.baseDist }),
    });
    this.targetInfo.set(kind, { kind, storage: target.storage, durable: target.durable });
    return { target, client: nodeClient(target.address) };
  }

  private async stop(live: Live): Promise<void> {
    try {
      await live.client.close();
    } finally {
      await live.target.stop();
    }
  }

  private warn(message: string): void {
    if (!this.warnings.includes(message)) this.warnings.push(message);
    this.progress.line(`warning: ${message}`);
  }

  private async close(): Promise<void> {
    for (const live of this.servers.values()) await this.stop(live);
    this.servers.clear();
  }
}

/** A start-up run as a record: the raw probe's first read as its time, CPU and idle RSS; both probes in full. */
function startupMeasured(raw: ProbeResult, node: ProbeResult): Measured {
  return {
    ops: 1,
    rows: 0,
    bytes: 0,
    seconds: raw.firstReadMs / 1000,
    serverCpuSeconds: raw.cpuMs / 1000,
    clientCpuSeconds: 0,
    clientProcesses: 1,
    serverRssBytes: raw.rssIdleBytes,
    startup: { raw, node },
  };
}

/** The same id for both targets in a run, so both get the same keys and seeds. */
function runId(workloadIndex: number, run: number): number {
  return (workloadIndex + 1) * 1000 + run;
}

/** The targets in the order of run `run` (1-based): the list rotated left by run − 1. */
export function rotated<T>(targets: readonly T[], run: number): T[] {
  const k = targets.length === 0 ? 0 : (run - 1) % targets.length;
  return [...targets.slice(k), ...targets.slice(0, k)];
}
