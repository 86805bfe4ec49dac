import { describe, expect, it } from 'vitest';
import { FULL_RANGE } from '../../model/key-range.js';
import { TabletopError } from '../../model/errors.js';
import { seededRandom } from '../../testing/random.js';
import { createFaultFileSystem } from '../fs/fault-fs.js';
import { MemoryFileSystem } from '../fs/memory-fs.js';
import { sstName } from '../file-names.js';
import type { RowStore, StoreOp } from '../store.js';
import { openDiskEngine, type DiskEngine } from './disk-engine.js';

const config = { memtableBytes: 4096, blockBytes: 256, compactionTrigger: 3, backgroundSliceMillis: 0 };

function open(fs: MemoryFileSystem): Promise<DiskEngine> {
  return openDiskEngine({ fs, dir: 'db', manualCompaction: true, config });
}

const put = (family: string, value: string, ts = 1000): StoreOp => ({
  kind: 'put',
  family,
  qualifier: 'q',
  timestamp: ts,
  value: Buffer.from(value),
});
const key = (i: number): string => `k${String(i).padStart(3, '0')}`;

async function rows(store: RowStore): Promise<string[]> {
  const c = store.scan({ range: FULL_RANGE });
  const out: string[] = [];
  try {
    for (let r = await c.next(); r !== undefined; r = await c.next())
      out.push(`${r.key}:${r.cells.map((x) => `${x.family}@${x.timestamp}=${Buffer.from(x.value).toString()}`).join(',')}`);
    return out;
  } finally {
    c.close();
  }
}

/** Writes rows [from, to) with value `v` in families f and g. */
async function fill(store: RowStore, from: number, to: number, v: string): Promise<void> {
  const batch = [];
  for (let i = from; i < to; i++) batch.push({ key: key(i), ops: [put('f', v), put('g', v)] });
  await store.write(batch);
}

const ds = (engine: DiskEngine, id: string) => engine.stores.get(id)!;
const fileNumbers = (engine: DiskEngine, id: string): number[] => ds(engine, id).files.map((f) => f.meta.number);

