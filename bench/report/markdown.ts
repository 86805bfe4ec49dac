import type { Options } from '../options.js';
import type { RunRecord, SessionResults } from '../runner.js';
import { isTabletop, type TargetKind } from '../servers/targets.js';
import { spread, ratio } from '../stats/summary.js';
import type { Spread } from '../stats/summary.js';
import { reportedWorkloads } from '../workloads/workload.js';
import type { ReportedWorkload } from '../workloads/workload.js';
import { figureSpread, figures } from './figures.js';
import type { Figure, FigureKey } from './figures.js';
import { cell, num, ratioText } from './format.js';
import { mixedCost } from './mixed-cost.js';
import { rssSeries, rssTable } from './rss-chart.js';
import { MIXED_TOTAL } from '../workloads/mixed.js';
import type { MachineFacts } from './machine.js';

/** The Markdown report of one benchmark session. */

export interface ReportInput {
  readonly title: string;
  readonly command: string;
  readonly options: Options;
  readonly results: SessionResults;
  readonly machine: MachineFacts;
  readonly chartFile: string;
  /** RSS-while-loading charts by workload name (file names beside the report). */
  readonly rssCharts: Readonly<Record<string, string>>;
}

export function markdownReport(input: ReportInput): string {
  const { options, results } = input;
  const workloads = reportedWorkloads(options.workloads);
  const minutes = (results.finishedAt.getTime() - results.startedAt.getTime()) / 60_000;
  const out: string[] = [];
  out.push(`# ${input.title}`, '');
  out.push(`Command: \`${input.command}\``, '');
  const startups = workloads.some((w) => w.kind === 'startup') ? ` (start-up workloads: ${options.settings.startupRuns})` : '';
  out.push(
    `Started ${results.startedAt.toISOString()}, took ${minutes.toFixed(1)} min. Figures are medians over ${options.settings.runs} run(s)${startups} per target, runs alternating between targets in an order that rotates from run to run; [min–max] in the details. "÷" is tabletop divided by the emulator${options.targets.includes('tabletop-off') ? '; tabletop-off is the same build with recording off (`serve --insight off`)' : ''}${options.targets.includes('tabletop-again') ? '; tabletop-again is tabletop once more, an A/A control' : ''}${options.targets.includes('tabletop-off-again') ? '; tabletop-off-again is tabletop-off once more' : ''}${options.targets.includes('tabletop-bg0') ? '; tabletop-bg0 is the same build with `serve --background-threads 0` (the serving thread builds SSTables itself), "bg0 ÷" it divided by the emulator' : ''}${options.targets.includes('tabletop-bg1') ? '; tabletop-bg1 is the same build with `serve --background-threads 1` (one worker thread builds SSTables), "bg1 ÷" it divided by the emulator' : ''}${options.baseDist !== undefined ? `; tabletop-base is another build, \`${options.baseDist}\`` : ''}.${options.freshServers ? ' Each run of a workload ran on servers started for it (`--fresh-servers`: the data set loaded and a warm-up run first), not on one long-lived server per target.' : ''}`,
    '',
  );
  if (results.warnings.length > 0) {
    out.push('**Warnings**', '');
    for (const w of results.warnings) out.push(`- ${w}`);
    out.push('');
  }
  out.push('## Summary', '');
  out.push(...summaryTable(workloads, options.targets, results.records));
  out.push('', `![tabletop vs emulator](${input.chartFile})`, '');
  if (workloads.some((w) => w.name === MIXED_TOTAL.name)) out.push(...mixedSection(workloads, options.targets, results.records), '');
  if (options.targets.includes('tabletop') && options.targets.includes('tabletop-off'))
    out.push(...recordingCostSection(workloads, results.records), '');
  const threads = backgroundThreadsSection(workloads, results.records);
  if (threads.length > 0) out.push(...threads, '');
  if (options.targets.includes('tabletop') && options.targets.includes('tabletop-base'))
    out.push(...baseBuildSection(workloads, results.records), '');
  const lg = workloads.filter((w) => w.reference !== undefined);
  if (lg.length > 0) out.push(...loadgenSection(lg, options.targets, results.records), '');
  out.push('## Details', '');
  for (const w of workloads) out.push(...workloadSection(w, options, results.records, input.rssCharts), '');
  out.push(...setupSection(input), '');
  out.push(
    ...methodSection(
      input.machine.cores,
      workloads.some((w) => w.kind === 'startup'),
      workloads.some((w) => w.kind === 'phase'),
    ),
  );
  return out.join('\n') + '\n';
}

/** The figures the summary shows; the details show all. */
const SUMMARY_FIGURES: ReadonlySet<FigureKey> = new Set<FigureKey>([
  'throughput',
  'mbps',
  'p99',
  'serverCpu',
  'rssPerGiB',
  'rssGrowthPerGiB',
  'diskPerGiB',
  'firstCallMs',
  'clientReadMs',
  'idleRssMiB',
]);

/** The tabletop targets that the tables divide by the emulator, each in a "÷" column of its own. */
const EMULATOR_RATIOS: readonly { readonly kind: TargetKind; readonly head: string }[] = [
  { kind: 'tabletop', head: '÷' },
  { kind: 'tabletop-bg0', head: 'bg0 ÷' },
  { kind: 'tabletop-bg1', head: 'bg1 ÷' },
];

/** The "÷" columns of a run's tables: those of its tabletop targets, when the emulator ran too. */
function ratioColumns(targets: readonly TargetKind[]): readonly { readonly kind: TargetKind; readonly head: string }[] {
  return targets.includes('emulator') ? EMULATOR_RATIOS.filter((c) => targets.includes(c.kind)) : [];
}

/** Each "÷" column's target ÷ the emulator, from spreads in `targets` order. */
function emulatorRatios(targets: readonly TargetKind[], s: readonly (Spread | undefined)[]): string[] {
  return ratioColumns(targets).map((c) => ratioText(ratio(s[targets.indexOf(c.kind)]?.median, s[targets.indexOf('emulator')]?.median)));
}

function summaryTable(workloads: readonly ReportedWorkload[], targets: readonly TargetKind[], records: readonly RunRecord[]): string[] {
  const columns = ratioColumns(targets);
  const head = ['workload', 'figure', ...targets, ...columns.map((c) => c.head)];
  const rows: string[][] = [];
  for (const w of workloads) {
    for (const f of figures(w).filter((x) => SUMMARY_FIGURES.has(x.key))) {
      const s = targets.map((k) => figureSpread(records, w, k, f));
      if (s.every((x) => x === undefined)) continue;
      rows.push([
        w.name,
        betterLabel(f),
        ...s.map((x, i) => (x === undefined ? failedOrMissing(records, w, targets[i]) : num(x.median))),
        ...emulatorRatios(targets, s),
      ]);
    }
    const errs = records.filter((r) => r.workload === w.name && r.error !== undefined);
    if (errs.length > 0 && rows.every((r) => r[0] !== w.name))
      rows.push([w.name, 'failed', ...targets.map((k) => failedOrMissing(records, w, k)), ...columns.map(() => '–')]);
  }
  return table(head, rows);
}

/** Throughput and server CPU per operation below which (above which) recording costs more than the issue allows. */
export const RECORDING_COST_LIMITS = { throughput: 0.95, serverCpu: 1.05 } as const;

/**
 * What recording costs, per workload: tabletop (recording on) ÷ tabletop-off
 * (the same build, `serve --insight off`), throughput and server CPU per
 * operation, with the ratios past the limits marked.
 */
export function recordingCostSection(workloads: readonly ReportedWorkload[], records: readonly RunRecord[]): string[] {
  return baselineSection(workloads, records, {
    heading: 'Recording cost',
    intro: `tabletop (recording on) ÷ tabletop-off (the same build, \`serve --insight off\`): the median of the runs' ratios, each run against the other target's run of the same round. The limits: throughput at least ${RECORDING_COST_LIMITS.throughput}×, server CPU per operation at most ${RECORDING_COST_LIMITS.serverCpu}×; **bold** is past one.`,
    baseline: 'tabletop-off',
    head: 'on ÷ off',
    limits: RECORDING_COST_LIMITS,
    offControl: true,
  });
}

