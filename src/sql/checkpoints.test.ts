import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fixture } from '../db/testing/db-fixture.js';
import { isTabletopError } from '../model/errors.js';
import { createSqlEngine } from './index.js';
import type { ExecuteOptions, SqlEngine } from './engine.js';
import type { SqlValue } from './types.js';
import { SQL_INSTANCE_NAME, sqlFixture, sqlViews } from './testing/fixture.js';

/**
 * The engine's scan checkpoints (engine.ts Checkpoints): which queries report them, with which keys, and a run
 * resumed after a checkpoint's key. The fixture's table `t` holds p1, p2, q1, r1..r5 (see testing/fixture.ts).
 */

let fx: Fixture;
let engine: SqlEngine;
beforeAll(async () => {
  fx = await sqlFixture();
  engine = createSqlEngine(fx.db, { views: sqlViews() });
});
afterAll(() => fx.db.close());

const text = (b: SqlValue): string => Buffer.from(b as Uint8Array).toString();

async function run(query: string, options: Partial<ExecuteOptions> = {}): Promise<{ keys: string[]; reached: string[]; scanned: number }> {
  const prepared = await engine.prepare(SQL_INSTANCE_NAME, query, new Map());
  const reached: string[] = [];
  const result = engine.execute(SQL_INSTANCE_NAME, prepared.token, {
    params: new Map(),
    checkpoint: { everyRows: 1, everyMillis: 600_000, reached: (k) => Promise.resolve(void reached.push(Buffer.from(k).toString())) },
    ...options,
  });
  const keys: string[] = [];
  for await (const row of result.rows) keys.push(text(row[0]!));
  return { keys, reached, scanned: result.stats().rowsScanned };
}

describe('scan checkpoints', () => {
  it('a scan reports each key scanned once rows go by without a result row', async () => {
    // p1 starts the count, and a result row (r2) starts it again.
    const { keys, reached } = await run(`SELECT _key FROM t WHERE cf['a'] = b'banana'`);
    expect(keys).toEqual(['r2']);
    expect(reached).toEqual(['p2', 'q1', 'r1', 'r3', 'r4', 'r5']);
  });

  it('time alone also checkpoints (everyMillis)', async () => {
    const reached: string[] = [];
    await run(`SELECT _key FROM t WHERE cf['a'] = b'banana'`, {
      checkpoint: { everyRows: 1_000_000, everyMillis: 0, reached: (k) => Promise.resolve(void reached.push(Buffer.from(k).toString())) },
    });
    expect(reached).toEqual(['p2', 'q1', 'r1', 'r3', 'r4', 'r5']);
  });

  it('UNNEST: a row checkpoints only once all of its rows were taken', async () => {
    const seen: string[] = [];
    const prepared = await engine.prepare(SQL_INSTANCE_NAME, `SELECT _key, x FROM t, UNNEST([1, 2, 3]) AS x WHERE _key < b'q'`, new Map());
    const result = engine.execute(SQL_INSTANCE_NAME, prepared.token, {
      params: new Map(),
      checkpoint: {
        everyRows: 1,
        everyMillis: 600_000,
        reached: (k) => Promise.resolve(void seen.push(`checkpoint ${Buffer.from(k).toString()}`)),
      },
    });
    for await (const row of result.rows) seen.push(`${text(row[0]!)} ${String(row[1])}`);
    // Every row gives results: no checkpoint at all.
    expect(seen).toEqual(['p1 1', 'p1 2', 'p1 3', 'p2 1', 'p2 2', 'p2 3']);
  });

  it('a run resumed after a key scans only the rows after it, and skips rows counted from there', async () => {
    const after = await run(`SELECT _key FROM t`, { resumeAfterKey: Buffer.from('q1'), skipRows: 2 });
    expect(after.keys).toEqual(['r3', 'r4', 'r5']);
    expect(after.scanned).toBe(5);
  });

  it.each([
    `SELECT _key FROM t ORDER BY _key`,
    `SELECT _key FROM t LIMIT 9`,
    `SELECT DISTINCT _key FROM t`,
    `SELECT ANY_VALUE(_key) FROM t GROUP BY _key`,
    `SELECT _key FROM fruits`,
  ])('%s neither checkpoints nor resumes after a key', async (query) => {
    const plain = await run(query);
    expect(plain.keys.length).toBeGreaterThan(0);
    expect(plain.reached).toEqual([]);
    const resumed = await run(query, { resumeAfterKey: Buffer.from('q1') }).catch((e: unknown) => e);
    expect(isTabletopError(resumed, 'InvalidArgument')).toBe(true);
  });
});
