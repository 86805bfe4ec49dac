import { describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../storage/fs/memory-fs.js';
import { openDiskEngine } from '../storage/lsm/disk-engine.js';
import { createMemoryEngine } from '../storage/memory/index.js';
import type { StorageEngine } from '../storage/store.js';
import { type Column, addInto, newColumn } from './column.js';
import { encodeColumn } from './history-codec.js';
import { HISTORY_STORE_ID, HistoryStore, waterLevel } from './history-store.js';
import { sampleColumn } from './testing/columns.js';
import { tierSpecs } from './tiers.js';

const SPECS = tierSpecs(10_000);
const T = Date.UTC(2026, 0, 1);
const NAME = { project: 'p', instance: 'i', table: 't' };
const SET = { setId: 3, starts: ['', 'k'], rows: [5, 5], bytes: [50, 50], estimated: false };

const sum = (held: Column, fresh: Column): Column => {
  addInto(held, fresh);
  return held;
};

/** A 2-bucket column of `writes` write ops in bucket 1. */
function col(start: number, writes: number, millis = 10_000): Column {
  const c = newColumn(start, millis, 3, 2);
  c.counters.write_ops[1] = writes;
  return c;
}

const writesOf = (cols: readonly Column[]): number[] => cols.map((c) => c.counters.write_ops[1]!);

describe('the history store', () => {
  it('keeps columns, boundary sets and names in the engine store _insight (memory engine)', async () => {
    const engine = createMemoryEngine();
    const h = await HistoryStore.open(engine, SPECS, 1 << 30);
    await h.writeTable('t1', NAME);
    await h.writeBoundarySet('t1', SET);
    await h.writeBoundarySet('t1', { ...SET, setId: 12 });
    await h.writeColumns(
      't1',
      [0, 1, 2].map((i) => ({ tier: 0, column: col(T + i * 10_000, i + 1) })),
      T + 30_000,
      sum,
    );
    await h.writeColumns('t1', [{ tier: 1, column: col(T, 6, 60_000) }], T + 60_000, sum);
    expect(engine.storeIds()).toContain(HISTORY_STORE_ID);
    expect(await h.tables()).toEqual(new Map([['t1', NAME]]));
    expect(await h.boundarySet('t1', 3)).toEqual(SET);
    expect(await h.boundarySet('t1', 4)).toBeUndefined();
    expect((await h.newestBoundarySet('t1'))?.setId).toBe(12);
    // Columns overlapping the window, ascending; a column that started before `from` but runs into it counts.
    expect(writesOf(await h.columns('t1', 0, T, T + 30_000))).toEqual([1, 2, 3]);
    expect(writesOf(await h.columns('t1', 0, T + 15_000, T + 25_000))).toEqual([2, 3]);
    expect(writesOf(await h.columns('t1', 1, T + 30_000, T + 90_000))).toEqual([6]);
    expect(await h.columns('t2', 0, T, T + 30_000)).toEqual([]);
  });

  it('adds a column of a time bucket it already holds to the held one (a restart inside a bucket)', async () => {
    const h = await HistoryStore.open(createMemoryEngine(), SPECS, 1 << 30);
    await h.writeColumns('t1', [{ tier: 0, column: col(T, 4) }], T, sum);
    await h.writeColumns('t1', [{ tier: 0, column: col(T, 3) }], T, sum);
    expect(writesOf(await h.columns('t1', 0, T, T + 10_000))).toEqual([7]);
  });

  it('survives closing and reopening the disk engine (over the memory file system)', async () => {
    const fs = new MemoryFileSystem();
    const open = (): Promise<StorageEngine> => openDiskEngine({ fs, dir: 'db' });
    let engine = await open();
    let h = await HistoryStore.open(engine, SPECS, 1 << 30);
    const big = sampleColumn(T, 3);
    await h.writeTable('t1', NAME);
    await h.writeBoundarySet('t1', SET);
    await h.writeColumns(
      't1',
      [
        { tier: 0, column: big },
        { tier: 0, column: col(T + 10_000, 9) },
      ],
      T + 20_000,
      sum,
    );
    const bytes = h.bytes;
    await h.close();
    await engine.close();

    engine = await open();
    h = await HistoryStore.open(engine, SPECS, 1 << 30);
    expect(h.bytes).toBe(bytes);
    expect(await h.tables()).toEqual(new Map([['t1', NAME]]));
    expect(await h.newestBoundarySet('t1')).toEqual(SET);
    const back = await h.columns('t1', 0, T, T + 20_000);
    expect(back.map((c) => c.startMillis)).toEqual([T, T + 10_000]);
    expect(encodeColumn(back[0]!)).toEqual(encodeColumn(big));
    expect(back[1]!.counters.write_ops[1]).toBe(9);
    await h.close();
    await engine.close();
  });

  it("deletes columns that fell out of their tier's retention in the same write", async () => {
    const h = await HistoryStore.open(createMemoryEngine(), SPECS, 1 << 30);
    // The finest tier keeps 360 columns of 10 s: an hour.
    await h.writeColumns(
      't1',
      [
        { tier: 0, column: col(T, 1) },
        { tier: 0, column: col(T + 10_000, 2) },
      ],
      T + 20_000,
      sum,
    );
    await h.writeColumns('t1', [{ tier: 1, column: col(T, 5, 60_000) }], T + 60_000, sum);
    const later = T + 3_600_000 + 10_000;
    await h.writeColumns('t1', [{ tier: 0, column: col(later, 3) }], later + 10_000, sum);
    // At later + 10 s the hour starts at T + 20 s: both old finest columns are gone, the minute column stays (a day).
    expect(writesOf(await h.columns('t1', 0, 0, later + 10_000))).toEqual([3]);
    expect(writesOf(await h.columns('t1', 1, 0, later + 10_000))).toEqual([5]);
    // expire() does the same for tables without new columns.
    await h.expire(T + 2 * 86_400_000);
    expect(await h.columns('t1', 1, 0, T + 2 * 86_400_000)).toEqual([]);
    expect(h.bytes).toBe(0);
  });

  it('keeps the encoded history under its budget: the oldest columns of the largest histories go first', async () => {
    const one = encodeColumn(col(T, 1)).length;
    // Room for 10 columns.
    const h = await HistoryStore.open(createMemoryEngine(), SPECS, 10 * one);
    for (let i = 0; i < 8; i++) await h.writeColumns('big', [{ tier: 0, column: col(T + i * 10_000, 1) }], T + (i + 1) * 10_000, sum);
    for (let i = 0; i < 2; i++) await h.writeColumns('small', [{ tier: 0, column: col(T + i * 10_000, 1) }], T + 80_000, sum);
    expect(h.bytes).toBe(10 * one);
    await h.writeColumns(
      'small',
      [2, 3, 4].map((i) => ({ tier: 0, column: col(T + i * 10_000, 1) })),
      T + 80_000,
      sum,
    );
    // Over budget, it is trimmed to 90% of it: 13 columns down to 8 (4.5 columns each at most), the larger history
    // losing most, each its oldest first.
    expect(h.bytes).toBe(8 * one);
    const starts = async (uid: string): Promise<number[]> =>
      (await h.columns(uid, 0, 0, T + 80_000)).map((c) => (c.startMillis - T) / 10_000);
    expect(await starts('big')).toEqual([4, 5, 6, 7]);
    expect(await starts('small')).toEqual([1, 2, 3, 4]);
  });

  it('deletes the boundary sets no column uses any more, never the newest', async () => {
    const h = await HistoryStore.open(createMemoryEngine(), SPECS, 1 << 30);
    for (const setId of [3, 4, 5]) await h.writeBoundarySet('t1', { ...SET, setId });
    const over = (setId: number, start: number): Column => ({ ...col(start, 1), setId });
    await h.writeColumns(
      't1',
      [
        { tier: 0, column: over(3, T) },
        { tier: 0, column: over(4, T + 10_000) },
      ],
      T + 20_000,
      sum,
    );
    expect((await h.boundarySet('t1', 3))?.setId).toBe(3);
    // An hour on, both columns expire: sets 3 and 4 go, 5 (the newest) stays.
    await h.expire(T + 3_700_000);
    expect(await h.boundarySet('t1', 3)).toBeUndefined();
    expect(await h.boundarySet('t1', 4)).toBeUndefined();
    expect((await h.newestBoundarySet('t1'))?.setId).toBe(5);
    expect(h.bytes).toBeGreaterThan(0);
  });

  it('finds the level that cutting the largest sizes down to frees the excess', () => {
    expect(waterLevel([8, 5], 4)).toBe(4);
    expect(waterLevel([8, 5], 3)).toBe(5);
    expect(waterLevel([10, 1, 1], 2)).toBe(8);
    expect(waterLevel([3, 3], 6)).toBe(0);
    expect(waterLevel([], 1)).toBe(0);
  });

  it("drops a deleted table's columns, sets and name", async () => {
    const h = await HistoryStore.open(createMemoryEngine(), SPECS, 1 << 30);
    for (const uid of ['t1', 't2']) {
      await h.writeTable(uid, { ...NAME, table: uid });
      await h.writeBoundarySet(uid, SET);
      await h.writeColumns(uid, [{ tier: 0, column: col(T, 1) }], T, sum);
    }
    await h.dropTable('t1');
    expect([...(await h.tables()).keys()]).toEqual(['t2']);
    expect(await h.columns('t1', 0, 0, T + 10_000)).toEqual([]);
    expect(await h.newestBoundarySet('t1')).toBeUndefined();
    expect(await h.columns('t2', 0, 0, T + 10_000)).toHaveLength(1);
    expect([...h.historyBytes().keys()]).toEqual(['t2']);
  });
});