/**
 * What the background threads change, per workload: a target with worker threads building the SSTables of flushes
 * and compactions ÷ one with fewer. tabletop-bg1 (one worker) when it ran, else tabletop (serve's default, cores − 2
 * from 0 to 4), divided by tabletop-bg0 (none: the serving thread builds them) when it ran, else by tabletop (on 2
 * cores the default is 0 workers, so bg1 ÷ tabletop is what one worker changes). Empty when no two of them ran.
 */
export function backgroundThreadsSection(workloads: readonly ReportedWorkload[], records: readonly RunRecord[]): string[] {
  const ran = (kind: TargetKind): boolean => records.some((r) => r.target === kind);
  const numerator: TargetKind = ran('tabletop-bg1') ? 'tabletop-bg1' : 'tabletop';
  const baseline: TargetKind = ran('tabletop-bg0') ? 'tabletop-bg0' : 'tabletop';
  if (numerator === baseline || !ran(numerator) || !ran(baseline)) return [];
  const name = (kind: TargetKind): string => (kind === 'tabletop' ? 'default' : kind.slice('tabletop-'.length));
  const what: Partial<Record<TargetKind, string>> = {
    tabletop: "tabletop (`serve`'s default background threads: cores − 2 from 0 to 4, so 0 on 2 cores)",
    'tabletop-bg0':
      'tabletop-bg0 (the same build, `--background-threads 0`: the serving thread builds the SSTables of flushes and compactions itself)',
    'tabletop-bg1':
      'tabletop-bg1 (the same build, `--background-threads 1`: one worker thread builds the SSTables of flushes and compactions)',
  };
  return baselineSection(workloads, records, {
    heading: 'Background threads',
    intro: `${what[numerator] ?? numerator} ÷ ${what[baseline] ?? baseline}: the median of the runs' ratios, each run against the other target's run of the same round. Server CPU counts every thread of the server.`,
    baseline,
    numerator,
    head: `${name(numerator)} ÷ ${name(baseline)}`,
  });
}

