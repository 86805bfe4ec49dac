import type { RunRecord, RunResult } from '../runner.js';
import type { TargetKind } from '../servers/targets.js';
import { spread } from '../stats/summary.js';
import type { Spread } from '../stats/summary.js';
import type { ReportedWorkload, StartupWorkload } from '../workloads/workload.js';
import { num } from './format.js';

/**
 * The figures reported for a workload, computed from one run's result.
 * Throughput and CPU time are per operation or per row, as the workload says.
 */

export type FigureKey =
  | 'throughput'
  | 'mbps'
  | 'p50'
  | 'p99'
  | 'serverCpu'
  | 'serverCores'
  | 'serverOtherCores'
  | 'clientCpu'
  | 'rssPerGiB'
  | 'rssGrowthPerGiB'
  | 'diskPerGiB'
  | 'readyMs'
  | 'firstCallMs'
  | 'firstReadMs'
  | 'clientReadMs'
  | 'startCpuMs'
  | 'readyRssMiB'
  | 'idleRssMiB';

export interface Figure {
  readonly key: FigureKey;
  readonly label: string;
  /** Which way is better; "none" for context figures (CPU cores busy). */
  readonly better: 'higher' | 'lower' | 'none';
  value(r: RunResult): number | undefined;
}

export function singular(w: ReportedWorkload): string {
  return w.unitName.endsWith('s') ? w.unitName.slice(0, -1) : w.unitName;
}

function units(w: ReportedWorkload, r: RunResult): number {
  return w.per === 'op' ? r.ops : r.rows;
}

export function figures(w: ReportedWorkload): Figure[] {
  if (w.kind === 'startup') return startupFigures(w);
  const one = singular(w);
  const out: Figure[] = [{ key: 'throughput', label: `${w.unitName}/s`, better: 'higher', value: (r) => units(w, r) / r.seconds }];
  if (w.mbps) out.push({ key: 'mbps', label: 'MB/s', better: 'higher', value: (r) => r.bytes / 1e6 / r.seconds });
  if (w.latency) {
    out.push({
      key: 'p50',
      label: 'p50 latency, ms',
      better: 'lower',
      value: (r) => (r.latency === undefined ? undefined : r.latency.quantile(0.5) / 1000),
    });
    out.push({
      key: 'p99',
      label: 'p99 latency, ms',
      better: 'lower',
      value: (r) => (r.latency === undefined ? undefined : r.latency.quantile(0.99) / 1000),
    });
  }
  out.push({
    key: 'serverCpu',
    label: `server CPU µs/${one}`,
    better: 'lower',
    value: (r) => (units(w, r) > 0 ? (r.serverCpuSeconds / units(w, r)) * 1e6 : undefined),
  });
  out.push({ key: 'serverCores', label: 'server CPU cores busy', better: 'none', value: (r) => r.serverCpuSeconds / r.seconds });
  out.push({
    key: 'serverOtherCores',
    label: 'of which threads other than the main one',
    better: 'none',
    value: (r) => (r.serverMainCpuSeconds === undefined ? undefined : (r.serverCpuSeconds - r.serverMainCpuSeconds) / r.seconds),
  });
  out.push({
    key: 'clientCpu',
    label: `client CPU µs/${one}`,
    better: 'none',
    value: (r) => (units(w, r) > 0 ? (r.clientCpuSeconds / units(w, r)) * 1e6 : undefined),
  });
  if (w.freshServer) {
    out.push({
      key: 'rssPerGiB',
      label: 'GiB RSS per GiB loaded',
      better: 'lower',
      value: (r) => (r.bytes > 0 ? r.serverRssBytes / r.bytes : undefined),
    });
    out.push({
      key: 'rssGrowthPerGiB',
      label: 'GiB RSS growth per GiB loaded',
      better: 'lower',
      value: (r) => (r.bytes > 0 && r.rssBeforeBytes !== undefined ? (r.serverRssBytes - r.rssBeforeBytes) / r.bytes : undefined),
    });
    out.push({
      key: 'diskPerGiB',
      label: 'GiB on disk per GiB loaded',
      better: 'lower',
      value: (r) => (r.bytes > 0 && r.serverDiskBytes !== undefined ? r.serverDiskBytes / r.bytes : undefined),
    });
  }
  return out;
}