describe('disk engine clones', () => {
  it('a clone shares the source files and stays as it was while the source is written, compacted, dropped and deleted', async () => {
    const fs = new MemoryFileSystem();
    const engine = await open(fs);
    const source = await engine.openStore('s');
    await fill(source, 0, 60, 'v1');
    await engine.flushAll();
    await fill(source, 40, 100, 'v2'); // in the memtable: the clone must hold it too
    const before = await rows(source);
    await engine.cloneStores([['s', 'c']], { key: 'catalog', value: () => 'with c' });
    expect(engine.readMeta('catalog')).toBe('with c');
    const clone = await engine.openStore('c');
    expect(await rows(clone)).toEqual(before);
    // No data rewritten: the clone lists the source's files, the memtable's flush among them.
    expect(fileNumbers(engine, 'c')).toEqual(fileNumbers(engine, 's'));
    expect(fileNumbers(engine, 'c')).toHaveLength(2);
    const shared = fs.list('db/sst');

    await fill(source, 0, 10, 'v3');
    await source.dropRange({ start: key(20), end: key(30) });
    await source.dropFamily('g');
    await engine.flushAll();
    await engine.compactNow(ds(engine, 's'), true);
    expect(await rows(source)).not.toEqual(before);
    // The source's compaction replaced its files; the clone keeps the old ones.
    for (const name of shared) expect(fs.list('db/sst')).toContain(name);
    expect(await rows(clone)).toEqual(before);
    await engine.deleteStore('s');
    expect(await rows(clone)).toEqual(before);
    await engine.close();
  });

  it('writes and drops on a clone leave its source alone', async () => {
    const engine = await open(new MemoryFileSystem());
    const source = await engine.openStore('s');
    await fill(source, 0, 30, 'v1');
    const before = await rows(source);
    await engine.cloneStores([['s', 'c']]);
    const clone = await engine.openStore('c');
    await fill(clone, 0, 5, 'mine');
    await clone.dropRange({ start: key(10), end: key(20) });
    await clone.dropFamily('f');
    await engine.flushAll();
    await engine.compactNow(ds(engine, 'c'), true);
    expect(await rows(source)).toEqual(before);
    expect(await rows(clone)).toHaveLength(20);
    expect((await rows(clone))[0]).toBe('k000:g@1000=mine');
    await engine.close();
  });

  it('a clone does not see what its source had dropped, also once both are compacted and after a restart', async () => {
    const fs = new MemoryFileSystem();
    let engine = await open(fs);
    const source = await engine.openStore('s');
    await fill(source, 0, 30, 'v1');
    await engine.flushAll();
    await source.dropRange({ start: key(5), end: key(10) });
    await source.dropFamily('g');
    // Written again after the drops: visible in both.
    await source.write([{ key: key(6), ops: [put('g', 'again')] }]);
    const expected = await rows(source);
    expect(expected).toHaveLength(26);
    await engine.cloneStores([['s', 'c']]);
    expect(await rows(await engine.openStore('c'))).toEqual(expected);
    await engine.compactNow(ds(engine, 'c'), true);
    expect(await rows(await engine.openStore('c'))).toEqual(expected);
    await engine.close();
    engine = await open(fs);
    expect(await rows(await engine.openStore('c'))).toEqual(expected);
    expect(await rows(await engine.openStore('s'))).toEqual(expected);
    await engine.close();
  });

  it('a file goes only once no store lists it, whichever lets go first', async () => {
    const fs = new MemoryFileSystem();
    const engine = await open(fs);
    const source = await engine.openStore('s');
    await fill(source, 0, 50, 'v1');
    await engine.flushAll();
    await fill(source, 50, 100, 'v2');
    await engine.flushAll();
    const original = fs.list('db/sst');
    expect(original).toHaveLength(2);
    await engine.cloneStores([
      ['s', 'c1'],
      ['s', 'c2'],
    ]);
    await engine.deleteStore('c1');
    expect(fs.list('db/sst')).toEqual(original);
    await engine.compactNow(ds(engine, 's'), true);
    for (const name of original) expect(fs.list('db/sst')).toContain(name);
    // A cursor on the last store listing them holds them past its deletion.
    const cursor = (await engine.openStore('c2')).scan({ range: FULL_RANGE });
    await engine.deleteStore('c2');
    for (const name of original) expect(fs.list('db/sst')).toContain(name);
    expect((await cursor.next())?.key).toBe(key(0));
    cursor.close();
    for (const name of original) expect(fs.list('db/sst')).not.toContain(name);
    expect(fs.list('db/sst')).toHaveLength(1); // the source's compacted file
    expect(await rows(source)).toHaveLength(100);
    await engine.close();
  });

  it('clones and the files they share survive a restart; a clone of a clone; a clone of a split child', async () => {
    const fs = new MemoryFileSystem();
    let engine = await open(fs);
    const source = await engine.openStore('s');
    await fill(source, 0, 100, 'v1');
    await engine.cloneStores([['s', 'c']]);
    await engine.cloneStores([['c', 'cc']]);
    await engine.splitStore('s', key(50), 'l', 'r');
    await engine.cloneStores([['r', 'rc']]);
    await engine.compactNow(ds(engine, 'l'), true);
    await engine.compactNow(ds(engine, 'r'), true);
    await engine.close();
    engine = await open(fs);
    expect(engine.storeIds().sort()).toEqual(['c', 'cc', 'l', 'r', 'rc']);
    const all = await rows(await engine.openStore('c'));
    expect(all).toHaveLength(100);
    expect(await rows(await engine.openStore('cc'))).toEqual(all);
    expect(await rows(await engine.openStore('rc'))).toEqual(all.slice(50));
    for (const id of ['c', 'cc', 'rc']) await engine.verifyStore(id);
    await engine.deleteStore('c');
    await engine.deleteStore('rc');
    expect(await rows(await engine.openStore('cc'))).toEqual(all);
    await engine.deleteStore('cc');
    // Only the split children's compacted files are left.
    expect(fs.list('db/sst')).toHaveLength(2);
    await engine.close();
  });

  it('clones several stores at one point in the sequence: writes after it are in the sources only', async () => {
    const engine = await open(new MemoryFileSystem());
    const a = await engine.openStore('a');
    const b = await engine.openStore('b');
    const other = await engine.openStore('o');
    await fill(a, 0, 20, 'a1');
    await fill(b, 0, 20, 'b1');
    await engine.flushAll();
    await fill(a, 0, 5, 'a2');
    await fill(b, 0, 5, 'b2');
    const expected = [await rows(a), await rows(b)];
    // Another store's writes go on during the clone.
    const cloning = engine.cloneStores([
      ['a', 'a@1'],
      ['b', 'b@1'],
    ]);
    const opened = engine.openStore('a@1'); // handed out once the manifest has it
    await fill(other, 0, 50, 'o');
    await cloning;
    await fill(a, 0, 20, 'a3');
    await fill(b, 0, 20, 'b3');
    expect(await rows(await opened)).toEqual(expected[0]);
    expect(await rows(await engine.openStore('b@1'))).toEqual(expected[1]);
    expect(await rows(other)).toHaveLength(50);
    await engine.close();
  });

  it('a clone still queued when the engine closes fails Unavailable and leaves nothing', async () => {
    const fs = new MemoryFileSystem();
    let engine = await open(fs);
    const big = await engine.openStore('big');
    for (let f = 0; f < 3; f++) {
      await big.write(Array.from({ length: 2000 }, (_, i) => ({ key: key(i), ops: [put('f', `v${f}`)] })));
      await engine.flushAll();
    }
    const s = await engine.openStore('s');
    await fill(s, 0, 10, 'v');
    // A major compaction of another store runs for thousands of slices: both clones wait for it.
    const compaction = engine.compactNow(ds(engine, 'big'), true);
    await new Promise((resolve) => setImmediate(resolve));
    const first = engine.cloneStores([['s', 'c1']]);
    const second = engine.cloneStores([['s', 'c2']]);
    const closed = engine.close();
    await expect(second).rejects.toMatchObject({ code: 'Unavailable' });
    await Promise.allSettled([first, compaction, closed]);
    engine = await open(fs);
    expect(engine.storeIds()).not.toContain('c2');
    expect(await rows(await engine.openStore('s'))).toHaveLength(10);
    await engine.close();
  });

  it('refuses unknown sources, taken or repeated clone ids, and changes nothing then', async () => {
    const engine = await open(new MemoryFileSystem());
    await engine.openStore('s');
    await engine.openStore('t');
    const code = (f: () => unknown): string | undefined => {
      try {
        f();
        return undefined;
      } catch (e) {
        return e instanceof TabletopError ? e.code : String(e);
      }
    };
    expect(code(() => engine.cloneStores([['nope', 'c']]))).toBe('NotFound');
    expect(code(() => engine.cloneStores([['s', 't']]))).toBe('AlreadyExists');
    expect(code(() => engine.cloneStores([['s', '']]))).toBe('InvalidArgument');
    expect(
      code(() =>
        engine.cloneStores([
          ['s', 'c'],
          ['t', 'c'],
        ]),
      ),
    ).toBe('InvalidArgument');
    expect(engine.storeIds().sort()).toEqual(['s', 't']);
    // No pairs: only the meta.
    await engine.cloneStores([], { key: 'm', value: () => 'x' });
    expect(engine.readMeta('m')).toBe('x');
    await engine.close();
  });
});