/** What a change costs or saves, per workload: tabletop (this checkout) ÷ tabletop-base (another build, --base-dist). */
export function baseBuildSection(workloads: readonly ReportedWorkload[], records: readonly RunRecord[]): string[] {
  return baselineSection(workloads, records, {
    heading: 'Against the base build',
    intro:
      "tabletop (this checkout's build) ÷ tabletop-base (the build given with `--base-dist`, started the same way): the median of the runs' ratios, each run against the other target's run of the same round.",
    baseline: 'tabletop-base',
    head: 'this ÷ base',
  });
}

interface BaselineShape {
  readonly heading: string;
  readonly intro: string;
  readonly baseline: TargetKind;
  /** What is divided by the baseline (default tabletop). */
  readonly numerator?: TargetKind;
  /** What the ratio is, in the column heads ("on ÷ off"). */
  readonly head: string;
  /** Ratios past which a figure is marked bold. */
  readonly limits?: { readonly throughput: number; readonly serverCpu: number };
  /** Show tabletop-off ÷ tabletop-off-again ("off A/A") too, when that control ran. */
  readonly offControl?: boolean;
}

/**
 * tabletop ÷ another tabletop target, per workload: throughput and server
 * CPU per operation; with the A/A control (tabletop-again) in the run, the
 * distance from 1× that noise alone gives beside each.
 */
function baselineSection(workloads: readonly ReportedWorkload[], records: readonly RunRecord[], shape: BaselineShape): string[] {
  const control = records.some((r) => r.target === 'tabletop-again');
  const offControl = shape.offControl === true && records.some((r) => r.target === 'tabletop-off-again');
  const out = [
    `## ${shape.heading}`,
    '',
    shape.intro +
      (control
        ? ' "A/A" is tabletop ÷ tabletop-again, two identical servers in the same run: how far apart noise alone puts them; a difference within that distance of 1× is not measurable in this run.'
        : '') +
      (offControl ? ' "off A/A" is tabletop-off ÷ tabletop-off-again, the same for the servers with recording off.' : ''),
    '',
  ];
  const rows: string[][] = [];
  const { limits } = shape;
  for (const w of workloads) {
    const r = recordingCost(w, records, shape.baseline, shape.numerator);
    if (r === undefined) continue;
    const mark = (v: number | undefined, bad: boolean): string => (v === undefined ? '–' : bad ? `**${ratioText(v)}**` : ratioText(v));
    const aa = control ? recordingCost(w, records, 'tabletop-again') : undefined;
    const offAa = offControl ? recordingCost(w, records, 'tabletop-off-again', 'tabletop-off') : undefined;
    const plain = (v: number | undefined): string => (v === undefined ? '–' : ratioText(v));
    rows.push([
      w.name,
      mark(r.throughput, limits !== undefined && r.throughput !== undefined && r.throughput < limits.throughput),
      ...(control ? [plain(aa?.throughput)] : []),
      ...(offControl ? [plain(offAa?.throughput)] : []),
      mark(r.serverCpu, limits !== undefined && r.serverCpu !== undefined && r.serverCpu > limits.serverCpu),
      ...(control ? [plain(aa?.serverCpu)] : []),
      ...(offControl ? [plain(offAa?.serverCpu)] : []),
    ]);
  }
  const head = [
    'workload',
    `throughput ${shape.head} (higher is better)`,
    ...(control ? ['throughput A/A'] : []),
    ...(offControl ? ['throughput off A/A'] : []),
    `server CPU/op ${shape.head} (lower is better)`,
    ...(control ? ['server CPU/op A/A'] : []),
    ...(offControl ? ['server CPU/op off A/A'] : []),
  ];
  out.push(...table(head, rows));
  return out;
}

