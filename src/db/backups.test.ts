import { describe, expect, it } from 'vitest';
import type { ChildName, TableName } from '../model/names.js';
import { createMemoryEngine } from '../storage/memory/index.js';
import { dataLoss } from '../model/errors.js';
import type { BackupName } from './api.js';
import { createAsyncEngine } from './testing/async-engine.js';
import { INSTANCE, T0, codeOf, createTable, errorOf, family, openDb, readAll, set, type Fixture } from './testing/db-fixture.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = T0 / 1000;
/** The fixture's instance gets one cluster when a table first uses it. */
const clusterOf = (f: Fixture): ChildName => ({ ...INSTANCE, id: f.db.listClusters(INSTANCE)[0]!.id });
const backupName = (f: Fixture, id: string): BackupName => ({ ...INSTANCE, cluster: clusterOf(f).id, backup: id });

async function tableWithRows(f: Fixture, splits: string[] = []): Promise<TableName> {
  const name = await createTable(f, [family('cf', { kind: 'maxVersions', versions: 3 }), family('other')], { splits });
  for (const k of ['a', 'h', 'p', 'z']) await f.db.mutateRow(name, k, [set('cf', 'q', 1000, `v-${k}`), set('other', 'x', 2000, k)]);
  return name;
}

async function backup(f: Fixture, table: TableName, id: string, expireIn = DAY) {
  return f.db.createBackup(clusterOf(f), id, { sourceTable: table.table, expireTimeMillis: f.clock.nowMicros() / 1000 + expireIn });
}

