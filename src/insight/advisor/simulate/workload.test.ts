import { describe, expect, it } from 'vitest';
import { bucketsOver, isoAt, tableSample, timestampLeading } from './testing/table-samples.js';
import { buildWorkload } from './workload.js';

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

describe('buildWorkload', () => {
  it('weighs each sampled key for its share of the stored bytes and spreads each bucket over its keys', () => {
    const keys = ['a', 'b', 'c', 'd'];
    const w = buildWorkload(
      tableSample({
        keys,
        storedBytes: 4000,
        buckets: bucketsOver(keys, 2, (b) => ({ readOps: b === 0 ? 100 : 0, writeOps: b === 1 ? 40 : 0 })),
      }),
      4,
      '#',
    );
    expect(w.keys).toEqual(keys);
    expect(w.bytes).toEqual([1000, 1000, 1000, 1000]);
    expect(w.reads).toEqual([12.5, 12.5, 0, 0]);
    expect(w.writes).toEqual(Array.from({ length: 4 }, () => [0, 0, 5, 5]));
    expect(w).toMatchObject({ readOps: 100, writeOps: 40, keysSampled: 4, writeTime: 'even' });
    expect(w.born).toEqual([-1, -1, -1, -1]);
  });

  it('gives a bucket without a sampled key to the nearest key below it, and adds recent and large rows as keys without bytes', () => {
    const t = tableSample({
      keys: ['a', 'm'],
      writeOrder: ['z'],
      storedBytes: 200,
      buckets: [
        { start: '', end: 'c', rows: 1, readOps: 0, writeOps: 1, rowsRead: 0, rowsReturned: 0, readBytes: 0, writeBytes: 0 },
        { start: 'c', end: 'f', rows: 1, readOps: 0, writeOps: 10, rowsRead: 0, rowsReturned: 0, readBytes: 0, writeBytes: 0 },
        { start: 'f', end: undefined, rows: 1, readOps: 0, writeOps: 6, rowsRead: 0, rowsReturned: 0, readBytes: 0, writeBytes: 0 },
      ],
    });
    const w = buildWorkload({ ...t, largestRows: [{ key: 'q', bytes: 50 }] }, 1, '#');
    expect(w.keys).toEqual(['a', 'm', 'q', 'z']);
    expect(w.bytes).toEqual([100, 100, 0, 0]);
    expect(w.writes[0]).toEqual([11, 2, 2, 2]);
  });

  it('replays writes in ascending time by the timestamps in the keys, one moment a round, appending the keys', () => {
    const keys = timestampLeading(10, 20);
    const w = buildWorkload(
      tableSample({ keys, writeOrder: keys.slice(-50), buckets: bucketsOver(keys, 10, () => ({ writeOps: 100 })) }),
      20,
      '#',
    );
    expect(w.writeTime).toBe('timestamps');
    expect(sum(w.writes.map(sum))).toBeCloseTo(1000, 6);
    w.writes.forEach((round, r) => {
      // Round r writes exactly the ten sensors of time r, which appear then.
      const written = w.keys.filter((_, i) => round[i]! > 0);
      expect(written).toEqual(keys.slice(r * 10, r * 10 + 10));
      for (const k of written) expect(w.born[w.keys.indexOf(k)]).toBe(r);
    });
  });

  it('replays a time series keyed entity first by its timestamps too: each round writes every entity', () => {
    const keys = timestampLeading(10, 20).map((k) => k.split('#').reverse().join('#'));
    const writeOrder = timestampLeading(10, 20)
      .slice(-50)
      .map((k) => k.split('#').reverse().join('#'));
    const w = buildWorkload(tableSample({ keys, writeOrder, buckets: bucketsOver(keys, 10, () => ({ writeOps: 100 })) }), 20, '#');
    expect(w.writeTime).toBe('timestamps');
    w.writes.forEach((round, r) => {
      const written = w.keys.filter((_, i) => round[i]! > 0);
      expect(written.map((k) => k.split('#')[0])).toEqual(Array.from({ length: 10 }, (_, s) => `sensor0${s}`));
      expect(new Set(written.map((k) => k.split('#')[1]))).toEqual(new Set([isoAt(r * 10)]));
    });
  });

  it('replays ascending writes of keys without time in key order, the keys sharing a leading segment together', () => {
    const keys = Array.from({ length: 60 }, (_, i) => `batch${String(Math.floor(i / 6)).padStart(2, '0')}#item${i % 6}`);
    const w = buildWorkload(
      tableSample({ keys, writeOrder: keys.slice(-20), buckets: bucketsOver(keys, 6, () => ({ writeOps: 60 })) }),
      10,
      '#',
    );
    expect(w.writeTime).toBe('key order');
    w.writes.forEach((round, r) => expect(w.keys.filter((_, i) => round[i]! > 0)).toEqual(keys.slice(r * 6, r * 6 + 6)));
  });

  it('cuts writes into single keys when the leading segment is a constant, not a moment', () => {
    const keys = Array.from({ length: 40 }, (_, i) => `events#${String(i).padStart(3, '0')}`);
    const w = buildWorkload(
      tableSample({ keys, writeOrder: keys.slice(-20), buckets: bucketsOver(keys, 4, () => ({ writeOps: 10 })) }),
      4,
      '#',
    );
    w.writes.forEach((round, r) => expect(w.keys.filter((_, i) => round[i]! > 0)).toEqual(keys.slice(r * 10, r * 10 + 10)));
  });

  it("falls back on the heatmap's sequential_keys diagnostic when too few recent writes are known", () => {
    const keys = timestampLeading(10, 20);
    const t = tableSample({ keys, buckets: bucketsOver(keys, 10, () => ({ writeOps: 100 })) });
    expect(buildWorkload(t, 20, '#').writeTime).toBe('even');
    const diagnostic = {
      kind: 'sequential_keys',
      severity: 'warning',
      message: '',
      keyRange: { start: '', end: null, startText: '', endText: null },
      timeRange: { from: '', to: '' },
      evidence: {},
    } as const;
    const w = buildWorkload({ ...t, diagnostics: [diagnostic] }, 20, '#');
    expect(w.writeTime).toBe('key order');
    w.writes.forEach((round, r) => expect(w.keys.filter((_, i) => round[i]! > 0)).toEqual(keys.slice(r * 10, r * 10 + 10)));
  });

  it('without recorded traffic counts the recent writes, in no particular order when they are not ascending', () => {
    const w = buildWorkload(tableSample({ keys: ['a', 'b', 'c'], writeOrder: ['c', 'a', 'c', 'b', 'a', 'c', 'b', 'a', 'c'] }), 3, '#');
    expect(w.writeTime).toBe('even');
    expect(w.writes[0]).toEqual([1, 2 / 3, 4 / 3]);
    expect(w.readOps).toBe(0);
  });
});