/**
 * tabletop ÷ tabletop-off (or ÷ `baseline`) for a workload's throughput and server CPU per operation; undefined when
 * neither was measured. The median of per-run ratios, each run of tabletop against the baseline's run of the same
 * round (targets alternate within a round, so the two ran minutes apart): drift of the machine over the session
 * divides out, which a ratio of the two medians (runs of different rounds) would keep.
 */
export function recordingCost(
  w: ReportedWorkload,
  records: readonly RunRecord[],
  baseline: TargetKind = 'tabletop-off',
  numerator: TargetKind = 'tabletop',
): { readonly throughput: number | undefined; readonly serverCpu: number | undefined } | undefined {
  if (w.kind === 'startup') return undefined;
  const of = (key: FigureKey): number | undefined => {
    const f = figures(w).find((x) => x.key === key);
    if (f === undefined) return undefined;
    const byRun = (kind: TargetKind): Map<number, number> => {
      const m = new Map<number, number>();
      for (const r of records) {
        if (r.workload !== w.name || r.target !== kind || r.result === undefined) continue;
        const v = f.value(r.result);
        if (v !== undefined) m.set(r.run, v);
      }
      return m;
    };
    const base = byRun(baseline);
    const ratios: number[] = [];
    for (const [run, v] of byRun(numerator)) {
      const q = ratio(v, base.get(run));
      if (q !== undefined) ratios.push(q);
    }
    return spread(ratios)?.median;
  };
  const throughput = of('throughput');
  const serverCpu = of('serverCpu');
  return throughput === undefined && serverCpu === undefined ? undefined : { throughput, serverCpu };
}

/**
 * The mixed workload's whole run per target: its server CPU, and against
 * the emulator's, as measured and at equal work (report/mixed-cost.ts).
 */
function mixedSection(workloads: readonly ReportedWorkload[], targets: readonly TargetKind[], records: readonly RunRecord[]): string[] {
  const out = [
    '## Mixed workload: the whole run',
    '',
    "Every phase of `mixed` back to back on one server, and its background work until it is idle after the last phase. Timed phases last as long on every target, so a faster server does more work and spends more CPU in them: \"at equal work\" divides a target's whole-run server CPU by what the emulator spent for the same work (each phase's operations or rows of the target's run at the emulator's median CPU per operation of that phase, plus the emulator's CPU after its last phase); medians over runs.",
    '',
  ];
  const total = workloads.find((w) => w.name === MIXED_TOTAL.name);
  const rows: string[][] = [];
  for (const kind of targets) {
    const runs = total === undefined ? [] : runsOf(records, total, kind);
    const cpu = spread(runs.map((r) => r.serverCpuSeconds));
    const ops = spread(runs.map((r) => r.ops));
    const secs = spread(runs.map((r) => r.seconds));
    const cost = kind === 'emulator' ? undefined : mixedCost(workloads, records, kind);
    rows.push([
      kind,
      cpu === undefined ? failedOrMissing(records, MIXED_TOTAL, kind) : num(cpu.median),
      ops === undefined ? '–' : num(ops.median),
      secs === undefined ? '–' : num(secs.median),
      ratioText(cost?.measured),
      ratioText(cost?.equalWork),
    ]);
  }
  out.push(
    ...table(
      [
        'target',
        'server CPU, s',
        'ops',
        'wall time of the phases, s',
        'server CPU ÷ emulator, as measured',
        'server CPU ÷ emulator, at equal work (lower is better)',
      ],
      rows,
    ),
  );
  return out;
}

function failedOrMissing(records: readonly RunRecord[], w: ReportedWorkload, kind: TargetKind | undefined): string {
  return records.some((r) => r.workload === w.name && r.target === kind && r.error !== undefined) ? 'failed' : '–';
}

function betterLabel(f: Figure): string {
  return f.better === 'none' ? f.label : `${f.label} (${f.better} is better)`;
}