describe('backups in the database', () => {
  it('takes a READY backup with the schema and size, and restores a table equal to the source at that point', async () => {
    const f = await openDb();
    const source = await tableWithRows(f, ['m']);
    const before = await readAll(f, source);
    const info = await backup(f, source, 'b1');
    expect(info).toMatchObject({
      name: backupName(f, 'b1'),
      sourceTable: source,
      state: 'READY',
      backupType: 'STANDARD',
      startTimeMillis: NOW,
      endTimeMillis: NOW,
      expireTimeMillis: NOW + DAY,
      families: f.db.getTable(source).families,
    });
    expect(info.sizeBytes).toBeGreaterThan(0);
    // Later changes to the source do not reach the backup.
    await f.db.mutateRow(source, 'b', [set('cf', 'q', 1000, 'later')]);
    await f.db.dropRowRange(source, { kind: 'prefix', prefix: 'z' });
    const restored = { ...INSTANCE, table: 'restored' };
    const table = await f.db.restoreTable(restored, backupName(f, 'b1'));
    expect(table.families).toEqual(f.db.getTable(source).families);
    expect(table.restoreInfo).toEqual({
      sourceType: 'BACKUP',
      backup: {
        backup: 'projects/p/instances/i/clusters/' + clusterOf(f).id + '/backups/b1',
        startTimeMillis: NOW,
        endTimeMillis: NOW,
        sourceTable: `projects/p/instances/i/tables/${source.table}`,
      },
    });
    expect(await readAll(f, restored)).toEqual(before);
    expect(f.db.listTablets(restored).map((t) => [t.start, t.end])).toEqual(f.db.listTablets(source).map((t) => [t.start, t.end]));
    // The restored table is a table of its own: writes to it change neither the source nor the backup.
    await f.db.mutateRow(restored, 'new', [set('cf', 'q', 1000, 'x')]);
    await f.db.restoreTable({ ...INSTANCE, table: 'again' }, backupName(f, 'b1'));
    expect(await readAll(f, { ...INSTANCE, table: 'again' })).toEqual(before);
    expect(await readAll(f, source)).not.toContain('new: cf:q@1=x');
  });

  it('keeps backups when their table is deleted and tables when their backup is deleted', async () => {
    const f = await openDb();
    const source = await tableWithRows(f);
    const rows = await readAll(f, source);
    await backup(f, source, 'keep');
    await f.db.deleteTable(source);
    expect(f.db.getBackup(backupName(f, 'keep')).state).toBe('READY');
    await f.db.restoreTable(source, backupName(f, 'keep'));
    await f.db.deleteBackup(backupName(f, 'keep'));
    expect(await codeOf(() => f.db.getBackup(backupName(f, 'keep')))).toBe('NotFound');
    expect(await readAll(f, source)).toEqual(rows);
    // Only the restored table's stores remain.
    expect(f.engine.storeIds().sort()).toEqual(
      f.db
        .listTablets(source)
        .map((t) => t.id)
        .sort(),
    );
  });

  it('lists by cluster or all (`-`), in name order, and updates the expire time within bounds', async () => {
    const f = await openDb();
    const source = await tableWithRows(f);
    await f.db.createCluster(INSTANCE, 'second', { location: '', serveNodes: 1, storageType: 'ssd' });
    await backup(f, source, 'b2');
    await backup(f, source, 'b1');
    await f.db.createBackup({ ...INSTANCE, id: 'second' }, 'b0', { sourceTable: source.table, expireTimeMillis: NOW + DAY });
    expect(f.db.listBackups(INSTANCE, clusterOf(f).id).map((b) => b.name.backup)).toEqual(['b1', 'b2']);
    expect(f.db.listBackups(INSTANCE, '-').map((b) => `${b.name.cluster}/${b.name.backup}`)).toEqual([
      `${clusterOf(f).id}/b1`,
      `${clusterOf(f).id}/b2`,
      'second/b0',
    ]);
    expect(await codeOf(() => f.db.listBackups(INSTANCE, 'nope'))).toBe('NotFound');
    expect((await f.db.updateBackup(backupName(f, 'b1'), { expireTimeMillis: NOW + 30 * DAY })).expireTimeMillis).toBe(NOW + 30 * DAY);
    expect(await codeOf(() => f.db.updateBackup(backupName(f, 'b1'), { expireTimeMillis: NOW + 91 * DAY }))).toBe('InvalidArgument');
    expect(await codeOf(() => f.db.updateBackup(backupName(f, 'b1'), { expireTimeMillis: NOW + HOUR }))).toBe('InvalidArgument');
    expect(await codeOf(() => f.db.updateBackup(backupName(f, 'b1'), {}))).toBe('InvalidArgument');
    // Deleting a cluster deletes its backups and their stores.
    await f.db.deleteCluster(INSTANCE, 'second');
    expect(f.db.listBackups(INSTANCE, '-').map((b) => b.name.backup)).toEqual(['b1', 'b2']);
  });

  it('refuses what the service refuses', async () => {
    const f = await openDb();
    const source = await tableWithRows(f);
    const c = clusterOf(f);
    const make =
      (id: string, expire: number, table = source.table) =>
      () =>
        f.db.createBackup(c, id, { sourceTable: table, expireTimeMillis: expire });
    expect(await errorOf(make('soon', NOW + 5 * HOUR))).toMatchObject({ code: 'InvalidArgument', message: /at least 6 hours/ });
    expect(await codeOf(make('late', NOW + 91 * DAY))).toBe('InvalidArgument');
    expect(await codeOf(make('bad id!', NOW + DAY))).toBe('InvalidArgument');
    expect(await codeOf(make('x', NOW + DAY, 'missing'))).toBe('NotFound');
    expect(await codeOf(make('x', NOW + DAY, '$mv.t1.0'))).toBe('NotFound');
    expect(
      await codeOf(() => f.db.createBackup({ ...c, id: 'nope' }, 'x', { sourceTable: source.table, expireTimeMillis: NOW + DAY })),
    ).toBe('NotFound');
    await make('b', NOW + DAY)();
    expect(await codeOf(make('b', NOW + DAY))).toBe('AlreadyExists');
    expect(await codeOf(() => f.db.restoreTable(source, backupName(f, 'b')))).toBe('AlreadyExists');
    expect(await codeOf(() => f.db.restoreTable({ ...INSTANCE, table: 'r' }, backupName(f, 'none')))).toBe('NotFound');
    // HOT backups: hot_to_standard_time at least 24 hours after creation; only on HOT ones.
    expect(
      await codeOf(() =>
        f.db.createBackup(c, 'h', { sourceTable: source.table, expireTimeMillis: NOW + DAY, hotToStandardTimeMillis: NOW + DAY }),
      ),
    ).toBe('InvalidArgument');
    expect(
      await codeOf(() =>
        f.db.createBackup(c, 'h', {
          sourceTable: source.table,
          expireTimeMillis: NOW + 2 * DAY,
          backupType: 'HOT',
          hotToStandardTimeMillis: NOW + HOUR,
        }),
      ),
    ).toBe('InvalidArgument');
  });

  it('copies a backup into another cluster and instance, but never a copy, with expiry up to 30 days', async () => {
    const f = await openDb();
    const source = await tableWithRows(f);
    const rows = await readAll(f, source);
    await backup(f, source, 'orig');
    const other = { project: 'p', instance: 'other-instance' };
    await f.db.createInstance(
      other,
      { displayName: 'other', type: 'production', labels: {} },
      new Map([['other-c1', { location: '', serveNodes: 1, storageType: 'ssd' as const }]]),
    );
    const target = { ...other, id: 'other-c1' };
    expect(await codeOf(() => f.db.copyBackup(target, 'cp', backupName(f, 'orig'), NOW + 31 * DAY))).toBe('InvalidArgument');
    const copy = await f.db.copyBackup(target, 'cp', backupName(f, 'orig'), NOW + 30 * DAY);
    expect(copy).toMatchObject({
      state: 'READY',
      sourceBackup: `projects/p/instances/i/clusters/${clusterOf(f).id}/backups/orig`,
      sourceTable: source,
      startTimeMillis: NOW,
    });
    const copyName = { ...other, cluster: 'other-c1', backup: 'cp' };
    expect(await errorOf(() => f.db.copyBackup(clusterOf(f), 'cc', copyName, NOW + DAY))).toMatchObject({
      code: 'FailedPrecondition',
      message: /a copy cannot be copied/,
    });
    // The copy outlives its source, and restores into its own instance.
    await f.db.deleteBackup(backupName(f, 'orig'));
    const restored = await f.db.restoreTable({ ...other, table: 'fromcopy' }, copyName);
    expect(restored.restoreInfo?.backup.sourceBackup).toBe(copy.sourceBackup);
    expect(await readAll(f, { ...other, table: 'fromcopy' })).toEqual(rows);
  });

  it('sweeps expired backups (and their stores), and turns HOT backups STANDARD at their time', async () => {
    const f = await openDb();
    const source = await tableWithRows(f);
    await backup(f, source, 'short', 7 * HOUR);
    await f.db.createBackup(clusterOf(f), 'hot', {
      sourceTable: source.table,
      expireTimeMillis: NOW + 3 * DAY,
      backupType: 'HOT',
      hotToStandardTimeMillis: NOW + 2 * DAY,
    });
    await f.db.setIamPolicy(`projects/p/instances/i/clusters/${clusterOf(f).id}/backups/short`, { version: 1, bindings: [] });
    const storesBefore = f.engine.storeIds().length;
    await f.db.runBackupSweep();
    expect(f.db.listBackups(INSTANCE, '-').map((b) => b.name.backup)).toEqual(['hot', 'short']);
    f.clock.advanceMillis(7 * HOUR);
    await f.db.runBackupSweep();
    expect(f.db.listBackups(INSTANCE, '-').map((b) => [b.name.backup, b.backupType])).toEqual([['hot', 'HOT']]);
    expect(f.engine.storeIds().length).toBe(storesBefore - 1);
    expect(await codeOf(() => f.db.getIamPolicy(`projects/p/instances/i/clusters/${clusterOf(f).id}/backups/short`))).toBe('NotFound');
    f.clock.advanceMillis(2 * DAY);
    await f.db.runBackupSweep();
    expect(f.db.getBackup(backupName(f, 'hot'))).toMatchObject({ backupType: 'STANDARD', hotToStandardTimeMillis: undefined });
  });

  it('holds IAM policies on backups that exist', async () => {
    const f = await openDb();
    const source = await tableWithRows(f);
    const name = `projects/p/instances/i/clusters/${clusterOf(f).id}/backups/b`;
    expect(await codeOf(() => f.db.getIamPolicy(name))).toBe('NotFound');
    await backup(f, source, 'b');
    const set1 = await f.db.setIamPolicy(name, {
      version: 1,
      bindings: [{ role: 'roles/bigtable.reader', members: ['user:a@example.com'] }],
    });
    expect(f.db.getIamPolicy(name)).toEqual(set1);
    await f.db.deleteBackup(backupName(f, 'b'));
    await backup(f, source, 'b');
    expect(f.db.getIamPolicy(name).bindings).toEqual([]);
  });

  it('shows a backup CREATING while it waits for the write gate, refuses to restore or copy it, and keeps one being restored', async () => {
    const f = await openDb({ engine: createAsyncEngine() });
    const source = await tableWithRows(f);
    const creating = backup(f, source, 'slow');
    expect(f.db.getBackup(backupName(f, 'slow')).state).toBe('CREATING');
    expect(await errorOf(() => f.db.restoreTable({ ...INSTANCE, table: 'r' }, backupName(f, 'slow')))).toMatchObject({
      code: 'FailedPrecondition',
      message: /still being created/,
    });
    expect(await codeOf(() => f.db.copyBackup(clusterOf(f), 'c', backupName(f, 'slow'), NOW + DAY))).toBe('FailedPrecondition');
    expect(await codeOf(() => f.db.deleteBackup(backupName(f, 'slow')))).toBe('FailedPrecondition');
    expect((await creating).state).toBe('READY');
    // While a restore reads it, the backup is neither deleted nor swept.
    const restoring = f.db.restoreTable({ ...INSTANCE, table: 'r' }, backupName(f, 'slow'));
    expect(await errorOf(() => f.db.deleteBackup(backupName(f, 'slow')))).toMatchObject({
      code: 'FailedPrecondition',
      message: /being restored or copied/,
    });
    f.clock.advanceMillis(2 * DAY);
    await f.db.runBackupSweep();
    expect(f.db.getBackup(backupName(f, 'slow')).state).toBe('READY');
    await restoring;
    await f.db.runBackupSweep();
    expect(await codeOf(() => f.db.getBackup(backupName(f, 'slow')))).toBe('NotFound');
    expect(await readAll(f, { ...INSTANCE, table: 'r' })).toEqual(await readAll(f, source));
  });

  it('refuses to restore a damaged backup (DATA_LOSS)', async () => {
    // The memory engine, with verifyStore reporting damage on chosen stores as the durable engine does for a bad checksum.
    const engine = createMemoryEngine();
    const verify = engine.verifyStore.bind(engine);
    const bad = new Set<string>();
    engine.verifyStore = (id: string) => {
      if (bad.has(id)) throw dataLoss(`store ${id}: block 0 checksum mismatch`);
      return verify(id);
    };
    const f = await openDb({ engine });
    const source = await tableWithRows(f, ['m']);
    await backup(f, source, 'b');
    const storesBefore = new Set(engine.storeIds());
    const backupStores = engine.storeIds().filter((id) => !f.db.listTablets(source).some((t) => t.id === id));
    bad.add(backupStores[1]!);
    expect(await errorOf(() => f.db.restoreTable({ ...INSTANCE, table: 'r' }, backupName(f, 'b')))).toMatchObject({
      code: 'DataLoss',
      message: /checksum mismatch/,
    });
    expect(await codeOf(() => f.db.getTable({ ...INSTANCE, table: 'r' }))).toBe('NotFound');
    expect(new Set(engine.storeIds())).toEqual(storesBefore);
  });
});

