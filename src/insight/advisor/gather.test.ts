import { describe, expect, it } from 'vitest';
import { ALL, INSTANCE, createTable, drain, family, set, type Fixture } from '../../db/testing/db-fixture.js';
import { isTabletopError } from '../../model/errors.js';
import type { TableName } from '../../model/names.js';
import type { Insight } from '../insight.js';
import { openRecordedDb } from '../testing/recorded-db.js';
import { gatherAdvisorInput, profileKeys } from './gather.js';
import { MAX_ROW_PROFILES } from './types.js';

const BUCKET = 10_000;
const key = (i: number): string => `sensor${String(i).padStart(3, '0')}#2026`;

/** 120 rows, written 10 per batch 100 ms apart; row 77 is a big one with three versions. */
async function load(f: Fixture, name: TableName): Promise<void> {
  for (let b = 0; b < 12; b++) {
    await f.db.mutateRows(
      name,
      Array.from({ length: 10 }, (_, i) => ({ key: key(b * 10 + i), mutations: [set('cf', 'q', 1000, 'v'.repeat(20))] })),
    );
    f.clock.advanceMillis(100);
  }
  await f.db.mutateRow(
    name,
    key(77),
    [1, 2, 3].map((t) => set('cf', 'big', t * 1000, 'B'.repeat(5000))),
  );
}

/** Every op the recording holds for the table so far. */
async function recordedOps(insight: Insight, name: TableName): Promise<number> {
  const cols = await insight.columns(name, 0, 0, Number.MAX_SAFE_INTEGER);
  return cols.reduce((n, c) => n + c.counters.read_ops.reduce((a, b) => a + b, 0) + c.counters.write_ops.reduce((a, b) => a + b, 0), 0);
}

