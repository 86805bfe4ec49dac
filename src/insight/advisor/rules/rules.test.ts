import { describe, expect, it } from 'vitest';
import type { ByteString } from '../../../model/bytes.js';
import { advise } from '../advise.js';
import { diagnostic, family, ids, input, isoTimes, node, rowProfile, table, tablet, traffic } from '../testing/builders.js';
import { expectSuggestionIsSpec } from '../testing/suggestion-spec.js';
import type { AdvisorThresholds } from '../thresholds.js';
import type { AdvisorInput, Finding, RuleId, TableSample } from '../types.js';

function findings(i: AdvisorInput, thresholds?: Partial<AdvisorThresholds>): Finding[] {
  const out = advise(i, thresholds === undefined ? {} : { thresholds }).findings;
  for (const f of out) {
    expect(f.message.length, f.rule).toBeGreaterThan(60);
    expect(f.suggestion.length, f.rule).toBeGreaterThan(20);
    // A suggestion with a what-if shows that what-if at work on the user's key.
    const table = i.tables.find((t) => t.name.table === f.table)!;
    if (f.simulate !== undefined) expectSuggestionIsSpec(f, table);
  }
  return [...out];
}

function only(
  tables: TableSample[] | TableSample,
  rule: RuleId,
  more: Parameters<typeof input>[1] = {},
  thresholds?: Partial<AdvisorThresholds>,
): Finding[] {
  return findings(input(Array.isArray(tables) ? tables : [tables], more), thresholds).filter((f) => f.rule === rule);
}

/** The one finding of `rule`. */
function one(
  tables: TableSample[] | TableSample,
  rule: RuleId,
  more: Parameters<typeof input>[1] = {},
  thresholds?: Partial<AdvisorThresholds>,
): Finding {
  const found = only(tables, rule, more, thresholds);
  expect(found.map((f) => f.rule)).toEqual([rule]);
  return found[0]!;
}

const times = isoTimes(10);
/** Timestamp first: `2023-05-01T12:00:00Z#sensor007`, 10 times x 5 sensors, written in time order. */
const tsFirst = times.flatMap((t) => ids('sensor', 5).map((s) => `${t}#${s}`));