describe('backups in a reopened database', () => {
  it('keep their stores (even empty ones) and state; a backup left CREATING is dropped', async () => {
    const f = await openDb();
    const source = await tableWithRows(f);
    const empty = await createTable(f, [family('cf')]);
    await backup(f, source, 'full');
    await backup(f, empty, 'empty');
    const state = f.db.catalogState();
    const withCreating = {
      ...state,
      instances: state.instances.map((i) => ({
        ...i,
        clusters: i.clusters.map((c) => ({
          ...c,
          backups: [...(c.backups ?? []), { ...c.backups![0]!, id: 'unfinished', uid: 'bx', stores: [], state: 'CREATING' as const }],
        })),
      })),
    };
    const reopened = await openDb({ engine: f.engine, catalog: withCreating });
    expect(reopened.db.listBackups(INSTANCE, '-').map((b) => [b.name.backup, b.state])).toEqual([
      ['empty', 'READY'],
      ['full', 'READY'],
    ]);
    await reopened.db.restoreTable({ ...INSTANCE, table: 'e' }, backupName(f, 'empty'));
    await reopened.db.restoreTable({ ...INSTANCE, table: 'r' }, backupName(f, 'full'));
    expect(await readAll(reopened, { ...INSTANCE, table: 'r' })).toEqual(await readAll(f, source));
    expect(await readAll(reopened, { ...INSTANCE, table: 'e' })).toEqual([]);
  });
});

