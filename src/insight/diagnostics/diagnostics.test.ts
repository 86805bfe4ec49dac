import { describe, expect, it } from 'vitest';
import type { DiagnosticJson, DiagnosticKind } from '../api-types.js';
import type { Counter } from '../column.js';
import { diagnostics } from '../queries.js';
import { seededRandom } from '../../testing/random.js';
import { MemoryHistory, TABLE, boundarySet, column, keys } from '../testing/synthetic.js';
import { DEFAULT_THRESHOLDS, type DiagnosticThresholds, RULES } from './index.js';
import { period } from './periodic.js';
import { outOfOrder } from './unpadded-numbers.js';

const NOW = Date.UTC(2026, 10, 27, 8, 15, 0);
const STEP = 10_000;
/** The default window: 15 minutes of 10 s columns. */
const STEPS = 90;
const BUCKETS = 100;
/** Buckets of one row each: '' (holding k0000), k0001 ... k0099. */
const ROW_KEYS = keys('k', BUCKETS);

type Load = (step: number, bucket: number) => Partial<Record<Counter, number>>;

/** A salted load: every bucket gets 5-15 writes and reads per 10 s column, at random. */
function even(seed = 1): Load {
  const r = seededRandom(seed);
  return () => ({ write_ops: 5 + Math.floor(r() * 11), read_ops: 5 + Math.floor(r() * 11), rows_read: 10, rows_returned: 10 });
}

function plus(a: Load, b: Load): Load {
  return (s, k) => {
    const x = a(s, k);
    const y = b(s, k);
    const out: Partial<Record<Counter, number>> = { ...x };
    for (const [c, v] of Object.entries(y)) out[c as Counter] = (out[c as Counter] ?? 0) + v;
    return out;
  };
}

interface Scenario {
  readonly load?: Load;
  readonly starts?: readonly string[];
  readonly rowsPer?: number;
  readonly estimated?: boolean;
  readonly edges?: (step: number) => { firstEdge?: { min: string; max: string }; lastEdge?: { min: string; max: string } };
  readonly thresholds?: Partial<DiagnosticThresholds>;
  readonly setup?: (h: MemoryHistory) => void;
}

async function run(s: Scenario): Promise<DiagnosticJson[]> {
  const starts = s.starts ?? ROW_KEYS.slice(1);
  const set = boundarySet(1, starts, s.rowsPer ?? 1, s.estimated ?? false);
  const h = new MemoryHistory(NOW).addSet(set);
  const n = set.starts.length;
  if (s.load !== undefined) {
    for (let step = 0; step < STEPS; step++) {
      const counters: Partial<Record<Counter, number[]>> = {};
      for (let b = 0; b < n; b++) {
        for (const [c, v] of Object.entries(s.load(step, b))) (counters[c as Counter] ??= new Array<number>(n).fill(0))[b] = v;
      }
      h.add(0, column(set, NOW - (STEPS - step) * STEP, STEP, { counters, ...s.edges?.(step) }));
    }
  }
  s.setup?.(h);
  const out = await diagnostics(h, TABLE, undefined, { ...DEFAULT_THRESHOLDS, ...s.thresholds });
  for (const d of out.diagnostics) {
    expect(d.message.length).toBeGreaterThan(20);
    expect(Date.parse(d.timeRange.from)).toBeLessThan(Date.parse(d.timeRange.to));
  }
  return [...out.diagnostics];
}

const kinds = (ds: readonly DiagnosticJson[]): DiagnosticKind[] => ds.map((d) => d.kind);
const only = (ds: readonly DiagnosticJson[], kind: DiagnosticKind): DiagnosticJson[] => ds.filter((d) => d.kind === kind);
const TRAFFIC_KINDS: DiagnosticKind[] = [
  'high_read_pressure',
  'high_write_pressure',
  'sequential_keys',
  'sudden_onset',
  'periodic',
  'scan_inefficiency',
];

