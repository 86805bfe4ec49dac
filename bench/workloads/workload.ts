import type { Bigtable } from '@google-cloud/bigtable';
import type { Target } from '../servers/targets.js';
import type { TransportKind } from '../loadgen/transport.js';
import type { Histogram } from '../stats/histogram.js';
import type { ProbeResult, StartupVariant } from '../startup/protocol.js';

/** The contract between the runner and a workload. */

/** Sizes and durations of one benchmark session (from the command line). */
export interface Settings {
  /** Rows in the data set and in each bulk load. */
  readonly rows: number;
  /** Measured runs per workload and target. */
  readonly runs: number;
  /** Length of one timed run, in seconds. */
  readonly seconds: number;
  /** Length of the unrecorded warm-up run before a workload's timed runs, in seconds (0: none). */
  readonly warmupSeconds: number;
  /** Measured starts per start-up workload and target (each a raw-client and a Node-client start). */
  readonly startupRuns: number;
  /** GiB of 1 KiB rows in the large bulk load (load-large). */
  readonly largeLoadGiB: number;
  /** Rows per MutateRows request in bulk loads. */
  readonly loadBatchRows: number;
  /** MutateRows requests in flight during bulk loads. */
  readonly loadInFlight: number;
  /** Load-generator processes, calls in flight per process, connections per process. */
  readonly loadgenProcesses: number;
  readonly loadgenInFlight: number;
  readonly loadgenScansInFlight: number;
  readonly loadgenChannels: number;
  readonly loadgenTransport: TransportKind;
}

/** What a workload counted while it was measured. */
export interface Counts {
  /** Operations completed (requests, or scans). */
  readonly ops: number;
  /** Rows read or written. */
  readonly rows: number;
  /** Logical bytes read or written (key + qualifier + value), or wire bytes for the load generator. */
  readonly bytes: number;
  /** Per-operation latency, when meaningful. */
  readonly latency?: Histogram;
  /** CPU seconds of load-generator processes (when the client runs outside this process). */
  readonly clientCpuSeconds?: number;
  /** Client processes that produced the load (1: this process). */
  readonly clientProcesses?: number;
  /** Bulk loads: the server's RSS as the data grew (logical bytes loaded so far, RSS then). */
  readonly rssCurve?: readonly RssSample[];
}

export interface RssSample {
  readonly loadedBytes: number;
  readonly rssBytes: number;
}

/** Counts plus the resources used while they were made. */
export interface Measured extends Counts {
  readonly seconds: number;
  readonly serverCpuSeconds: number;
  /** Of serverCpuSeconds, what the server's main thread (the one serving requests) used, where it was measured. */
  readonly serverMainCpuSeconds?: number;
  readonly clientCpuSeconds: number;
  readonly clientProcesses: number;
  /** The server's resident set size right after the measured part. */
  readonly serverRssBytes: number;
  /** Bytes under the server's data directory right after the measured part (durable tabletop only). */
  readonly serverDiskBytes?: number;
  /** Start-up workloads: the probes' measurements. */
  readonly startup?: StartupMeasure;
}

/** The tables every long-lived server gets before the timed workloads run. */
export interface Dataset {
  /** N rows of 1 KiB values (see dataset.ts). */
  readonly table: string;
  readonly rows: number;
  readonly valueSize: number;
  /** Empty tables for write workloads. */
  readonly writesTable: string;
  readonly countersTable: string;
  readonly loadgenWritesTable: string;
}

export interface RunContext {
  readonly target: Target;
  /** The official Node client connected to the target. */
  readonly client: Bigtable;
  readonly settings: Settings;
  readonly dataset: Dataset;
  /** How long this run lasts (the warm-up length for a warm-up run). */
  readonly seconds: number;
  /** Distinct per run (and per warm-up), for seeds and fresh row keys. */
  readonly runId: number;
  /** Progress of the measured part; `done` is cumulative, in the workload's unit. */
  readonly tick: (done: number) => void;
  /**
   * Measures `body`: wall time, the server's CPU time (from /proc) and this
   * process's CPU time around it. Set-up and verification stay outside.
   */
  measure(body: () => Promise<Counts>): Promise<Measured>;
}

export type WorkloadGroup = 'client' | 'loadgen' | 'startup';