describe('backup while writing', () => {
  it('the restored table equals the source at the backup point, row by row', async () => {
    const f = await openDb({ engine: createAsyncEngine() });
    const source = await createTable(f, [family('cf')], { splits: ['w1', 'w2'] });
    const writers = 3;
    const perWriter = 60;
    /** Per writer, the writes acknowledged before the backup was asked for and those started after it finished. */
    const ackedBefore = new Array<number>(writers).fill(-1);
    const startedAfter = new Array<number>(writers).fill(Infinity);
    let phase: 'before' | 'during' | 'after' = 'before';
    const write = async (w: number): Promise<void> => {
      for (let i = 0; i < perWriter; i++) {
        if (phase === 'after') startedAfter[w] = Math.min(startedAfter[w]!, i);
        // One row per writer holds its count and one column per write: a consistent point has n = the last column.
        await f.db.mutateRow(source, `w${w}`, [set('cf', 'n', 1000, String(i)), set('cf', `i${String(i).padStart(3, '0')}`, 1000, 'x')]);
        await f.db.mutateRow(source, `w${w}-${String(i).padStart(3, '0')}`, [set('cf', 'v', 1000, `${w}/${i}`)]);
        if (phase === 'before') ackedBefore[w] = i;
      }
    };
    const running = Array.from({ length: writers }, (_, w) => write(w));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    phase = 'during';
    await backup(f, source, 'live');
    phase = 'after';
    await Promise.all(running);
    const restored = { ...INSTANCE, table: 'live-restored' };
    await f.db.restoreTable(restored, backupName(f, 'live'));
    const rows = await readAll(f, restored);
    const sourceRows = new Map((await readAll(f, source)).map((r) => [r.split(':')[0]!, r]));
    const counts: number[] = [];
    for (let w = 0; w < writers; w++) {
      const counter = rows.find((r) => r.startsWith(`w${w}: `));
      const n = counter === undefined ? -1 : Number(/cf:n@1=(\d+)/.exec(counter)![1]);
      counts.push(n);
      // Every write acknowledged before the backup is in it; none started after it.
      expect(n).toBeGreaterThanOrEqual(ackedBefore[w]!);
      expect(n).toBeLessThan(startedAfter[w]!);
      // The counter row: exactly the columns i000..i{n}.
      const columns = counter === undefined ? [] : [...counter.matchAll(/cf:(i\d+)@/g)].map((m) => m[1]);
      expect(columns).toEqual(Array.from({ length: n + 1 }, (_, i) => `i${String(i).padStart(3, '0')}`));
      // The data rows: a prefix of the writer's, each equal to the source's row (never rewritten since).
      const data = rows.filter((r) => r.startsWith(`w${w}-`));
      expect(data.length === n + 1 || data.length === n).toBe(true);
      for (const r of data) expect(r).toBe(sourceRows.get(r.split(':')[0]!));
    }
    // The backup cut through the writes: some were in it, some not.
    expect(counts.some((n) => n >= 0 && n < perWriter - 1)).toBe(true);
  });
});
