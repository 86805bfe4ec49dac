import { describe, expect, it } from 'vitest';
import { family, openDb } from '../../db/testing/db-fixture.js';
import type { Mutation, RowMutation } from '../../model/mutation.js';
import type { TableName } from '../../model/names.js';
import { MemoryFileSystem } from '../../storage/fs/memory-fs.js';
import { openDiskEngine } from '../../storage/lsm/disk-engine.js';
import { Random } from '../../testing/random.js';
import { MV_INSTANCE, startViews } from './testing/harness.js';
import type { MaterializedViewsOptions } from './index.js';

/**
 * The property of a continuous materialized view: once it has caught up with the acknowledged writes, it holds
 * exactly what its query gives when run from scratch through the SQL engine, whatever writes, deletes and
 * moves between groups came before, and however they interleaved. Seed: MV_SEED.
 */

const T: TableName = { ...MV_INSTANCE, table: 'events' };
const be64 = (n: bigint): Uint8Array => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigInt64(0, n);
  return b;
};
const utf8 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));

const VIEWS: Record<string, string> = {
  // One raw `_key` group column, every in-place and recomputed aggregate.
  totals: `SELECT cf['g'] AS _key, COUNT(*) AS n, COUNT(cf['x']) AS nx, SUM(TO_INT64(cf['n'])) AS total,
    MIN(TO_INT64(cf['n'])) AS lo, MAX(cf['x']) AS hi, AVG(TO_INT64(cf['n'])) AS mean, ANY_VALUE(cf['x']) AS anyx,
    BIT_AND(TO_INT64(cf['n'])) AS band, BIT_OR(TO_INT64(cf['n'])) AS bor, BIT_XOR(TO_INT64(cf['n'])) AS bxor,
    HLL_COUNT.INIT(cf['x']) AS sketch FROM events GROUP BY 1`,
  // Only aggregates kept in place or folded on insertion (a group that only gains members is never re-read).
  extremes: `SELECT cf['g'] AS _key, COUNT(*) AS n, MIN(TO_INT64(cf['n'])) AS lo, MAX(TO_INT64(cf['n'])) AS hi,
    BIT_AND(TO_INT64(cf['n'])) AS band, BIT_OR(TO_INT64(cf['n'])) AS bor, MIN(cf['x']) AS lox FROM events GROUP BY 1`,
  // Two encoded group columns (NULLs included), a WHERE, an expression over aggregates.
  pairs: `SELECT SAFE_CONVERT_BYTES_TO_STRING(cf['g']) AS g, TO_INT64(cf['k']) AS k, COUNT(*) * 10 AS n10,
    MIN(cf['x']) AS lo FROM events WHERE _key >= b'k05' GROUP BY 1, 2`,
  // A secondary index.
  by_n: `SELECT TO_INT64(cf['n']) AS n, cf['g'] AS g, _key AS src FROM events WHERE cf['n'] IS NOT NULL ORDER BY n, g`,
};

function randomWrite(r: Random): RowMutation {
  const key = `k${String(r.below(25)).padStart(2, '0')}`;
  if (r.chance(0.15)) return { key, mutations: [{ kind: 'deleteFromRow' }] };
  const mutations: Mutation[] = [];
  const put = (q: string, value: Uint8Array): void =>
    void mutations.push({ kind: 'setCell', family: 'cf', qualifier: q, timestamp: -1, value });
  const drop = (q: string): void => void mutations.push({ kind: 'deleteFromColumn', family: 'cf', qualifier: q, start: 0, end: undefined });
  if (r.chance(0.6)) put('g', utf8(r.pick(['a', 'b', 'c', 'dd'])));
  else if (r.chance(0.2)) drop('g');
  if (r.chance(0.6)) put('n', be64(BigInt(r.int(-40, 40))));
  else if (r.chance(0.2)) drop('n');
  if (r.chance(0.5)) put('x', utf8(`x${r.below(6)}`));
  else if (r.chance(0.2)) drop('x');
  if (r.chance(0.3)) put('k', be64(BigInt(r.below(3))));
  if (mutations.length === 0) put('x', utf8('x0'));
  return { key, mutations };
}

async function setup(engine?: Awaited<ReturnType<typeof openDiskEngine>>, options: MaterializedViewsOptions = {}) {
  const fx = await openDb(engine === undefined ? {} : { engine });
  await fx.db.createTable(T, { families: [family('cf')], initialSplits: [], deletionProtection: false });
  const h = await startViews(fx.db, options);
  return { fx, h };
}

