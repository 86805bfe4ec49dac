import { describe, expect, it } from 'vitest';
import { isTabletopError } from '../../../model/errors.js';
import type { SimulationJson, SimulationSide, TableSample } from '../types.js';
import { fnv1a } from './key-text.js';
import { simulate } from './simulate.js';
import { bucketsOver, tableSample, timestampLeading } from './testing/table-samples.js';

/** 40 sensors reporting every 10 s, keyed time first; the writes recorded came in key order (they append). */
function timestampTable(): TableSample {
  const keys = timestampLeading(40, 25);
  return tableSample({ keys, writeOrder: keys.slice(-256), buckets: bucketsOver(keys, 20, () => ({ writeOps: 500, readOps: 20 })) });
}

/** The side's figures add up: contiguous tablets covering the table, shares summing to 1, nodes agreeing with tablets. */
function expectConsistent(side: SimulationSide, nodes: number, storedBytes: number, withOps = true): void {
  expect(side.tablets[0]!.startText).toBe('');
  expect(side.tablets[side.tablets.length - 1]!.endText).toBeNull();
  for (let i = 1; i < side.tablets.length; i++) expect(side.tablets[i]!.startText).toBe(side.tablets[i - 1]!.endText);
  expect(side.nodes.map((n) => n.node)).toEqual(Array.from({ length: nodes }, (_, i) => i));
  const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
  expect(sum(side.tablets.map((t) => t.bytes))).toBeCloseTo(storedBytes, -2);
  expect(sum(side.nodes.map((n) => n.bytes))).toBeCloseTo(storedBytes, -2);
  if (withOps) {
    expect(sum(side.tablets.map((t) => t.share))).toBeCloseTo(1, 6);
    expect(sum(side.nodes.map((n) => n.share))).toBeCloseTo(1, 6);
  }
  for (const n of side.nodes) {
    const on = side.tablets.filter((t) => t.node === n.node);
    expect(n.tablets).toBe(on.length);
    expect(n.share).toBeCloseTo(sum(on.map((t) => t.share)), 6);
  }
  expect(side.maxNodeShare).toBe(Math.max(...side.nodes.map((n) => n.share)));
  expect(side.maxTabletShare).toBe(Math.max(...side.tablets.map((t) => t.share)));
}

