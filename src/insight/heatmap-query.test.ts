import { describe, expect, it } from 'vitest';
import { isTabletopError } from '../model/errors.js';
import type { Metric } from './api-types.js';
import { MAX_HEATMAP_COLUMNS, bucketsInRange, heatmap } from './heatmap-query.js';
import { chooseTier } from './query-window.js';
import { MemoryHistory, TABLE, at, boundarySet, column, keys } from './testing/synthetic.js';

const T0 = Date.UTC(2026, 10, 27, 8, 0, 0);
const MIN = 60_000;
const HOUR = 60 * MIN;

function history(now = T0 + 2 * HOUR): MemoryHistory {
  return new MemoryHistory(now).addSet(boundarySet(1, ['a#1', 'a#2', 'b:x/y'], 10));
}

describe('tier choice', () => {
  const h = history();
  it('takes the finest tier whose retention covers from', () => {
    expect(chooseTier(h.tiers, h.now, h.now - 30 * MIN)).toBe(0);
    expect(chooseTier(h.tiers, h.now, h.now - 2 * HOUR)).toBe(1);
    expect(chooseTier(h.tiers, h.now, h.now - 3 * 24 * HOUR)).toBe(2);
    expect(chooseTier(h.tiers, h.now, h.now - 100 * 24 * HOUR)).toBe(2);
  });
});

