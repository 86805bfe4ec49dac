import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RunRecord } from '../runner.js';
import { ratio } from '../stats/summary.js';
import type { ReportedWorkload } from '../workloads/workload.js';
import { figureSpread, figures } from './figures.js';
import { recordingCost } from './markdown.js';
import type { FigureKey } from './figures.js';
import { ratioText } from './format.js';

/**
 * bench/results/history.md: one row per benchmark run, oldest first, with
 * the few ratios that say most (tabletop ÷ emulator, measured in the same
 * run). bench/results/ keeps the full report of only the latest run of each
 * kind; a row links to its report while that is kept.
 *
 * The kinds: `full` (every workload, both targets, full size: the one that
 * becomes latest.md), `startup` (`--only startup`, both targets, full size),
 * `partial` (anything else: --only, --targets, --quick). A new run removes
 * the files of the earlier linked run of its kind (its .md, its .svg and its
 * RSS charts) and unlinks that run's row.
 */

export type RunKind = 'full' | 'startup' | 'partial';

/** The figures of the history, in its columns: all are "lower is better". */
export const HISTORY_FIGURES: readonly { readonly workload: string; readonly figure: FigureKey; readonly head: string }[] = [
  { workload: 'load-1k', figure: 'serverCpu', head: 'load-1k CPU' },
  { workload: 'load-large', figure: 'serverCpu', head: 'load-large CPU' },
  { workload: 'load-large', figure: 'rssPerGiB', head: 'load-large RSS/GiB' },
  { workload: 'point-read-c32', figure: 'serverCpu', head: 'point-read-c32 CPU' },
  { workload: 'full-scan', figure: 'serverCpu', head: 'full-scan CPU' },
  { workload: 'write-c32', figure: 'serverCpu', head: 'write-c32 CPU' },
  { workload: 'lg-point-read', figure: 'serverCpu', head: 'lg-point-read CPU' },
  { workload: 'lg-write', figure: 'serverCpu', head: 'lg-write CPU' },
  { workload: 'lg-scan', figure: 'serverCpu', head: 'lg-scan CPU' },
  { workload: 'startup-in-process', figure: 'firstCallMs', head: 'startServer() first call' },
  { workload: 'startup-serve', figure: 'firstCallMs', head: 'serve first call' },
];

export interface HistoryEntry {
  /** YYYY-MM-DD. */
  readonly date: string;
  readonly label: string;
  /** The report's file name without `.md`, beside history.md. */
  readonly base: string;
  readonly kind: RunKind;
  readonly commit: string;
  /** The CPU model, short ("AMD EPYC", "Intel Xeon"). */
  readonly machine: string;
  /** The 1-minute load average at the start and at the end. */
  readonly load: readonly [number, number];
  /** tabletop's mode: durable or memory. */
  readonly mode: string;
  /** tabletop ÷ emulator per HISTORY_FIGURES column; undefined where the run has no such figure. */
  readonly ratios: readonly (number | undefined)[];
  /** The worst server CPU per operation of recording on ÷ off over the run's workloads (worstRecordingCost); undefined without tabletop-off. */
  readonly recordingCost?: number | undefined;
  /** The mixed workload's whole-run server CPU, tabletop ÷ the emulator at equal work (report/mixed-cost.ts); undefined without it. */
  readonly mixedCost?: number | undefined;
}

const HEADER = [
  '# Benchmark history',
  '',
  'One row per `npm run bench` run, oldest first, appended by the harness (`bench/report/history.ts`).',
  'Each ratio is tabletop ÷ the emulator, both measured in that run (server CPU per operation or row, RSS per',
  'GiB loaded, time to the first call after a start: lower is better for tabletop); "–" where the run did',
  'not measure it. Compare rows of the same machine: ratios move from one machine to another (bench/README.md).',
  '"recording CPU (worst)" is the highest server CPU per operation of tabletop ÷ tabletop-off (recording on ÷ off,',
  'the same build) over the run\'s workloads; the limit is 1.05×. "mixed CPU (equal work)" is the mixed workload\'s whole run:',
  "tabletop's server CPU ÷ what the emulator spent for the same work (bench/report/mixed-cost.ts).",
  '',
  'bench/results/ keeps the report of the latest run of each kind (full: every workload, both targets, full size;',
  'startup: `--only startup`; partial: anything else); a row links to its report while it is kept.',
  '',
];

