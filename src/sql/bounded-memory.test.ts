import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, family, INSTANCE, openDb, set, type Fixture } from '../db/testing/db-fixture.js';
import type { TableName } from '../model/names.js';
import { createSqlEngine, type SqlEngine } from './index.js';
import type { SqlValue } from './types.js';

/**
 * ORDER BY, GROUP BY and DISTINCT over 100k rows hold no more than their budget (the engine's stats report the
 * most estimated bytes an operator held), spill the rest to files that are gone afterwards, and give the same
 * results as the unbounded run.
 */

const ROWS = 100_000;
const GROUPS = 25_000;
const BUDGET = 1 << 20;
const INSTANCE_NAME = `projects/${INSTANCE.project}/instances/${INSTANCE.instance}`;

let fx: Fixture;
let table: TableName;
let dir: string;
let bounded: SqlEngine;
let unbounded: SqlEngine;

beforeAll(async () => {
  fx = await openDb();
  table = await createTable(fx, [family('cf')]);
  const pad = (n: number, w: number): string => String(n).padStart(w, '0');
  for (let at = 0; at < ROWS; at += 10_000) {
    const entries = [];
    for (let i = at; i < at + 10_000; i++) {
      // v: a scrambled order; g: the group (25k groups, each first seen in a different place).
      const v = pad((i * 7919) % ROWS, 6);
      entries.push({ key: `row${pad(i, 6)}`, mutations: [set('cf', 'v', 1000, v), set('cf', 'g', 1000, pad((i * 31) % GROUPS, 5))] });
    }
    await fx.db.mutateRows(table, entries);
  }
  dir = await mkdtemp(join(tmpdir(), 'bounded-memory-test-'));
  bounded = createSqlEngine(fx.db, { spill: { budgetBytes: BUDGET, directory: dir } });
  unbounded = createSqlEngine(fx.db, { spill: { budgetBytes: Number.MAX_SAFE_INTEGER } });
}, 120_000);

afterAll(async () => {
  await fx.db.close();
  await rm(dir, { recursive: true, force: true });
});

async function run(engine: SqlEngine, query: string): Promise<{ rows: (readonly SqlValue[])[]; peak: number; runs: number }> {
  const prepared = await engine.prepare(INSTANCE_NAME, query, new Map());
  const result = engine.execute(INSTANCE_NAME, prepared.token, { params: new Map() });
  const rows: (readonly SqlValue[])[] = [];
  for await (const row of result.rows) rows.push(row);
  const stats = result.stats();
  return { rows, peak: stats.peakHeldBytes ?? 0, runs: stats.spilledRuns ?? 0 };
}

const t = (): string => table.table;

describe('bounded memory over 100k rows', () => {
  it.each([
    ['ORDER BY', () => `SELECT _key, CAST(cf['v'] AS STRING) AS v FROM ${t()} ORDER BY v DESC`, ROWS],
    [
      'GROUP BY',
      () => `SELECT CAST(cf['g'] AS STRING) AS g, COUNT(*) AS n, MIN(_key) AS first, ARRAY_AGG(cf['v']) AS vs FROM ${t()} GROUP BY g`,
      GROUPS,
    ],
    ['DISTINCT', () => `SELECT DISTINCT cf['g'] AS g FROM ${t()}`, GROUPS],
  ])(
    '%s holds at most its budget and answers as the unbounded run does',
    async (_, query, count) => {
      const small = await run(bounded, query());
      expect(small.rows.length).toBe(count);
      expect(small.runs).toBeGreaterThan(1);
      // One row (or group) past the budget at most: an operator spills as soon as it passes it.
      expect(small.peak).toBeLessThanOrEqual(BUDGET + 4096);
      expect(await readdir(dir)).toEqual([]);
      const big = await run(unbounded, query());
      expect(big.runs).toBe(0);
      expect(big.peak).toBeGreaterThan(BUDGET);
      expect(small.rows).toEqual(big.rows);
    },
    120_000,
  );

  it('removes its files when the consumer stops early, when the query fails, and when it is aborted', async () => {
    const prepared = await bounded.prepare(INSTANCE_NAME, `SELECT _key FROM ${t()} ORDER BY CAST(cf['v'] AS STRING)`, new Map());
    const early = bounded.execute(INSTANCE_NAME, prepared.token, { params: new Map() });
    for await (const row of early.rows) {
      expect(Buffer.from(row[0] as Uint8Array).toString()).toBe('row000000');
      break;
    }
    expect(early.stats().spilledRuns).toBeGreaterThan(1);
    expect(await readdir(dir)).toEqual([]);

    // Fails on the last row's key, once the rows before it were spilled.
    const failing = await bounded.prepare(
      INSTANCE_NAME,
      `SELECT _key FROM ${t()} ORDER BY IF(_key = b'row${String(ROWS - 1).padStart(6, '0')}', CAST(CONCAT('boom', SAFE_CONVERT_BYTES_TO_STRING(_key)) AS INT64), 0)`,
      new Map(),
    );
    const failed = bounded.execute(INSTANCE_NAME, failing.token, { params: new Map() });
    await expect(async () => {
      for await (const _ of failed.rows);
    }).rejects.toThrow(/boom/);
    expect(failed.stats().spilledRuns).toBeGreaterThan(1);
    expect(await readdir(dir)).toEqual([]);

    const abort = new AbortController();
    const grouped = await bounded.prepare(INSTANCE_NAME, `SELECT cf['v'] AS v, COUNT(*) AS n FROM ${t()} GROUP BY v`, new Map());
    const aborted = bounded.execute(INSTANCE_NAME, grouped.token, { params: new Map(), signal: abort.signal });
    const iterator = aborted.rows[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false); // the first group: the whole input was read and spilled
    abort.abort();
    for (let r = await iterator.next(); r.done !== true; r = await iterator.next());
    expect(aborted.stats().spilledRuns).toBeGreaterThan(1);
    expect(await readdir(dir)).toEqual([]);
  }, 120_000);
});
