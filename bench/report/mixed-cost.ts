import type { RunRecord, RunResult } from '../runner.js';
import type { TargetKind } from '../servers/targets.js';
import { spread } from '../stats/summary.js';
import { MIXED_TOTAL } from '../workloads/mixed.js';
import type { ReportedWorkload } from '../workloads/workload.js';

/**
 * The mixed workload's whole run against the emulator's. Its timed phases
 * last as long on every target, so a faster server does more work in them
 * and spends more CPU: the CPU of the two whole runs alone does not compare
 * their cost. "At equal work" divides a target's whole-run CPU by what the
 * emulator would have spent on that target's work: each phase's operations
 * (or rows) of the target's run at the emulator's median CPU per operation
 * of that phase, plus the emulator's median CPU after its last phase.
 */

export interface MixedCost {
  /** Median whole-run server CPU seconds of the target and of the emulator. */
  readonly cpuSeconds: number;
  readonly emulatorCpuSeconds: number;
  /** Whole-run CPU ÷ the emulator's, as measured (medians). */
  readonly measured: number;
  /** Median over the target's runs of its whole-run CPU ÷ the emulator's CPU for the same work. */
  readonly equalWork: number;
}

/** The mixed run's cost of `kind` against the emulator; undefined unless both have complete runs. */
export function mixedCost(phases: readonly ReportedWorkload[], records: readonly RunRecord[], kind: TargetKind): MixedCost | undefined {
  const parts = phases.filter((p) => p.kind === 'phase' && p.name !== MIXED_TOTAL.name);
  const units = (p: ReportedWorkload, r: RunResult): number => (p.per === 'op' ? r.ops : r.rows);
  const emulatorRuns = completeRuns(parts, records, 'emulator');
  const runs = completeRuns(parts, records, kind);
  if (parts.length === 0 || emulatorRuns.length === 0 || runs.length === 0) return undefined;
  const perUnit = parts.map(
    (p) => spread(emulatorRuns.map((run) => cpuPer(run.get(p.name), units(p, run.get(p.name) as RunResult))))?.median,
  );
  const tail = spread(emulatorRuns.map((run) => tailCpu(parts, run)))?.median;
  if (tail === undefined || perUnit.some((x) => x === undefined)) return undefined;
  const equal = runs.map((run) => {
    const expected = parts.reduce((sum, p, i) => sum + units(p, run.get(p.name) as RunResult) * (perUnit[i] as number), tail);
    return (run.get(MIXED_TOTAL.name) as RunResult).serverCpuSeconds / expected;
  });
  const cpu = spread(runs.map((run) => (run.get(MIXED_TOTAL.name) as RunResult).serverCpuSeconds))?.median;
  const emulatorCpu = spread(emulatorRuns.map((run) => (run.get(MIXED_TOTAL.name) as RunResult).serverCpuSeconds))?.median;
  const equalWork = spread(equal)?.median;
  if (cpu === undefined || emulatorCpu === undefined || equalWork === undefined || emulatorCpu === 0) return undefined;
  return { cpuSeconds: cpu, emulatorCpuSeconds: emulatorCpu, measured: cpu / emulatorCpu, equalWork };
}

/** The runs of `kind` that recorded every phase and the whole run, as phase name → result. */
function completeRuns(parts: readonly ReportedWorkload[], records: readonly RunRecord[], kind: TargetKind): Map<string, RunResult>[] {
  const byRun = new Map<number, Map<string, RunResult>>();
  for (const r of records) {
    if (r.target !== kind || r.result === undefined) continue;
    const run = byRun.get(r.run) ?? new Map<string, RunResult>();
    run.set(r.workload, r.result);
    byRun.set(r.run, run);
  }
  return [...byRun.values()].filter((run) => run.has(MIXED_TOTAL.name) && parts.every((p) => run.has(p.name)));
}

function cpuPer(r: RunResult | undefined, units: number): number {
  return r !== undefined && units > 0 ? r.serverCpuSeconds / units : NaN;
}

/** The whole run's CPU after its last phase (until the server was idle). */
function tailCpu(parts: readonly ReportedWorkload[], run: Map<string, RunResult>): number {
  const total = (run.get(MIXED_TOTAL.name) as RunResult).serverCpuSeconds;
  return parts.reduce((left, p) => left - (run.get(p.name) as RunResult).serverCpuSeconds, total);
}
