import type { RunRecord, RunResult } from '../runner.js';
import type { TargetKind } from '../servers/targets.js';
import { spread } from '../stats/summary.js';
import type { Spread } from '../stats/summary.js';
import type { Workload } from '../workloads/workload.js';
import { num } from './format.js';

/**
 * The figures reported for a workload, computed from one run's result.
 * Throughput and CPU time are per operation or per row, as the workload says.
 */

export type FigureKey = 'throughput' | 'mbps' | 'p50' | 'p99' | 'serverCpu' | 'serverCores' | 'clientCpu' | 'rssPerGiB' | 'rssGrowthPerGiB' | 'diskPerGiB';

export interface Figure {
  readonly key: FigureKey;
  readonly label: string;
  /** Which way is better; "none" for context figures (CPU cores busy). */
  readonly better: 'higher' | 'lower' | 'none';
  value(r: RunResult): number | undefined;
}

export function singular(w: Workload): string {
  return w.unitName.endsWith('s') ? w.unitName.slice(0, -1) : w.unitName;
}

function units(w: Workload, r: RunResult): number {
  return w.per === 'op' ? r.ops : r.rows;
}

export function figures(w: Workload): Figure[] {
  const one = singular(w);
  const out: Figure[] = [{ key: 'throughput', label: `${w.unitName}/s`, better: 'higher', value: (r) => units(w, r) / r.seconds }];
  if (w.mbps) out.push({ key: 'mbps', label: 'MB/s', better: 'higher', value: (r) => r.bytes / 1e6 / r.seconds });
  if (w.latency) {
    out.push({ key: 'p50', label: 'p50 latency, ms', better: 'lower', value: (r) => (r.latency === undefined ? undefined : r.latency.quantile(0.5) / 1000) });
    out.push({ key: 'p99', label: 'p99 latency, ms', better: 'lower', value: (r) => (r.latency === undefined ? undefined : r.latency.quantile(0.99) / 1000) });
  }
  out.push({ key: 'serverCpu', label: `server CPU µs/${one}`, better: 'lower', value: (r) => (units(w, r) > 0 ? (r.serverCpuSeconds / units(w, r)) * 1e6 : undefined) });
  out.push({ key: 'serverCores', label: 'server CPU cores busy', better: 'none', value: (r) => r.serverCpuSeconds / r.seconds });
  out.push({ key: 'clientCpu', label: `client CPU µs/${one}`, better: 'none', value: (r) => (units(w, r) > 0 ? (r.clientCpuSeconds / units(w, r)) * 1e6 : undefined) });
  if (w.freshServer) {
    out.push({ key: 'rssPerGiB', label: 'GiB RSS per GiB loaded', better: 'lower', value: (r) => (r.bytes > 0 ? r.serverRssBytes / r.bytes : undefined) });
    out.push({
      key: 'rssGrowthPerGiB',
      label: 'GiB RSS growth per GiB loaded',
      better: 'lower',
      value: (r) => (r.bytes > 0 && r.rssBeforeBytes !== undefined ? (r.serverRssBytes - r.rssBeforeBytes) / r.bytes : undefined),
    });
    out.push({ key: 'diskPerGiB', label: 'GiB on disk per GiB loaded', better: 'lower', value: (r) => (r.bytes > 0 && r.serverDiskBytes !== undefined ? r.serverDiskBytes / r.bytes : undefined) });
  }
  return out;
}

/** One figure over the recorded runs of a workload on a target. */
export function figureSpread(records: readonly RunRecord[], w: Workload, kind: TargetKind, f: Figure): Spread | undefined {
  const values: number[] = [];
  for (const rec of records) {
    if (rec.workload !== w.name || rec.target !== kind || rec.result === undefined) continue;
    const v = f.value(rec.result);
    if (v !== undefined) values.push(v);
  }
  return spread(values);
}

/** A one-line summary of a run for the terminal. */
export function summaryLine(w: Workload, r: RunResult): string {
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
      case 'rssPerGiB':
        parts.push(`RSS ${num(v)} GiB/GiB`);
        break;
      case 'diskPerGiB':
        parts.push(`disk ${num(v)} GiB/GiB`);
        break;
      case 'clientCpu':
      case 'rssGrowthPerGiB':
        break;
    }
  }
  return `${parts.join(', ')} [${num(units(w, r))} ${w.unitName} in ${r.seconds.toFixed(2)} s]`;
}