/** What every workload says about itself (names, units, what the report shows). */
export interface WorkloadBase {
  readonly name: string;
  readonly title: string;
  readonly group: WorkloadGroup;
  /** What throughput and CPU time are counted per: operations or rows. */
  readonly per: 'op' | 'row';
  /** Plural noun for the unit, e.g. "reads", "rows", "increments". */
  readonly unitName: string;
  /** Report MB/s (scans). */
  readonly mbps: boolean;
  /** Report latency percentiles (per operation). */
  readonly latency: boolean;
  /** Each run gets a freshly started, empty server (bulk loads: RSS is measured after the load). */
  readonly freshServer: boolean;
  /**
   * The workload writes. A server may finish writes in the background after
   * acknowledging them (tabletop's flushes and compactions): that CPU is
   * billed to the run that caused it, by measuring until the server is idle.
   * (Every run, writing or not, starts on an idle server.)
   */
  readonly writes: boolean;
  /** Fresh-server workloads: the units (rows) one run does, for progress. Default: settings.rows. */
  total?(settings: Settings): number;
  /** At most this many measured runs per target (a long workload), whatever --runs says. */
  readonly maxRuns?: number;
  /** Bulk loads: draw the RSS-while-loading chart beside the report. */
  readonly rssChart?: boolean;
  /** A published figure to compare with (Cloud Bigtable per-node throughput). */
  readonly reference?: Reference;
  /** Exactly what one run does, with its parameters, for the report. */
  describe(settings: Settings): string;
}

/** A workload of calls to a started server (fresh or long-lived, as `freshServer` says). */
export interface ServerWorkload extends WorkloadBase {
  readonly kind?: undefined;
  /**
   * Fresh-server workloads: unmeasured work on the new server before the run
   * (when warm-ups are on), so that a JIT-compiled server is not charged its
   * compilation as per-row cost.
   */
  warmUp?(ctx: RunContext): Promise<void>;
  run(ctx: RunContext): Promise<Measured>;
}

/**
 * A start-up workload: each run starts the target afresh in new probe
 * processes (../startup/) and times its first calls; the runner starts no
 * server and no client of its own for it.
 */
export interface StartupWorkload extends WorkloadBase {
  readonly kind: 'startup';
  /** How tabletop starts in this workload (the emulator always starts as itself). */
  readonly variant: Exclude<StartupVariant, 'emulator'>;
}

/**
 * One phase of a sequence workload, reported as a workload of its own
 * (`mixed/<phase>`, one row of the report's tables): it runs only within
 * its sequence.
 */
export interface PhaseWorkload extends WorkloadBase {
  readonly kind: 'phase';
}

/** A phase's figures from one run of its sequence. */
export interface PhaseMeasured {
  readonly phase: PhaseWorkload;
  readonly measured: Measured;
}

export interface SequenceContext {
  readonly target: Target;
  readonly client: Bigtable;
  readonly settings: Settings;
  /** Distinct per run (and warm-up), for seeds, fresh row keys and table names. */
  readonly runId: number;
  /** Starts the progress of a phase (in its unit; `total` for count-based phases); returns its `tick`. */
  task(phase: PhaseWorkload, total?: number): (done: number) => void;
}

/**
 * Phases run back to back on one freshly started server, without waiting
 * for it to be idle between them: each phase is billed the server CPU
 * between its edges, background work included, whatever caused it. The
 * runner waits for an idle server only before the first phase.
 */
export interface SequenceWorkload extends WorkloadBase {
  readonly kind: 'sequence';
  /** The phases it reports, in order; the last one is the whole run. */
  readonly phases: readonly PhaseWorkload[];
  /** Unmeasured work on the new server first (a shorter sequence, its tables then deleted): JIT compilation is not billed. */
  warmUp(ctx: SequenceContext): Promise<void>;
  /** Every phase's figures, in `phases` order, once every phase's answers have been checked. */
  run(ctx: SequenceContext): Promise<PhaseMeasured[]>;
}

export type Workload = ServerWorkload | StartupWorkload | SequenceWorkload;

/** What the report has a row for: a workload, or a phase of a sequence in its place. */
export type ReportedWorkload = ServerWorkload | StartupWorkload | PhaseWorkload;

/** The workloads as the report lists them: each sequence replaced by its phases. */
export function reportedWorkloads(workloads: readonly Workload[]): ReportedWorkload[] {
  return workloads.flatMap((w): ReportedWorkload[] => (w.kind === 'sequence' ? [...w.phases] : [w]));
}

/** A start-up run: what the raw-client probe and the Node-client probe measured. */
export interface StartupMeasure {
  readonly raw: ProbeResult;
  readonly node: ProbeResult;
}

/** A published throughput to compare a workload with. */
export interface Reference {
  /** Which figure it compares with: throughput in the workload's unit per second, or MB/s. */
  readonly figure: 'throughput' | 'mbps';
  readonly value: number;
  readonly label: string;
}