/**
 * Power loss at every file-system operation of a clone and of what follows
 * it (a compaction of a source, deleting a clone and a source): the state a
 * reboot finds must hold no clone and the old meta, or every clone and the
 * new meta, each store with exactly its data and every file it lists intact.
 */
describe('crash safety of clones', () => {
  it('a crash at any step leaves no clone or all of them (with the meta), and never a dangling file', async () => {
    const mem = new MemoryFileSystem();
    const snapshots: MemoryFileSystem[] = [];
    let armed = false;
    const fs = createFaultFileSystem(mem, () => {
      if (armed) {
        snapshots.push(mem.crash());
        snapshots.push(mem.crash(seededRandom(snapshots.length)));
      }
      return undefined;
    });
    const engine = await openDiskEngine({ fs, dir: 'db', manualCompaction: true, config });
    const a = await engine.openStore('a');
    const b = await engine.openStore('b');
    await fill(a, 0, 40, 'a1');
    await fill(b, 0, 40, 'b1');
    await engine.flushAll();
    await fill(a, 20, 60, 'a2');
    await engine.flushAll();
    await fill(a, 50, 70, 'a3'); // in the memtable when the clone starts
    await fill(b, 30, 50, 'b2');
    await engine.writeMeta('catalog', 'old');
    const expected = new Map([
      ['a', await rows(a)],
      ['b', await rows(b)],
    ]);
    expected.set('a1', expected.get('a')!);
    expected.set('b1', expected.get('b')!);

    armed = true;
    await engine.cloneStores(
      [
        ['a', 'a1'],
        ['b', 'b1'],
      ],
      { key: 'catalog', value: () => 'new' },
    );
    await engine.compactNow(engine.stores.get('a')!, true);
    await engine.deleteStore('a1');
    await engine.compactNow(engine.stores.get('b1')!, true);
    await engine.deleteStore('b');
    armed = false;
    snapshots.push(mem.crash());
    await engine.close();
    expect(snapshots.length).toBeGreaterThan(40);

    const seen = new Set<string>();
    for (const [i, snapshot] of snapshots.entries()) {
      const reopened = await openDiskEngine({ fs: snapshot, dir: 'db', manualCompaction: true, config });
      const ids = reopened.storeIds().sort();
      const meta = reopened.readMeta('catalog');
      const where = `snapshot ${i}: stores ${ids.join(',')}, meta ${meta}`;
      if (meta === 'old') expect(ids, where).toEqual(['a', 'b']);
      else {
        expect(meta, where).toBe('new');
        expect(ids, where).toContain('b1');
      }
      expect(ids, where).toContain('a');
      for (const id of ids) {
        await reopened.verifyStore(id);
        expect(await rows(await reopened.openStore(id)), `${where}: store ${id}`).toEqual(expected.get(id));
      }
      // Recovery removed every file no store lists; every listed one is there.
      const listed = new Set(ids.flatMap((id) => reopened.stores.get(id)!.files.map((f) => sstName(f.meta.number).split('/').pop())));
      expect(new Set(snapshot.list('db/sst')), where).toEqual(listed);
      seen.add(ids.join(','));
      await reopened.close();
    }
    // The run went through every stage: before the clone, both clones, one deleted, the source deleted.
    expect([...seen].sort()).toEqual(['a,a1,b,b1', 'a,b', 'a,b,b1', 'a,b1']);
  }, 60_000);
});
