import type { Backup, Cluster } from '@google-cloud/bigtable';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectCode, status } from '../harness/grpc-errors.js';
import { uniqueTableId } from '../harness/names.js';
import { INSTANCE, PROJECT } from '../harness/node-client.js';
import { adminCall } from '../harness/raw.js';
import { useTarget } from '../harness/suite.js';

/**
 * Backups through the official Node client, after its system tests (system-test/bigtable.ts, "backups",
 * "copying backups" and "backups with gapic"): cluster.createBackup and table.createBackup with their operations, backup.get /
 * getMetadata, instance and cluster getBackups (and as streams), restore and restoreTo another instance,
 * setMetadata of the expire time, IAM on a backup, copies into the same cluster, another cluster and another
 * instance with Date and Timestamp expire times (the client turns both into its PreciseDate), a restore of a copy; the
 * table admin client's createBackup and restoreTable, with an optimize operation only onto another storage type;
 * then what the service refuses, and ListBackups' filter and order_by through the generated client.
 */

const HOUR = 3_600_000;
const PARENT = `projects/${PROJECT}/instances/${INSTANCE}`;
const cell = (value: string) => ({ value, labels: [], timestamp: '77000' });

describe('backups through the official Node client', () => {
  const ctx = useTarget('tabletop');
  const tableId = uniqueTableId('bk');
  const table = () => ctx.instance.table(tableId);
  let cluster: Cluster;
  const expireTime = new Date(Date.now() + 8 * HOUR);
  const rows = [
    { key: 'alincoln', data: { follows: { gwashington: cell('1') } } },
    { key: 'gwashington', data: { follows: { jadams: cell('1') }, traits: { teeth: cell('wood') } } },
  ];
  const contents = async (id: string, instance = ctx.instance) => {
    const [found] = await instance.table(id).getRows();
    return found.map((r) => [r.id, r.data]);
  };

  beforeAll(async () => {
    await table().create({ families: ['follows', 'traits'] });
    await table().insert(rows);
    const [clusters] = await ctx.instance.getClusters();
    cluster = clusters[0]!;
  });

  it('creates a backup from the cluster and from the table, READY with its name and expire time', async () => {
    const [backup, op] = await cluster.createBackup('from-cluster', { table: table(), expireTime });
    await op.promise();
    expect((op.metadata as { name?: string }).name).toBe(`${cluster.name}/backups/from-cluster`);
    await backup.getMetadata();
    expect(backup.metadata?.name).toBe(`${cluster.name}/backups/from-cluster`);
    expect(backup.expireDate.getTime()).toBe(expireTime.getTime());
    expect(backup.metadata?.state).toBe('READY');
    expect(backup.metadata?.sourceTable).toBe(table().name);
    expect(Number(backup.metadata?.sizeBytes)).toBeGreaterThan(0);
    expect(backup.metadata?.encryptionInfo?.encryptionType).toBe('GOOGLE_DEFAULT_ENCRYPTION');

    const [fromTable, op2] = await table().createBackup('from-table', { expireTime });
    await op2.promise();
    await fromTable.getMetadata();
    expect(fromTable.metadata?.name).toBe(`${cluster.name}/backups/from-table`);
    expect(fromTable.expireDate.getTime()).toBe(expireTime.getTime());

    const [got] = await cluster.backup('from-cluster').get();
    expect(got.metadata?.state).toBe('READY');
    expect((await cluster.backup('from-cluster').exists())[0]).toBe(true);
    expect((await cluster.backup('nope').exists())[0]).toBe(false);
  });

  it('lists backups of the instance and of the cluster, as arrays and streams', async () => {
    const [inInstance] = await ctx.instance.getBackups();
    expect(inInstance.map((b) => b.id)).toEqual(expect.arrayContaining(['from-cluster', 'from-table']));
    const [inCluster] = await cluster.getBackups();
    expect(inCluster.map((b) => b.id)).toEqual(expect.arrayContaining(['from-cluster', 'from-table']));
    const streamed: Backup[] = [];
    await new Promise<void>((resolve, reject) =>
      ctx.instance
        .getBackupsStream()
        .on('error', reject)
        .on('data', (b: Backup) => streamed.push(b))
        .on('end', resolve),
    );
    expect(streamed.map((b) => b.id)).toEqual(expect.arrayContaining(['from-cluster', 'from-table']));
  });

  it('restores a backup into a new table of the instance and of another instance, with restore_info', async () => {
    // Written after the backup: not in what is restored.
    await table().insert([{ key: 'later', data: { follows: { x: cell('1') } } }]);
    const [restored, op] = await cluster.backup('from-cluster').restore('restored-here');
    await op.promise();
    expect(restored.name?.split('/').pop()).toBe('restored-here');
    expect(await contents('restored-here')).toEqual(
      rows.map((r) => [
        r.key,
        Object.fromEntries(Object.entries(r.data).map(([f, q]) => [f, Object.fromEntries(Object.entries(q).map(([k, c]) => [k, [c]]))])),
      ]),
    );
    const [metadata] = await restored.getMetadata({ view: 'schema' });
    expect(Object.keys(metadata.columnFamilies ?? {}).sort()).toEqual(['follows', 'traits']);
    expect(metadata.restoreInfo).toMatchObject({
      sourceType: 'BACKUP',
      backupInfo: { backup: 'from-cluster', sourceTable: table().name },
    });
    expect((op.metadata as { sourceType?: string; progress?: { progressPercent?: number } }).progress?.progressPercent).toBe(100);

    const other = ctx.client.instance('restore-target');
    const [, created] = await other.create({ clusters: [{ id: 'restore-target-c1', location: 'us-east1-c', nodes: 3 }] });
    await created.promise();
    const [elsewhere, op2] = await cluster.backup('from-cluster').restoreTo({ tableId: 'restored-there', instance: other });
    await op2.promise();
    // Client 7.2.0 hands back a Table of the backup's instance whatever the target: the table is in the other one.
    expect(elsewhere.id).toBe('restored-there');
    expect((await other.table('restored-there').exists())[0]).toBe(true);
    expect((await ctx.instance.table('restored-there').exists())[0]).toBe(false);
    expect(await contents('restored-there', other)).toEqual(await contents('restored-here'));
  });

  it('updates the expire time, and holds IAM policies', async () => {
    const backup = cluster.backup('from-cluster');
    const later = new Date(expireTime.getTime() + 2 * HOUR);
    const [metadata] = await backup.setMetadata({ expireTime: later });
    expect(metadata.name).toBe(`${cluster.name}/backups/from-cluster`);
    expect(backup.expireDate.getTime()).toBe(later.getTime());

    const [policy] = await backup.getIamPolicy();
    for (const p of ['version', 'bindings', 'etag']) expect(p in policy).toBe(true);
    const [updated] = await backup.setIamPolicy(policy);
    for (const key of Object.keys(policy)) expect(key in updated).toBe(true);
    const [granted] = await backup.testIamPermissions(['bigtable.backups.get', 'bigtable.backups.delete']);
    expect([...granted].sort()).toEqual(['bigtable.backups.delete', 'bigtable.backups.get']);
  });

  describe('copying backups', () => {
    const sourceExpire = Date.now() + 308 * HOUR;
    const copyExpire = Date.now() + 608 * HOUR;
    const struct = (ms: number) => ({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1_000_000 });

    async function copyAndCheck(backup: Backup, to: Cluster, id: string, expire: Date | { seconds: number; nanos: number }) {
      const instance = to.instance;
      const [before] = await instance.getBackups();
      const [copy, op] = await backup.copy({ cluster: to, id, expireTime: expire });
      expect(copy.id).toBe(id);
      await op.promise();
      expect((op.metadata as { name?: string }).name).toBe(`${to.name}/backups/${id}`);
      const [after] = await instance.getBackups();
      const added = after.filter((b) => !before.some((x) => x.id === b.id));
      expect(added.map((b) => [b.id, b.name])).toEqual([[id, `${to.name}/backups/${id}`]]);
      await copy.getMetadata();
      expect(copy.metadata?.sourceBackup).toBe(backup.name);
      // A copy restores like its source (into the copy's instance).
      const restoredId = uniqueTableId('fromcopy');
      const [, restoring] = await to.backup(id).restore(restoredId);
      await restoring.promise();
      expect(await contents(restoredId, instance)).toEqual(await contents(tableId));
      await to.backup(id).delete();
    }

    for (const [kind, source, copy] of [
      ['Timestamp', struct(sourceExpire), struct(copyExpire)],
      ['Date', new Date(sourceExpire), new Date(copyExpire)],
    ] as const) {
      it(`copies in the same cluster (${kind} expire times)`, async () => {
        const [backup, op] = await table().createBackup(uniqueTableId('src'), { expireTime: source });
        await op.promise();
        await backup.getMetadata();
        expect(backup.expireDate.getTime()).toBe(sourceExpire);
        await copyAndCheck(backup, backup.cluster, uniqueTableId('cp'), copy);
        await backup.delete();
      });
    }

    it('copies into another cluster of the instance and into another instance', async () => {
      const [backup, op] = await table().createBackup(uniqueTableId('src'), { expireTime: new Date(sourceExpire) });
      await op.promise();
      const [, clusterOp] = await ctx.instance.cluster('second-cluster').create({ location: 'us-central2-b', nodes: 3 });
      await clusterOp.promise();
      await copyAndCheck(backup, ctx.instance.cluster('second-cluster'), uniqueTableId('cp'), new Date(copyExpire));
      const other = ctx.client.instance('copy-target');
      const [, created] = await other.create({
        clusters: [{ id: 'copy-target-c1', nodes: 3, location: 'us-central2-d', storage: 'ssd' }],
        labels: { 'prod-label': 'prod-label' },
        type: 'production',
      });
      await created.promise();
      await copyAndCheck(backup, other.cluster('copy-target-c1'), uniqueTableId('cp'), new Date(copyExpire));
      await other.delete();
      await backup.delete();
    });
  });

  describe('what the service refuses', () => {
    it('expire times out of bounds, an existing table, a copy of a copy, a missing backup', async () => {
      await expectCode(table().createBackup('too-soon', { expireTime: new Date(Date.now() + HOUR) }), status.INVALID_ARGUMENT);
      await expectCode(table().createBackup('too-late', { expireTime: new Date(Date.now() + 91 * 24 * HOUR) }), status.INVALID_ARGUMENT);
      await expectCode(cluster.backup('from-cluster').restore(tableId), status.ALREADY_EXISTS);
      await expectCode(table().createBackup('from-cluster', { expireTime }), status.ALREADY_EXISTS);
      const [copy, op] = await cluster.backup('from-cluster').copy({ cluster, id: 'a-copy', expireTime });
      await op.promise();
      await expectCode(copy.copy({ cluster, id: 'copy-of-copy', expireTime }), status.FAILED_PRECONDITION);
      await expectCode(
        cluster.backup('from-cluster').copy({ cluster, id: 'far', expireTime: new Date(Date.now() + 31 * 24 * HOUR) }),
        status.INVALID_ARGUMENT,
      );
      await expectCode(cluster.backup('missing').get(), status.NOT_FOUND);
      await expectCode(cluster.backup('missing').restore('nothing'), status.NOT_FOUND);
      // UpdateBackup needs its mask.
      await expectCode(
        adminCall(ctx.client, 'BigtableTableAdminClient', 'updateBackup', {
          backup: { name: `${cluster.name}/backups/from-cluster`, expireTime: { seconds: 1 } },
        }),
        status.INVALID_ARGUMENT,
      );
      await copy.delete();
    });

    it('lists with a filter and an order, paged', async () => {
      const list = async (req: object): Promise<string[]> => {
        const [backups] = await adminCall<{ name: string }[]>(
          ctx.client,
          'BigtableTableAdminClient',
          'listBackups',
          { parent: `${PARENT}/clusters/-`, ...req },
          { autoPaginate: true },
        );
        return (backups as unknown as { name: string }[]).map((b) => b.name.split('/').pop()!);
      };
      expect(await list({ filter: 'name:from-', orderBy: 'name' })).toEqual(['from-cluster', 'from-table']);
      expect(await list({ filter: 'name:from- AND state:READY', orderBy: 'name desc' })).toEqual(['from-table', 'from-cluster']);
      expect(await list({ filter: `source_table:${tableId} AND NOT name:from-table`, orderBy: 'name' })).toEqual(['from-cluster']);
      expect(await list({ filter: 'size_bytes > 0 AND name:from-', orderBy: 'name', pageSize: 1 })).toEqual(['from-cluster', 'from-table']);
      await expectCode(list({ filter: 'colour = red' }), status.INVALID_ARGUMENT);
    });

    it('deletes a backup; a table restored from it stays', async () => {
      await cluster.backup('from-cluster').delete();
      expect((await cluster.backup('from-cluster').exists())[0]).toBe(false);
      expect((await contents('restored-here')).length).toBe(2);
      // Deleting the source table keeps its other backups.
      await table().delete();
      const [left] = await cluster.backup('from-table').get();
      expect(left.metadata?.state).toBe('READY');
    });
  });

  describe('backups with gapic', () => {
    it('creates backups through the table admin client, and optimizes only a restore onto another storage type', async () => {
      const tableAdmin = ctx.client.admin.getTableAdminClient();
      const hdd = ctx.client.instance('hdd-instance');
      const [, created] = await hdd.create({ clusters: [{ id: 'hdd-instance-c1', location: 'us-central1-b', nodes: 1, storage: 'hdd' }] });
      await created.promise();
      const source = hdd.table('hdd-table');
      await source.create({ families: ['cf'] });
      await source.insert([{ key: 'k', data: { cf: { q: cell('v') } } }]);
      // Seconds with a fraction, as the system test sends them: the service keeps whole seconds.
      const expireTime = { seconds: Date.now() / 1000 + 8 * 3600, nanos: 0 };
      const [creating] = await tableAdmin.createBackup({
        parent: hdd.cluster('hdd-instance-c1').name,
        backupId: 'hdd-backup',
        backup: { expireTime, sourceTable: source.name },
      });
      const [backup] = await creating.promise();
      expect(backup.name).toBe(`${hdd.cluster('hdd-instance-c1').name}/backups/hdd-backup`);
      expect(Number(backup.expireTime?.seconds)).toBe(Math.floor(expireTime.seconds));

      const [sameType] = await tableAdmin.restoreTable({ parent: hdd.name, tableId: 'hdd-restored', backup: backup.name! });
      const [, sameMetadata] = await sameType.promise();
      expect(sameMetadata?.optimizeTableOperationName ?? '').toBe('');

      const [otherType] = await tableAdmin.restoreTable({ parent: PARENT, tableId: 'ssd-restored', backup: backup.name! });
      const [restored, metadata] = await otherType.promise();
      expect(restored.name).toBe(`${PARENT}/tables/ssd-restored`);
      expect(metadata?.optimizeTableOperationName).toMatch(new RegExp(`^${PARENT}/tables/ssd-restored/operations/`));
      const optimizing = await tableAdmin.checkOptimizeRestoredTableProgress(metadata!.optimizeTableOperationName!);
      const [optimized] = await optimizing.promise();
      expect(optimized.name).toBe(`${PARENT}/tables/ssd-restored`);
      expect(await contents('ssd-restored')).toEqual([['k', { cf: { q: [cell('v')] } }]]);
    });
  });
});
