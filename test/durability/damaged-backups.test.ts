import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/index.js';
import { isTabletopError } from '../../src/model/errors.js';
import { createNodeFileSystem } from '../../src/storage/fs/node-fs.js';
import { openDiskEngine, type DiskEngine } from '../../src/storage/lsm/disk-engine.js';
import { flipBytes } from './damage.js';
import { dataRegion } from './data-dir.js';

/**
 * A backup whose files are damaged on disk is not restored: RestoreTable verifies every clone first
 * (StorageEngine.verifyStore) and fails with DATA_LOSS naming the store and the file, creating no table; a
 * sound backup of another table restores. The database over the durable engine, as the server runs it.
 */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tabletop-damaged-backup-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const I = { project: 'p', instance: 'i' };

describe('restoring a damaged backup', () => {
  it('fails DATA_LOSS and creates no table; a sound backup restores', async () => {
    const engine: DiskEngine = await openDiskEngine({
      fs: createNodeFileSystem(dir),
      dir: 'db',
      manualCompaction: true,
      config: { blockBytes: 1024 },
    });
    const db = await createDatabase({
      engine,
      config: { gcSweepIntervalMillis: 0, tabletCheckIntervalMillis: 0, balanceIntervalMillis: 0 },
    });
    try {
      for (const table of ['hurt', 'fine']) {
        const name = { ...I, table };
        await db.createTable(name, {
          families: [{ name: 'f', gcRule: undefined, valueType: { kind: 'bytes' } }],
          initialSplits: [],
          deletionProtection: false,
        });
        await db.mutateRows(
          name,
          Array.from({ length: 60 }, (_, i) => ({
            key: `k${String(i).padStart(3, '0')}`,
            mutations: [{ kind: 'setCell' as const, family: 'f', qualifier: 'q', timestamp: 1000, value: randomBytes(300) }],
          })),
        );
      }
      const cluster = { ...I, id: db.listClusters(I)[0]!.id };
      const expireTimeMillis = Date.now() + 8 * 3_600_000;
      await db.createBackup(cluster, 'hurt-backup', { sourceTable: 'hurt', expireTimeMillis });
      await db.createBackup(cluster, 'fine-backup', { sourceTable: 'fine', expireTimeMillis });
      // The backup's clone shares the table's SSTable (the clone flushed it): damage a data block of it.
      const hurtStore = db.listTablets({ ...I, table: 'hurt' })[0]!.id;
      const file = path.join(dir, 'db', 'sst', `${String(engine.stores.get(hurtStore)!.files[0]!.meta.number).padStart(6, '0')}.sst`);
      flipBytes(file, Math.floor(dataRegion(file).end / 2));

      const failure = await db.restoreTable({ ...I, table: 'from-hurt' }, { ...I, cluster: cluster.id, backup: 'hurt-backup' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isTabletopError(failure) && failure.code).toBe('DataLoss');
      expect((failure as Error).message).toContain(path.basename(file));
      expect(db.listTables(I).map((t) => t.name.table)).toEqual(['fine', 'hurt']);

      const restored = await db.restoreTable({ ...I, table: 'from-fine' }, { ...I, cluster: cluster.id, backup: 'fine-backup' });
      expect(restored.restoreInfo?.backup.backup).toContain('fine-backup');
      expect(db.tableSize({ ...I, table: 'from-fine' }).rows).toBe(60);
    } finally {
      await db.close();
    }
  });
});