describe('heatmap', () => {
  it('gives per-second rates per bucket and column, with buckets, times and the key hierarchy', async () => {
    const h = history();
    const set = h.sets.get(1)!;
    const from = h.now - 10 * MIN;
    h.add(0, column(set, from, 10_000, { counters: { write_ops: [0, 50, 0, 0], read_ops: [0, 0, 20, 0] } }));
    h.add(0, column(set, from + 20_000, 10_000, { counters: { write_ops: [0, 0, 0, 100] } }));
    const out = await heatmap(h, TABLE, { metric: 'ops', fromMillis: from, toMillis: from + 40_000 });
    expect(out.unit).toBe('ops/s');
    expect(out.resolutionSeconds).toBe(10);
    expect(out.times).toEqual([0, 1, 2, 3].map((i) => new Date(from + i * 10_000).toISOString()));
    expect(out.values).toEqual([
      [0, 5, 2, 0],
      [null, null, null, null],
      [0, 0, 0, 10],
      [null, null, null, null],
    ]);
    expect(out.buckets.map((b) => [b.startText, b.endText, b.rows])).toEqual([
      ['', 'a#1', 10],
      ['a#1', 'a#2', 10],
      ['a#2', 'b:x/y', 10],
      ['b:x/y', null, 10],
    ]);
    expect(out.buckets[1]!.start).toBe(Buffer.from('a#1').toString('base64'));
    expect(out.hierarchy).toContainEqual({ depth: 1, text: 'a#', from: 1, to: 2 });
    expect(out.hierarchy).toContainEqual({ depth: 2, text: 'b:x/', from: 3, to: 3 });
    expect(out.live).toBe(false);
  });

  it('re-bins every column onto the newest boundary set in the window', async () => {
    const h = history().addSet(boundarySet(2, keys('k', 4, 1)));
    const old = boundarySet(3, ['k2']);
    h.addSet(old);
    const newer = boundarySet(4, ['k1', 'k2', 'k3']);
    h.addSet(newer);
    const from = h.now - 5 * MIN;
    h.add(0, column(old, from, 10_000, { counters: { write_ops: [40, 0] }, firstEdge: { min: 'k0', max: 'k19' } }));
    h.add(0, column(newer, from + 10_000, 10_000, { counters: { write_ops: [0, 0, 0, 10] } }));
    const out = await heatmap(h, TABLE, { metric: 'write_ops', fromMillis: from, toMillis: from + 20_000 });
    expect(out.buckets.map((b) => b.startText)).toEqual(['', 'k1', 'k2', 'k3']);
    const [first, second] = out.values;
    expect(first!.reduce((s, x) => s! + x!, 0)).toBeCloseTo(4, 9);
    expect(first![0]! + first![1]!).toBeCloseTo(4, 9);
    expect(first![1]!).toBeGreaterThan(0);
    expect(second).toEqual([0, 0, 0, 1]);
  });

  it('sums adjacent columns beyond 720 and rates them over their recorded seconds', async () => {
    const h = history(T0 + 3 * 24 * HOUR);
    const set = h.sets.get(1)!;
    const from = h.now - 24 * HOUR;
    // Minutes alternate 60 and 180 writes; every tenth pair misses its second minute (a gap in the recording).
    for (let m = 0; m < 24 * 60; m++) {
      if (m % 20 === 19) continue;
      h.add(1, column(set, from + m * MIN, MIN, { counters: { write_ops: [m % 2 === 0 ? 60 : 180, 0, 0, 0] } }));
    }
    const out = await heatmap(h, TABLE, { metric: 'write_ops', fromMillis: from, toMillis: h.now });
    expect(out.times.length).toBe(MAX_HEATMAP_COLUMNS);
    expect(out.resolutionSeconds).toBe(120);
    // A step of two minutes: 240 writes over 120 s; a step missing its second minute: 60 writes over 60 s.
    expect(out.values.map((v) => v[0])).toEqual(out.times.map((_, i) => (i % 10 === 9 ? 1 : 2)));
  });

  it('zooms into a key range: only the buckets that overlap it', async () => {
    const h = history();
    const set = h.sets.get(1)!;
    const from = h.now - 5 * MIN;
    h.add(0, column(set, from, 10_000, { counters: { write_ops: [10, 20, 30, 40] } }));
    const out = await heatmap(h, TABLE, {
      metric: 'write_ops',
      fromMillis: from,
      toMillis: from + 10_000,
      startKey: 'a#15',
      endKey: 'a#2',
    });
    expect(out.buckets.map((b) => b.startText)).toEqual(['a#1']);
    expect(out.values).toEqual([[2]]);
    expect(bucketsInRange(set, 'a', undefined)).toEqual([0, 1, 2, 3]);
    expect(bucketsInRange(set, 'b', '')).toEqual([2, 3]);
  });

  it('gives latency in ms, largest rows, sizes as levels, scan ratio, and marks a window ending now as live', async () => {
    const h = history();
    const set = h.sets.get(1)!;
    const open = Math.floor(h.now / 10_000) * 10_000 - 10_000;
    h.add(
      0,
      column(set, open, 10_000, {
        counters: { rows_read: [0, 500, 0, 0], rows_returned: [0, 5, 0, 0] },
        latencies: [undefined, [1000, 1000, 1000, 40_000]],
        maxRowBytes: [0, 0, 0, 7000],
      }),
    );
    const value = async (metric: Metric): Promise<readonly (number | null)[]> =>
      (await heatmap(h, TABLE, { metric, fromMillis: open, toMillis: h.now })).values[0]!;
    expect((await value('latency_max'))[1]).toBe(40);
    expect((await value('latency_p50'))[1]).toBeGreaterThanOrEqual(1);
    expect((await value('latency_p50'))[1]).toBeLessThan(1.2);
    expect(await value('max_row_bytes')).toEqual([0, 0, 0, 7000]);
    expect(await value('stored_bytes')).toEqual([1000, 1000, 1000, 1000]);
    expect(await value('scan_ratio')).toEqual([0, 100, 0, 0]);
    expect((await heatmap(h, TABLE, { metric: 'rows', fromMillis: open, toMillis: h.now })).live).toBe(true);
  });

  it('rejects an unknown metric and an empty window with InvalidArgument', async () => {
    const h = history();
    const bad = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (e: unknown) => (isTabletopError(e, 'InvalidArgument') ? e.message : e),
      );
    expect(await bad(heatmap(h, TABLE, { metric: 'nope' as Metric, fromMillis: 0, toMillis: 1 }))).toMatch(
      /unknown metric 'nope'.*write_ops/,
    );
    expect(await bad(heatmap(h, TABLE, { metric: 'ops', fromMillis: 5, toMillis: 5 }))).toMatch(/must be before/);
    expect(await bad(heatmap(h, TABLE, { metric: 'ops', fromMillis: NaN, toMillis: 5 }))).toMatch(/valid times/);
  });
});