const MiB = 1024 * 1024;

/** Start-up workloads: times from the start to the first answers, the CPU it took, and memory. */
function startupFigures(w: StartupWorkload): Figure[] {
  // In the test process, the server's memory is what it added to that process.
  const rss = w.variant === 'in-process' ? 'MiB RSS (tabletop: added to the test process)' : 'MiB RSS';
  return [
    { key: 'readyMs', label: 'ms until listening', better: 'lower', value: (r) => r.startup?.raw.readyMs },
    { key: 'firstCallMs', label: 'ms to first call (raw CreateTable)', better: 'lower', value: (r) => r.startup?.raw.firstCallMs },
    { key: 'firstReadMs', label: 'ms to first read (raw ReadRows after it)', better: 'lower', value: (r) => r.startup?.raw.firstReadMs },
    {
      key: 'clientReadMs',
      label: 'ms to first read, Node client (createTable, getRows)',
      better: 'lower',
      value: (r) => r.startup?.node.firstReadMs,
    },
    { key: 'startCpuMs', label: 'server CPU ms to first read (raw)', better: 'lower', value: (r) => r.startup?.raw.cpuMs },
    {
      key: 'readyRssMiB',
      label: `${rss} when listening`,
      better: 'lower',
      value: (r) => (r.startup === undefined ? undefined : r.startup.raw.rssReadyBytes / MiB),
    },
    {
      key: 'idleRssMiB',
      label: `${rss}, idle after first read`,
      better: 'lower',
      value: (r) => (r.startup === undefined ? undefined : r.startup.raw.rssIdleBytes / MiB),
    },
  ];
}

/** One figure over the recorded runs of a workload on a target. */
export function figureSpread(records: readonly RunRecord[], w: ReportedWorkload, kind: TargetKind, f: Figure): Spread | undefined {
  const values: number[] = [];
  for (const rec of records) {
    if (rec.workload !== w.name || rec.target !== kind || rec.result === undefined) continue;
    const v = f.value(rec.result);
    if (v !== undefined) values.push(v);
  }
  return spread(values);
}

/** A one-line summary of a run for the terminal. */
export function summaryLine(w: ReportedWorkload, r: RunResult): string {
  const parts: string[] = [];
  for (const f of figures(w)) {
    const v = f.value(r);
    if (v === undefined || !Number.isFinite(v)) continue;
    switch (f.key) {
      case 'throughput':
        parts.push(`${num(v)} ${f.label}`);
        break;
      case 'mbps':
        parts.push(`${num(v)} MB/s`);
        break;
      case 'p50':
        parts.push(`p50 ${num(v)} ms`);
        break;
      case 'p99':
        parts.push(`p99 ${num(v)} ms`);
        break;
      case 'serverCpu':
        parts.push(`server CPU ${num(v)} µs/${singular(w)}`);
        break;
      case 'serverCores':
        parts.push(`(${num(v)} cores)`);
        break;
      case 'serverOtherCores':
        parts.push(`(${num(v)} of them off the main thread)`);
        break;
      case 'rssPerGiB':
        parts.push(`RSS ${num(v)} GiB/GiB`);
        break;
      case 'diskPerGiB':
        parts.push(`disk ${num(v)} GiB/GiB`);
        break;
      case 'firstCallMs':
        parts.push(`first call ${num(v)} ms`);
        break;
      case 'clientReadMs':
        parts.push(`Node client's first read ${num(v)} ms`);
        break;
      case 'idleRssMiB':
        parts.push(`idle RSS ${num(v)} MiB`);
        break;
      case 'clientCpu':
      case 'rssGrowthPerGiB':
      case 'readyMs':
      case 'firstReadMs':
      case 'startCpuMs':
      case 'readyRssMiB':
        break;
    }
  }
  if (w.kind === 'startup') return parts.join(', ');
  return `${parts.join(', ')} [${num(units(w, r))} ${w.unitName} in ${r.seconds.toFixed(2)} s]`;
}
