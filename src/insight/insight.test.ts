import { describe, expect, it } from 'vitest';
import { ALL, type Fixture, T0, createTable, drain, family, openDb, set, tableName } from '../db/testing/db-fixture.js';
import { isTabletopError } from '../model/errors.js';
import type { TableName } from '../model/names.js';
import { MemoryFileSystem } from '../storage/fs/memory-fs.js';
import { openDiskEngine } from '../storage/lsm/disk-engine.js';
import type { Column } from './column.js';
import { Insight, type InsightOptions, MAX_OPEN_SLOTS } from './insight.js';
import { rebinByStart } from './testing/columns.js';

const BUCKET = 10_000;

async function setUp(
  options: { engine?: Fixture['engine']; config?: Partial<InsightOptions['config']>; maxOpenSlots?: number } = {},
): Promise<{ f: Fixture; insight: Insight }> {
  let clock: Fixture['clock'] | undefined;
  const insight = new Insight({
    // The fixture's ManualClock once it exists (it starts at T0; the database opens its tables before).
    clock: { nowMicros: () => clock?.nowMicros() ?? T0 },
    config: { insightBucketMillis: BUCKET, insightMaxHistoryBytes: 1 << 30, ...options.config },
    rebinColumn: rebinByStart,
    tickMillis: false,
    ...(options.maxOpenSlots === undefined ? {} : { maxOpenSlots: options.maxOpenSlots }),
    onError: (e) => {
      throw e;
    },
  });
  const f = await openDb({ access: insight, ...(options.engine === undefined ? {} : { engine: options.engine }) });
  clock = f.clock;
  await insight.start(f.db, f.engine);
  return { f, insight };
}

/** Advances the clock and runs the timer's round, then waits for its writes and recomputes. */
async function advance(f: Fixture, insight: Insight, millis: number): Promise<void> {
  f.clock.advanceMillis(millis);
  await insight.tick();
  await insight.idle();
}

const key = (i: number): string => `k${String(i).padStart(3, '0')}`;

async function writeRows(f: Fixture, name: TableName, keys: readonly string[]): Promise<void> {
  await f.db.mutateRows(
    name,
    keys.map((k) => ({ key: k, mutations: [set('cf', 'q', 1000, 'value')] })),
  );
}

const total = (cols: readonly Column[], c: keyof Column['counters']): number =>
  cols.reduce((n, col) => n + col.counters[c].reduce((a, b) => a + b, 0), 0);

