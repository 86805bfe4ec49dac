import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { WORKLOADS, selectWorkloads } from './catalog.js';
import { TRANSPORT_KINDS } from './loadgen/transport.js';
import type { RunKind } from './report/history.js';
import type { TransportKind } from './loadgen/transport.js';
import { DEFAULT_TARGETS, TARGET_KINDS } from './servers/targets.js';
import type { TabletopMode, TargetKind } from './servers/targets.js';
import { GROUP_ROWS, MAX_ROWS } from './workloads/dataset.js';
import type { Settings, Workload } from './workloads/workload.js';

/** The harness's command line. */

export const USAGE = `Usage: npm run bench -- [options]

Benchmarks tabletop against Google's Bigtable emulator (cbtemulator) through the
official Node client and a raw gRPC load generator; writes bench/results/<date>-<label>.md
and .svg, adds a row to bench/results/history.md, removes the earlier report of the same
kind (full: every workload, both targets, not --quick; startup: --only startup; partial:
anything else) and, for a full run, rewrites bench/results/latest.md.

Options:
  --quick                 small sizes for a smoke run (about a minute)
  --rows N                rows in the data set and in each bulk load (default 100000; quick 5000)
  --runs N                measured runs per workload and target, alternating targets (default 3; quick 1)
  --seconds S             length of one timed run, and of each timed phase of mixed (default 5; quick 1)
  --warmup S              unrecorded warm-up run per workload and target (default 3; quick 0.3; 0: none)
  --startup-runs N        measured starts per start-up workload and target (default 9; quick 3)
  --large-gib G           GiB of 1 KiB rows in the large bulk load (load-large: RSS as data outgrows memory; default 2; quick 0.1)
  --only A,B              workloads or groups to run (names as in the report; groups: client,
                          loadgen, load, reads, startup); mixed: a bulk load of 1.5 × --rows
                          rows of 100 B and of 1 KiB, then every kind of call back to back on
                          one fresh server, background work billed to the phase it lands in
  --targets A,B           tabletop, tabletop-off (the same build, serve --insight off: what
                          recording costs), tabletop-again (tabletop once more: an A/A control
                          that shows this run's noise), tabletop-off-again (tabletop-off once
                          more: the same control for the off side), tabletop-bg0 (the same build, serve
                          --background-threads 0: the serving thread builds SSTables itself),
                          tabletop-bg1 (serve --background-threads 1: one worker builds them),
                          tabletop-base (another build: --base-dist) and/or emulator (default
                          tabletop, tabletop-off, emulator; a full run may add more)
  --base-dist DIR         the build tabletop-base runs: the dist directory of another checkout,
                          built with npm run build (what a change costs or saves, in one run)
  --tabletop-mode M       durable (default: fsynced writes in a temporary --data-dir) or memory
  --label NAME            names the result files (default "quick" or "full")
  --loadgen-procs N       load-generator processes (default: cores - 1, at least 1)
  --loadgen-inflight N    point-read/write calls in flight per load-generator process (default 64)
  --loadgen-scans N       full scans in flight per load-generator process (default 2)
  --loadgen-channels N    connections per load-generator process (default 4)
  --loadgen-transport T   http2 (default: gRPC framed over node:http2, about half the client
                          CPU per call) or grpc-js (the @grpc/grpc-js generic client)
  --fresh-servers         start every target's server afresh (data set loaded, warmed up) for each run of a
                          workload, rather than one long-lived server per target for the whole run: one
                          server's luck (JIT, heap layout) is then in one round's ratios, not in all of them
  --no-build              do not rebuild tabletop (dist/) first
  -h, --help              show this help
`;

export interface Options {
  readonly settings: Settings;
  readonly workloads: readonly Workload[];
  readonly targets: readonly TargetKind[];
  /** The build tabletop-base runs (--base-dist), resolved. */
  readonly baseDist?: string;
  readonly tabletopMode: TabletopMode;
  readonly label: string;
  readonly quick: boolean;
  readonly build: boolean;
  /** --fresh-servers: a new server per target for each run of a workload that otherwise runs on long-lived ones. */
  readonly freshServers: boolean;
  /** Every workload on both targets at full size: only such a run becomes bench/results/latest.md. */
  readonly complete: boolean;
  /** Which earlier report this run's replaces in bench/results/ (report/history.ts). */
  readonly kind: RunKind;
}

export type ParseResult = { readonly kind: 'run'; readonly options: Options } | { readonly kind: 'help' };

