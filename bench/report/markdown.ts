import type { Options } from '../options.js';
import type { RunRecord, SessionResults } from '../runner.js';
import { isTabletop, type TargetKind } from '../servers/targets.js';
import { spread, ratio } from '../stats/summary.js';
import type { Spread } from '../stats/summary.js';
import type { Workload } from '../workloads/workload.js';
import { figureSpread, figures } from './figures.js';
import type { Figure, FigureKey } from './figures.js';
import { cell, num, ratioText } from './format.js';
import { rssSeries, rssTable } from './rss-chart.js';
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
  const minutes = (results.finishedAt.getTime() - results.startedAt.getTime()) / 60_000;
  const out: string[] = [];
  out.push(`# ${input.title}`, '');
  out.push(`Command: \`${input.command}\``, '');
  const startups = options.workloads.some((w) => w.kind === 'startup') ? ` (start-up workloads: ${options.settings.startupRuns})` : '';
  out.push(
    `Started ${results.startedAt.toISOString()}, took ${minutes.toFixed(1)} min. Figures are medians over ${options.settings.runs} run(s)${startups} per target, runs alternating between targets; [min–max] in the details. "÷" is tabletop divided by the emulator${options.targets.includes('tabletop-off') ? '; tabletop-off is the same build with recording off (`serve --insight off`)' : ''}${options.targets.includes('tabletop-again') ? '; tabletop-again is tabletop once more, an A/A control' : ''}.`,
    '',
  );
  if (results.warnings.length > 0) {
    out.push('**Warnings**', '');
    for (const w of results.warnings) out.push(`- ${w}`);
    out.push('');
  }
  out.push('## Summary', '');
  out.push(...summaryTable(options.workloads, options.targets, results.records));
  out.push('', `![tabletop vs emulator](${input.chartFile})`, '');
  if (options.targets.includes('tabletop') && options.targets.includes('tabletop-off'))
    out.push(...recordingCostSection(options.workloads, results.records), '');
  const lg = options.workloads.filter((w) => w.reference !== undefined);
  if (lg.length > 0) out.push(...loadgenSection(lg, options.targets, results.records), '');
  out.push('## Details', '');
  for (const w of options.workloads) out.push(...workloadSection(w, options, results.records, input.rssCharts), '');
  out.push(...setupSection(input), '');
  out.push(
    ...methodSection(
      input.machine.cores,
      options.workloads.some((w) => w.kind === 'startup'),
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

/** Whether the tables have a "÷" column: tabletop and the emulator both ran. */
function comparesEmulator(targets: readonly TargetKind[]): boolean {
  return targets.includes('tabletop') && targets.includes('emulator');
}

/** tabletop ÷ the emulator, from spreads in `targets` order. */
function emulatorRatio(targets: readonly TargetKind[], s: readonly (Spread | undefined)[]): string {
  return ratioText(ratio(s[targets.indexOf('tabletop')]?.median, s[targets.indexOf('emulator')]?.median));
}

function summaryTable(workloads: readonly Workload[], targets: readonly TargetKind[], records: readonly RunRecord[]): string[] {
  const both = comparesEmulator(targets);
  const head = ['workload', 'figure', ...targets, ...(both ? ['÷'] : [])];
  const rows: string[][] = [];
  for (const w of workloads) {
    for (const f of figures(w).filter((x) => SUMMARY_FIGURES.has(x.key))) {
      const s = targets.map((k) => figureSpread(records, w, k, f));
      if (s.every((x) => x === undefined)) continue;
      rows.push([
        w.name,
        betterLabel(f),
        ...s.map((x, i) => (x === undefined ? failedOrMissing(records, w, targets[i]) : num(x.median))),
        ...(both ? [emulatorRatio(targets, s)] : []),
      ]);
    }
    const errs = records.filter((r) => r.workload === w.name && r.error !== undefined);
    if (errs.length > 0 && rows.every((r) => r[0] !== w.name))
      rows.push([w.name, 'failed', ...targets.map((k) => failedOrMissing(records, w, k)), ...(both ? ['–'] : [])]);
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
export function recordingCostSection(workloads: readonly Workload[], records: readonly RunRecord[]): string[] {
  const control = records.some((r) => r.target === 'tabletop-again');
  const out = [
    '## Recording cost',
    '',
    `tabletop (recording on) ÷ tabletop-off (the same build, \`serve --insight off\`), medians of the same run. The limits: throughput at least ${RECORDING_COST_LIMITS.throughput}×, server CPU per operation at most ${RECORDING_COST_LIMITS.serverCpu}×; **bold** is past one.` +
      (control
        ? ' "A/A" is tabletop ÷ tabletop-again, two identical servers in the same run: how far apart noise alone puts them; a cost within that distance of 1× is not measurable in this run.'
        : ''),
    '',
  ];
  const rows: string[][] = [];
  for (const w of workloads) {
    const r = recordingCost(w, records);
    if (r === undefined) continue;
    const mark = (v: number | undefined, bad: boolean): string => (v === undefined ? '–' : bad ? `**${ratioText(v)}**` : ratioText(v));
    const aa = control ? recordingCost(w, records, 'tabletop-again') : undefined;
    const plain = (v: number | undefined): string => (v === undefined ? '–' : ratioText(v));
    rows.push([
      w.name,
      mark(r.throughput, r.throughput !== undefined && r.throughput < RECORDING_COST_LIMITS.throughput),
      ...(control ? [plain(aa?.throughput)] : []),
      mark(r.serverCpu, r.serverCpu !== undefined && r.serverCpu > RECORDING_COST_LIMITS.serverCpu),
      ...(control ? [plain(aa?.serverCpu)] : []),
    ]);
  }
  const head = control
    ? [
        'workload',
        'throughput on ÷ off (higher is better)',
        'throughput A/A',
        'server CPU/op on ÷ off (lower is better)',
        'server CPU/op A/A',
      ]
    : ['workload', 'throughput on ÷ off (higher is better)', 'server CPU/op on ÷ off (lower is better)'];
  out.push(...table(head, rows));
  return out;
}

/**
 * tabletop ÷ tabletop-off (or ÷ `baseline`) for a workload's throughput and server CPU per operation; undefined when
 * neither was measured.
 */
export function recordingCost(
  w: Workload,
  records: readonly RunRecord[],
  baseline: TargetKind = 'tabletop-off',
): { readonly throughput: number | undefined; readonly serverCpu: number | undefined } | undefined {
  if (w.kind === 'startup') return undefined;
  const of = (key: FigureKey): number | undefined => {
    const f = figures(w).find((x) => x.key === key);
    return f === undefined
      ? undefined
      : ratio(figureSpread(records, w, 'tabletop', f)?.median, figureSpread(records, w, baseline, f)?.median);
  };
  const throughput = of('throughput');
  const serverCpu = of('serverCpu');
  return throughput === undefined && serverCpu === undefined ? undefined : { throughput, serverCpu };
}

function failedOrMissing(records: readonly RunRecord[], w: Workload, kind: TargetKind | undefined): string {
  return records.some((r) => r.workload === w.name && r.target === kind && r.error !== undefined) ? 'failed' : '–';
}

function betterLabel(f: Figure): string {
  return f.better === 'none' ? f.label : `${f.label} (${f.better} is better)`;
}

function loadgenSection(workloads: readonly Workload[], targets: readonly TargetKind[], records: readonly RunRecord[]): string[] {
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

function runsOf(records: readonly RunRecord[], w: Workload, kind: TargetKind): NonNullable<RunRecord['result']>[] {
  const out: NonNullable<RunRecord['result']>[] = [];
  for (const r of records) if (r.workload === w.name && r.target === kind && r.result !== undefined) out.push(r.result);
  return out;
}

function workloadSection(
  w: Workload,
  options: Options,
  records: readonly RunRecord[],
  rssCharts: Readonly<Record<string, string>>,
): string[] {
  const { targets } = options;
  const both = comparesEmulator(targets);
  const out = [`### ${w.name}: ${w.title}`, '', w.describe(options.settings) + '.', ''];
  const rows: string[][] = [];
  for (const f of figures(w)) {
    const s = targets.map((k) => figureSpread(records, w, k, f));
    if (s.every((x) => x === undefined)) continue;
    rows.push([betterLabel(f), ...s.map(spreadText), ...(both ? [emulatorRatio(targets, s)] : [])]);
  }
  if (rows.length > 0) out.push(...table(['figure', ...targets, ...(both ? ['÷'] : [])], rows));
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

function methodSection(cores: number, startup: boolean): string[] {
  const startupMethod = [
    "- Start-up workloads start every server afresh in a new Node process of their own (a probe, compiled by tsc and run by plain node, as a test runner's worker is), twice per run: the first calls over raw gRPC (node:http2), then, in another start, through a new official Node client, imported before the clock starts. Times run from just before the server is started (for startServer(), before tabletop is imported) to the answers. Server CPU is the server's threads' CPU time (/proc/<pid>/task/*/schedstat; for startServer(), the probe process's own CPU since the clock started, its raw client included). RSS is VmRSS when the server listens and once it is idle (under 2% of a core for a second) after the first read; for startServer(), what the start added to the process's RSS.",
  ];
  return [
    '## How these figures are made',
    '',
    '- Both servers are started by the harness on loopback. Bulk loads run on a freshly started, empty server each run; every other workload runs on one long-lived server per target that holds the data set (rows of 10-byte keys and 1 KiB random values, loaded once, not measured) after one unrecorded warm-up run.',
    '- Runs alternate between targets (tabletop, tabletop-off, emulator, tabletop, ...) so that drift of the machine hits all; all targets get the same keys and seeds. tabletop-off is the same build as tabletop, started with `--insight off` (no recording of traffic per key range); tabletop-again, when asked for, is tabletop started once more (an A/A control).',
    '- Server CPU is utime + stime of the server process from /proc/<pid>/stat, read before and after the measured part of each run, divided by the operations (or rows) completed. For bulk loads, "after" is once the server is idle again (under 2% of a core for a second), so that the flushes and compactions a load leaves behind count too; throughput and latency stop at the last acknowledgement. "Cores busy" is that CPU time over the wall time of the measured part.',
    '- RSS is VmRSS from /proc/<pid>/status right after the bulk load; "per GiB loaded" divides by the logical bytes loaded (key + qualifier + value of every row). "Growth" subtracts the RSS of the idle server before the load.',
    "- Client CPU is this process's CPU time (Node-client workloads) or the load-generator processes' (load-generator workloads), per operation.",
    '- Every workload checks its answers: point reads and scans compare each value with the one loaded and count rows; writes count the rows afterwards; increments check the final counter. A run that gets a wrong answer fails.',
    `- The clients and the server share this machine's ${cores} core(s). Node-client throughput is often limited by the client itself; server CPU per operation is the figure least disturbed by that.`,
    ...(startup ? startupMethod : []),
  ];
}

function table(head: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const line = (cells: readonly string[]): string => `| ${cells.map(cell).join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)];
}
