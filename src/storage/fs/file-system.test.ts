import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as pathJoin } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFaultFileSystem, failNth, InjectedFault } from './fault-fs.js';
import type { FileSystem, WritableFile } from './file-system.js';
import { MemoryFileSystem } from './memory-fs.js';
import { createNodeFileSystem, SyncPlacement } from './node-fs.js';
import { seededRandom } from '../../testing/random.js';

const tmpRoots: string[] = [];
afterAll(() => {
  for (const r of tmpRoots) rmSync(r, { recursive: true, force: true });
});

const implementations: [string, () => FileSystem][] = [
  ['memory', () => new MemoryFileSystem()],
  [
    'node',
    () => {
      const root = mkdtempSync(pathJoin(tmpdir(), 'tabletop-fs-'));
      tmpRoots.push(root);
      return createNodeFileSystem(root);
    },
  ],
];

describe.each(implementations)('FileSystem conformance: %s', (_name, make) => {
  it('creates, appends, reads back at offsets', async () => {
    const fs = make();
    fs.mkdirp('db/t1');
    const f = fs.create('db/t1/a.log');
    f.append(Buffer.from('hello '));
    f.append(Buffer.from('world'));
    expect(f.size).toBe(11);
    await f.sync();
    f.close();
    expect(fs.size('db/t1/a.log')).toBe(11);
    const r = fs.openRead('db/t1/a.log');
    expect(r.size).toBe(11);
    expect(r.read(6, 5).toString()).toBe('world');
    expect(r.read(8, 100).toString()).toBe('rld');
    expect(r.read(20, 4).length).toBe(0);
    r.close();
    expect(fs.readFile('db/t1/a.log').toString()).toBe('hello world');
  });

  it('appendv writes its parts in order after what was appended, also past the system limit of 1,024 parts per writev', async () => {
    const fs = make();
    const f = fs.create('v.log');
    f.append(Buffer.from('<'));
    f.appendv([Buffer.from('ab'), new Uint8Array(0), Buffer.from('cde').subarray(1)]);
    const many = Array.from({ length: 3000 }, (_, i) => Buffer.from(String(i % 10)));
    f.appendv(many);
    f.append(Buffer.from('>'));
    expect(f.size).toBe(1 + 4 + 3000 + 1);
    await f.sync();
    f.close();
    expect(fs.readFile('v.log').toString()).toBe('<abde' + many.map((b) => b.toString()).join('') + '>');
  });

  it('lists sorted names, renames atomically, removes idempotently', async () => {
    const fs = make();
    fs.mkdirp('d');
    for (const n of ['c', 'a', 'b']) fs.create(`d/${n}`).close();
    expect(fs.list('d')).toEqual(['a', 'b', 'c']);
    const f = fs.create('d/tmp');
    f.append(Buffer.from('new'));
    f.close();
    fs.rename('d/tmp', 'd/a');
    expect(fs.readFile('d/a').toString()).toBe('new');
    expect(fs.list('d')).toEqual(['a', 'b', 'c']);
    fs.remove('d/b');
    fs.remove('d/b');
    expect(fs.exists('d/b')).toBe(false);
    expect(fs.list('missing')).toEqual([]);
    await fs.syncDir('d');
  });

  it('reports a missing file as NotFound', () => {
    const fs = make();
    expect(() => fs.openRead('nope')).toThrow(expect.objectContaining({ code: 'NotFound' }));
  });

  it('reuse writes over a file from its start, keeping the bytes past the writes', async () => {
    const fs = make();
    const a = fs.create('r');
    a.append(Buffer.from('0123456789'));
    await a.sync();
    a.close();
    const b = fs.reuse('r');
    expect(b.size).toBe(0);
    b.append(Buffer.from('ab'));
    b.append(Buffer.from('cd'));
    expect(b.size).toBe(4);
    await b.sync();
    b.close();
    expect(fs.readFile('r').toString()).toBe('abcd456789');
    expect(fs.size('r')).toBe(10);
    const c = fs.reuse('r');
    c.append(Buffer.from('x'.repeat(12)));
    c.close();
    expect(fs.readFile('r').toString()).toBe('x'.repeat(12));
    expect(() => fs.reuse('missing')).toThrow(expect.objectContaining({ code: 'NotFound' }));
  });

  it('extend writes zeros past the end without moving the append position; appends then write over them', async () => {
    const fs = make();
    const f = fs.create('x');
    f.append(Buffer.from('abc'));
    f.extend(10);
    expect(f.size).toBe(3);
    expect(f.length).toBe(10);
    await f.sync();
    f.append(Buffer.from('de'));
    await f.sync();
    f.extend(8); // already that long: nothing
    expect(f.length).toBe(10);
    expect(() => f.extend(20)).toThrow(/extend/); // the append position is inside the file
    f.close();
    expect(fs.readFile('x')).toEqual(Buffer.concat([Buffer.from('abcde'), Buffer.alloc(5)]));
    const r = fs.reuse('x');
    expect([r.size, r.length]).toEqual([0, 10]);
    r.close();
  });

  it('create replaces an existing file', () => {
    const fs = make();
    const a = fs.create('x');
    a.append(Buffer.from('long content'));
    a.close();
    fs.create('x').close();
    expect(fs.size('x')).toBe(0);
  });
});