describe('diagnostics', () => {
  it('has a rule for every kind', () => {
    expect(Object.keys(RULES).sort()).toEqual(
      [
        ...TRAFFIC_KINDS,
        'large_rows',
        'no_data_scanned',
        'key_space_not_to_scale',
        'values_approximate',
        'unpadded_numbers',
        'unreversed_domains',
      ].sort(),
    );
  });

  it('stay quiet on an even (salted) load: no pressure, no diagonal, no onset, no period', async () => {
    for (const seed of [1, 2, 3]) {
      const ds = await run({ load: even(seed) });
      for (const k of TRAFFIC_KINDS) expect(kinds(ds)).not.toContain(k);
      const e = even(seed);
      const short = await run({ load: (s, b) => (s >= 80 && s < 88 ? e(s, b) : {}) });
      for (const k of TRAFFIC_KINDS) expect(kinds(short)).not.toContain(k);
    }
  });

  it('stay quiet on salted timestamps (parallel diagonals, one per salt) that start with the table', async () => {
    // Ten salts of ten buckets each; in each salt the keys rise with time (salt#timestamp).
    for (const rate of [30, 300]) {
      const ds = await run({ load: (s, b) => (s >= 30 && b % 10 === Math.floor(((s - 30) * 10) / 60) ? { write_ops: rate } : {}) });
      for (const k of TRAFFIC_KINDS) expect(kinds(ds)).not.toContain(k);
    }
  });

  it('name a hot key range with high write pressure (warning), its share, rate and window', async () => {
    const ds = await run({ load: plus(even(), (_, b) => (b >= 20 && b < 25 ? { write_ops: 1000, serving_micros: 50_000 } : {})) });
    const [d, ...rest] = only(ds, 'high_write_pressure');
    expect(rest).toEqual([]);
    expect(d!.severity).toBe('warning');
    expect(d!.keyRange.startText).toBe('k0020');
    expect(d!.keyRange.endText).toBe('k0025');
    expect(d!.evidence.share).toBeGreaterThan(0.8);
    expect(d!.evidence.opsPerSecond).toBeGreaterThan(500);
    expect(d!.evidence.opsPerSecond).toBeLessThan(510);
    expect(d!.evidence.columns).toBe(STEPS);
    expect(d!.evidence.pressureIndex).toBe(2.5);
    expect(d!.message).toMatch(
      /^High write pressure: some key ranges in the table experienced high write pressure\. Keys \[k0020, k0025\) took 8\d% of the table's writes \(50\d ops\/s\) in 90 of 90 columns, 08:00:00 to 08:15:00 UTC\.$/,
    );
    expect(d!.advice).toMatch(/salting/);
    expect(kinds(ds)).not.toContain('high_read_pressure');
  });

  it('call a single hot row danger and name its key', async () => {
    const ds = await run({ load: plus(even(), (_, b) => (b === 42 ? { write_ops: 2000 } : {})) });
    const [d] = only(ds, 'high_write_pressure');
    expect(d!.severity).toBe('danger');
    expect(d!.keyRange.startText).toBe('k0042');
    expect(d!.keyRange.endText).toBe('k0043');
    expect(d!.message).toMatch(/A single row \(the only one in keys \[k0042, k0043\)\) took 6\d% of the table's writes \(20\d ops\/s\)/);
    expect(d!.advice).toMatch(/no split can spread a single row/);
    expect(ds[0]).toBe(d);
  });

  it('in a table of a few rows, see a hot row but not an even load', async () => {
    const even3 = await run({ starts: ['b', 'c'], load: even() });
    expect(kinds(even3)).not.toContain('high_write_pressure');
    expect(kinds(even3)).not.toContain('high_read_pressure');
    const hot5 = await run({ starts: ['b', 'c', 'd', 'e'], load: plus(even(), (_, b) => (b === 2 ? { write_ops: 2000 } : {})) });
    expect(only(hot5, 'high_write_pressure').map((d) => [d.severity, d.keyRange.startText])).toEqual([['danger', 'c']]);
  });

  it('name a hot row the tablet manager reports inside a bucket of many rows', async () => {
    const ds = await run({
      rowsPer: 1000,
      load: plus(even(), (_, b) => (b === 7 ? { read_ops: 3000 } : {})),
      setup: (h) => (h.hot = ['k0007#counter']),
    });
    const [d] = only(ds, 'high_read_pressure');
    expect(d!.severity).toBe('danger');
    expect(d!.keyRange.startText).toBe('k0007#counter');
    expect(d!.keyRange.endText).toBe('k0007#counter\\x00');
    expect(d!.evidence.singleRow).toBe(true);
    expect(d!.message).toMatch(/The single row "k0007#counter" took/);
  });

  it('need the range hot in at least three columns and at 10 ops/s', async () => {
    const brief = await run({ load: plus(even(), (s, b) => (b === 42 && s < 2 ? { write_ops: 2000 } : {})) });
    expect(kinds(brief)).not.toContain('high_write_pressure');
    const slow = await run({ load: (_, b) => (b === 42 ? { write_ops: 50 } : {}) });
    expect(kinds(slow)).not.toContain('high_write_pressure');
  });

  it('see sequential keys as a rising diagonal, naming the first and last hot ranges and the slope', async () => {
    const ds = await run({ load: (s, b) => (b === Math.floor((s * BUCKETS) / STEPS) ? { write_ops: 300 } : {}) });
    const [d] = only(ds, 'sequential_keys');
    expect(d!.severity).toBe('warning');
    expect(d!.evidence.direction).toBe('increasing');
    expect(d!.evidence.firstRange).toBe('[(start), k0001)');
    expect(d!.evidence.lastRange).toBe('[k0098, k0099)');
    expect(d!.evidence.slopeBucketsPerMinute).toBeCloseTo(98 / 15, 1);
    expect(d!.keyRange.startText).toBe('');
    expect(d!.message).toMatch(/^Sequential keys: writes moved steadily up the key space, from \[\(start\), k0001\) to \[k0098, k0099\)/);
    expect(d!.advice).toMatch(/field promotion.*salting.*reverse timestamp/s);
  });

  it('see a diagonal in a short sequential load that fills a small table in eight columns', async () => {
    const ds = await run({ load: (s, b) => (s >= 80 && s < 88 && Math.floor(b / 12.5) === s - 80 ? { write_ops: 40 } : {}) });
    const [d] = only(ds, 'sequential_keys');
    expect(d!.evidence.columns).toBe(8);
    expect(d!.timeRange).toEqual({ from: '2026-11-27T08:13:20.000Z', to: '2026-11-27T08:14:40.000Z' });
    expect(d!.keyRange.startText).toBe('');
    expect(d!.keyRange.endText === null || d!.keyRange.endText >= 'k0095').toBe(true);
  });

  it('name the one key a hot edge bucket saw', async () => {
    const ds = await run({
      rowsPer: 5000,
      load: plus(even(), (_, b) => (b === BUCKETS - 1 ? { write_ops: 3000 } : {})),
      edges: () => ({ lastEdge: { min: 'k0099#hot', max: 'k0099#hot' } }),
    });
    const [d] = only(ds, 'high_write_pressure');
    expect(d!.severity).toBe('danger');
    expect(d!.evidence.key).toBe('k0099#hot');
  });

  it('see reverse timestamps as a falling diagonal', async () => {
    const ds = await run({ load: (s, b) => (b === BUCKETS - 1 - Math.floor((s * BUCKETS) / STEPS) ? { write_ops: 300 } : {}) });
    expect(only(ds, 'sequential_keys')[0]!.evidence.direction).toBe('decreasing');
  });

  it('do not see a diagonal in a hot row or in writes that jump about', async () => {
    const hot = await run({ load: (_, b) => (b === 42 ? { write_ops: 300 } : {}) });
    expect(kinds(hot)).not.toContain('sequential_keys');
    const r = seededRandom(9);
    const jumpy = await run({ load: (s, b) => (b === Math.floor(r() * BUCKETS) ? { write_ops: 300 } : {}) });
    expect(kinds(jumpy)).not.toContain('sequential_keys');
  });

  it('flag a sudden onset in a key range and date it', async () => {
    const ds = await run({ load: plus(even(), (s, b) => (b >= 60 && b < 65 && s >= 60 ? { write_ops: 500 } : {})) });
    const [d, ...rest] = only(ds, 'sudden_onset');
    expect(rest).toEqual([]);
    expect(d!.severity).toBe('info');
    expect(d!.keyRange.startText).toBe('k0060');
    expect(d!.keyRange.endText).toBe('k0065');
    expect(d!.timeRange.from).toBe('2026-11-27T08:10:00.000Z');
    expect(d!.evidence.opsPerSecond).toBeGreaterThan(200);
    const together = await run({ load: (s, b) => (s >= 60 ? { write_ops: b >= 60 && b < 65 ? 500 : 10 } : {}) });
    expect(kinds(together)).not.toContain('sudden_onset');
  });

  it('state the period of periodic activity', async () => {
    // On for 5 columns, off for 5: a 100 s period, 9 of them in the window.
    const ds = await run({ load: (s) => (s % 10 < 5 ? { read_ops: 50 } : { read_ops: 1 }) });
    const [d] = only(ds, 'periodic');
    expect(d!.evidence.periodSeconds).toBe(100);
    expect(d!.keyRange.startText).toBe('');
    expect(d!.message).toMatch(/The table is busy about every 100 s/);
    expect(period([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], 0.6, 3)).toBeUndefined();
  });

  it('flag scans that read far more rows than they return', async () => {
    const ds = await run({ load: plus(even(), (_, b) => (b >= 10 && b <= 12 ? { rows_read: 500, rows_returned: 2 } : {})) });
    const [d, ...rest] = only(ds, 'scan_inefficiency');
    expect(rest).toEqual([]);
    expect(d!.keyRange.startText).toBe('k0010');
    expect(d!.keyRange.endText).toBe('k0013');
    expect(d!.evidence.rowsRead).toBe(3 * STEPS * 510);
    expect(d!.advice).toMatch(/key prefix or range instead/);
    const few = await run({ load: (_, b) => (b === 3 && _ === 0 ? { rows_read: 900, rows_returned: 0 } : {}) });
    expect(kinds(few)).not.toContain('scan_inefficiency');
  });

  it('flag large rows and ranges of large rows (thresholds lowered)', async () => {
    const ds = await run({
      load: even(),
      rowsPer: 10,
      thresholds: { largeRowBytes: 1e6, largeAverageRowBytes: 500 },
      setup: (h) => {
        h.largest = [
          { key: 'k0005#blob', bytes: 3e6 },
          { key: 'k0006', bytes: 1e5 },
        ];
        const set = h.sets.get(1)!;
        h.sets.set(1, { ...set, bytes: set.bytes.map((b, i) => (i === 30 || i === 31 ? 10 * 800 : b)) });
      },
    });
    const large = only(ds, 'large_rows');
    expect(large.map((d) => d.keyRange.startText)).toEqual(['k0005#blob', 'k0030']);
    expect(large[0]!.message).toMatch(
      /^Large rows: some of the rows in the table contain more than 256 MB of data or some key ranges contain an average of more than 200 MB of data per row\. The row "k0005#blob" holds 3 MB\.$/,
    );
    expect(large[1]!.keyRange.endText).toBe('k0032');
    expect(large[1]!.evidence.averageRowBytes).toBe(800);
    expect(kinds(await run({ load: even() }))).not.toContain('large_rows');
  });

  it('say no data was scanned for an empty table without traffic', async () => {
    const ds = await run({ starts: [], rowsPer: 0 });
    expect(kinds(ds)).toEqual(['no_data_scanned']);
    expect(ds[0]!.message).toMatch(/did not find any performance data for the table/);
    expect(kinds(await run({ starts: [], rowsPer: 0, load: () => ({ write_ops: 1 }) }))).not.toContain('no_data_scanned');
  });

  it('say the key space is not to scale for a table of fewer rows than buckets, and values are approximate when estimated', async () => {
    expect(kinds(await run({ load: even() }))).toContain('key_space_not_to_scale');
    const big = await run({ load: even(), rowsPer: 5000, estimated: true });
    expect(kinds(big)).not.toContain('key_space_not_to_scale');
    expect(kinds(big)).toContain('values_approximate');
    expect(kinds(await run({ load: even() }))).not.toContain('values_approximate');
  });

  it('advise padding for unpadded numbers in keys', async () => {
    const unpadded = Array.from({ length: 30 }, (_, i) => `item${i + 1}`).sort();
    const ds = await run({ starts: unpadded, load: even() });
    const [d] = only(ds, 'unpadded_numbers');
    expect(d!.evidence.example).toEqual(['item19', 'item2']);
    expect(d!.advice).toMatch(/Zero-pad/);
    expect(kinds(await run({ load: even() }))).not.toContain('unpadded_numbers');
    expect(outOfOrder('k0999', 'k1')).toBe(false);
    expect(outOfOrder('user#10#a', 'user#9#a')).toBe(true);
  });

  it('read real row keys for the key advisors, not boundaries cut inside a number', async () => {
    // Epoch milliseconds, always 13 digits: the separators between rows end inside the number (`176423573620`).
    const rows = Array.from({ length: 40 }, (_, i) => `${1764235736200 + i * 3}#sensor${i % 5}`);
    const cut = rows.slice(1).map((k, i) => k.slice(0, 12 + (i % 2)));
    expect(kinds(await run({ starts: [...new Set(cut)].sort(), load: even() }))).toContain('unpadded_numbers');
    const ds = await run({ starts: [...new Set(cut)].sort(), load: even(), setup: (h) => (h.samples = rows) });
    expect(kinds(ds)).not.toContain('unpadded_numbers');
    // Fractions of seconds are in order whatever their length (`…56.3` sorts right among `…56.233Z`, `…56.300Z`).
    const iso = Array.from({ length: 40 }, (_, i) => `2026-11-27T09:28:56.${String(200 + i * 3).padStart(3, '0')}Z#sensor${i % 5}`);
    const isoCut = iso.slice(1).map((k, i) => k.slice(0, 22 + (i % 2)));
    expect(kinds(await run({ starts: [...new Set(isoCut)].sort(), load: even() }))).not.toContain('unpadded_numbers');
  });

  it('advise reversed domain names for keys that begin with www. or a host name', async () => {
    const hosts = ['www.example.com/a', 'www.example.com/b', 'shop.example.org/x', 'www.test.io#1', 'zzz'].sort();
    const ds = await run({ starts: hosts, load: even() });
    expect(only(ds, 'unreversed_domains')[0]!.evidence.share).toBe(0.8);
    const reversed = ['com.example.www/a', 'com.example.www/b', 'org.example.shop/x'];
    expect(kinds(await run({ starts: reversed, load: even() }))).not.toContain('unreversed_domains');
  });
});
