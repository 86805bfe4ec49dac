import { describe, expect, it } from 'vitest';
import type { ByteString } from '../../model/bytes.js';
import { advise } from './advise.js';
import { simulate } from './simulate/simulate.js';
import { isoAt, timestampLeading } from './simulate/testing/table-samples.js';
import { ids, input, node, table, tablet, traffic } from './testing/builders.js';
import { expectSuggestionIsSpec } from './testing/suggestion-spec.js';
import type { AdvisorInput, NodeLoad, RuleId, TableSample } from './types.js';

/**
 * The rules and the what-if read keys with one piece of code: for each
 * rule's positive fixture that proposes a `simulate` spec, the spec parses,
 * the suggestion's rewritten sample key is that spec applied to it, and for
 * the hotspot rules the what-if on that very table shows the busiest node's
 * share falling on 4 nodes.
 */

const NODES = 4;

interface Case {
  readonly rule: RuleId;
  readonly table: TableSample;
  readonly nodes?: readonly NodeLoad[];
  /** The spec the rule proposes here. */
  readonly spec: string;
  /** A hotspot rule's fixture: the what-if must spread its load. */
  readonly hotspot: boolean;
}

/** Keys written in the order given (the last 256 as the recent writes), each key bucket with the same writes and a few reads. */
function written(id: string, order: readonly ByteString[], more: Partial<TableSample> = {}): TableSample {
  return table(id, order, {
    writeOrder: order.slice(-256),
    traffic: traffic(order, () => ({ writeOps: 20, readOps: 2, rowsRead: 2, rowsReturned: 2 })),
    ...more,
  });
}

/** `days` days of `sensors` sensors' rows keyed by a date path (`2023/05/01/sensor01`), in time order. */
function datePaths(days: number, sensors: number): string[] {
  return Array.from({ length: days }, (_, d) => `2023/05/${String(d + 1).padStart(2, '0')}`).flatMap((day) =>
    ids('sensor', sensors, 2).map((s) => `${day}/${s}`),
  );
}

/**
 * 400 keys `k0001`..., tablets of 100 keys on nodes 0, 1, 0, 1, the third
 * taking most requests: a job sweeps its keys in key order, again and again
 * (no new largest key: no sequential keys), and the other keys are read a little.
 */
function hotRange(): { table: TableSample; nodes: NodeLoad[] } {
  const keys = ids('k', 400, 4);
  const tablets = [0, 1, 2, 3].map((q) =>
    tablet('t', {
      start: q === 0 ? '' : keys[q * 100]!,
      ...(q === 3 ? {} : { end: keys[(q + 1) * 100]! }),
      requestsPerSec: q === 2 ? 900 : 30,
      node: q % 2,
    }),
  );
  const hot = keys.slice(200, 300);
  const sweeps = [...hot, ...hot, ...hot].slice(-256);
  return {
    table: table('t', keys, {
      tablets,
      writeOrder: sweeps,
      traffic: traffic(keys, (k) => (hot.includes(k) ? { writeOps: 60, readOps: 2, rowsRead: 2, rowsReturned: 2 } : { readOps: 1 })),
    }),
    nodes: [node(0, 900_000, 930), node(1, 50_000, 60)],
  };
}

const sensorsByTime = timestampLeading(40, 25);
const epochs = Array.from({ length: 400 }, (_, i) => String(1682942400000 + i * 1000));
const prefixed = sensorsByTime.map((k) => `metrics#${k}`);
const counters = ids('order#', 400, 6);
const countersByWriter = Array.from(
  { length: 400 },
  (_, i) => `${String(i + 1).padStart(6, '0')}#writer${String(i % 40).padStart(2, '0')}`,
);
const regions = ['eu', 'us', 'ap'].flatMap((r) => Array.from({ length: 100 }, (_, i) => `${r}#${isoAt(i * 10)}`));
const regionSensors = ['eu', 'us', 'ap'].flatMap((r) => ids('sensor', 30).map((s) => `${r}#${s}#2023-05-01`));
const hashes = Array.from({ length: 30 }, (_, i) => `${(0x9f86d081884c7d65n * BigInt(i + 7)).toString(16).padStart(16, '0')}#user${i}`);
const hosts = ['www.example.com/a', 'www.example.com/b', 'shop.example.org/x', 'api.example.io/v1', 'www.test.io/index'];
const busyEu = (k: string): { writeOps: number } => ({ writeOps: k.startsWith('eu#') ? 100 : 2 });

