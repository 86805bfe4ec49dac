import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FULL_RANGE } from '../../src/model/key-range.js';
import { TabletopError } from '../../src/model/errors.js';
import { createNodeFileSystem } from '../../src/storage/fs/node-fs.js';
import { openDiskEngine, type DiskEngine } from '../../src/storage/lsm/disk-engine.js';
import type { RowStore } from '../../src/storage/store.js';
import { cutTail, flipBytes } from './damage.js';
import { dataRegion } from './data-dir.js';

/**
 * StorageEngine.verifyStore on the durable engine, against files damaged on
 * disk as a failing disk would (damage.ts): a store and its clones (which
 * share its SSTables) report DataLoss naming the store, the file and the
 * offset, even while the damaged blocks sit intact in the block cache; stores
 * with other files verify clean.
 */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tabletop-verify-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function open(): Promise<DiskEngine> {
  return openDiskEngine({ fs: createNodeFileSystem(dir), dir: 'db', manualCompaction: true, config: { blockBytes: 1024 } });
}

/** Fills a store with incompressible rows in two SSTables of several blocks each. */
async function fill(engine: DiskEngine, store: RowStore): Promise<void> {
  for (let part = 0; part < 2; part++) {
    const batch = [];
    for (let i = 0; i < 40; i++) {
      const key = `k${part}${String(i).padStart(3, '0')}`;
      batch.push({ key, ops: [{ kind: 'put' as const, family: 'f', qualifier: 'q', timestamp: 1000, value: randomBytes(300) }] });
    }
    await store.write(batch);
    await engine.flushAll();
  }
}

async function count(store: RowStore): Promise<number> {
  const c = store.scan({ range: FULL_RANGE });
  let n = 0;
  try {
    while ((await c.next()) !== undefined) n++;
    return n;
  } finally {
    c.close();
  }
}

async function dataLossOf(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(TabletopError);
  expect((e as TabletopError).code).toBe('DataLoss');
  return (e as TabletopError).message;
}

const sstPath = (engine: DiskEngine, id: string, i: number): string =>
  path.join(dir, 'db', 'sst', `${String(engine.stores.get(id)!.files[i]!.meta.number).padStart(6, '0')}.sst`);

describe('verifyStore on damaged files', () => {
  it('a flipped byte in a data block of a shared file: the store and its clone report DataLoss naming store, file and offset', async () => {
    const engine = await open();
    const source = await engine.openStore('s');
    await fill(engine, source);
    const other = await engine.openStore('t');
    await fill(engine, other);
    await engine.cloneStores([
      ['s', 'backup'],
      ['t', 'backup-t'],
    ]);
    for (const id of ['s', 'backup', 't', 'backup-t']) await engine.verifyStore(id);
    // Every block of the source is now in the block cache: verification must read the disk.
    expect(await count(source)).toBe(80);
    const file = sstPath(engine, 'backup', 1);
    expect(file).toBe(sstPath(engine, 's', 1));
    const { end } = dataRegion(file);
    flipBytes(file, Math.floor(end / 2));
    // Reads are served from the cache and do not notice.
    expect(await count(source)).toBe(80);

    const message = await dataLossOf(Promise.resolve(engine.verifyStore('backup')));
    expect(message).toContain('store backup');
    expect(message).toContain(path.basename(file));
    expect(message).toMatch(/data block at offset \d+/);
    expect(message).toContain('checksum');
    expect(await dataLossOf(Promise.resolve(engine.verifyStore('s')))).toContain('store s');
    // The verified store now fails every call with that error; the other table and its clone are sound.
    expect(() => engine.stores.get('backup')!.scan({ range: FULL_RANGE })).toThrow(message);
    await engine.verifyStore('t');
    await engine.verifyStore('backup-t');
    await engine.close();

    // After a restart too (the damage is in a data block, so the file opens).
    const reopened = await open();
    expect(await dataLossOf(Promise.resolve(reopened.verifyStore('backup')))).toContain(path.basename(file));
    await reopened.verifyStore('backup-t');
    await reopened.close();
  });

  it('a truncated file and a missing one are DataLoss too', async () => {
    const engine = await open();
    const store = await engine.openStore('s');
    await fill(engine, store);
    await engine.cloneStores([['s', 'c']]);
    cutTail(sstPath(engine, 'c', 0), 10);
    expect(await dataLossOf(Promise.resolve(engine.verifyStore('c')))).toMatch(/store c: sstable .*footer|store c: .*bytes/);
    const gone = sstPath(engine, 's', 1);
    unlinkSync(gone);
    await engine.close();
    const reopened = await open();
    // Both stores list the missing file: opening it fails them, and verification says so.
    expect(await dataLossOf(Promise.resolve(reopened.verifyStore('s')))).toContain(path.basename(gone));
    await reopened.close();
  });
});