describe('simulate', () => {
  it('shows a timestamp-leading load on one tablet and one node, and promote:2 or salt:8 spreading it', () => {
    const table = timestampTable();
    const promoted = simulate(table, 'promote:2', { nodes: 4 });
    expect(promoted.before.maxTabletShare).toBeGreaterThan(0.9);
    expect(promoted.before.maxNodeShare).toBeGreaterThan(0.9);
    expect(promoted.after.maxNodeShare).toBeLessThan(0.35);
    expect(promoted.verdict).toMatch(
      /^The transform spreads the load: the busiest node's share of ops goes from (9\d|100)% to \d\d% on 4 nodes/,
    );
    const salted = simulate(table, 'salt:8', { nodes: 4 });
    expect(salted.before).toEqual(promoted.before);
    expect(salted.after.maxNodeShare).toBeLessThan(0.35);
    // Every node serves a part of the writes after, several tablets each.
    for (const n of salted.after.nodes) {
      expect(n.share).toBeGreaterThan(0.1);
      expect(n.tablets).toBeGreaterThanOrEqual(2);
    }
    for (const s of [promoted, salted]) {
      expectConsistent(s.before, 4, table.storedBytes);
      expectConsistent(s.after, 4, table.storedBytes);
    }
  });

  it('replays the same keys written in no particular order as spread already', () => {
    const keys = timestampLeading(40, 25);
    const shuffled = [...keys].sort((a, b) => fnv1a(a) - fnv1a(b)).slice(0, 256);
    const table = tableSample({ keys, writeOrder: shuffled, buckets: bucketsOver(keys, 20, () => ({ writeOps: 500 })) });
    const s = simulate(table, 'promote:2', { nodes: 4 });
    expect(s.before.maxNodeShare).toBeLessThan(0.4);
    expect(s.verdict).toMatch(/^The load is spread already and stays so/);
  });

  it('shows a transform that puts the timestamp first creating the hotspot', () => {
    // The good design: sensor first, written in time order (every sensor each moment).
    const flip = (k: string): string => k.split('#').reverse().join('#');
    const keys = timestampLeading(40, 25).map(flip);
    const writeOrder = timestampLeading(40, 25).slice(-256).map(flip);
    const table = tableSample({ keys, writeOrder, buckets: bucketsOver(keys, 20, () => ({ writeOps: 500 })) });
    const s = simulate(table, 'promote:2', { nodes: 4 });
    expect(s.examples[0]).toEqual({ before: 'sensor00#2023-05-01T12:00:00Z', after: '2023-05-01T12:00:00Z#sensor00' });
    expect(s.before.maxNodeShare).toBeLessThan(0.35);
    expect(s.after.maxNodeShare).toBeGreaterThan(0.9);
    expect(s.verdict).toMatch(/^The transform concentrates the load: the busiest node's share of ops goes from \d\d% to (9\d|100)%/);
  });

  it('gives before = after for a transform that changes nothing', () => {
    const table = timestampTable();
    for (const spec of ['delimiter=#', 'pad:1', 'promote:1']) {
      const s = simulate(table, spec, { nodes: 3 });
      expect(s.after).toEqual(s.before);
      expect(s.examples.every((e) => e.before === e.after)).toBe(true);
      expect(s.verdict).toMatch(/^The transform does not spread the load: the busiest node's share of ops goes from (\d+)% to \1%/);
    }
  });

  it('cannot spread a single hot row, and says so', () => {
    const keys = Array.from({ length: 600 }, (_, i) => `user${String(i).padStart(4, '0')}#profile`);
    const hot = 'user0300#profile';
    const buckets = bucketsOver(keys, 30, () => ({ writeOps: 20 })).flatMap((b) => {
      if (!(b.start <= hot && (b.end === undefined || hot < b.end))) return [b];
      // The hot row has a bucket of its own, as the recording gives it.
      return [
        { ...b, end: hot },
        { ...b, start: hot, end: `${hot}\x00`, rows: 1, writeOps: 20_000 },
        { ...b, start: `${hot}\x00` },
      ];
    });
    const s = simulate(tableSample({ keys, writeOrder: Array<string>(256).fill(hot), buckets }), 'salt:8', { nodes: 4 });
    expect(s.before.maxTabletShare).toBeGreaterThan(0.9);
    expect(s.after.maxTabletShare).toBeGreaterThan(0.9);
    expect(s.after.maxNodeShare).toBeGreaterThan(0.9);
    expect(s.verdict).toContain('a single row takes 9');
  });

  it('without recorded traffic replays the stored bytes only, several tablets a node', () => {
    const keys = Array.from({ length: 1000 }, (_, i) => `k${String(i).padStart(4, '0')}`);
    const table = tableSample({ keys, storedBytes: 10 * 1024 * 1024 });
    const s = simulate(table, 'salt:4', { nodes: 5 });
    expect(s.verdict).toMatch(/^No traffic was recorded/);
    expect(s.description).toContain('no load splits (no ops)');
    for (const side of [s.before, s.after]) {
      expectConsistent(side, 5, table.storedBytes, false);
      expect(side.maxNodeShare).toBe(0);
      for (const n of side.nodes) expect(n.tablets).toBeGreaterThanOrEqual(3);
    }
    expect(s.before.tablets.length).toBeGreaterThanOrEqual(4 * 5);
    expect(s.before.tablets.length).toBeLessThanOrEqual(8 * 5);
  });

  it('reports the table, the transform in words with how it was scaled, and examples', () => {
    const s: SimulationJson = simulate(timestampTable(), 'promote:2', { nodes: 4 });
    expect(s).toMatchObject({ table: 't', transform: 'promote:2', nodes: 4, keysSampled: 1000 });
    expect(s.description).toMatch(/^Keys cut on "#" \(detected from the keys\): move segment 2 to the front\. Replayed on 4 nodes/);
    expect(s.description).toContain("tablets split past 62.5 KiB (the table's bytes over 4 tablets a node)");
    expect(s.description).toContain("a tablet above 36 ops a round (half a node's even share) for 30 s splits where its load divides");
    expect(s.description).toContain('the writes in the order of the timestamps in the keys');
    expect(s.examples).toHaveLength(5);
    expect(s.examples[0]).toEqual({ before: '2023-05-01T12:00:00Z#sensor00', after: 'sensor00#2023-05-01T12:00:00Z' });
    expect(new Set(s.examples.map((e) => e.before.split('#')[1])).size).toBe(5);
  });

  it('rejects a bad transform or node count with InvalidArgument', () => {
    const table = timestampTable();
    for (const [spec, nodes] of [
      ['promote', 3],
      ['salt:8', 0],
      ['salt:8', 1.5],
      ['salt:8', 51],
    ] as const) {
      let error: unknown;
      try {
        simulate(table, spec, { nodes });
      } catch (e) {
        error = e;
      }
      expect(isTabletopError(error, 'InvalidArgument')).toBe(true);
    }
  });

  it('stays bounded on many nodes and keys', () => {
    const keys = timestampLeading(100, 40);
    const table = tableSample({ keys, writeOrder: keys.slice(-256), buckets: bucketsOver(keys, 100, () => ({ writeOps: 100 })) });
    const s = simulate(table, 'salt:64', { nodes: 50 });
    expect(s.before.tablets.length).toBeLessThanOrEqual(600);
    expect(s.after.tablets.length).toBeLessThanOrEqual(600);
    expect(s.keysSampled).toBeLessThanOrEqual(4000);
    expect(s.after.maxNodeShare).toBeLessThan(s.before.maxNodeShare / 3);
  });
});
