import { describe, expect, it } from 'vitest';
import { DiskEngine } from '../../src/storage/lsm/disk-engine.js';
import { expectCode, status } from '../harness/grpc-errors.js';
import { INSTANCE, nodeClient } from '../harness/node-client.js';
import { useDataDir } from './durable-server.js';

/**
 * Backups on the durable server: a backup taken through the official client survives a SIGKILL and a restart
 * on the same data directory (READY, its expire time), its source table can be deleted and written meanwhile,
 * and restoring it afterwards gives the table as it was at the backup; the restored table and a copy survive a
 * second SIGKILL too. Runs once the durable engine clones stores (StorageEngine.cloneStores, issue 25's D1).
 */

const HOUR = 3_600_000;
const clones = typeof (DiskEngine.prototype as { cloneStores?: unknown }).cloneStores === 'function';

describe.skipIf(!clones)('backups on the durable server (skipped until the durable engine has cloneStores)', () => {
  const dir = useDataDir('tabletop-backup-');

  it('survive a crash and a restart, and restore the table as it was at the backup', async () => {
    const first = await dir.start();
    const before = nodeClient(first);
    const table = before.instance(INSTANCE).table('orders');
    await table.create({ families: ['cf'], splits: ['m'] });
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