describe('gatherAdvisorInput', () => {
  it('with recording on: recorded keys, write order, traffic per bucket and diagnostics, row profiles, tablets, nodes', async () => {
    const { f, insight } = await openRecordedDb();
    const name = await createTable(f, [family('cf')], { splits: [key(60)] });
    const other = await createTable(f, [family('cf'), family('meta')]);
    await load(f, name);
    await drain(f.db.readRows(name, ALL));
    f.clock.advanceMillis(BUCKET);
    await insight.tick();
    await insight.idle();

    const ops = await recordedOps(insight, name);
    const input = await gatherAdvisorInput({ db: f.db, history: insight }, INSTANCE);
    // The advisor's reads record nothing.
    expect(await recordedOps(insight, name)).toBe(ops);
    expect(input.instance).toEqual(INSTANCE);
    expect(input.nowMillis).toBe(f.clock.nowMicros() / 1000);
    expect(input.tables.map((t) => t.name)).toEqual([name, other].sort((a, b) => (a.table < b.table ? -1 : 1)));
    const t = input.tables.find((s) => s.name.table === name.table)!;
    expect(t.rows).toBe(120);
    expect(t.keys).toEqual(Array.from({ length: 120 }, (_, i) => key(i)));
    // One key per 100 ms batch: the first of each, in the order written (the lone row 77 came 100 ms after the last).
    expect(t.writeOrder).toEqual([...Array.from({ length: 12 }, (_, b) => key(b * 10)), key(77)]);
    expect(t.largestRows[0]!.key).toBe(key(77));
    expect(t.rowProfiles.length).toBe(120);
    expect(t.rowProfiles[0]).toMatchObject({ key: key(77), families: [{ family: 'cf', columns: 2, maxVersions: 3, maxCellBytes: 5000 }] });
    expect(t.tablets.map((x) => x.start)).toEqual(['', key(60)]);
    // Traffic over the current boundary set (one bucket per row): every write and every row read is there.
    const traffic = t.traffic!;
    expect(traffic.toMillis).toBe(input.nowMillis);
    expect(traffic.toMillis - traffic.fromMillis).toBeLessThanOrEqual(15 * 60_000);
    expect(traffic.buckets[0]!.start).toBe('');
    for (let i = 1; i < traffic.buckets.length; i++) expect(traffic.buckets[i - 1]!.end).toBe(traffic.buckets[i]!.start);
    expect(traffic.buckets.at(-1)!.end).toBeUndefined();
    const sum = (f: 'writeOps' | 'rowsRead' | 'rowsReturned') => traffic.buckets.reduce((n, b) => n + b[f], 0);
    // (Re-binned from the first set's one bucket: fractions.)
    expect(sum('writeOps')).toBeCloseTo(121, 6);
    expect(sum('rowsRead')).toBeCloseTo(120, 6);
    expect(sum('rowsReturned')).toBeCloseTo(120, 6);
    expect(Array.isArray(t.diagnostics)).toBe(true);
    expect(input.nodes.length).toBeGreaterThan(0);
    expect(input.nodes[0]).toEqual(
      expect.objectContaining({
        cluster: expect.any(String),
        node: 0,
        servingMicrosPerSec: expect.any(Number),
        tablets: expect.any(Number),
      }),
    );
    await insight.close();
    await f.db.close();
  });

  it('with recording off: keys and largest rows sampled from the stores, no traffic, no write order, nothing recorded', async () => {
    const { f, insight } = await openRecordedDb();
    const name = await createTable(f, [family('cf')]);
    await load(f, name);
    const ops = await recordedOps(insight, name);
    const input = await gatherAdvisorInput({ db: f.db, history: undefined }, INSTANCE, name.table);
    expect(await recordedOps(insight, name)).toBe(ops);
    const t = input.tables.find((s) => s.name.table === name.table)!;
    expect(t.keys).toEqual(Array.from({ length: 120 }, (_, i) => key(i)));
    expect(t.largestRows[0]!.key).toBe(key(77));
    expect(t.rowProfiles.length).toBe(120);
    expect(t.traffic).toBeUndefined();
    expect(t.diagnostics).toEqual([]);
    expect(t.writeOrder).toEqual([]);
    await insight.close();
    await f.db.close();
  });

  it('reads the table asked for in full and the others by name, families and size; NotFound for what is not there', async () => {
    const { f, insight } = await openRecordedDb();
    const a = await createTable(f, [family('cf')]);
    const b = await createTable(f, [family('cf')]);
    await load(f, a);
    await load(f, b);
    const input = await gatherAdvisorInput({ db: f.db, history: insight }, INSTANCE, b.table);
    expect(input.only).toBe(b.table);
    const [sa, sb] = [a, b].map((n) => input.tables.find((s) => s.name.table === n.table)!);
    expect(sa).toMatchObject({ rows: 120, keys: [], rowProfiles: [], tablets: [], traffic: undefined });
    expect(sa!.families.map((x) => x.name)).toEqual(['cf']);
    expect(sb!.keys.length).toBe(120);
    expect(sb!.tablets.length).toBe(1);
    for (const call of [
      () => gatherAdvisorInput({ db: f.db, history: insight }, INSTANCE, 'nope'),
      () => gatherAdvisorInput({ db: f.db, history: insight }, { project: 'p', instance: 'ghost' }),
    ]) {
      await expect(call()).rejects.toSatisfy((e: unknown) => isTabletopError(e, 'NotFound'));
    }
    await insight.close();
    await f.db.close();
  });
});

describe('profileKeys', () => {
  it('takes the largest and hot rows first, then keys spread over the samples, at most MAX_ROW_PROFILES', () => {
    const keys = Array.from({ length: 1000 }, (_, i) => key(i));
    const chosen = profileKeys([{ key: 'big' }, { key: key(5) }], ['hot'], keys);
    expect(chosen).toHaveLength(MAX_ROW_PROFILES);
    expect(chosen.slice(0, 3)).toEqual(['big', key(5), 'hot']);
    expect(new Set(chosen).size).toBe(chosen.length);
    expect(chosen.filter((k) => k > key(900)).length).toBeGreaterThan(15);
    expect(profileKeys([], [], keys.slice(0, 10))).toEqual(keys.slice(0, 10));
  });
});
