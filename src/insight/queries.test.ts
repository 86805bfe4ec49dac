import { describe, expect, it } from 'vitest';
import { isTabletopError } from '../model/errors.js';
import type { Metric } from './api-types.js';
import { DEFAULT_DIAGNOSTICS_MILLIS, defaultFrom, insightQueries } from './queries.js';
import { MemoryHistory, TABLE, at, boundarySet, column } from './testing/synthetic.js';

const NOW = Date.UTC(2026, 10, 27, 8, 15, 0);

function history(): MemoryHistory {
  const set = boundarySet(1, ['a', 'b', 'c']);
  const h = new MemoryHistory(NOW).addSet(set);
  for (let t = NOW - 20 * 60_000; t < NOW; t += 10_000) h.add(0, column(set, t, 10_000, { counters: { write_ops: at(4, 100, 2) } }));
  return h;
}

const code = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => 'ok',
    (e: unknown) => (isTabletopError(e) ? `${e.code}: ${e.message}` : e),
  );

describe('insightQueries', () => {
  it('answers the heatmap and the diagnostics over one history', async () => {
    const q = insightQueries(history());
    const map = await q.heatmap(TABLE, { metric: 'write_ops', fromMillis: NOW - 60_000, toMillis: NOW });
    expect(map.values).toHaveLength(6);
    expect(map.values.every((v) => v[2] === 10)).toBe(true);
    expect(map.live).toBe(true);
    const d = await q.diagnostics(TABLE);
    expect(Date.parse(d.to) - Date.parse(d.from)).toBe(DEFAULT_DIAGNOSTICS_MILLIS);
    expect(d.to).toBe(new Date(NOW).toISOString());
    const pressure = d.diagnostics.find((x) => x.kind === 'high_write_pressure');
    expect(pressure?.severity).toBe('danger');
    expect(pressure?.evidence.columns).toBe(90);
  });

  it('keeps a default window within what the finest tier holds', async () => {
    const fine = new MemoryHistory(NOW, 500).addSet(boundarySet(1, []));
    expect(defaultFrom(fine, NOW)).toBe(NOW - 360 * 500);
    expect(defaultFrom(fine, NOW, 1000)).toBe(NOW - 1000);
    expect(defaultFrom(history(), NOW, 3_600_000)).toBe(NOW - 3_600_000);
    const d = await insightQueries(fine).diagnostics(TABLE);
    expect(d.from).toBe(new Date(NOW - 180_000).toISOString());
  });

  it('takes lowered thresholds', async () => {
    const h = history();
    h.largest = [{ key: 'b1', bytes: 5000 }];
    expect((await insightQueries(h).diagnostics(TABLE)).diagnostics.map((d) => d.kind)).not.toContain('large_rows');
    const low = await insightQueries(h, { largeRowBytes: 1000 }).diagnostics(TABLE);
    expect(low.diagnostics.map((d) => d.kind)).toContain('large_rows');
  });

  it('rejects bad input with InvalidArgument and passes NotFound through', async () => {
    const q = insightQueries(history());
    expect(await code(q.diagnostics(TABLE, { fromMillis: NOW, toMillis: NOW - 1 }))).toMatch(/^InvalidArgument: the time window is empty/);
    expect(await code(q.heatmap(TABLE, { metric: 'cpu' as Metric, fromMillis: 0, toMillis: NOW }))).toMatch(
      /^InvalidArgument: unknown metric 'cpu': use one of ops, read_ops/,
    );
    expect(await code(q.heatmap({ ...TABLE, table: 'nope' }, { metric: 'ops', fromMillis: 0, toMillis: NOW }))).toMatch(/^NotFound/);
  });
});