/** Parses the arguments; throws an Error with a message for the user on bad input. */
export function parseOptions(argv: readonly string[]): ParseResult {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      quick: { type: 'boolean' },
      rows: { type: 'string' },
      runs: { type: 'string' },
      seconds: { type: 'string' },
      warmup: { type: 'string' },
      'large-gib': { type: 'string' },
      'startup-runs': { type: 'string' },
      only: { type: 'string' },
      targets: { type: 'string' },
      'tabletop-mode': { type: 'string' },
      'base-dist': { type: 'string' },
      label: { type: 'string' },
      'loadgen-procs': { type: 'string' },
      'loadgen-inflight': { type: 'string' },
      'loadgen-scans': { type: 'string' },
      'loadgen-channels': { type: 'string' },
      'loadgen-transport': { type: 'string' },
      'no-build': { type: 'boolean' },
      'fresh-servers': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help === true) return { kind: 'help' };
  if (positionals.length > 0) throw new Error(`unexpected argument "${positionals[0]}"`);
  const quick = values.quick === true;
  const rows = integer(values.rows, '--rows', quick ? 5_000 : 100_000, GROUP_ROWS, MAX_ROWS);
  const settings: Settings = {
    rows,
    runs: integer(values.runs, '--runs', quick ? 1 : 3, 1, 1000),
    seconds: decimal(values.seconds, '--seconds', quick ? 1 : 5, 0.1, 3600),
    warmupSeconds: decimal(values.warmup, '--warmup', quick ? 0.3 : 3, 0, 3600),
    startupRuns: integer(values['startup-runs'], '--startup-runs', quick ? 3 : 9, 1, 1000),
    largeLoadGiB: decimal(values['large-gib'], '--large-gib', quick ? 0.1 : 2, 0.01, 64),
    loadBatchRows: 1000,
    loadInFlight: 4,
    loadgenProcesses: integer(values['loadgen-procs'], '--loadgen-procs', Math.max(1, os.availableParallelism() - 1), 1, 64),
    loadgenInFlight: integer(values['loadgen-inflight'], '--loadgen-inflight', 64, 1, 10_000),
    loadgenScansInFlight: integer(values['loadgen-scans'], '--loadgen-scans', 2, 1, 64),
    loadgenChannels: integer(values['loadgen-channels'], '--loadgen-channels', 4, 1, 64),
    loadgenTransport: transport(values['loadgen-transport']),
  };
  const mode = values['tabletop-mode'] ?? 'durable';
  if (mode !== 'durable' && mode !== 'memory') throw new Error(`--tabletop-mode must be durable or memory, not "${mode}"`);
  const label = values.label ?? (quick ? 'quick' : 'full');
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(label)) throw new Error(`--label must be letters, digits, ".", "_" or "-", not "${label}"`);
  const workloads = selectWorkloads(list(values.only));
  const chosenTargets = targets(values.targets);
  const baseDist = values['base-dist'];
  if (chosenTargets.includes('tabletop-base') !== (baseDist !== undefined))
    throw new Error(
      baseDist === undefined ? '--targets tabletop-base needs --base-dist DIR' : '--base-dist is for --targets ...,tabletop-base',
    );
  if (baseDist !== undefined && !existsSync(path.join(baseDist, 'cli', 'main.js')))
    throw new Error(`--base-dist: ${path.join(baseDist, 'cli', 'main.js')} does not exist (build that checkout with npm run build)`);
  // A full run measures every workload on at least the default targets; more targets (a control, bg1) keep it full.
  const complete = values.only === undefined && DEFAULT_TARGETS.every((t) => chosenTargets.includes(t)) && !quick;
  const startups = WORKLOADS.filter((w) => w.group === 'startup');
  const startupOnly =
    workloads.length === startups.length && startups.every((w) => workloads.includes(w)) && values.targets === undefined && !quick;
  return {
    kind: 'run',
    options: {
      settings,
      workloads,
      targets: chosenTargets,
      ...(baseDist === undefined ? {} : { baseDist: path.resolve(baseDist) }),
      tabletopMode: mode,
      label,
      quick,
      build: values['no-build'] !== true,
      freshServers: values['fresh-servers'] === true,
      complete,
      kind: complete ? 'full' : startupOnly ? 'startup' : 'partial',
    },
  };
}

function transport(v: string | undefined): TransportKind {
  if (v === undefined) return 'http2';
  const kind = TRANSPORT_KINDS.find((k) => k === v);
  if (kind === undefined) throw new Error(`--loadgen-transport must be ${TRANSPORT_KINDS.join(' or ')}, not "${v}"`);
  return kind;
}

function list(v: string | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  const items = v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length === 0) throw new Error('--only needs at least one workload name');
  return items;
}

function targets(v: string | undefined): TargetKind[] {
  const names = list(v) ?? [...DEFAULT_TARGETS];
  const out: TargetKind[] = [];
  for (const n of names) {
    const kind = TARGET_KINDS.find((k) => k === n);
    if (kind === undefined) throw new Error(`--targets: unknown target "${n}" (use ${TARGET_KINDS.join(', ')}, comma-separated)`);
    if (!out.includes(kind)) out.push(kind);
  }
  // In TARGET_KINDS' order (tabletop first, the emulator last): runs alternate in this order.
  return TARGET_KINDS.filter((k) => out.includes(k));
}

function integer(v: string | undefined, flag: string, fallback: number, min: number, max: number): number {
  if (v === undefined) return fallback;
  if (!/^\d+$/.test(v.replace(/_/g, '')) || Number(v.replace(/_/g, '')) < min || Number(v.replace(/_/g, '')) > max) {
    throw new Error(`${flag} must be a whole number from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}, not "${v}"`);
  }
  return Number(v.replace(/_/g, ''));
}

function decimal(v: string | undefined, flag: string, fallback: number, min: number, max: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < min || n > max)
    throw new Error(`${flag} must be a number from ${min} to ${max}, not "${v}"`);
  return n;
}
