import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildTabletop } from './build.js';
import { USAGE, parseOptions } from './options.js';
import type { Options } from './options.js';
import { Progress } from './progress.js';
import { isoDate } from './report/format.js';
import { WORKLOADS } from './catalog.js';
import { appendHistory, historyRatios, retireReports, shortCpuModel, worstRecordingCost } from './report/history.js';
import { machineFacts } from './report/machine.js';
import { mixedCost } from './report/mixed-cost.js';
import { markdownReport } from './report/markdown.js';
import { resultPanels, svgChart } from './report/svg-chart.js';
import { rssChart, rssSeries } from './report/rss-chart.js';
import { resultFiles, writeLatest } from './results-files.js';
import { Runner } from './runner.js';
import { cleanUpAll, killAllNow, sweepStaleTempDirs } from './servers/cleanup.js';
import { reportedWorkloads } from './workloads/workload.js';

/**
 * `npm run bench`: tabletop against Google's Bigtable emulator, through the
 * official Node client and a raw gRPC load generator. See USAGE.
 */

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS_DIR = path.join(REPO_ROOT, 'bench', 'results');

async function main(argv: readonly string[]): Promise<number> {
  let options: Options;
  try {
    const parsed = parseOptions(argv);
    if (parsed.kind === 'help') {
      process.stdout.write(USAGE);
      return 0;
    }
    options = parsed.options;
  } catch (e) {
    process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\nRun "npm run bench -- --help" for usage.\n`);
    return 2;
  }
  const progress = new Progress();
  handleSignals(progress);
  for (const dir of sweepStaleTempDirs()) progress.line(`removed ${dir}, left by an earlier run that was killed`);

  const command = ['npm run bench', ...(argv.length > 0 ? ['--', ...argv] : [])].join(' ');
  if (options.build) {
    progress.line('building tabletop (npm run build; --no-build skips this)...');
    const warning = buildTabletop(REPO_ROOT);
    if (warning !== undefined) progress.line(`warning: ${warning}`);
  }
  const s = options.settings;
  progress.line(
    `${command}\ntargets: ${options.targets.join(', ')} (tabletop mode: ${options.tabletopMode}); ${s.rows.toLocaleString('en-US')} rows; ` +
      `${s.runs} run(s) of ${s.seconds} s per workload and target after a ${s.warmupSeconds} s warm-up\nworkloads: ${options.workloads.map((w) => w.name).join(', ')}`,
  );

  // Taken now, right after the build: the commit is the one the servers run, whatever changes in the checkout meanwhile.
  const machine = machineFacts(REPO_ROOT, options.baseDist);
  const results = await new Runner(options, REPO_ROOT, progress).runAll();

  const date = isoDate(results.startedAt);
  const files = resultFiles(RESULTS_DIR, date, options.label);
  const title = `tabletop vs Google's Bigtable emulator: ${options.label}, ${date}`;
  // One RSS chart per workload that recorded RSS as its data grew (the large load), beside the report.
  const rssCharts: Record<string, string> = {};
  for (const w of options.workloads) {
    const series = rssSeries(w, options.targets, results.records);
    if (w.rssChart !== true || series.length === 0) continue;
    const file = `${files.base}-${w.name}-rss.svg`;
    writeFileSync(path.join(files.dir, file), rssChart(`Server RSS while loading: ${w.name}, ${date}`, series));
    rssCharts[w.name] = file;
  }
  const report = markdownReport({ title, command, options, results, machine, chartFile: path.basename(files.svg), rssCharts });
  writeFileSync(files.markdown, report);
  const reported = reportedWorkloads(options.workloads);
  writeFileSync(files.svg, svgChart(title, options.targets, resultPanels(reported, options.targets, results.records)));
  // The earlier report of this kind goes; its row in history.md stays.
  const removed = retireReports(
    RESULTS_DIR,
    options.kind,
    WORKLOADS.map((w) => w.name),
  );
  appendHistory(RESULTS_DIR, {
    date,
    label: options.label,
    base: files.base,
    kind: options.kind,
    commit: machine.tabletopCommit.replace(' with uncommitted changes in src/', '-dirty'),
    machine: shortCpuModel(machine.cpuModel),
    load: [results.loadAverage.start[0] ?? NaN, results.loadAverage.end[0] ?? NaN],
    mode: options.tabletopMode,
    ratios: historyRatios(reported, results.records),
    recordingCost: worstRecordingCost(reported, results.records),
    mixedCost: mixedCost(reported, results.records, 'tabletop')?.equalWork,
  });
  const summary = sectionOf(report, '## Summary');
  if (options.complete)
    writeLatest(
      files,
      title,
      command,
      summary.filter((l) => !l.startsWith('![')),
    );
  progress.line(
    `\n${summary
      .filter((l) => !l.startsWith('!['))
      .join('\n')
      .trim()}\n`,
  );
  progress.line(
    `report: ${path.relative(process.cwd(), files.markdown)}\nchart:  ${path.relative(process.cwd(), files.svg)}\nlatest: ${options.complete ? path.relative(process.cwd(), files.latest) : 'unchanged (a partial run: --only, --targets or --quick)'}`,
  );
  progress.line(
    `history: a ${options.kind} run's row added to ${path.relative(process.cwd(), path.join(RESULTS_DIR, 'history.md'))}${removed.length > 0 ? `; the earlier ${options.kind} run's report removed (${removed.join(', ')})` : ''}`,
  );
  const failed = results.records.filter((r) => r.error !== undefined).length;
  if (failed > 0) progress.line(`${failed} run(s) failed; see the report.`);
  return failed > 0 ? 1 : 0;
}

/** The lines of a Markdown section, up to the next heading of the same level. */
function sectionOf(markdown: string, heading: string): string[] {
  const lines = markdown.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) return [];
  const end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** Ctrl-C / SIGTERM: stop the servers and remove temporary data, then exit; a second signal exits at once. */
function handleSignals(progress: Progress): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      killAllNow();
      process.exit(130);
    }
    stopping = true;
    progress.line(`\n${signal}: stopping the servers and removing temporary data (again to force)...`);
    void cleanUpAll((line) => progress.line(line)).finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

let code: number;
try {
  code = await main(process.argv.slice(2));
} catch (e) {
  process.stderr.write(`bench: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  code = 1;
}
await cleanUpAll((line) => process.stderr.write(line + '\n'));
process.exit(code);
