import { describe, expect, it } from 'vitest';
import { expectCode, status } from '../harness/grpc-errors.js';
import { INSTANCE, nodeClient } from '../harness/node-client.js';
import { adminCall } from '../harness/raw.js';
import { useDataDir } from './durable-server.js';

/**
 * Backups on the durable server: a backup taken through the official client survives a SIGKILL and a restart
 * on the same data directory (READY, its expire time), its source table can be deleted and written meanwhile,
 * and restoring it afterwards gives the table as it was at the backup; the restored table and a copy survive a
 * second SIGKILL too. A SIGKILL while backups and restores are in flight leaves each one either absent or whole
 * (READY and restorable to the source's rows; a restored table equal to them).
 */

const HOUR = 3_600_000;
/** Split keys as bytes (the client would read a string as base64). */
const splitKeys = (...keys: string[]): string[] => keys.map((k) => Buffer.from(k)) as unknown as string[];

describe('backups on the durable server', () => {
  const dir = useDataDir('tabletop-backup-');

  it('survive a crash and a restart, and restore the table as it was at the backup', async () => {
    const first = await dir.start();
    const before = nodeClient(first);
    const table = before.instance(INSTANCE).table('orders');
    await table.create({ families: ['cf'], splits: splitKeys('m') });
    const rows = Array.from({ length: 40 }, (_, i) => ({ key: `k${String(i).padStart(3, '0')}`, data: { cf: { v: `value-${i}` } } }));
    await table.insert(rows);
    const [before0] = await table.getRows();
    const expected = before0.map((r) => [r.id, r.data]);
    const [clusters] = await before.instance(INSTANCE).getClusters();
    const cluster = clusters[0]!;
    const expireTime = new Date(Date.now() + 8 * HOUR);
    const [, op] = await cluster.createBackup('nightly', { table, expireTime });
    await op.promise();
    // After the backup: a write, then the table goes altogether.
    await table.insert([{ key: 'later', data: { cf: { v: 'not in the backup' } } }]);
    await table.delete();
    await before.close();
    await first.kill9();

    const second = await dir.start();
    const after = nodeClient(second);
    try {
      const backup = after.instance(INSTANCE).cluster(cluster.id).backup('nightly');
      const [got] = await backup.get();
      expect(got.metadata?.state).toBe('READY');
      expect(got.expireDate.getTime()).toBe(expireTime.getTime());
      const [restored, restoring] = await backup.restore('orders');
      await restoring.promise();
      const [rowsAfter] = await restored.getRows();
      expect(rowsAfter.map((r) => [r.id, r.data])).toEqual(expected);
      const [, copying] = await backup.copy({ cluster: after.instance(INSTANCE).cluster(cluster.id), id: 'nightly-copy', expireTime });
      await copying.promise();
    } finally {
      await after.close();
    }
    await second.kill9();

    const third = await dir.start();
    const last = nodeClient(third);
    try {
      const [rowsLast] = await last.instance(INSTANCE).table('orders').getRows();
      expect(rowsLast.map((r) => [r.id, r.data])).toEqual(expected);
      const copy = last.instance(INSTANCE).cluster(cluster.id).backup('nightly-copy');
      expect((await copy.get())[0].metadata?.sourceBackup).toBe(`${cluster.name}/backups/nightly`);
      await expectCode(last.instance(INSTANCE).cluster(cluster.id).backup('nightly').restore('orders'), status.ALREADY_EXISTS);
    } finally {
      await last.close();
    }
  });
});

describe('backups on the durable server, killed mid-way', () => {
  const dir = useDataDir('tabletop-backup-kill-');

  it('a SIGKILL during backups and restores leaves each backup and table whole or absent', async () => {
    const first = await dir.start();
    const before = nodeClient(first);
    const instance = before.instance(INSTANCE);
    const table = instance.table('events');
    await table.create({ families: ['cf'], splits: splitKeys('e', 'j', 'o', 't') });
    const rows = Array.from({ length: 500 }, (_, i) => ({
      key: String.fromCharCode(97 + (i % 26)) + String(i).padStart(4, '0'),
      data: { cf: { v: `value-${i}` } },
    }));
    await table.insert(rows);
    const [all] = await table.getRows();
    const expected = all.map((r) => [r.id, r.data]);
    const [clusters] = await instance.getClusters();
    const cluster = clusters[0]!;
    const expireTime = { seconds: Math.floor(Date.now() / 1000) + 8 * 3600 };
    const [, seed] = await cluster.createBackup('seed', { table, expireTime: new Date(expireTime.seconds * 1000) });
    await seed.promise();
    // Backups and restores in flight when the server dies; their outcome on the client does not matter.
    const backups = Array.from({ length: 8 }, (_, i) => `b${i}`);
    const restores = Array.from({ length: 8 }, (_, i) => `r${i}`);
    const inFlight = [
      ...backups.map((id) =>
        adminCall(before, 'BigtableTableAdminClient', 'createBackup', {
          parent: cluster.name,
          backupId: id,
          backup: { sourceTable: table.name, expireTime },
        }),
      ),
      ...restores.map((id) =>
        adminCall(before, 'BigtableTableAdminClient', 'restoreTable', {
          parent: instance.name,
          tableId: id,
          backup: `${cluster.name}/backups/seed`,
        }),
      ),
    ].map((p) => p.catch(() => undefined));
    // Killed as soon as the first of them is answered: the rest are on their way or in the server.
    await Promise.race(inFlight);
    await first.kill9();
    await Promise.all(inFlight);
    await before.close();

    const second = await dir.start();
    const after = nodeClient(second);
    try {
      const afterInstance = after.instance(INSTANCE);
      const [listed] = await afterInstance.getBackups();
      for (const b of listed) expect([b.id, b.metadata?.state]).toEqual([b.id, 'READY']);
      for (const id of backups.filter((b) => listed.some((x) => x.id === b))) {
        const [restoring] = await adminCall<{ promise?: unknown }>(after, 'BigtableTableAdminClient', 'restoreTable', {
          parent: afterInstance.name,
          tableId: `from-${id}`,
          backup: `${cluster.name}/backups/${id}`,
        });
        expect(restoring).toBeDefined();
        const [got] = await afterInstance.table(`from-${id}`).getRows();
        expect([id, got.map((r) => [r.id, r.data])]).toEqual([id, expected]);
      }
      for (const id of restores) {
        const [exists] = await afterInstance.table(id).exists();
        if (!exists) continue;
        const [got] = await afterInstance.table(id).getRows();
        expect([id, got.map((r) => [r.id, r.data])]).toEqual([id, expected]);
      }
    } finally {
      await after.close();
    }
  });
});