function loadgenSection(workloads: readonly ReportedWorkload[], targets: readonly TargetKind[], records: readonly RunRecord[]): string[] {
  const out = ['## One server process under the load generator, vs Cloud Bigtable', ''];
  out.push(
    "What one server process sustains under the raw gRPC load generator, next to Google's published throughput of one Cloud Bigtable node with SSD storage (rows of 1 KB; https://cloud.google.com/bigtable/docs/performance). " +
      'The load generator runs on the same machine and shares its cores with the server; "load generator busy" near 100% means the client, not the server, was the limit.',
    '',
  );
  const head = [
    'workload',
    'Cloud Bigtable SSD node',
    ...targets.flatMap((k) => [k, `${k} ÷ node`, `${k}: server cores busy`, `${k}: load generator busy`]),
  ];
  const rows: string[][] = [];
  for (const w of workloads) {
    const ref = w.reference;
    if (ref === undefined) continue;
    const f = figures(w).find((x) => x.key === ref.figure);
    if (f === undefined) continue;
    const cores = figures(w).find((x) => x.key === 'serverCores');
    const row = [w.name, `${num(ref.value)} ${f.label}`];
    for (const k of targets) {
      const s = figureSpread(records, w, k, f);
      const c = cores === undefined ? undefined : figureSpread(records, w, k, cores);
      const busy = spread(runsOf(records, w, k).map((r) => r.clientCpuSeconds / (r.seconds * r.clientProcesses)));
      row.push(
        s === undefined ? failedOrMissing(records, w, k) : `${num(s.median)} ${f.label}`,
        ratioText(ratio(s?.median, ref.value)),
        c === undefined ? '–' : num(c.median),
        busy === undefined ? '–' : `${Math.round(busy.median * 100)}%`,
      );
    }
    rows.push(row);
  }
  out.push(...table(head, rows));
  return out;
}

function runsOf(records: readonly RunRecord[], w: ReportedWorkload, kind: TargetKind): NonNullable<RunRecord['result']>[] {
  const out: NonNullable<RunRecord['result']>[] = [];
  for (const r of records) if (r.workload === w.name && r.target === kind && r.result !== undefined) out.push(r.result);
  return out;
}

function workloadSection(
  w: ReportedWorkload,
  options: Options,
  records: readonly RunRecord[],
  rssCharts: Readonly<Record<string, string>>,
): string[] {
  const { targets } = options;
  const columns = ratioColumns(targets);
  const out = [`### ${w.name}: ${w.title}`, '', w.describe(options.settings) + '.', ''];
  const rows: string[][] = [];
  for (const f of figures(w)) {
    const s = targets.map((k) => figureSpread(records, w, k, f));
    if (s.every((x) => x === undefined)) continue;
    rows.push([betterLabel(f), ...s.map(spreadText), ...emulatorRatios(targets, s)]);
  }
  if (rows.length > 0) out.push(...table(['figure', ...targets, ...columns.map((c) => c.head)], rows));
  const curves = rssSeries(w, targets, records);
  if (curves.length > 0) {
    out.push('', 'Server RSS as the data grew (first run per target):', '', ...rssTable(curves));
    const chart = rssCharts[w.name];
    if (chart !== undefined) out.push('', `![RSS while loading](${chart})`);
  }
  for (const r of records) {
    if (r.workload === w.name && r.error !== undefined)
      out.push('', `- **${r.target} ${r.run === 0 ? 'warm-up' : `run ${r.run}`} failed:** ${cell(r.error.split('\n')[0] ?? '')}`);
  }
  return out;
}

function spreadText(s: Spread | undefined): string {
  if (s === undefined) return '–';
  return s.n === 1 ? num(s.median) : `${num(s.median)} [${num(s.min)}–${num(s.max)}]`;
}

