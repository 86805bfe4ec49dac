import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../runner.js';
import type { TargetKind } from '../servers/targets.js';
import { MIXED_TOTAL, mixedWorkload } from '../workloads/mixed.js';
import { mixedCost } from './mixed-cost.js';

const phases = mixedWorkload().phases;
const parts = phases.filter((p) => p !== MIXED_TOTAL);

/** One run of the mixed workload: every phase does `units` at `cpuPerUnit` seconds each, then `tail` seconds until idle. */
function mixedRun(target: TargetKind, run: number, units: number, cpuPerUnit: number, tail: number): RunRecord[] {
  const result = (n: number, cpu: number) => ({
    ops: n,
    rows: n,
    bytes: 0,
    seconds: 1,
    serverCpuSeconds: cpu,
    clientCpuSeconds: 0,
    clientProcesses: 1,
    serverRssBytes: 0,
  });
  return [
    ...parts.map((p) => ({ workload: p.name, target, run, result: result(units, units * cpuPerUnit) })),
    { workload: MIXED_TOTAL.name, target, run, result: result(units * parts.length, units * cpuPerUnit * parts.length + tail) },
  ];
}

describe('the mixed run against the emulator', () => {
  it("divides by the emulator's CPU for the target's own work, phase by phase", () => {
    // tabletop does twice the emulator's work at half its CPU per operation, and half its CPU after the last phase.
    const records = [
      ...mixedRun('emulator', 1, 100, 1e-4, 0.05),
      ...mixedRun('tabletop', 1, 200, 0.5e-4, 0.025),
      ...mixedRun('emulator', 2, 100, 1e-4, 0.05),
      ...mixedRun('tabletop', 2, 200, 0.5e-4, 0.025),
    ];
    const cost = mixedCost(phases, records, 'tabletop');
    const n = parts.length;
    // The emulator would have spent 200 × 1e-4 per phase and its 0.05 s tail: tabletop spent (n × 0.01 + 0.025) s.
    expect(cost?.equalWork).toBeCloseTo((n * 0.01 + 0.025) / (n * 0.02 + 0.05), 9);
    expect(cost?.measured).toBeCloseTo((n * 0.01 + 0.025) / (n * 0.01 + 0.05), 9);
    expect(cost?.cpuSeconds).toBeCloseTo(n * 0.01 + 0.025, 9);
  });

  it('needs a complete run of both', () => {
    const records = [...mixedRun('emulator', 1, 100, 1e-4, 0.05), ...mixedRun('tabletop', 1, 200, 0.5e-4, 0.025)];
    const incomplete = records.filter((r) => !(r.target === 'tabletop' && r.workload === parts[3]?.name));
    expect(mixedCost(phases, incomplete, 'tabletop')).toBeUndefined();
    expect(mixedCost(phases, records, 'tabletop-bg0')).toBeUndefined();
  });
});
