import type { Column } from './column.js';
import { describe, expect, it } from 'vitest';
import type { KeyDistribution } from '../db/index.js';
import { ManualClock } from '../model/clock.js';
import type { DiagnosticKind } from './api-types.js';
import { buildBoundaries } from './key-buckets.js';
import { insightQueries } from './queries.js';
import { TableRecorder } from './table-recorder.js';
import { MemoryHistory, TABLE } from './testing/synthetic.js';

const T0 = Date.UTC(2026, 0, 1, 8);
const BUCKET_MILLIS = 500;

/** Every row of a small table as an exact key distribution (100 bytes a row). */
function exact(rows: ReadonlySet<string>): KeyDistribution {
  const keys = [...rows].sort();
  const points = keys.map((key, i) => ({ key, rowsBefore: i, bytesBefore: i * 100 }));
  return { exact: true, rows: keys.length, rowsEstimated: false, bytes: keys.length * 100, points, largestRows: [] };
}

/**
 * Writes `perColumn` rows a column for `columns` columns of 500 ms through
 * the real table recorder, remaking the boundary set at every column close
 * (as the recorder's owner does for a small table that changed), and answers
 * the heatmap and the diagnostics over what it recorded.
 */
async function record(keyOf: (i: number) => string, perColumn: number, columns: number, existing: string[] = []) {
  const clock = new ManualClock(T0 * 1000);
  const rows = new Set(existing);
  let set = buildBoundaries(exact(rows), 1);
  const history = new MemoryHistory(T0, BUCKET_MILLIS).addSet(set);
  const recorder = new TableRecorder('u1', TABLE, clock, BUCKET_MILLIS, set);
  let n = 0;
  for (let c = 0; c < columns; c++) {
    for (let i = 0; i < perColumn; i++, n++) {
      recorder.rowsWritten({ keys: [keyOf(n)], bytes: [100], count: 1, cpuMicros: 10 });
      rows.add(keyOf(n));
    }
    clock.advanceMillis(BUCKET_MILLIS);
    history.add(0, only(recorder.roll()));
    set = buildBoundaries(exact(rows), set.setId + 1);
    history.addSet(set);
    recorder.setBoundaries(set);
  }
  history.now = T0 + columns * BUCKET_MILLIS;
  const q = insightQueries(history);
  const map = await q.heatmap(TABLE, { metric: 'write_ops', fromMillis: T0, toMillis: history.now });
  return { map, diagnostics: (await q.diagnostics(TABLE)).diagnostics };
}

const argmax = (v: readonly (number | null)[]): number => v.indexOf(Math.max(...v.map((x) => x ?? 0)));
const TRAFFIC: DiagnosticKind[] = ['high_write_pressure', 'sequential_keys', 'sudden_onset', 'periodic'];
const pad = (i: number): string => String(i).padStart(6, '0');

describe('the heatmap and diagnostics over the table recorder', () => {
  it('draw sequential writes as a rising diagonal and name it', async () => {
    const { map, diagnostics } = await record((i) => `ts#${pad(i)}`, 50, 12);
    // The current set, made after the last column: every row written.
    expect(map.buckets).toHaveLength(600);
    const peaks = map.values.map(argmax);
    for (let i = 1; i < peaks.length; i++) expect(peaks[i]!).toBeGreaterThan(peaks[i - 1]!);
    // A band, not a line: each column's 50 rows spread evenly over the buckets that now hold them (decimal keys
    // spread by key space put most of a column into the one bucket spanning a digit carry).
    for (const [c, values] of map.values.entries()) {
      const lit = values.filter((v) => (v ?? 0) > 0) as number[];
      const mean = lit.reduce((a, b) => a + b, 0) / lit.length;
      expect(lit.length, `column ${c}`).toBeGreaterThanOrEqual(45);
      expect(Math.max(...lit), `column ${c}`).toBeLessThan(3 * mean);
    }
    const seq = diagnostics.find((d) => d.kind === 'sequential_keys');
    expect(seq?.evidence.direction).toBe('increasing');
    expect(seq?.evidence.columns).toBe(12);
    // It reaches the last column's keys (ts#000550 on).
    expect(seq?.keyRange.endText === null || seq!.keyRange.endText > 'ts#000550').toBe(true);
  });

  it('show salted writes as an even spread without a traffic diagnostic', async () => {
    const { diagnostics } = await record((i) => `${(i * 7919) % 16}#${pad(i)}`, 50, 12);
    expect(diagnostics.map((d) => d.kind).filter((k) => TRAFFIC.includes(k))).toEqual([]);
  });

  it('call a hot row amid a spread load danger and name its key', async () => {
    const { map, diagnostics } = await record((i) => (i % 2 === 0 ? 'counter#1' : `${i % 16}#${pad(i)}`), 100, 12, ['counter#1']);
    const last = map.values[map.values.length - 1]!;
    expect(map.buckets[argmax(last)]!.rows).toBe(1);
    const hot = diagnostics.find((d) => d.kind === 'high_write_pressure');
    expect(hot?.severity).toBe('danger');
    expect(hot?.evidence.key).toBe('counter#1');
    expect(hot?.message).toMatch(/The single row "counter#1" took 5\d% of the table's writes/);
  });
});

/** The one column a roll() closed. */
function only(cols: Column[]): Column {
  expect(cols).toHaveLength(1);
  return cols[0]!;
}