function setupSection(input: ReportInput): string[] {
  const { machine: m, options: o, results } = input;
  const s = o.settings;
  const lines = ['## Setup', ''];
  lines.push(`- Machine: ${m.cpuModel}, ${m.cores} cores, ${m.memory} RAM, ${m.os}; Node ${m.node}`);
  const la = (xs: readonly number[]): string => xs.map((x) => x.toFixed(2)).join(' / ');
  lines.push(`- Load average (1 / 5 / 15 min) at the start: ${la(results.loadAverage.start)}; at the end: ${la(results.loadAverage.end)}`);
  lines.push(`- tabletop: commit ${m.tabletopCommit}; mode asked: ${o.tabletopMode}`);
  if (m.baseCommit !== undefined) lines.push(`- tabletop-base: commit ${m.baseCommit} (\`${o.baseDist ?? ''}\`)`);
  for (const t of results.targets.values())
    lines.push(
      `  - ${t.kind} storage: ${t.storage}${isTabletop(t.kind) ? (t.durable ? ' (durable: writes fsynced)' : ' (not durable)') : ''}`,
    );
  lines.push(`- Emulator: ${m.emulator}`);
  lines.push(`- Clients: ${m.nodeClient}; load generator on ${m.grpcJs}`);
  lines.push(
    `- Sizes: ${s.rows.toLocaleString('en-US')} rows per data set and bulk load; ${s.runs} run(s) per workload and target (${s.startupRuns} per start-up workload); timed runs of ${s.seconds} s after a ${s.warmupSeconds} s warm-up; ` +
      `bulk loads in MutateRows of ${s.loadBatchRows} rows, ${s.loadInFlight} in flight; load generator: ${s.loadgenProcesses} process(es), ${s.loadgenInFlight} calls (${s.loadgenScansInFlight} scans) in flight and ${s.loadgenChannels} connections per process, transport ${s.loadgenTransport}`,
  );
  return lines;
}

function methodSection(cores: number, startup: boolean, mixed: boolean): string[] {
  const mixedMethod = [
    "- The mixed workload runs its phases back to back on a freshly started server per target and run, without waiting for the server to be idle between them (it waits once, before the first): each phase's server CPU is read from /proc at its two edges, so the flushes and compactions that the loads (or the writes) leave behind are billed to whichever phase they land in. The whole run (`mixed/total`) counts every phase's calls, and its server CPU runs until the server is idle after the last phase. Each phase's answers are checked as its isolated workload checks them, after the whole run (so no check is billed to a phase).",
  ];
  const startupMethod = [
    "- Start-up workloads start every server afresh in a new Node process of their own (a probe, compiled by tsc and run by plain node, as a test runner's worker is), twice per run: the first calls over raw gRPC (node:http2), then, in another start, through a new official Node client, imported before the clock starts. Times run from just before the server is started (for startServer(), before tabletop is imported) to the answers. Server CPU is the server's threads' CPU time (/proc/<pid>/task/*/schedstat; for startServer(), the probe process's own CPU since the clock started, its raw client included). RSS is VmRSS when the server listens and once it is idle (under 2% of a core for a second) after the first read; for startServer(), what the start added to the process's RSS.",
  ];
  return [
    '## How these figures are made',
    '',
    '- Both servers are started by the harness on loopback. Bulk loads run on a freshly started, empty server each run; every other workload runs on one long-lived server per target that holds the data set (rows of 10-byte keys and 1 KiB random values, loaded once, not measured) after one unrecorded warm-up run.',
    '- Runs alternate between targets (tabletop, tabletop-off, emulator, tabletop, ...) so that drift of the machine hits all; all targets get the same keys and seeds. tabletop-off is the same build as tabletop, started with `--insight off` (no recording of traffic per key range); tabletop-again, when asked for, is tabletop started once more (an A/A control), tabletop-off-again tabletop-off once more; tabletop-bg0, when asked for, is the same build started with `--background-threads 0` (the serving thread builds the SSTables of flushes and compactions itself, as before worker threads did), tabletop-bg1 the same build with `--background-threads 1` (one worker thread builds them).',
    '- Server CPU is utime + stime of the server process from /proc/<pid>/stat, read before and after the measured part of each run, divided by the operations (or rows) completed. For bulk loads, "after" is once the server is idle again (under 2% of a core for a second), so that the flushes and compactions a load leaves behind count too; throughput and latency stop at the last acknowledgement. "Cores busy" is that CPU time over the wall time of the measured part.',
    '- RSS is VmRSS from /proc/<pid>/status right after the bulk load; "per GiB loaded" divides by the logical bytes loaded (key + qualifier + value of every row). "Growth" subtracts the RSS of the idle server before the load.',
    "- Client CPU is this process's CPU time (Node-client workloads) or the load-generator processes' (load-generator workloads), per operation.",
    '- Every workload checks its answers: point reads and scans compare each value with the one loaded and count rows; writes count the rows afterwards; increments check the final counter. A run that gets a wrong answer fails.',
    `- The clients and the server share this machine's ${cores} core(s). Node-client throughput is often limited by the client itself; server CPU per operation is the figure least disturbed by that.`,
    ...(startup ? startupMethod : []),
    ...(mixed ? mixedMethod : []),
  ];
}

function table(head: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const line = (cells: readonly string[]): string => `| ${cells.map(cell).join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)];
}
