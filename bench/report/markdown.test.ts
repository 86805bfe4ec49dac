import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../runner.js';
import type { TargetKind } from '../servers/targets.js';
import { singleRowWrites } from '../workloads/writes.js';
import { backgroundThreadsSection, recordingCostSection } from './markdown.js';

const writes = singleRowWrites('write-c32', 32, 1024);

/** A run of write-c32 on `target`: `ops` writes in a second at `cpuPerOp` seconds each. */
function run(target: TargetKind, ops: number, cpuPerOp: number): RunRecord {
  return {
    workload: writes.name,
    target,
    run: 1,
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

  it('marks the recording cost past its limits, and shows the A/A control beside it', () => {
    const lines = recordingCostSection(
      [writes],
      [run('tabletop', 900, 50e-6), run('tabletop-off', 1000, 40e-6), run('tabletop-again', 1000, 50e-6)],
    );
    expect(lines).toContain('| write-c32 | **0.90×** | 0.90× | **1.25×** | 1.00× |');
  });
});