function tableHead(): string[] {
  const head = [
    'date',
    'run',
    'kind',
    'commit',
    'machine',
    'load (1 min, start–end)',
    'tabletop',
    ...HISTORY_FIGURES.map((f) => f.head),
    'recording CPU (worst)',
    'mixed CPU (equal work)',
  ];
  return [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`];
}

/** A history row; the run links to its report. */
export function historyRow(e: HistoryEntry): string {
  const load = e.load.every(Number.isFinite) ? `${e.load[0].toFixed(2)}–${e.load[1].toFixed(2)}` : '–';
  const cells = [
    e.date,
    `[${e.label}](${e.base}.md)`,
    e.kind,
    e.commit,
    e.machine,
    load,
    e.mode,
    ...e.ratios.map((r) => ratioText(r)),
    ratioText(e.recordingCost),
    ratioText(e.mixedCost),
  ];
  return `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
}

/** tabletop ÷ emulator for each HISTORY_FIGURES column, from a session's records. */
export function historyRatios(workloads: readonly ReportedWorkload[], records: readonly RunRecord[]): (number | undefined)[] {
  return HISTORY_FIGURES.map(({ workload, figure }) => {
    const w = workloads.find((x) => x.name === workload);
    const f = w === undefined ? undefined : figures(w).find((x) => x.key === figure);
    if (w === undefined || f === undefined) return undefined;
    return ratio(figureSpread(records, w, 'tabletop', f)?.median, figureSpread(records, w, 'emulator', f)?.median);
  });
}

/** The highest server CPU per operation of recording on ÷ off over the workloads (undefined without tabletop-off runs). */
export function worstRecordingCost(workloads: readonly ReportedWorkload[], records: readonly RunRecord[]): number | undefined {
  let worst: number | undefined;
  for (const w of workloads) {
    const r = recordingCost(w, records)?.serverCpu;
    if (r !== undefined && (worst === undefined || r > worst)) worst = r;
  }
  return worst;
}

/** "Intel(R) Xeon(R) Processor" → "Intel Xeon"; "AMD EPYC 7B13" stays. */
export function shortCpuModel(model: string): string {
  return model
    .replace(/\((R|TM)\)/gi, '')
    .replace(/\b(processor|CPU)\b/gi, '')
    .replace(/@.*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

const LINKED = /^\| [^|]+ \| \[([^\]]+)\]\(([^)]+)\.md\) \| (full|startup|partial) \|/;

/**
 * Removes the kept report of each earlier run of `kind` from `dir` (its
 * .md, .svg and `-<workload>-rss.svg` charts) and unlinks its history row;
 * returns the files removed. `workloadNames` are the names an RSS chart may carry.
 */
export function retireReports(dir: string, kind: RunKind, workloadNames: readonly string[]): string[] {
  const file = path.join(dir, 'history.md');
  if (!existsSync(file)) return [];
  const removed: string[] = [];
  const lines = readFileSync(file, 'utf8').split('\n');
  const out = lines.map((line) => {
    const m = LINKED.exec(line);
    if (m === null || m[3] !== kind) return line;
    const [, label, base] = m as unknown as [string, string, string];
    for (const name of [`${base}.md`, `${base}.svg`, ...workloadNames.map((w) => `${base}-${w}-rss.svg`)]) {
      const p = path.join(dir, name);
      if (!existsSync(p)) continue;
      rmSync(p);
      removed.push(name);
    }
    return line.replace(`[${label}](${base}.md)`, label);
  });
  writeFileSync(file, out.join('\n'));
  return removed;
}

/**
 * Appends a run's row to `dir`/history.md, creating the file with its header
 * and table head if it is missing. A table head of fewer columns (an older
 * harness's) is replaced by today's: columns are only ever added at the end,
 * so older rows keep their cells, and lack the new ones.
 */
export function appendHistory(dir: string, entry: HistoryEntry): void {
  const file = path.join(dir, 'history.md');
  const head = tableHead();
  let text = existsSync(file) ? readFileSync(file, 'utf8') : [...HEADER, ...head, ''].join('\n');
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.startsWith('| date |'));
  if (at >= 0 && lines[at] !== head[0]) {
    lines.splice(at, 2, ...head);
    text = lines.join('\n');
  }
  writeFileSync(file, `${text.endsWith('\n') ? text : `${text}\n`}${historyRow(entry)}\n`);
}
