import { describe, expect, it } from 'vitest';
import { viewTables } from '../../db/index.js';
import { family, openDb } from '../../db/testing/db-fixture.js';
import type { Mutation, RowMutation } from '../../model/mutation.js';
import type { TableName } from '../../model/names.js';
import { MemoryFileSystem } from '../../storage/fs/memory-fs.js';
import { openDiskEngine } from '../../storage/lsm/disk-engine.js';
import type { MaterializedViewsOptions } from './index.js';
import { MV_INSTANCE, startViews } from './testing/harness.js';

const be64 = (n: bigint): Uint8Array => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigInt64(0, n);
  return b;
};
const set = (q: string, value: Uint8Array | string): Mutation => ({
  kind: 'setCell',
  family: 'cf',
  qualifier: q,
  timestamp: 1_000_000,
  value: typeof value === 'string' ? new Uint8Array(Buffer.from(value, 'utf8')) : value,
});
const T: TableName = { ...MV_INSTANCE, table: 'sales' };
const view = (id: string) => ({ ...MV_INSTANCE, id });
const BY_REGION = `SELECT cf['region'] AS _key, COUNT(*) AS n, SUM(TO_INT64(cf['amount'])) AS total FROM sales GROUP BY 1`;
const sale = (i: number, amount: Uint8Array = be64(BigInt(i))): RowMutation => ({
  key: `s${String(i).padStart(5, '0')}`,
  mutations: [set('region', `r${i % 7}`), set('amount', amount)],
});

async function salesDb() {
  const fx = await openDb();
  await fx.db.createTable(T, { families: [family('cf')], initialSplits: [], deletionProtection: false });
  return fx;
}

/** The rows ReadRows with materialized_view_name serves: the data table the catalog's record points at now. */
async function servedKeys(db: Awaited<ReturnType<typeof salesDb>>['db'], id: string): Promise<string[]> {
  const reader = db.readRows(viewTables(db.getMaterializedView(view(id))).data, {
    rows: { keys: [], ranges: [{ start: { kind: 'closed', key: '' }, end: { kind: 'unbounded' } }] },
    filter: undefined,
    limit: undefined,
    reversed: false,
  });
  const keys: string[] = [];
  try {
    for (let row = await reader.next(); row !== undefined; row = await reader.next()) keys.push(row.key);
  } finally {
    reader.close();
  }
  return keys;
}

describe('continuous materialized views: bounded memory', () => {
  it('drops the dirty set past maxPendingRows and rebuilds instead, converging to the query', async () => {
    const fx = await salesDb();
    const h = await startViews(fx.db, { maxPendingRows: 10, retireMillis: 0 });
    await fx.db.createMaterializedView(view('v'), { query: BY_REGION, deletionProtection: false });
    const rebuildsBefore = fx.db.materializedViewStatus(view('v'))!.rebuilds;
    let peak = 0;
    // A bulk load: batches of 25 rows (more than the limit at once), then single rows, with no wait between.
    for (let b = 0; b < 8; b++) {
      await fx.db.mutateRows(
        T,
        Array.from({ length: 25 }, (_, j) => sale(b * 25 + j)),
      );
      peak = Math.max(peak, fx.db.materializedViewStatus(view('v'))!.pendingRows);
    }
    for (let i = 200; i < 260; i++) {
      await fx.db.mutateRow(T, sale(i).key, sale(i).mutations);
      peak = Math.max(peak, fx.db.materializedViewStatus(view('v'))!.pendingRows);
    }
    expect(peak).toBeLessThanOrEqual(10);
    await h.mv.idle();
    const status = fx.db.materializedViewStatus(view('v'))!;
    expect(status.rebuilds).toBeGreaterThan(rebuildsBefore);
    expect(status).toMatchObject({ pendingRows: 0, rebuilding: false, evaluationErrors: 0 });
    expect((await h.viewRows('v')).sort()).toEqual((await h.queryRows('v')).sort());
    expect(await h.viewRows('v')).toHaveLength(7);
    expect(h.errors).toEqual([]);
  });
});

