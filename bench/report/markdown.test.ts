import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../runner.js';
import type { TargetKind } from '../servers/targets.js';
import { singleRowWrites } from '../workloads/writes.js';
import { backgroundThreadsSection, baseBuildSection, recordingCostSection } from './markdown.js';

const writes = singleRowWrites('write-c32', 32, 1024);

/** A run of write-c32 on `target`: `ops` writes in a second at `cpuPerOp` seconds each. */
function run(target: TargetKind, ops: number, cpuPerOp: number, n = 1): RunRecord {
  return {
    workload: writes.name,
    target,
    run: n,
    result: {
      ops,
      rows: ops,
      bytes: 0,
      seconds: 1,
      serverCpuSeconds: ops * cpuPerOp,
      clientCpuSeconds: 0,
      clientProcesses: 1,
      serverRssBytes: 0,
    },
  };
}

describe('the report against another tabletop target', () => {
  it('divides tabletop by tabletop-bg0 per workload, without limits', () => {
    const lines = backgroundThreadsSection([writes], [run('tabletop', 3000, 50e-6), run('tabletop-bg0', 2000, 40e-6)]);
    expect(lines[0]).toBe('## Background threads');
    expect(lines).toContain('| write-c32 | 1.50× | 1.25× |');
    expect(lines.some((l) => l.includes('default ÷ bg0'))).toBe(true);
  });

  it('divides tabletop-bg1 (one worker) by bg0 when both ran, else by the default, and says nothing with one of them', () => {
    const bg1 = run('tabletop-bg1', 3300, 45e-6);
    const both = backgroundThreadsSection([writes], [run('tabletop', 3000, 50e-6), run('tabletop-bg0', 2000, 40e-6), bg1]);
    expect(both).toContain('| write-c32 | 1.65× | 1.13× |');
    expect(both.some((l) => l.includes('bg1 ÷ bg0'))).toBe(true);
    const byDefault = backgroundThreadsSection([writes], [run('tabletop', 3000, 50e-6), bg1]);
    expect(byDefault).toContain('| write-c32 | 1.10× | 0.90× |');
    expect(byDefault.some((l) => l.includes('bg1 ÷ default'))).toBe(true);
    expect(backgroundThreadsSection([writes], [run('tabletop', 3000, 50e-6), run('tabletop-off', 3000, 50e-6)])).toEqual([]);
  });

  it('divides tabletop by tabletop-base (another build) per workload', () => {
    const lines = baseBuildSection([writes], [run('tabletop', 2000, 30e-6), run('tabletop-base', 2500, 40e-6)]);
    expect(lines[0]).toBe('## Against the base build');
    expect(lines).toContain('| write-c32 | 0.80× | 0.75× |');
    expect(lines.some((l) => l.includes('this ÷ base'))).toBe(true);
  });

  it('marks the recording cost past its limits, and shows the A/A control beside it', () => {
    const lines = recordingCostSection(
      [writes],
      [run('tabletop', 900, 50e-6), run('tabletop-off', 1000, 40e-6), run('tabletop-again', 1000, 50e-6)],
    );
    expect(lines).toContain('| write-c32 | **0.90×** | 0.90× | **1.25×** | 1.00× |');
  });

  it("shows the off side's own A/A control beside the on side's, when tabletop-off-again ran", () => {
    const lines = recordingCostSection(
      [writes],
      [
        run('tabletop', 900, 50e-6),
        run('tabletop-off', 1000, 40e-6),
        run('tabletop-again', 1000, 50e-6),
        run('tabletop-off-again', 800, 50e-6),
      ],
    );
    expect(lines).toContain('| write-c32 | **0.90×** | 0.90× | 1.25× | **1.25×** | 1.00× | 0.80× |');
    expect(lines.some((l) => l.includes('| throughput off A/A |'))).toBe(true);
  });

  it("takes the median of the rounds' ratios, not the ratio of the medians", () => {
    // The machine drifts from round to round; within a round the two targets see the same machine.
    const on = [90, 200, 310].map((ops, i) => run('tabletop', ops, 50e-6, i + 1));
    const off = [100, 190, 300].map((ops, i) => run('tabletop-off', ops, 50e-6, i + 1));
    // Per round 0.90, 1.05, 1.03: the median 1.03 (the medians' ratio, 200 / 190, would say 1.05).
    expect(recordingCostSection([writes], [...on, ...off])).toContain('| write-c32 | 1.03× | 1.00× |');
  });
});