async function expectViewsMatch(h: Awaited<ReturnType<typeof startViews>>, context: string): Promise<void> {
  for (const id of Object.keys(VIEWS)) {
    const fromView = await h.viewRows(id);
    const fromQuery = await h.queryRows(id);
    // Same rows (the query's GROUP BY order is not the view's key order: compared as sets)...
    expect([...fromView].sort(), `${id} ${context}`).toEqual([...fromQuery].sort());
  }
  // ... and the index is in its key order.
  const ns = (await h.viewRows('by_n')).map((row) => Number(/^n=(-?\d+)/.exec(row)![1]));
  expect(ns, context).toEqual([...ns].sort((a, b) => a - b));
  expect(h.errors, context).toEqual([]);
}

describe('continuous materialized views equal their query run from scratch', () => {
  const seed = Random.seedFrom('MV_SEED');

  it(`after random writes and deletes, built before and after the data (seed ${seed})`, async () => {
    const r = new Random(seed);
    const { fx, h } = await setup();
    // Half the data exists when the views are created (the initial build), half comes after (maintenance).
    for (let i = 0; i < 60; i++) await fx.db.mutateRows(T, [randomWrite(r), randomWrite(r)]);
    for (const [id, query] of Object.entries(VIEWS))
      await fx.db.createMaterializedView({ ...MV_INSTANCE, id }, { query, deletionProtection: false });
    await expectViewsMatch(h, `after the build, seed ${seed}`);
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 40; i++) {
        const w = randomWrite(r);
        if (r.chance(0.1))
          await fx.db
            .readModifyWriteRow(T, w.key, [{ kind: 'increment', family: 'cf', qualifier: 'n', amount: 1n }])
            .catch(() => undefined);
        else if (r.chance(0.1)) await fx.db.checkAndMutateRow(T, w.key, undefined, w.mutations, [{ kind: 'deleteFromRow' }]);
        else await fx.db.mutateRows(T, [w]);
      }
      await h.mv.idle();
      await expectViewsMatch(h, `round ${round}, seed ${seed}`);
    }
  });

  it.each([
    ['', {}],
    [', holding at most 8 dirty rows (rebuilds instead)', { maxPendingRows: 8, retireMillis: 0 }],
  ] as const)(`under concurrent writes racing the maintenance%s (seed ${seed})`, async (_, options) => {
    const r = new Random(seed + 1);
    const { fx, h } = await setup(undefined, options);
    for (const [id, query] of Object.entries(VIEWS))
      await fx.db.createMaterializedView({ ...MV_INSTANCE, id }, { query, deletionProtection: false });
    // Many writers at once, several to the same rows; maintenance runs while they do.
    const writers = Array.from({ length: 8 }, async () => {
      for (let i = 0; i < 25; i++) {
        await fx.db.mutateRows(T, [randomWrite(r), randomWrite(r), randomWrite(r)]);
        if (r.chance(0.2)) await new Promise((resolve) => setImmediate(resolve));
      }
    });
    await Promise.all(writers);
    await h.mv.idle();
    await expectViewsMatch(h, `seed ${seed + 1}`);
    // A DropRowRange rebuilds the views.
    await fx.db.dropRowRange(T, { kind: 'prefix', prefix: 'k1' });
    await h.mv.idle();
    await expectViewsMatch(h, `after DropRowRange, seed ${seed + 1}`);
  });

  it(`on the durable engine, across clean restarts and crashes (seed ${seed})`, async () => {
    const r = new Random(seed + 2);
    let fs = new MemoryFileSystem();
    const engine = () => openDiskEngine({ fs, dir: 'db', onBackgroundError: () => undefined });
    let { fx, h } = await setup(await engine());
    for (const [id, query] of Object.entries(VIEWS))
      await fx.db.createMaterializedView({ ...MV_INSTANCE, id }, { query, deletionProtection: false });
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 30; i++) await fx.db.mutateRows(T, [randomWrite(r), randomWrite(r)]);
      if (round % 2 === 0) {
        await h.mv.close();
        await fx.db.close();
      } else {
        // A crash: whatever the views had not applied is lost with the process, not the acknowledged writes.
        const crashed = fs.crash();
        await fx.db.close();
        fs = crashed;
      }
      const reopened = await openDb({ engine: await engine() });
      fx = reopened;
      h = await startViews(fx.db);
      await h.mv.idle();
      await expectViewsMatch(h, `after restart ${round} (${round % 2 === 0 ? 'clean' : 'crash'}), seed ${seed + 2}`);
    }
    await h.mv.close();
    await fx.db.close();
  });
});
