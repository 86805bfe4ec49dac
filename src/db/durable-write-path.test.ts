import { describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../storage/fs/memory-fs.js';
import type { FileSystem } from '../storage/fs/file-system.js';
import { slowSyncFs } from '../storage/testing/slow-sync-fs.js';
import { createFaultFileSystem } from '../storage/fs/fault-fs.js';
import { openDiskEngine } from '../storage/lsm/disk-engine.js';
import { ALL, createTable, drain, family, openDb, readAll, set } from './testing/db-fixture.js';

/** A filesystem whose syncs take `millis` and are counted, like a real disk's fsync. */
function slowSyncs(millis: number): { fs: FileSystem; syncs: () => number } {
  let syncs = 0;
  const fs = slowSyncFs(new MemoryFileSystem(), async () => {
    syncs++;
    await new Promise((r) => setTimeout(r, millis));
  });
  return { fs, syncs: () => syncs };
}

/** A table on the durable engine whose syncs take 5 ms, with a count of the syncs since it was created. */
async function hotRowTable(): Promise<{
  f: Awaited<ReturnType<typeof openDb>>;
  name: Awaited<ReturnType<typeof createTable>>;
  syncsSince: () => number;
}> {
  const { fs, syncs } = slowSyncs(5);
  const engine = await openDiskEngine({ fs, dir: 'db' });
  const f = await openDb({ engine });
  const name = await createTable(f, [family('cf')]);
  const before = syncs();
  return { f, name, syncsSince: () => syncs() - before };
}

describe('the write path on the durable engine', () => {
  it('pipelines increments of one hot row: each builds on the last, many share one sync', async () => {
    const { f, name, syncsSince: syncs } = await hotRowTable();
    const n = 60;
    const results = await Promise.all(
      Array.from({ length: n }, () =>
        f.db.readModifyWriteRow(name, 'hot', [{ kind: 'increment', family: 'cf', qualifier: 'c', amount: 1n }]),
      ),
    );
    const values = results.map((r) => Buffer.from(r.cells[0]!.value).readBigInt64BE()).sort((a, b) => Number(a - b));
    expect(values).toEqual(Array.from({ length: n }, (_, i) => BigInt(i + 1)));
    // Without pipelining every increment would wait for its own sync while holding the row lock.
    expect(syncs()).toBeLessThan(n / 3);
    const row = await readAll(f, name);
    expect(row).toHaveLength(1);
    await f.db.close();
  });

  it('pipelines check-and-mutates of one hot row: each sees the last one applied, many share one sync, readers see only synced ones', async () => {
    const { f, name, syncsSince: syncs } = await hotRowTable();
    const n = 60;
    // Each call writes its own column; the predicate (none: "the row has a cell") holds once any earlier call applied.
    const calls = Array.from({ length: n }, (_, i) =>
      f.db.checkAndMutateRow(name, 'hot', undefined, [set('cf', `t${i}`, 1000, 'x')], [set('cf', `f${i}`, 1000, 'x')]),
    );
    // Applied at once but not synced yet: a reader sees none of them.
    expect(await readAll(f, name)).toEqual([]);
    const matched = await Promise.all(calls);
    // Only the first found the row empty: every later call read the writes of the ones before it, unsynced as they were.
    expect(matched).toEqual(Array.from({ length: n }, (_, i) => i > 0));
    expect(syncs()).toBeLessThan(n / 3);
    const rows = await drain(f.db.readRows(name, ALL));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.cells.map((c) => c.qualifier).sort()).toEqual(['f0', ...Array.from({ length: n - 1 }, (_, i) => `t${i + 1}`)].sort());
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

  it('a failed commit-log sync fails every call that waited for it: one row, one tablet, two tablets', async () => {
    let failSyncs = false;
    const fs = createFaultFileSystem(new MemoryFileSystem(), (op, path) =>
      failSyncs && op === 'sync' && path.includes('wal/') ? 'error' : undefined,
    );
    const engine = await openDiskEngine({ fs, dir: 'db' });
    const f = await openDb({ engine });
    const name = await createTable(f, [family('cf')], { splits: ['m'] });
    // The same three shapes succeed while syncs work.
    await f.db.mutateRow(name, 'a0', [set('cf', 'q', 1000, 'x')]);
    expect(
      await f.db.mutateRows(name, [
        { key: 'b0', mutations: [set('cf', 'q', 1000, 'x')] },
        { key: 'c0', mutations: [set('cf', 'q', 1000, 'x')] },
      ]),
    ).toEqual([undefined, undefined]);
    expect(
      await f.db.mutateRows(name, [
        { key: 'd0', mutations: [set('cf', 'q', 1000, 'x')] },
        { key: 'x0', mutations: [set('cf', 'q', 1000, 'x')] },
      ]),
    ).toEqual([undefined, undefined]);
    failSyncs = true;
    const one = f.db.mutateRow(name, 'a', [set('cf', 'q', 1000, 'x')]);
    const oneTablet = f.db.mutateRows(name, [
      { key: 'b', mutations: [set('cf', 'q', 1000, 'x')] },
      { key: 'c', mutations: [set('cf', 'q', 1000, 'x')] },
    ]);
    const twoTablets = f.db.mutateRows(name, [
      { key: 'd', mutations: [set('cf', 'q', 1000, 'x')] },
      { key: 'x', mutations: [set('cf', 'q', 1000, 'x')] },
    ]);
    await expect(one).rejects.toMatchObject({ message: expect.stringMatching(/injected I\/O error: sync/) });
    for (const results of [await oneTablet, await twoTablets]) {
      expect(results).toHaveLength(2);
      for (const r of results) expect(r?.message).toMatch(/injected I\/O error: sync/);
    }
    failSyncs = false;
    await f.db.close().catch(() => undefined);
  });
});
