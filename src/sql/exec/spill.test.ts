import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqlValue } from '../types.js';
import { type RowCompare, type SpillStats, SpillSorter } from './spill.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spill-test-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Rows `[key, seq]` by key only: ties must come out in seq order. */
const byKey: RowCompare = (a, b) => Number(a[0] as bigint) - Number(b[0] as bigint);
const newStats = (): SpillStats => ({ peakHeldBytes: 0, spilledRuns: 0 });

async function collect(rows: AsyncIterable<SqlValue[]>): Promise<SqlValue[][]> {
  const out: SqlValue[][] = [];
  for await (const r of rows) out.push(r);
  return out;
}

describe('SpillSorter', () => {
  it.each([
    ['in memory', 1 << 30],
    ['one row a run (many merge passes)', 1],
    ['a few rows a run', 600],
  ])('sorts stably %s', async (_, budgetBytes) => {
    const stats = newStats();
    const s = new SpillSorter(byKey, { budgetBytes, directory: dir }, stats);
    const input: SqlValue[][] = [];
    for (let i = 0; i < 2000; i++) input.push([BigInt((i * 7919) % 37), BigInt(i), `pad ${i}`]);
    for (const r of input) await s.add([...r]);
    const out = await collect(s.sorted());
    const expected = [...input].sort(byKey); // Array.prototype.sort is stable.
    expect(out).toEqual(expected);
    if (budgetBytes < 1 << 20) expect(stats.spilledRuns).toBeGreaterThan(2000 / 20);
    else expect(stats.spilledRuns).toBe(0);
    if (budgetBytes >= 600) expect(stats.peakHeldBytes).toBeLessThanOrEqual(Math.min(budgetBytes, 1 << 30) + 200);
    expect(await readdir(dir)).toEqual([]);
  });

  it('removes its files when the reader stops early, and on close', async () => {
    const s = new SpillSorter(byKey, { budgetBytes: 1, directory: dir }, newStats());
    for (let i = 0; i < 100; i++) await s.add([BigInt(100 - i), BigInt(i)]);
    expect((await readdir(dir)).length).toBe(1); // its own directory of runs
    for await (const row of s.sorted()) {
      expect(row[0]).toBe(1n);
      break;
    }
    expect(await readdir(dir)).toEqual([]);

    const t = new SpillSorter(byKey, { budgetBytes: 1, directory: dir }, newStats());
    for (let i = 0; i < 10; i++) await t.add([BigInt(i), 0n]);
    expect((await readdir(dir)).length).toBe(1);
    await t.close();
    expect(await readdir(dir)).toEqual([]);
  });

  it('removes its files when the comparison fails during the merge', async () => {
    let calls = 0;
    const failing: RowCompare = (a, b) => {
      if (++calls > 50) throw new Error('boom');
      return byKey(a, b);
    };
    const s = new SpillSorter(failing, { budgetBytes: 1, directory: dir }, newStats());
    for (let i = 0; i < 40; i++) await s.add([BigInt(i % 3), BigInt(i)]);
    await expect(collect(s.sorted())).rejects.toThrow('boom');
    expect(await readdir(dir)).toEqual([]);
  });
});