const CASES: Readonly<Record<string, Case>> = {
  'timestamp first, then the sensor': {
    rule: 'timestamp-leading-key',
    table: written('t', sensorsByTime),
    spec: 'delimiter=#,promote:2',
    hotspot: true,
  },
  'an epoch alone': { rule: 'timestamp-leading-key', table: written('t', epochs), spec: 'salt:8', hotspot: true },
  'a date path, then the sensor': {
    rule: 'timestamp-leading-key',
    table: written('t', datePaths(10, 40)),
    spec: 'promote:4',
    hotspot: true,
  },
  'a constant prefix, the timestamp, the sensor': {
    rule: 'timestamp-leading-key',
    table: written('t', prefixed),
    spec: 'delimiter=#,promote:3:2',
    hotspot: true,
  },
  'a counter after a constant': { rule: 'sequential-key', table: written('t', counters), spec: 'salt:8', hotspot: true },
  'a counter, then the writer': { rule: 'sequential-key', table: written('t', countersByWriter), spec: 'promote:2', hotspot: true },
  'one hot tablet': { rule: 'hot-tablet', table: hotRange().table, spec: 'salt:8', hotspot: true },
  'one hot node': { rule: 'hot-tablet', ...hotRange(), spec: 'salt:8', hotspot: true },
  'a busy region of time-keyed rows': {
    rule: 'low-cardinality-prefix',
    // The busy region's rows come in time order: each new one at the end of `eu#`.
    table: table('t', regions, { traffic: traffic(regions, busyEu), writeOrder: regions.filter((k) => k.startsWith('eu#')) }),
    spec: 'delimiter=#,salt:8',
    hotspot: true,
  },
  'a busy region of sensors': {
    rule: 'low-cardinality-prefix',
    table: table('t', regionSensors, { traffic: traffic(regionSensors, busyEu) }),
    spec: 'promote:2',
    hotspot: false,
  },
  'a hash, then the user': {
    rule: 'hashed-key',
    table: table('t', hashes, { traffic: traffic(hashes, () => ({ rows: 50, readOps: 2, rowsRead: 100, rowsReturned: 100 })) }),
    spec: 'promote:2',
    hotspot: false,
  },
  'unpadded numbers, no delimiter': {
    rule: 'unpadded-number',
    table: table(
      't',
      Array.from({ length: 30 }, (_, i) => `item${i + 1}`),
    ),
    spec: 'pad:5',
    hotspot: false,
  },
  'unpadded numbers in a segment': {
    rule: 'unpadded-number',
    table: table(
      't',
      Array.from({ length: 30 }, (_, i) => `user#${i + 1}#profile`),
    ),
    spec: 'pad:2:5',
    hotspot: false,
  },
  'host names first': { rule: 'unreversed-domain', table: table('t', hosts), spec: 'delimiter=/,reverse:1', hotspot: false },
};

function findingsOf(c: Case): ReturnType<typeof advise>['findings'] {
  const i: AdvisorInput = input([c.table], c.nodes === undefined ? {} : { nodes: c.nodes });
  return advise(i).findings.filter((f) => f.rule === c.rule);
}

describe("a finding's suggestion is its simulate spec at work", () => {
  it.each(Object.entries(CASES))('%s', (_, c) => {
    const found = findingsOf(c);
    expect(found.length, `${c.rule} fires`).toBeGreaterThan(0);
    for (const f of found) {
      expect(f.simulate).toBe(c.spec);
      expectSuggestionIsSpec(f, c.table);
      if (!c.hotspot) continue;
      const s = simulate(c.table, f.simulate!, { nodes: NODES });
      expect(s.after.maxNodeShare, s.verdict).toBeLessThan(s.before.maxNodeShare);
    }
  });
});