describe('MemoryFileSystem crash semantics', () => {
  it('keeps only synced bytes of synced directory entries', async () => {
    const fs = new MemoryFileSystem();
    fs.mkdirp('db');
    const f = fs.create('db/wal');
    f.append(Buffer.from('durable'));
    await f.sync();
    await fs.syncDir('db');
    f.append(Buffer.from('-lost'));
    const unsyncedEntry = fs.create('db/new');
    unsyncedEntry.append(Buffer.from('x'));
    await unsyncedEntry.sync();

    const after = fs.crash();
    expect(after.readFile('db/wal').toString()).toBe('durable');
    expect(after.exists('db/new')).toBe(false);
  });

  it('reverts an unsynced rename and keeps a synced one', async () => {
    const fs = new MemoryFileSystem();
    fs.mkdirp('m');
    const a = fs.create('m/CURRENT');
    a.append(Buffer.from('v1'));
    await a.sync();
    await fs.syncDir('m');
    const b = fs.create('m/CURRENT.tmp');
    b.append(Buffer.from('v2'));
    await b.sync();
    fs.rename('m/CURRENT.tmp', 'm/CURRENT');
    expect(fs.crash().readFile('m/CURRENT').toString()).toBe('v1');
    await fs.syncDir('m');
    expect(fs.crash().readFile('m/CURRENT').toString()).toBe('v2');
  });

  it('may keep a torn, possibly garbled, part of an unsynced tail', async () => {
    const fs = new MemoryFileSystem();
    const f = fs.create('log');
    f.append(Buffer.alloc(10, 1));
    await f.sync();
    await fs.syncDir('.');
    f.append(Buffer.alloc(100, 2));
    const sizes = new Set<number>();
    const random = seededRandom(7);
    for (let i = 0; i < 50; i++) {
      const data = fs.crash(random).readFile('log');
      expect(data.length).toBeGreaterThanOrEqual(10);
      expect(data.subarray(0, 10).every((b) => b === 1)).toBe(true);
      sizes.add(data.length);
    }
    expect(sizes.size).toBeGreaterThan(5);
  });
});

describe('MemoryFileSystem crash semantics of a file written over (reuse)', () => {
  /** A synced file of `length` bytes of 1, reused: its first 20 bytes written over with 2 and synced. */
  async function reusedLog(length: number): Promise<{ fs: MemoryFileSystem; g: WritableFile }> {
    const fs = new MemoryFileSystem();
    const f = fs.create('log');
    f.append(Buffer.alloc(length, 1));
    await f.sync();
    await fs.syncDir('.');
    f.close();
    const g = fs.reuse('log');
    g.append(Buffer.alloc(20, 2));
    await g.sync();
    return { fs, g };
  }

  it('keeps the synced bytes, a prefix of the unsynced writes (last bytes maybe garbled), then the old bytes', async () => {
    const { fs, g } = await reusedLog(100);
    const fresh = Buffer.concat([Buffer.alloc(30, 3), Buffer.alloc(70, 4)]); // ends past the old length
    g.append(fresh.subarray(0, 30));
    g.append(fresh.subarray(30));
    expect(fs.crash().readFile('log')).toEqual(Buffer.concat([Buffer.alloc(20, 2), Buffer.alloc(80, 1)]));
    const random = seededRandom(11);
    const kept = new Set<number>();
    for (let i = 0; i < 60; i++) {
      const data = fs.crash(random).readFile('log');
      expect(data.subarray(0, 20).every((b) => b === 2)).toBe(true);
      // All of it in one page: the surviving part of the writes is there, or that page was never written.
      if (data.subarray(20).every((b, j) => b === (20 + j < 100 ? 1 : 0))) continue;
      // How much of the unsynced writes survived: past the old end, all of what is there; else up to where the old bytes resume.
      let k = data.length - 20;
      if (data.length <= 100) {
        k = 80;
        while (k > 0 && data[20 + k - 1] === 1) k--;
      }
      expect(data.length).toBe(Math.max(100, 20 + k));
      const differing = [...data.subarray(20, 20 + k)].map((b, j) => (b === fresh[j] ? -1 : j)).filter((j) => j >= 0);
      expect(differing.length).toBeLessThanOrEqual(1);
      if (differing.length === 1) expect(differing[0]).toBeGreaterThanOrEqual(k - 8);
      kept.add(k);
    }
    expect(kept.size).toBeGreaterThan(5);
  });

  it('may persist the pages of unsynced writes out of order', async () => {
    const PAGE = 4096;
    const { fs, g } = await reusedLog(3 * PAGE);
    const fresh = Buffer.alloc(5 * PAGE);
    for (let j = 0; j < fresh.length; j++) fresh[j] = 3 + (j % 251);
    g.append(fresh);
    const random = seededRandom(5);
    let outOfOrder = 0;
    for (let i = 0; i < 100; i++) {
      const data = fs.crash(random).readFile('log');
      expect(data.subarray(0, 20).every((b) => b === 2)).toBe(true);
      // Page by page: the new bytes, or what the page held before (the old bytes, zeros past the old end);
      // the page where the surviving part ends holds new bytes up to the cut, then old ones.
      const old = (at: number): number => (at < 3 * PAGE ? 1 : 0);
      const pages: ('new' | 'old' | 'cut')[] = [];
      let garbled = 0;
      for (let page = 0; page * PAGE < data.length; page++) {
        const from = Math.max(page * PAGE, 20);
        const to = Math.min((page + 1) * PAGE, data.length);
        // The best cut: new bytes before it, old ones after, with the fewest other bytes.
        let best = Infinity;
        let bestCut = from;
        let offOld = 0;
        for (let at = from; at < to; at++) if (data[at] !== old(at)) offOld++;
        let offNew = 0;
        for (let cut = from; cut <= to; cut++) {
          const off = offNew + offOld;
          if (off < best) {
            best = off;
            bestCut = cut;
          }
          if (cut < to) {
            if (data[cut] !== fresh[cut - 20]) offNew++;
            if (data[cut] !== old(cut)) offOld--;
          }
        }
        expect(best).toBeLessThanOrEqual(1);
        garbled += best;
        pages.push(bestCut === from ? 'old' : bestCut === to ? 'new' : 'cut');
      }
      expect(garbled).toBeLessThanOrEqual(1);
      // Everything after a cut page is old; an old page before a new one is out of order.
      expect(pages.slice(pages.indexOf('cut') + 1).every((p) => p === 'old' || pages.indexOf('cut') < 0)).toBe(true);
      if (pages.join(',').includes('old,new')) outOfOrder++;
    }
    expect(outOfOrder).toBeGreaterThan(5);
  });
});