describe('insight', () => {
  it('records a real database: columns per time bucket, the live one, the minute tier, new boundary sets', async () => {
    const { f, insight } = await setUp();
    const t0 = f.clock.nowMicros() / 1000;
    const name = await createTable(f, [family('cf')]);
    // A table starts on one bucket for its whole key space.
    expect((await insight.currentBoundaries(name)).starts).toEqual(['']);

    f.clock.advanceMillis(1000);
    await writeRows(
      f,
      name,
      Array.from({ length: 100 }, (_, i) => key(i)),
    );
    await advance(f, insight, BUCKET);
    const [first] = await insight.columns(name, 0, t0, t0 + BUCKET);
    expect(first!.startMillis).toBe(t0);
    expect(first!.setId).toBe(1);
    expect([...first!.counters.write_ops]).toEqual([100]);
    // The row count moved: the table got a set of one bucket per row (exact, 100 rows), off the request path.
    const sets = await insight.currentBoundaries(name);
    expect(sets.setId).toBe(2);
    expect(sets.starts).toHaveLength(100);
    expect(sets.rows.every((r) => r === 1)).toBe(true);
    expect((await insight.largestRows(name)).length).toBeGreaterThan(0);

    // The next column is over the new set, and is there while still open (live).
    await writeRows(f, name, [key(50), key(50), key(51)]);
    expect(await drain(f.db.readRows(name, { ...ALL, rows: { keys: [key(7)], ranges: [] } }))).toHaveLength(1);
    const live = await insight.columns(name, 0, t0, t0 + 2 * BUCKET);
    expect(live.map((c) => c.startMillis)).toEqual([t0, t0 + BUCKET]);
    const open = live[1]!;
    expect(open.setId).toBe(2);
    expect(open.counters.write_ops[50]).toBe(2);
    expect(open.counters.write_ops[51]).toBe(1);
    expect(open.counters.read_ops[7]).toBe(1);
    expect(open.counters.rows_returned[7]).toBe(1);
    expect(open.latency[7]?.count).toBe(1);

    // Once the minute is over, it closes into the 1-minute tier, over the newest set.
    await advance(f, insight, BUCKET);
    await advance(f, insight, 4 * BUCKET);
    const minutes = await insight.columns(name, 1, t0, t0 + 60_000);
    expect(minutes).toHaveLength(1);
    expect(minutes[0]!.durationMillis).toBe(60_000);
    expect(minutes[0]!.setId).toBe(2);
    expect(total(minutes, 'write_ops')).toBe(103);
    expect(minutes[0]!.counters.write_ops[50]).toBe(2);
    // The set of older columns is still at hand (from the history).
    expect((await insight.boundarySet(name, 1))?.starts).toEqual(['']);
    expect(insight.stats().historyBytes).toBeGreaterThan(0);
    await insight.close();
    await f.db.close();
  });

  it('remakes the set of a table past 2,000 rows at most once a minute from its first one', async () => {
    const { f, insight } = await setUp();
    const name = await createTable(f, [family('cf')]);
    await writeRows(
      f,
      name,
      Array.from({ length: 3000 }, (_, i) => `r${String(i).padStart(5, '0')}`),
    );
    await advance(f, insight, BUCKET);
    // Sampled sizes: no new set yet, however much the rows moved.
    expect((await insight.currentBoundaries(name)).setId).toBe(1);
    for (let i = 0; i < 5; i++) {
      await writeRows(f, name, [`s${i}`]);
      await advance(f, insight, BUCKET);
    }
    // A minute after the first set: the next column close makes one.
    const set = await insight.currentBoundaries(name);
    expect(set.setId).toBe(2);
    expect(set.starts.length).toBeGreaterThan(100);
    await insight.close();
    await f.db.close();
  });

  it('answers NotFound for a table it does not know, and drops the history of a deleted table', async () => {
    const { f, insight } = await setUp();
    try {
      await insight.columns(tableName(), 0, 0, 1);
      expect.unreachable();
    } catch (e) {
      expect(isTabletopError(e, 'NotFound')).toBe(true);
    }
    const name = await createTable(f, [family('cf')]);
    await writeRows(f, name, ['a']);
    await advance(f, insight, BUCKET);
    expect(insight.stats().historyBytes).toBeGreaterThan(0);
    await f.db.deleteTable(name);
    await insight.idle();
    expect(insight.stats().historyBytes).toBe(0);
    await expect(insight.columns(name, 0, 0, Number.MAX_SAFE_INTEGER)).rejects.toThrow(/not found/);
    await insight.close();
    await f.db.close();
  });

  it('keeps the recording across a restart of the disk engine (over the memory file system)', async () => {
    const fs = new MemoryFileSystem();
    const engine = () => openDiskEngine({ fs, dir: 'db' });
    let { f, insight } = await setUp({ engine: await engine() });
    const t0 = f.clock.nowMicros() / 1000;
    const name = await createTable(f, [family('cf')]);
    await writeRows(
      f,
      name,
      Array.from({ length: 20 }, (_, i) => key(i)),
    );
    await advance(f, insight, BUCKET);
    const set = await insight.currentBoundaries(name);
    expect(set.starts).toHaveLength(20);
    // Written in the open column: close() writes it, and the open minute and hour, before the database closes.
    await writeRows(f, name, [key(3), key(4)]);
    await insight.close();
    await f.db.close();

    ({ f, insight } = await setUp({ engine: await engine() }));
    f.clock.advanceMillis(BUCKET + 5000);
    const cols = await insight.columns(name, 0, t0, t0 + 2 * BUCKET);
    expect(cols.map((c) => [c.startMillis - t0, total([c], 'write_ops')])).toEqual([
      [0, 20],
      [BUCKET, 2],
    ]);
    expect(cols[1]!.counters.write_ops[3]).toBe(1);
    expect(total(await insight.columns(name, 1, t0, t0 + 60_000), 'write_ops')).toBe(22);
    expect(await insight.currentBoundaries(name)).toEqual(set);
    // The same time bucket, recorded again after the restart, adds to what was kept.
    await writeRows(f, name, [key(3)]);
    await advance(f, insight, BUCKET);
    const again = await insight.columns(name, 0, t0 + BUCKET, t0 + 2 * BUCKET);
    expect(again).toHaveLength(1);
    expect(again[0]!.counters.write_ops[3]).toBe(2);
    await insight.close();
    await f.db.close();
  });

  it('bounds its memory: open bucket-slots under the cap and history under its budget, however many tables', async () => {
    // As 10,000 tables under the default cap of 200,000 (6 buckets a table), at a tenth of the scale (the catalog's
    // CreateTable is the slow part).
    const tables = 1000;
    const maxOpenSlots = MAX_OPEN_SLOTS / 10;
    const budget = 128 * 1024;
    const { f, insight } = await setUp({ maxOpenSlots, config: { insightMaxHistoryBytes: budget } });
    const names: TableName[] = [];
    for (let i = 0; i < tables; i++) names.push(await createTable(f, [family('cf')]));
    // Each table written once with 20 rows: exact sets would have 20 buckets, 1,000 × 20 × 3 tiers = 60,000 slots.
    for (const name of names)
      await writeRows(
        f,
        name,
        Array.from({ length: 20 }, (_, i) => key(i)),
      );
    await advance(f, insight, BUCKET);
    // Then read once, over the new (coarser) sets, and an hour and more goes by.
    for (const name of names) await drain(f.db.readRows(name, ALL));
    let maxSlots = insight.stats().openSlots;
    for (let s = 0; s < 370; s++) {
      await advance(f, insight, BUCKET);
      maxSlots = Math.max(maxSlots, insight.stats().openSlots);
    }
    const share = Math.floor(maxOpenSlots / (3 * tables));
    for (const name of names.slice(0, 10)) expect((await insight.currentBoundaries(name)).starts.length).toBeLessThanOrEqual(share);
    expect(maxSlots).toBeGreaterThan(0);
    expect(maxSlots).toBeLessThanOrEqual(maxOpenSlots);
    expect(insight.stats().historyBytes).toBeGreaterThan(0);
    expect(insight.stats().historyBytes).toBeLessThanOrEqual(budget);
    await insight.close();
    await f.db.close();
  }, 120_000);

  it('keeps the recently written keys in arrival order, one per 50 ms at most (the first key of a write batch)', async () => {
    const { f, insight } = await setUp();
    const name = await createTable(f, [family('cf')]);
    expect(await insight.writeOrder(name)).toEqual([]);
    for (let i = 0; i < 300; i++) {
      // A batch every 20 ms: every third one's first key is kept (60 ms apart).
      await writeRows(f, name, [key(i), key(999 - i)]);
      f.clock.advanceMillis(20);
    }
    const order = await insight.writeOrder(name);
    expect(order).toEqual(Array.from({ length: 100 }, (_, i) => key(3 * i)));
    // Reads do not count.
    await drain(f.db.readRows(name, ALL));
    expect(await insight.writeOrder(name)).toEqual(order);
    await insight.close();
    await f.db.close();
  });
});