describe('rules', () => {
  it('timestamp-leading-key: promote the identifier; danger once the writes confirm it', () => {
    const f = one(table('t', tsFirst), 'timestamp-leading-key');
    expect(f.severity).toBe('warning');
    expect(f.evidence.timestamp).toBe('ISO date/time');
    expect(f.suggestion).toContain('`2023-05-01T12:00:00Z#sensor001` → `sensor001#2023-05-01T12:00:00Z`');
    expect(f.simulate).toBe('delimiter=#,promote:2');
    const written = one(table('t', tsFirst, { writeOrder: tsFirst }), 'timestamp-leading-key');
    expect(written.severity).toBe('danger');
    expect(written.evidence.writesAtEnd).toBe(1);
    // Only sequential keys are timestamp-leading-key's: sequential-key stays silent.
    expect(only(table('t', tsFirst, { writeOrder: tsFirst }), 'sequential-key')).toEqual([]);
    // A date over segments: the identifier after it leads.
    const paths = isoTimes(1).flatMap(() => ['01', '02', '03'].flatMap((d) => ids('sensor', 4).map((s) => `2023/05/${d}/${s}`)));
    const p = one(table('t', paths), 'timestamp-leading-key');
    expect(p.suggestion).toContain('`2023/05/01/sensor001` → `sensor001/2023/05/01`');
    expect(p.simulate).toBe('promote:4');
    // An epoch alone: salt.
    const epochs = Array.from({ length: 20 }, (_, i) => String(1682942400000 + i * 1000));
    const e = one(table('t', epochs), 'timestamp-leading-key');
    expect(e.evidence.timestamp).toBe('epoch milliseconds');
    expect(e.simulate).toBe('salt:8');
    expect(e.suggestion).toMatch(/`1682942400000` → `\d#1682942400000`/);
  });

  it('sequential-key: ids that grow with every write land on the last tablet', () => {
    const keys = ids('order#', 40, 6);
    const f = one(table('t', keys, { writeOrder: keys }), 'sequential-key');
    expect(f.severity).toBe('warning');
    expect(f.evidence.writesAtEnd).toBe(1);
    expect(f.suggestion).toMatch(/`order#000040` → `\d#order#000040`/);
    expect(f.suggestion).toContain('order#040000');
    expect(f.simulate).toBe('salt:8');
    // With the heatmap's diagonal too: danger.
    const both = one(
      table('t', keys, { writeOrder: keys, diagnostics: [diagnostic('sequential_keys', { writesPerSecond: 50 })] }),
      'sequential-key',
    );
    expect(both.severity).toBe('danger');
    // The diagonal alone over keys that are not counters: info, unsure.
    const words = ids('item-', 20).map((k) => k.replace(/\d/g, (d) => 'abcdefghij'[Number(d)]!));
    const unsure = one(table('t', words, { diagnostics: [diagnostic('sequential_keys', {})] }), 'sequential-key');
    expect(unsure.severity).toBe('info');
    expect(unsure.message).toMatch(/may be a one-off load/);
  });

  it('hashed-key: a warning only when reads want ranges', () => {
    const hashes = Array.from({ length: 30 }, (_, i) => `${(0x9f86d081884c7d65n * BigInt(i + 7)).toString(16).padStart(16, '0')}#user${i}`);
    const ranges = one(
      // Buckets of 50 rows (a larger table): a read op returning 50 rows scanned its bucket.
      table('t', hashes, { traffic: traffic(hashes, () => ({ rows: 50, readOps: 2, rowsRead: 100, rowsReturned: 100 })) }),
      'hashed-key',
    );
    expect(ranges.severity).toBe('warning');
    expect(ranges.evidence.rowsPerRead).toBe(50);
    // The natural key leads, the hash follows (promote:2 at work on the sample key).
    expect(ranges.suggestion).toMatch(/`([0-9a-f]{16,})#(user\d+)` → `\2#\1`/);
    expect(ranges.simulate).toBe('promote:2');
    const unsure = one(table('t', hashes), 'hashed-key');
    expect(unsure.severity).toBe('info');
    expect(unsure.message).toMatch(/Not sure/);
    const point = table('t', hashes, { traffic: traffic(hashes, () => ({ rows: 50, readOps: 5, rowsRead: 5, rowsReturned: 5 })) });
    expect(only(point, 'hashed-key')).toEqual([]);
    // Buckets of one row: a scan enters one bucket per row, like point reads: unsure.
    const small = one(table('t', hashes, { traffic: traffic(hashes, () => ({ readOps: 5, rowsRead: 5, rowsReturned: 5 })) }), 'hashed-key');
    expect(small.severity).toBe('info');
    expect(small.message).toMatch(/too small/);
  });

  it('unpadded-number: pad to one width (info), salt prefixes left out', () => {
    const items = Array.from({ length: 30 }, (_, i) => `item${i + 1}`);
    const f = one(table('t', items), 'unpadded-number');
    expect(f.severity).toBe('info');
    expect(f.evidence.example).toEqual(['item19', 'item2']);
    expect(f.suggestion).toContain('`item2` → `item00002`');
    expect(f.simulate).toBe('pad:5');
    const users = Array.from({ length: 30 }, (_, i) => `user#${i + 1}#profile`);
    expect(one(table('t', users), 'unpadded-number').simulate).toBe('pad:2:5');
    const salted = Array.from({ length: 40 }, (_, i) => `${i % 16}#sensor${String(i).padStart(3, '0')}`);
    expect(only(table('t', salted), 'unpadded-number')).toEqual([]);
  });

  it('long-key: danger near 4 KiB, warning from 1 KiB, info for a long shared prefix', () => {
    const near = [`doc#${'x'.repeat(3800)}`, 'doc#a'];
    const d = one(table('t', near), 'long-key');
    expect(d.severity).toBe('danger');
    expect(d.evidence.longestKeyBytes).toBe(3804);
    expect(d.suggestion).toContain('doc#{hash64 of it}');
    expect(one(table('t', [`doc#${'y'.repeat(1500)}`]), 'long-key').severity).toBe('warning');
    const prefix = 'projects/my-project/instances/prod/tables/events/rows/';
    const shared = one(table('t', ids(prefix, 10)), 'long-key');
    expect(shared.severity).toBe('info');
    expect(shared.suggestion).toContain(`\`${prefix}001\` → \`001\``);
  });

  it('non-printable-key: binary numbers become zero-padded decimal (info)', () => {
    const be = (n: number): ByteString => Buffer.from(BigInt(n).toString(16).padStart(16, '0'), 'hex').toString('latin1');
    const keys = Array.from({ length: 10 }, (_, i) => `${be(1700000000000 + i)}#s1`);
    const f = one(table('t', keys), 'non-printable-key');
    expect(f.severity).toBe('info');
    expect(f.suggestion).toContain('→ `00000001700000000000#s1`');
    expect(String(f.evidence.examples)).toContain('\\x00\\x00\\x01');
  });

  it('pii-in-key: e-mail addresses in keys, family names and qualifiers', () => {
    const keys = ['user#alice@example.com#2023', 'user#bob@example.org#2023', 'user#carol@example.net#2024'];
    const f = one(table('t', keys), 'pii-in-key');
    expect(f.severity).toBe('warning');
    expect(f.evidence.kinds).toEqual(['e-mail address']);
    expect(f.suggestion).toContain('`user#alice@example.com#2023` → `user#{hmac(alice@example.com)}#2023`');
    const named = one(
      table('t', ['row1'], {
        families: [family('+14155550123')],
        rowProfiles: [rowProfile('row1', 100, [{ qualifiers: ['4111111111111111'] }])],
      }),
      'pii-in-key',
    );
    expect(named.evidence.familyNames).toBe(1);
    expect(named.evidence.qualifiers).toBe(1);
    const ips = one(table('t', ['ip#10.0.0.1', 'ip#10.0.0.2']), 'pii-in-key');
    expect(ips.severity).toBe('info');
    expect(ips.message).toMatch(/Not sure/);
  });

  it('hot-row: counters get an aggregate family, other rows sharding', () => {
    const keys = ['page#about', 'page#home', 'page#news', 'page#shop'];
    const hot = tablet('t', { start: '', requestsPerSec: 200, hotRow: { key: 'page#home', share: 0.9 } });
    const counter = rowProfile('page#home', 100, [{ family: 'stats', counterLike: true }]);
    const f = one(table('t', keys, { tablets: [hot], rowProfiles: [counter] }), 'hot-row');
    expect(f.severity).toBe('danger');
    expect(f.evidence.key).toBe('page#home');
    expect(f.suggestion).toContain('AddToCell');
    expect(f.suggestion).toContain('`page#home#0`');
    expect(f.keyRange?.startText).toBe('page#home');
    // From the recorded traffic: a one-row bucket with most writes; not a counter: shard.
    const many = ids('page#', 20);
    const t = traffic(many, (k) => ({ writeOps: k === 'page#007' ? 900 : 5 }));
    const g = one(table('t', many, { traffic: t }), 'hot-row');
    expect(g.severity).toBe('warning');
    expect(g.suggestion).toContain('`page#007#{hash(writer) % 8}`');
    // The heatmap's single-row pressure.
    const d = diagnostic(
      'high_write_pressure',
      { singleRow: true, key: 'page#003', share: 0.8, opsPerSecond: 120 },
      'page#003',
      'page#003\x00',
    );
    expect(one(table('t', many, { diagnostics: [d] }), 'hot-row').evidence.key).toBe('page#003');
    // A row the heatmap narrowed a hot range down to, with a few percent of the ops (a thin sample of a busy range): none.
    const thin = diagnostic(
      'high_read_pressure',
      { singleRow: true, key: 'page#004', share: 0.07, opsPerSecond: 1.33 },
      'page#004',
      'page#004\x00',
    );
    expect(only(table('t', many, { diagnostics: [thin] }), 'hot-row')).toEqual([]);
  });

  it('too-many-families: over 90 families (a table holds at most 100), and an info for very different retention', () => {
    const fams = Array.from({ length: 100 }, (_, i) => family(`f${i}`, { kind: 'maxVersions', versions: 1 }));
    const f = one(table('t', ['a'], { families: fams }), 'too-many-families');
    expect(f.severity).toBe('warning');
    expect(f.evidence.families).toBe(100);
    const hour = { kind: 'maxAge', maxAgeMicros: 3600e6 } as const;
    const year = { kind: 'maxAge', maxAgeMicros: 365 * 86400e6 } as const;
    const r = one(table('t', ['a'], { families: [family('raw', hour), family('daily', year)] }), 'too-many-families');
    expect(r.severity).toBe('info');
    expect(r.evidence.ratio).toBe(8760);
  });

  it('too-many-tables: one table per year, reported once, on the table asked for', () => {
    const years = Array.from({ length: 12 }, (_, i) => table(`events_${2015 + i}`, ['sensor1#2023-05-01T12:00:00Z']));
    const all = findings(input([...years, table('users', ['u1'], { families: [family('profile')] })])).filter(
      (f) => f.rule === 'too-many-tables',
    );
    expect(all.map((f) => [f.table, f.severity])).toEqual([['events_2015', 'warning']]);
    expect(all[0]!.evidence.varying).toEqual(['2015', '2016', '2017', '2018', '2019']);
    expect(all[0]!.suggestion).toContain('`events` row `sensor1#2023-05-01T12:00:00Z`');
    const asked = findings(input(years, { only: 'events_2020' })).filter((f) => f.rule === 'too-many-tables');
    expect(asked.map((f) => f.table)).toEqual(['events_2020']);
    // One per customer: a key prefix.
    const customers = ['acme', 'globex', 'initech'].map((c) => table(`orders_${c}`, ['order#0001']));
    const c = one(customers, 'too-many-tables', {}, { sameSchemaTables: 3 });
    expect(c.severity).toBe('info');
    expect(c.suggestion).toContain('`orders` row `acme#order#0001`');
  });

  it('large-row: warning over 100 MB, danger near 256 MB, cells over 10 MB', () => {
    const keys = ['user#1', 'user#2'];
    const w = one(table('t', keys, { largestRows: [{ key: 'user#1', bytes: 120e6 }] }), 'large-row');
    expect(w.severity).toBe('warning');
    expect(w.suggestion).toContain('`user#1#2026-11`');
    const d = one(table('t', keys, { rowProfiles: [rowProfile('user#2', 250e6)] }), 'large-row');
    expect(d.severity).toBe('danger');
    const cell = one(table('t', keys, { rowProfiles: [rowProfile('user#1', 20e6, [{ maxCellBytes: 20e6 }])] }), 'large-row');
    expect(cell.evidence.cellBytes).toBe(20e6);
    // Thresholds can be lowered (tests cannot write 100 MB).
    expect(
      one(
        table('t', keys, { largestRows: [{ key: 'user#1', bytes: 5000 }] }),
        'large-row',
        {},
        { largeRowBytes: 1000, largeRowDangerBytes: 4000 },
      ).severity,
    ).toBe('danger');
  });

  it('unreversed-domain: reverse the host by labels', () => {
    const hosts = ['www.example.com/a', 'www.example.com/b', 'shop.example.org/x', 'api.example.io/v1', 'www.test.io/index'];
    const f = one(table('t', hosts), 'unreversed-domain');
    expect(f.severity).toBe('warning');
    expect(f.suggestion).toContain('`api.example.io/v1` → `io.example.api/v1`');
    expect(f.simulate).toBe('delimiter=/,reverse:1');
  });

  it('unbounded-versions: no GC rule and versions piling up', () => {
    const profiles = [rowProfile('sensor1', 1000, [{ family: 'readings', maxVersions: 500 }])];
    const f = one(table('t', ['sensor1'], { families: [family('readings')], rowProfiles: profiles }), 'unbounded-versions');
    expect(f.severity).toBe('warning');
    expect(f.evidence.maxVersions).toBe(500);
    expect(f.suggestion).toContain('`sensor1` → `sensor1#<timestamp>`');
    const emptyUnion = family('readings', { kind: 'union', rules: [] });
    expect(only(table('t', ['sensor1'], { families: [emptyUnion], rowProfiles: profiles }), 'unbounded-versions')).toHaveLength(1);
    const kept = family('readings', { kind: 'maxVersions', versions: 1000 });
    expect(only(table('t', ['sensor1'], { families: [kept], rowProfiles: profiles }), 'unbounded-versions')).toEqual([]);
  });

  it('filter-scan: rows read far beyond rows returned, from traffic or the heatmap', () => {
    const keys = ids('sensor', 20).map((s) => `${s}#2023-05-01T12:00:00Z`);
    const t = traffic(keys, () => ({ readOps: 1, rowsRead: 500, rowsReturned: 2 }));
    const f = one(table('t', keys, { traffic: t }), 'filter-scan');
    expect(f.severity).toBe('warning');
    expect(f.evidence.ratio).toBe(250);
    expect(f.suggestion).toContain('`sensor001#2023-05-01T12:00:00Z` → `sensor001#{what you filter on}#2023-05-01T12:00:00Z`');
    const d = diagnostic('scan_inefficiency', { rowsRead: 20000, rowsReturned: 0, ratio: 'all filtered out' }, 'sensor010');
    const g = one(table('t', keys, { diagnostics: [d] }), 'filter-scan');
    expect(g.evidence.ratio).toBe('all filtered out');
    expect(g.keyRange?.startText).toBe('sensor010');
  });

  it('low-cardinality-prefix: one of few leading values takes the traffic', () => {
    const keys = ['eu', 'us', 'ap'].flatMap((r) => ids('sensor', 10).map((s) => `${r}#${s}#2023-05-01`));
    const t = traffic(keys, (k) => ({ writeOps: k.startsWith('eu#') ? 100 : 2 }));
    const f = one(table('t', keys, { traffic: t }), 'low-cardinality-prefix');
    expect(f.severity).toBe('warning');
    expect(f.evidence.busiest).toBe('eu');
    expect(f.suggestion).toContain('`eu#sensor001#2023-05-01` → `sensor001#eu#2023-05-01`');
    expect(f.simulate).toBe('promote:2');
  });

  it('hot-tablet: one tablet or one node takes the load', () => {
    const keys = ids('k', 40);
    const tablets = [
      tablet('t', { start: '', end: 'k010', requestsPerSec: 5, node: 0 }),
      tablet('t', { start: 'k010', end: 'k020', requestsPerSec: 5, node: 1 }),
      tablet('t', { start: 'k020', end: 'k030', requestsPerSec: 180, node: 0 }),
      tablet('t', { start: 'k030', requestsPerSec: 10, node: 1 }),
    ];
    const f = one(table('t', keys, { tablets }), 'hot-tablet');
    expect(f.severity).toBe('warning');
    expect(f.evidence.share).toBe(0.9);
    expect(f.keyRange?.startText).toBe('k020');
    expect(f.suggestion).toMatch(/`k020` → `\d#k020`/);
    expect(f.simulate).toBe('salt:8');
    const nodes = [node(0, 900_000, 185), node(1, 50_000, 15)];
    const both = only(table('t', keys, { tablets }), 'hot-tablet', { nodes });
    expect(both.map((x) => x.severity)).toEqual(['danger', 'warning']);
    expect(both[0]!.evidence.node).toBe(0);
  });
});