describe('fault-injecting filesystem', () => {
  it('fails exactly the n-th matching operation', async () => {
    const fs = createFaultFileSystem(new MemoryFileSystem(), failNth(2, ['sync']));
    const f = fs.create('f');
    f.append(Buffer.from('a'));
    await f.sync();
    await expect(f.sync()).rejects.toBeInstanceOf(InjectedFault);
    await f.sync();
  });

  it('short writes leave a prefix and throw', () => {
    const mem = new MemoryFileSystem();
    const fs = createFaultFileSystem(mem, (op) => (op === 'append' ? 'short' : undefined));
    const f = fs.create('f');
    expect(() => f.append(Buffer.from('abcdef'))).toThrow(InjectedFault);
    expect(mem.readFile('f').toString()).toBe('abc');
    const g = fs.create('g');
    expect(() => g.appendv([Buffer.from('ab'), Buffer.from('cdefgh')])).toThrow(InjectedFault);
    expect(mem.readFile('g').toString()).toBe('abcd');
  });
});

describe('node filesystem syncs', () => {
  const make = implementations[1]![1];

  it('syncs small and large unsynced tails alike, and a failed sync of either rejects with the file named', async () => {
    const fs = make();
    const f = fs.create('f');
    f.append(Buffer.alloc(100, 1)); // synced on the calling thread
    await f.sync();
    const big = Buffer.alloc(200 * 1024, 2); // through libuv's pool
    f.append(big);
    await f.sync();
    await f.sync(); // nothing new: the cheap path
    f.close();
    const r = fs.openRead('f');
    expect(r.size).toBe(100 + big.length);
    expect(r.read(100, big.length).equals(big)).toBe(true);
    r.close();
    for (const size of [10, 200 * 1024]) {
      const g = fs.create(`g${size}`);
      g.append(Buffer.alloc(size));
      g.close(); // the descriptor is gone: fdatasync fails with EBADF
      const sync = g.sync();
      expect(sync).toBeInstanceOf(Promise);
      await expect(sync).rejects.toMatchObject({ code: 'Internal', message: expect.stringContaining(`sync g${size}`) });
    }
  });
});

describe('where node filesystem syncs run', () => {
  it('small syncs run on the loop and large ones on the pool; all go to the pool while recent syncs are slow', () => {
    const p = new SyncPlacement();
    expect(p.onLoop(10)).toBe(true);
    expect(p.onLoop(64 * 1024)).toBe(true);
    expect(p.onLoop(64 * 1024 + 1)).toBe(false);
    for (let i = 0; i < 20; i++) p.took(0.5, 100);
    p.took(300, 8 * 1024 * 1024); // a large sync (an SSTable's) is slow for its size: not counted
    expect(p.onLoop(10)).toBe(true);
    p.took(40, 100); // one slow sync: common, ignored
    expect(p.onLoop(10)).toBe(true);
    p.took(40, 100);
    p.took(40, 100); // the disk is slow for a while
    expect(p.onLoop(10)).toBe(false);
    let fast = 0;
    while (!p.onLoop(10) && fast < 100) {
      p.took(0.5, 100); // syncs on the pool that are fast again
      fast++;
    }
    expect(fast).toBeGreaterThan(2);
    expect(fast).toBeLessThan(30);
  });
});