describe('continuous materialized views: rebuilds', () => {
  it('lets readers see the previous complete view while a rebuild fills new tables, then switches at once', async () => {
    const fx = await salesDb();
    let paused: Promise<void> | undefined;
    let release = (): void => undefined;
    let batches = 0;
    const h = await startViews(fx.db, {
      retireMillis: 0,
      onBuildBatch: async () => {
        batches++;
        if (paused !== undefined) await paused;
      },
    });
    await fx.db.mutateRows(
      T,
      Array.from({ length: 1200 }, (_, i) => sale(i)),
    );
    await fx.db.createMaterializedView(view('v'), {
      query: "SELECT TO_INT64(cf['amount']) AS amount, _key AS sale FROM sales ORDER BY amount",
      deletionProtection: false,
    });
    const before = await h.viewRows('v');
    expect(before).toHaveLength(1200);
    const servedBefore = await servedKeys(fx.db, 'v');
    expect(servedBefore).toHaveLength(1200);
    const generation = fx.db.getMaterializedView(view('v')).generation;

    // A DropRowRange of the source rebuilds the view; its build stops after its first batch.
    paused = new Promise((resolve) => (release = resolve));
    batches = 0;
    await fx.db.dropRowRange(T, { kind: 'prefix', prefix: 's00' });
    for (let i = 0; i < 100 && batches === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(batches).toBeGreaterThan(0);
    expect(fx.db.materializedViewStatus(view('v'))!.rebuilding).toBe(true);
    // Half-built: the new tables hold part of the rows. Readers see the old view whole, by SQL and by ReadRows.
    expect(await h.viewRows('v')).toEqual(before);
    expect(await servedKeys(fx.db, 'v')).toEqual(servedBefore);
    expect(fx.db.getMaterializedView(view('v')).generation).toBe(generation);

    release();
    paused = undefined;
    await h.mv.idle();
    expect(fx.db.getMaterializedView(view('v')).generation).toBe(generation + 1);
    const after = await h.viewRows('v');
    expect(after).toHaveLength(200);
    expect(after.sort()).toEqual((await h.queryRows('v')).sort());
    expect(await servedKeys(fx.db, 'v')).toHaveLength(200);
    // The replaced generation's tables are gone (retireMillis 0); only the current pair remains.
    await new Promise((r) => setTimeout(r, 20));
    const internal = fx.db
      .catalogState()
      .instances[0]!.tables.map((t) => t.id)
      .filter((id) => id.startsWith('$'));
    const current = viewTables(fx.db.getMaterializedView(view('v')));
    expect(internal.sort()).toEqual([current.data.table, current.state.table].sort());
    expect(h.errors).toEqual([]);
  });
});

describe('continuous materialized views: a crash', () => {
  it('serves the view as it was at the crash while the start rebuilds it', async () => {
    const open = async (files: MemoryFileSystem, options: MaterializedViewsOptions = {}) => {
      const engine = await openDiskEngine({ fs: files, dir: 'db', onBackgroundError: () => undefined });
      const fx = await openDb({ engine });
      return { fx, h: await startViews(fx.db, { retireMillis: 0, ...options }) };
    };
    const fs = new MemoryFileSystem();
    let { fx, h } = await open(fs);
    await fx.db.createTable(T, { families: [family('cf')], initialSplits: [], deletionProtection: false });
    await fx.db.mutateRows(
      T,
      Array.from({ length: 600 }, (_, i) => sale(i)),
    );
    await fx.db.createMaterializedView(view('v'), { query: BY_REGION, deletionProtection: false });
    await fx.db.mutateRow(T, 's00001', [set('region', 'moved')]);
    await h.mv.idle();
    const before = await h.viewRows('v');
    expect(before.sort()).toEqual((await h.queryRows('v')).sort());
    const crashed = fs.crash();
    await fx.db.close();

    // The start finds the view not closed cleanly and rebuilds it; its build waits here.
    let release = (): void => undefined;
    const paused = new Promise<void>((resolve) => (release = resolve));
    let waiting = false;
    ({ fx, h } = await open(crashed, {
      onBuildBatch: async () => {
        waiting = true;
        await paused;
      },
    }));
    for (let i = 0; i < 100 && !waiting; i++) await new Promise((r) => setTimeout(r, 5));
    expect(waiting).toBe(true);
    expect(fx.db.materializedViewStatus(view('v'))).toMatchObject({ rebuilding: true });
    expect((await h.viewRows('v')).sort()).toEqual(before.sort());
    expect(await servedKeys(fx.db, 'v')).toHaveLength(8);
    release();
    await h.mv.idle();
    expect((await h.viewRows('v')).sort()).toEqual((await h.queryRows('v')).sort());
    await h.mv.close();
    await fx.db.close();
  });
});

describe('continuous materialized views: evaluation errors', () => {
  it('leaves out rows and groups that fail to evaluate, counts them and warns at most once a minute', async () => {
    const fx = await salesDb();
    let now = 1_000_000;
    const h = await startViews(fx.db, { nowMillis: () => now });
    await fx.db.mutateRows(T, [sale(1), sale(2), sale(3, new Uint8Array([1, 2, 3]))]);
    await fx.db.createMaterializedView(view('v'), { query: BY_REGION, deletionProtection: false });
    // The plain query fails on the 3-byte amount; the view leaves that row out.
    await expect(h.queryRows('v')).rejects.toThrow(/TO_INT64/);
    expect(await h.viewRows('v')).toEqual(['_key=b"r1" n=1 total=1', '_key=b"r2" n=1 total=2']);
    let status = fx.db.materializedViewStatus(view('v'))!;
    expect(status.evaluationErrors).toBe(1);
    expect(status.lastEvaluationError).toMatchObject({ where: 'source row', key: 's00003', timeMillis: now });
    expect(status.lastEvaluationError!.message).toMatch(/TO_INT64/);
    expect(h.warnings).toHaveLength(1);
    expect(h.warnings[0]).toMatch(/materialized view v: 1 evaluation error.*source row s00003/);

    // A second bad row within the minute: counted, not warned about yet.
    await fx.db.mutateRow(T, 's00010', [set('region', 'r3'), set('amount', 'x')]);
    await h.mv.idle();
    expect(fx.db.materializedViewStatus(view('v'))!.evaluationErrors).toBe(2);
    expect(h.warnings).toHaveLength(1);

    // A SUM that overflows INT64: the group has no row while it does, and comes back when it fits again.
    now += 60_000;
    await fx.db.mutateRow(T, 's00001', [set('amount', be64(2n ** 63n - 1n))]);
    await fx.db.mutateRow(T, 's00008', [set('region', 'r1'), set('amount', be64(5n))]);
    await h.mv.idle();
    expect(await h.viewRows('v')).toEqual(['_key=b"r2" n=1 total=2']);
    status = fx.db.materializedViewStatus(view('v'))!;
    expect(status.evaluationErrors).toBe(3);
    expect(status.lastEvaluationError).toMatchObject({ where: 'group', key: 'r1', message: 'int64 overflow' });
    expect(h.warnings).toHaveLength(2);
    expect(h.warnings[1]).toMatch(/2 evaluation error\(s\).*\(3 since start\); last: group r1: int64 overflow/);
    await fx.db.mutateRow(T, 's00008', [{ kind: 'deleteFromRow' }]);
    await h.mv.idle();
    expect(await h.viewRows('v')).toEqual([`_key=b"r1" n=1 total=${2n ** 63n - 1n}`, '_key=b"r2" n=1 total=2']);
    expect(h.errors).toEqual([]);
  });
});

describe('continuous materialized views: internal tables in logs and listings', () => {
  it('names a view’s internal tables, of every generation, by the view', async () => {
    const fx = await salesDb();
    const h = await startViews(fx.db, { retireMillis: 0 });
    await fx.db.createMaterializedView(view('by_region'), { query: BY_REGION, deletionProtection: false });
    await fx.db.dropRowRange(T, { kind: 'all' }); // a rebuild: the next generation
    await h.mv.idle();
    const info = fx.db.getMaterializedView(view('by_region'));
    expect(info.generation).toBeGreaterThan(1);
    const tables = viewTables(info);
    expect(tables.data.table).toMatch(/^\$mv\.[^.]+\.\d+$/);
    expect(fx.db.describeTable(tables.data)).toBe('projects/p/instances/i/materializedViews/by_region (data)');
    expect(fx.db.describeTable(tables.state)).toBe('projects/p/instances/i/materializedViews/by_region (state)');
    expect(fx.db.describeTable(viewTables(info, 0).data)).toBe('projects/p/instances/i/materializedViews/by_region (data)');
    expect(fx.db.describeTable(T)).toBe('projects/p/instances/i/tables/sales');
    expect(fx.db.describeTable({ ...MV_INSTANCE, table: '$mv.unknown' })).toBe('projects/p/instances/i/tables/$mv.unknown');
  });
});
