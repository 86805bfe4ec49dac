import { describe, expect, it } from 'vitest';
import { chooseLoadSplit } from './load-split.js';
import { LoadMeter } from './load-meter.js';

describe('chooseLoadSplit', () => {
  it('splits where the sampled load divides evenly', () => {
    const samples = Array.from({ length: 100 }, (_, i) => `k${String(i % 50).padStart(2, '0')}`);
    const d = chooseLoadSplit(samples, { start: '' });
    expect(d).toMatchObject({ kind: 'split', at: 'k25' });
  });

  it('reports a single-row hotspot instead of splitting', () => {
    const samples = [...Array.from({ length: 80 }, () => 'hot'), ...Array.from({ length: 20 }, (_, i) => `k${i}`)];
    expect(chooseLoadSplit(samples, { start: '' })).toMatchObject({ kind: 'single-row-hotspot', key: 'hot' });
  });

  it('takes the single-row share from its argument (config.hotRowShare)', () => {
    const samples = [...Array.from({ length: 30 }, () => 'hot'), ...Array.from({ length: 70 }, (_, i) => `k${String(i).padStart(2, '0')}`)];
    expect(chooseLoadSplit(samples, { start: '' }).kind).toBe('split');
    expect(chooseLoadSplit(samples, { start: '' }, 0.3)).toMatchObject({ kind: 'single-row-hotspot', key: 'hot', share: 0.3 });
  });

  it('needs enough samples', () => {
    expect(chooseLoadSplit(['a', 'b'], { start: '' }).kind).toBe('none');
  });
});

describe('LoadMeter', () => {
  it('averages per-second buckets over a window and forgets old seconds', () => {
    const m = new LoadMeter(() => 0.5);
    for (let s = 0; s < 10; s++) m.record(s * 1e6 + 10, { rowsRead: 10, cpuMicros: 1000 }, `k${s}`);
    const r = m.rates(10e6, 10);
    expect(r.requestsPerSec).toBe(1);
    expect(r.rowsReadPerSec).toBe(10);
    expect(r.cpuMicrosPerSec).toBe(1000);
    expect(m.rates(500e6, 10).requestsPerSec).toBe(0);
    expect(m.sampledKeys()).toHaveLength(10);
    expect(m.series(10e6, 3, 'rowsRead')).toEqual([10, 10, 10]);
  });
});
