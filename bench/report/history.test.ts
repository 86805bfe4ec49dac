import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HISTORY_FIGURES, type HistoryEntry, type RunKind, appendHistory, retireReports, shortCpuModel } from './history.js';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const entry = (base: string, kind: RunKind): HistoryEntry => ({
  date: base.slice(0, 10),
  label: base.slice(11),
  base,
  kind,
  commit: 'abc1234',
  machine: 'AMD EPYC',
  load: [1.5, 2.25],
  mode: 'durable',
  ratios: HISTORY_FIGURES.map((_, i) => (i === 0 ? 1.06 : undefined)),
  recordingCost: 1.02,
  mixedCost: 0.93,
});

/** Writes a run's files as main.ts does and adds its row, retiring the earlier run of its kind. */
function run(base: string, kind: RunKind, rssChart = false): string[] {
  for (const f of [`${base}.md`, `${base}.svg`, ...(rssChart ? [`${base}-load-large-rss.svg`] : [])]) writeFileSync(path.join(dir!, f), f);
  const removed = retireReports(dir!, kind, ['load-1k', 'load-large']);
  appendHistory(dir!, entry(base, kind));
  return removed;
}

describe('bench history', () => {
  it('keeps the latest report of each kind and a row for every run', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'bench-history-'));
    expect(run('2026-11-26-full-25', 'full', true)).toEqual([]);
    expect(run('2026-11-26-startup-1', 'startup')).toEqual([]);
    expect(run('2026-11-26-full-2', 'partial')).toEqual([]);
    // A full run replaces the earlier full run only (a label that is a prefix of another's is not taken for it).
    expect(run('2026-11-27-full-26', 'full', true)).toEqual([
      '2026-11-26-full-25.md',
      '2026-11-26-full-25.svg',
      '2026-11-26-full-25-load-large-rss.svg',
    ]);
    expect(run('2026-11-27-startup-2', 'startup')).toEqual(['2026-11-26-startup-1.md', '2026-11-26-startup-1.svg']);
    writeFileSync(path.join(dir, 'latest.md'), 'latest');
    expect(readdirSync(dir).sort()).toEqual([
      '2026-11-26-full-2.md',
      '2026-11-26-full-2.svg',
      '2026-11-27-full-26-load-large-rss.svg',
      '2026-11-27-full-26.md',
      '2026-11-27-full-26.svg',
      '2026-11-27-startup-2.md',
      '2026-11-27-startup-2.svg',
      'history.md',
      'latest.md',
    ]);
    const rows = readFileSync(path.join(dir, 'history.md'), 'utf8')
      .split('\n')
      .filter((l) => /^\| \d{4}-/.test(l));
    expect(rows.map((r) => r.split(' | ').slice(0, 3).join(' | '))).toEqual([
      '| 2026-11-26 | full-25 | full',
      '| 2026-11-26 | startup-1 | startup',
      '| 2026-11-26 | [full-2](2026-11-26-full-2.md) | partial',
      '| 2026-11-27 | [full-26](2026-11-27-full-26.md) | full',
      '| 2026-11-27 | [startup-2](2026-11-27-startup-2.md) | startup',
    ]);
    expect(rows[3]).toContain('| abc1234 | AMD EPYC | 1.50–2.25 | durable | 1.06× | – |');
    expect(rows[3]).toMatch(/ \| 1\.02× \| 0\.93× \|$/);
  });

  it('starts the file with its header and a column per figure', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'bench-history-'));
    run('2026-11-27-full', 'full');
    const text = readFileSync(path.join(dir, 'history.md'), 'utf8');
    expect(text.startsWith('# Benchmark history\n')).toBe(true);
    const head = text.split('\n').find((l) => l.startsWith('| date |'))!;
    // The figures, then the worst recording cost (tabletop ÷ tabletop-off), then the mixed run's cost.
    expect(head.split(' | ').length).toBe(9 + HISTORY_FIGURES.length);
    expect(existsSync(path.join(dir, '2026-11-27-full.md'))).toBe(true);
  });

  it("replaces an older harness's table head (fewer columns) and keeps the rows", () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'bench-history-'));
    run('2026-11-27-full', 'full');
    const file = path.join(dir, 'history.md');
    const lines = readFileSync(file, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.startsWith('| date |'));
    const head = lines[at]!;
    const old = head.replace(' mixed CPU (equal work) |', '');
    lines[at] = old;
    lines[at + 1] = `| ${old
      .split(' | ')
      .map(() => '---')
      .join(' | ')} |`;
    const oldRow = lines[at + 2]!;
    writeFileSync(file, lines.join('\n'));
    run('2026-11-28-full', 'full');
    const after = readFileSync(file, 'utf8').split('\n');
    expect(after.filter((l) => l.startsWith('| date |'))).toEqual([head]);
    expect(after[at + 1]!.split(' | ').length).toBe(head.split(' | ').length);
    expect(after[at + 2]).toBe(oldRow.replace('[full](2026-11-27-full.md)', 'full'));
    expect(after[at + 3]).toMatch(/^\| 2026-11-28 \| \[full\]/);
  });

  it('shortens CPU models', () => {
    expect(shortCpuModel('Intel(R) Xeon(R) Processor')).toBe('Intel Xeon');
    expect(shortCpuModel('Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz')).toBe('Intel Core i7-8700');
    expect(shortCpuModel('AMD EPYC')).toBe('AMD EPYC');
  });
});
