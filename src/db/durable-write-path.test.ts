import { describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../storage/fs/memory-fs.js';
import type { FileSystem } from '../storage/fs/file-system.js';
import { slowSyncFs } from '../storage/testing/slow-sync-fs.js';
import { openDiskEngine } from '../storage/lsm/disk-engine.js';
import { createTable, family, openDb, readAll } from './testing/db-fixture.js';

/** A filesystem whose syncs take `millis` and are counted, like a real disk's fsync. */
function slowSyncs(millis: number): { fs: FileSystem; syncs: () => number } {
  let syncs = 0;
  const fs = slowSyncFs(new MemoryFileSystem(), async () => {
    syncs++;
    await new Promise((r) => setTimeout(r, millis));
  });
  return { fs, syncs: () => syncs };
}

describe('the write path on the durable engine', () => {
  it('pipelines increments of one hot row: each builds on the last, many share one sync', async () => {
    const { fs, syncs } = slowSyncs(5);
    const engine = await openDiskEngine({ fs, dir: 'db' });
    const f = await openDb({ engine });
    const name = await createTable(f, [family('cf')]);
    const before = syncs();
    const n = 60;
    const results = await Promise.all(
      Array.from({ length: n }, () => f.db.readModifyWriteRow(name, 'hot', [{ kind: 'increment', family: 'cf', qualifier: 'c', amount: 1n }])),
    );
    const values = results.map((r) => Buffer.from(r.cells[0]!.value).readBigInt64BE()).sort((a, b) => Number(a - b));
    expect(values).toEqual(Array.from({ length: n }, (_, i) => BigInt(i + 1)));
    // Without pipelining every increment would wait for its own sync while holding the row lock.
    expect(syncs() - before).toBeLessThan(n / 3);
    const row = await readAll(f, name);
    expect(row).toHaveLength(1);
    await f.db.close();
  });

  it('readers never see a write before it is durable', async () => {
    const { fs } = slowSyncs(20);
    const engine = await openDiskEngine({ fs, dir: 'db' });
    const f = await openDb({ engine });
    const name = await createTable(f, [family('cf')]);
    const write = f.db.mutateRow(name, 'r', [{ kind: 'setCell', family: 'cf', qualifier: 'q', timestamp: 1000, value: Buffer.from('x') }]);
    await new Promise((r) => setTimeout(r, 5));
    expect(await readAll(f, name)).toEqual([]);
    await write;
    expect((await readAll(f, name)).length).toBe(1);
    await f.db.close();
  });
});
