import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../testing/random.js';
import { advise } from './advise.js';
import { diagnostic, ids, input, isoTimes, node, table, tablet, traffic } from './testing/builders.js';
import type { Finding, TableSample } from './types.js';

/**
 * The schema guide's good designs, each with the writes and reads it is
 * made for: no warning or danger, and no finding at all.
 */

const times = isoTimes(20);
const MAX_MS = 9999999999999;
const r = seededRandom(7);

/** Sorted keys, written in `order`, with even traffic per bucket (writes, reads of `rowsPerRead` rows per bucket entered). */
function good(id: string, order: readonly string[], rowsPerRead = 1, more: Partial<TableSample> = {}, rowsPerBucket = 1): TableSample {
  const keys = [...new Set(order)].sort();
  const t = traffic(keys, () => ({
    rows: rowsPerBucket,
    writeOps: 8 + Math.floor(r() * 5),
    readOps: 4,
    rowsRead: 4 * rowsPerRead,
    rowsReturned: 4 * rowsPerRead,
  }));
  const n = keys.length;
  const tablets = [0, 1, 2, 3].map((q) =>
    tablet(id, {
      start: q === 0 ? '' : keys[(q * n) >> 2]!,
      end: q === 3 ? undefined : keys[((q + 1) * n) >> 2],
      requestsPerSec: 20 + q,
      node: q % 2,
    }),
  );
  return table(id, keys, { writeOrder: order.slice(-256), traffic: t, tablets, ...more });
}

function shuffled<T>(xs: readonly T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const designs: Record<string, TableSample> = {
  // Id then time; every sensor reports each second (written time by time), read by a sensor's range.
  sensors: good(
    'sensors',
    times.flatMap((t) => ids('sensor', 12).map((s) => `${s}#${t}`)),
    20,
  ),
  // One sensor only (the sample is one entity's rows), written in time order.
  oneSensor: good(
    'one-sensor',
    times.map((t) => `sensor123#${t}`),
    20,
  ),
  // Latest first: MAX - t zero-padded after the id.
  latestFirst: good(
    'latest-first',
    Array.from({ length: 200 }, (_, i) => `sensor123#${String(MAX_MS - (1682942400000 + i * 1000)).padStart(13, '0')}`),
    10,
  ),
  latestFirstMany: good(
    'latest-first-many',
    Array.from({ length: 30 }, (_, i) =>
      ids('sensor', 8).map((s) => `${s}#${String(MAX_MS - (1682942400000 + i * 1000)).padStart(13, '0')}`),
    ).flat(),
    10,
  ),
  // Reversed domains, crawled in no order, read by domain prefix.
  domains: good(
    'domains',
    shuffled(
      ['com.example.www', 'com.example.shop', 'org.wikipedia.en', 'io.github.docs', 'net.cdn.static'].flatMap((h) => ids(`${h}/page`, 10)),
    ),
    5,
  ),
  // Salted: a few leading values, even traffic.
  salted: good('salted', shuffled(times.flatMap((t) => ids('sensor', 8).map((s, i) => `${i % 4}#${s}#${t}`))), 10),
  // Tenant prefixes.
  tenants: good('tenants', shuffled(ids('tenant', 30).flatMap((t) => ids(`${t}#user#`, 5, 5))), 3),
  // Hashed keys read only by point reads (20 rows per key bucket: the recording tells point reads from scans).
  hashed: good(
    'hashed',
    Array.from({ length: 100 }, (_, i) => createHash('sha256').update(String(i)).digest('hex').slice(0, 32)),
    1,
    {},
    20,
  ),
};

const loud = (fs: readonly Finding[]): Finding[] => fs.filter((f) => f.severity !== 'info');

describe('good designs', () => {
  for (const [name, t] of Object.entries(designs)) {
    it(`${name}: no finding (${t.keys[0]})`, () => {
      const advice = advise(input([t]));
      expect(loud(advice.findings)).toEqual([]);
      expect(advice.findings.map((f) => `${f.rule}: ${f.message}`)).toEqual([]);
    });
  }

  it('id then time, loaded sensor by sensor (a diagonal on the heatmap): no finding', () => {
    const order = ids('sensor', 12).flatMap((s) => times.map((t) => `${s}#${t}`));
    const loaded = good('loaded', order, 20, { diagnostics: [diagnostic('sequential_keys', { writesPerSecond: 100 })] });
    expect(advise(input([loaded])).findings).toEqual([]);
  });

  it('one busy tablet alone on a node of several: no finding (a single tablet cannot spread)', () => {
    const keys = ids('sensor', 20).map((s) => `${s}#${times[0]!}`);
    const alone = table('alone', keys, { tablets: [tablet('alone', { start: '', requestsPerSec: 500, cpuMicrosPerSec: 900_000 })] });
    expect(advise(input([alone], { nodes: [node(0, 900_000, 500), node(1, 0, 0), node(2, 0, 0)] })).findings).toEqual([]);
  });

  it('all together: no warning, no danger (too-many-tables looks at them all)', () => {
    const advice = advise(input(Object.values(designs)));
    expect(advice.tables).toHaveLength(Object.keys(designs).length);
    expect(loud(advice.findings)).toEqual([]);
  });
});
