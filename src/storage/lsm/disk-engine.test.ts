import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FULL_RANGE } from '../../model/key-range.js';
import { createFaultFileSystem, type FsOp } from '../fs/fault-fs.js';
import type { FileSystem } from '../fs/file-system.js';
import { MemoryFileSystem } from '../fs/memory-fs.js';
import { createNodeFileSystem } from '../fs/node-fs.js';
import type { RowStore, RowWrite, StorageEngine, StoreOp } from '../store.js';
import { rowBytes } from '../row-ops.js';
import { runRowStoreConformance } from '../testing/row-store-conformance.js';
import { slowSyncFs } from '../testing/slow-sync-fs.js';
import { runSplitMergeConformance } from '../testing/split-merge-conformance.js';
import { runCloneConformance } from '../testing/clone-conformance.js';
import { openDiskEngine, type DiskEngine } from './disk-engine.js';
import type { EngineEvent } from './engine-events.js';
import type { DiskStore } from './disk-store.js';
import { runFlush } from './compaction.js';
import { encodeRecord } from '../wal/log-format.js';
import { replayLog } from '../wal/log-reader.js';

let counter = 0;

async function freshEngine(fs = new MemoryFileSystem(), manualCompaction = false): Promise<DiskEngine> {
  return openDiskEngine({
    fs,
    dir: 'db',
    manualCompaction,
    config: { memtableBytes: 4096, blockBytes: 256, compactionTrigger: 3, gcCompactionIntervalMillis: 0 },
  });
}

// Writes land in memtables (small ones, so flushes and compactions happen along the way).
runRowStoreConformance('disk engine', async () => (await freshEngine()).openStore(`s${counter++}`), { exactStats: false });

// Every write is flushed at once, so reads come from SSTables.
runRowStoreConformance(
  'disk engine, flushed after every write',
  async () => {
    const engine = await freshEngine();
    const store = await engine.openStore(`s${counter++}`);
    return new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'write') {
          return async (batch: readonly RowWrite[]) => {
            await target.write(batch);
            await engine.flushAll();
          };
        }
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    }) as RowStore;
  },
  { exactStats: false },
);

/** Waits until `cond` holds (polling; the machine may be slow), failing after 10 s. */
async function until(cond: () => boolean): Promise<void> {
  for (const start = Date.now(); !cond();) {
    if (Date.now() - start > 10_000) throw new Error('timed out waiting for a condition');
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Opens the state a crash would leave now, again and again (polling), until `check` holds; returns that engine. */
async function crashUntil(mem: MemoryFileSystem, check: (engine: DiskEngine) => Promise<boolean>): Promise<DiskEngine> {
  for (const start = Date.now(); ;) {
    const crashed = await openDiskEngine({ fs: mem.crash(), dir: 'db' });
    if (await check(crashed)) return crashed;
    await crashed.close();
    if (Date.now() - start > 10_000) throw new Error('timed out waiting for a crash state');
    await new Promise((r) => setTimeout(r, 2));
  }
}

const put = (q: string, ts: number, value: string): StoreOp => ({
  kind: 'put',
  family: 'f',
  qualifier: q,
  timestamp: ts,
  value: Buffer.from(value),
});

async function rows(store: RowStore): Promise<string[]> {
  const c = store.scan({ range: FULL_RANGE });
  const out: string[] = [];
  try {
    for (;;) {
      const r = await c.next();
      if (r === undefined) return out;
      out.push(`${r.key}:${r.cells.map((x) => `${x.qualifier}@${x.timestamp}=${Buffer.from(x.value).toString()}`).join(',')}`);
    }
  } finally {
    c.close();
  }
}

describe('disk engine durability', () => {
  it('reopens with everything written, from the log and from SSTables', async () => {
    const fs = new MemoryFileSystem();
    let engine = await freshEngine(fs);
    let store = await engine.openStore('t');
    for (let i = 0; i < 200; i++) await store.write([{ key: `k${String(i).padStart(3, '0')}`, ops: [put('q', 1000, `v${i}`)] }]);
    await engine.writeMeta('catalog', '{"x":1}');
    const before = await rows(store);
    await engine.close();
    engine = await freshEngine(fs);
    store = await engine.openStore('t');
    expect(await rows(store)).toEqual(before);
    expect(engine.readMeta('catalog')).toBe('{"x":1}');
    await engine.close();
  });

  it('survives a crash: every acknowledged write is there after reopen', async () => {
    const fs = new MemoryFileSystem();
    const engine = await freshEngine(fs);
    const store = await engine.openStore('t');
    const pending: Promise<void>[] = [];
    for (let i = 0; i < 300; i++) {
      const key = `k${String(i).padStart(3, '0')}`;
      pending.push(Promise.resolve(store.write([{ key, ops: [put('q', 1000, 'v')] }])));
      if (i % 7 === 0) await pending[pending.length - 1];
    }
    const crashed = fs.crash();
    await Promise.allSettled(pending);
    const after = await freshEngine(crashed);
    const s = await after.openStore('t');
    const keys = new Set((await rows(s)).map((r) => r.split(':')[0]));
    // The crash was taken after the loop, so every write awaited in it is durable; the others may or may not be.
    for (let i = 0; i < 300; i += 7) expect(keys.has(`k${String(i).padStart(3, '0')}`)).toBe(true);
    await after.close();
  });

  it('drops ranges, families and tables, and compaction removes the data for good', async () => {
    const fs = new MemoryFileSystem();
    const engine = await freshEngine(fs, true);
    const store = await engine.openStore('t');
    await store.write(
      Array.from({ length: 50 }, (_, i) => ({
        key: `k${String(i).padStart(2, '0')}`,
        ops: [put('q', 1000, 'a'), { kind: 'put', family: 'g', qualifier: 'q', timestamp: 1000, value: Buffer.from('b') }] as StoreOp[],
      })),
    );
    await engine.flushAll();
    await store.dropRange({ start: 'k10', end: 'k20' });
    await store.dropFamily('g');
    const expected = await rows(store);
    expect(expected).toHaveLength(40);
    expect(expected.every((r) => !r.includes('g'))).toBe(true);
    await engine.compactNow(engine['stores'].get('t')!, true);
    expect(await rows(store)).toEqual(expected);
    await engine.close();
    const again = await freshEngine(fs, true);
    expect(await rows(await again.openStore('t'))).toEqual(expected);
    await again.close();
  });
});

{
  const fss = new WeakMap<object, MemoryFileSystem>();
  const hooks = {
    settle: async (e: StorageEngine) => {
      const d = e as DiskEngine;
      await d.flushAll();
      for (const s of d['stores'].values()) await d.compactNow(s, true);
    },
    reopen: async (e: StorageEngine) => {
      const fs = fss.get(e)!;
      await e.close();
      const again = await freshEngine(fs);
      fss.set(again, fs);
      return again;
    },
  };
  const make = async (): Promise<DiskEngine> => {
    const fs = new MemoryFileSystem();
    const e = await freshEngine(fs);
    fss.set(e, fs);
    return e;
  };
  runSplitMergeConformance('disk engine', make, hooks);
  runCloneConformance('disk engine', make, hooks);
}

describe('disk engine commit-log files', () => {
  it('writes over flushed log files instead of creating new ones, and replays them right after a reopen and a crash', async () => {
    const mem = new MemoryFileSystem();
    let reused = 0;
    let created = 0;
    const fs = createFaultFileSystem(mem, (op, path) => {
      if (path.includes('wal/')) {
        if (op === 'reuse') reused++;
        if (op === 'create') created++;
      }
      return undefined;
    });
    const config = { memtableBytes: 2048, blockBytes: 256, walFileBytes: 4096 };
    const engine = await openDiskEngine({ fs, dir: 'db', config });
    const store = await engine.openStore('t');
    const value = (i: number): string => `v${i}-`.padEnd(40 + (i % 50), 'x');
    for (let i = 0; i < 600; i++) {
      await store.write([{ key: `k${String(i).padStart(4, '0')}`, ops: [put('q', 1, value(i))] }]);
      if (i % 40 === 39) await engine.flushAll();
    }
    expect(reused).toBeGreaterThan(3);
    expect(created).toBeLessThan(reused);
    // Spares are bounded: the live log, the logs not flushed yet and at most two spare files.
    expect(mem.list('db/wal').length).toBeLessThanOrEqual(4);
    expect(mem.list('db/wal').every((n) => n.endsWith('.wal'))).toBe(true);
    const want = Array.from({ length: 600 }, (_, i) => `k${String(i).padStart(4, '0')}:q@1=${value(i)}`);
    // The last writes are only in the log (a reused file, with older records past them).
    const crashed = mem.crash();
    await engine.close();
    for (const fsAfter of [mem, crashed]) {
      const reopened = await openDiskEngine({ fs: fsAfter, dir: 'db', config });
      expect(await rows(await reopened.openStore('t'))).toEqual(want);
      await reopened.close();
    }
  });

  it('a flush whose store is deleted while it waits for the commit log removes the file it wrote', async () => {
    const mem = new MemoryFileSystem();
    const { fs, hold } = holdingSyncs(mem, '/wal/');
    const engine = await openDiskEngine({ fs, dir: 'db' });
    const store = (await engine.openStore('t')) as DiskStore;
    const release = hold();
    const written = store.write([{ key: 'a', ops: [put('q', 1, 'x')] }]);
    engine.scheduleFlush(store);
    await until(() => mem.list('db/sst').length === 1);
    expect(mem.list('db/sst')).toHaveLength(1); // written, waiting for the commit log
    await engine.deleteStore('t');
    release();
    await written;
    await engine.close();
    expect(mem.list('db/sst')).toEqual([]);
  });

  it('restarts above every sequence number its files hold, even when the manifest says less', async () => {
    const mem = new MemoryFileSystem();
    const engine = await openDiskEngine({ fs: mem, dir: 'db', manualCompaction: true });
    const store = await engine.openStore('t');
    for (let i = 0; i < 5; i++) await store.write([{ key: 'k', ops: [put('q', 1, `old${i}`)] }]);
    await engine.flushAll();
    await engine.close();
    // A data directory from a version whose flushes did not wait for the commit log: a file holds
    // writes above the manifest's last sequence number, and no commit log says otherwise.
    const current = `db/${mem.readFile('db/CURRENT').toString('latin1').trim()}`;
    const { records } = replayLog(mem, current);
    const edits = records.flatMap((r) => JSON.parse(r.toString('utf8')) as { op: string }[]).filter((e) => e.op !== 'lastSeq');
    const f = mem.create(current);
    f.append(encodeRecord(Buffer.from(JSON.stringify(edits), 'utf8')));
    for (const name of mem.list('db/wal')) mem.remove(`db/wal/${name}`);
    const reopened = await openDiskEngine({ fs: mem, dir: 'db', manualCompaction: true });
    const again = await reopened.openStore('t');
    // Restarting at the manifest's word, the file's writes would sit above every reader's snapshot
    // (invisible), and new writes would take their sequence numbers.
    expect(await rows(again)).toEqual(['k:q@1=old4']);
    await again.write([{ key: 'k', ops: [put('q', 1, 'new')] }]);
    expect(await rows(again)).toEqual(['k:q@1=new']);
    await reopened.close();
  });

  it('a drop is recorded only once every earlier write is durable, so a crash cannot keep it and lose one of them', async () => {
    const mem = new MemoryFileSystem();
    const { fs, hold } = holdingSyncs(mem, '/wal/');
    const engine = await openDiskEngine({ fs, dir: 'db' });
    const s1 = await engine.openStore('s1');
    const s2 = await engine.openStore('s2');
    await s2.write([{ key: 'old', ops: [put('q', 1, 'x')] }]);
    const release = hold();
    const a = s1.write([{ key: 'a', ops: [put('q', 1, 'first')] }]);
    const drop = s2.dropRange(FULL_RANGE);
    await new Promise((r) => setTimeout(r, 20));
    // Power loss while 'a' is not synced: the drop, which came after it, must not be kept without it.
    const reopened = await openDiskEngine({ fs: mem.crash(), dir: 'db' });
    expect(await rows(await reopened.openStore('s1'))).toEqual([]);
    expect(await rows(await reopened.openStore('s2'))).toEqual(['old:q@1=x']);
    await reopened.close();
    release();
    await Promise.all([a, drop]);
    await engine.close();
    const again = await openDiskEngine({ fs: mem.crash(), dir: 'db' });
    expect(await rows(await again.openStore('s1'))).toEqual(['a:q@1=first']);
    expect(await rows(await again.openStore('s2'))).toEqual([]);
    await again.close();
  });

  it('a drop goes through the commit log: any crash that keeps a later write keeps the drop, even before the manifest records it', async () => {
    const mem = new MemoryFileSystem();
    const { fs, hold } = holdingSyncs(mem, 'MANIFEST');
    const engine = await openDiskEngine({ fs, dir: 'db' });
    const s1 = await engine.openStore('s1');
    const s2 = await engine.openStore('s2');
    await s2.write([{ key: 'old', ops: [put('q', 1, 'x')] }]);
    const release = hold();
    const drop = s2.dropRange(FULL_RANGE);
    const b = s1.write([{ key: 'b', ops: [put('q', 1, 'later')] }]);
    // The manifest cannot record the drop; crash until a crash keeps the later write 'b'.
    const kept = await crashUntil(mem, async (crashed) => (await rows(await crashed.openStore('s1'))).length > 0);
    expect(await rows(await kept.openStore('s1'))).toEqual(['b:q@1=later']);
    expect(await rows(await kept.openStore('s2'))).toEqual([]);
    // Replay recorded the drop in the manifest: it holds once the commit log it came from is gone.
    await kept.close();
    const again = await openDiskEngine({ fs: mem.crash(), dir: 'db' });
    expect(await rows(await again.openStore('s2'))).toEqual([]);
    await again.close();
    release();
    await Promise.all([drop, b]);
    await engine.close();
  });

  it('a family drop replayed from the commit log hides only the cells written before it', async () => {
    const mem = new MemoryFileSystem();
    const { fs, hold } = holdingSyncs(mem, 'MANIFEST');
    const engine = await openDiskEngine({ fs, dir: 'db' });
    const s = await engine.openStore('s');
    await s.write([
      { key: 'k', ops: [put('a', 1, 'before'), { kind: 'put', family: 'g', qualifier: 'q', timestamp: 1, value: Buffer.from('other') }] },
    ]);
    await engine.flushAll();
    await s.write([{ key: 'm', ops: [put('a', 1, 'unflushed')] }]);
    const release = hold();
    const drop = s.dropFamily('f');
    const after = s.write([{ key: 'k', ops: [put('b', 2, 'after')] }]);
    let seen: string[] = [];
    const crashed = await crashUntil(mem, async (e) => (seen = await rows(await e.openStore('s'))).some((r) => r.includes('b@2=after')));
    await crashed.close();
    // Family f's cells before the drop are gone (k:a, all of m); g's and the later write stay.
    expect(seen).toEqual(['k:b@2=after,q@1=other']);
    release();
    await Promise.all([drop, after]);
    await engine.close();
  });

  it('a flush does not make durable in a file the writes the commit log has not yet made durable', async () => {
    const mem = new MemoryFileSystem();
    const { fs, hold } = holdingSyncs(mem, '/wal/');
    const engine = await openDiskEngine({ fs, dir: 'db' });
    const s1 = await engine.openStore('s1');
    const s2 = (await engine.openStore('s2')) as DiskStore;
    await s1.write([{ key: 'warm', ops: [put('q', 1, 'x')] }]);
    const release = hold();
    const a = s1.write([{ key: 'a', ops: [put('q', 1, 'first')] }]);
    const b = s2.write([{ key: 'b', ops: [put('q', 1, 'second')] }]);
    // s2 alone is flushed while the commit-log group holding 'a' and then 'b' is not synced.
    engine.scheduleFlush(s2);
    await until(() => mem.list('db/sst').length > 0); // s2's file is written; the flush waits to record it
    expect(s2.imms).toHaveLength(1); // the flush waits for the commit log
    // Power loss: the group is lost. Had the flush recorded its file, 'b' would be back without 'a'
    // (and, with sequence numbers above what the engine restarts from, shadowed until later writes pass them).
    const reopened = await openDiskEngine({ fs: mem.crash(), dir: 'db', manualCompaction: true });
    const r1 = await reopened.openStore('s1');
    await r1.write([{ key: 'c', ops: [put('q', 1, 'third')] }]);
    await r1.write([{ key: 'd', ops: [put('q', 1, 'fourth')] }]);
    expect(await rows(r1)).toEqual(['c:q@1=third', 'd:q@1=fourth', 'warm:q@1=x']);
    expect(await rows(await reopened.openStore('s2'))).toEqual([]);
    await reopened.close();
    release();
    await Promise.all([a, b]);
    await engine.close();
    const again = await openDiskEngine({ fs: mem.crash(), dir: 'db', manualCompaction: true });
    expect(await rows(await again.openStore('s2'))).toEqual(['b:q@1=second']);
    expect(await rows(await again.openStore('s1'))).toEqual(['a:q@1=first', 'warm:q@1=x']);
    await again.close();
  });

  it('writes nothing to a new log before the old one is durable, so a crash leaves a prefix of the writes across logs', async () => {
    const mem = new MemoryFileSystem();
    let hang: string | undefined;
    let release!: () => void;
    const hung = new Promise<void>((r) => (release = r));
    const fs = slowSyncFs(mem, (path) => (path === hang ? hung : Promise.resolve()));
    const config = { walFileBytes: 1 }; // every write fills its log: the next one goes to a new log
    const engine = await openDiskEngine({ fs, dir: 'db', config });
    const store = await engine.openStore('t');
    const [first] = mem.list('db/wal');
    hang = `db/wal/${first}`;
    let acked = 0;
    const a = Promise.resolve(store.write([{ key: 'a', ops: [put('q', 1, 'first')] }])).then(() => acked++);
    await until(() => mem.list('db/wal').length > 1);
    await new Promise((r) => setTimeout(r, 20)); // the rotation is recorded
    expect(mem.list('db/wal').length).toBeGreaterThan(1);
    // This write goes to the new log, whose first group waits for the old log's sync.
    const b = Promise.resolve(store.write([{ key: 'b', ops: [put('q', 1, 'second')] }])).then(() => acked++);
    await new Promise((r) => setTimeout(r, 20));
    expect(acked).toBe(0);
    // Power loss: the old log's last group was never synced. Without the wait, the new log's
    // record of 'b' would be on disk and come back without 'a', which was written before it.
    const reopened = await openDiskEngine({ fs: mem.crash(), dir: 'db', config });
    expect(await rows(await reopened.openStore('t'))).toEqual([]);
    await reopened.close();
    release();
    await Promise.all([a, b]);
    expect(acked).toBe(2);
    await engine.close();
    const again = await openDiskEngine({ fs: mem.crash(), dir: 'db', config });
    expect(await rows(await again.openStore('t'))).toEqual(['a:q@1=first', 'b:q@1=second']);
    await again.close();
  });
});

/** A filesystem whose syncs of files whose path contains `which` wait while held (hold() returns the release). */
function holdingSyncs(mem: MemoryFileSystem, which: string): { fs: FileSystem; hold(): () => void } {
  let held: Promise<void> | undefined;
  const fs = slowSyncFs(mem, async (path) => {
    if (held !== undefined && path.includes(which)) await held;
  });
  return {
    fs,
    hold: () => {
      let release!: () => void;
      held = new Promise((r) => (release = r));
      return () => {
        held = undefined;
        release();
      };
    },
  };
}

describe('disk engine commit-log damage', () => {
  /** Ten acknowledged writes, then a crash: the commit log alone holds them. */
  async function crashedAfterTenWrites(): Promise<{ fs: MemoryFileSystem; wal: string }> {
    const mem = new MemoryFileSystem();
    const engine = await openDiskEngine({ fs: mem, dir: 'db', manualCompaction: true });
    const store = await engine.openStore('t');
    for (let i = 0; i < 10; i++) await store.write([{ key: `k${i}`, ops: [put('q', 1, `value-${i}-here`)] }]);
    const fs = mem.crash();
    await engine.close();
    const wal = fs.list('db/wal').find((n) => fs.readFile(`db/wal/${n}`).includes('value-9-here'));
    if (wal === undefined) throw new Error('no commit log holds the writes');
    return { fs, wal: `db/wal/${wal}` };
  }

  /** The crashed files with one byte flipped inside the record holding `value`. */
  async function damaged(value: string): Promise<{ fs: MemoryFileSystem; offset: number; file: string }> {
    const { fs, wal } = await crashedAfterTenWrites();
    const data = fs.readFile(wal);
    const at = data.indexOf(value);
    data[at] = (data[at] ?? 0) ^ 0xff;
    const f = fs.create(wal);
    f.append(data);
    await f.sync();
    f.close();
    return { fs, offset: at, file: wal };
  }

  const open = async (fs: FileSystem, salvage = false): Promise<{ engine: DiskEngine; events: EngineEvent[] }> => {
    const events: EngineEvent[] = [];
    const engine = await openDiskEngine({
      fs,
      dir: 'db',
      manualCompaction: true,
      salvageCommitLog: salvage,
      onEvent: (e) => events.push(e),
    });
    return { engine, events };
  };
  const want = (skip: number): string[] =>
    Array.from({ length: 10 }, (_, i) => i)
      .filter((i) => i !== skip)
      .map((i) => `k${i}:q@1=value-${i}-here`);

  it('says which bytes of which file it dropped when the last record is damaged', async () => {
    const { fs, offset, file } = await damaged('value-9-here');
    const { engine, events } = await open(fs);
    expect(await rows(await engine.openStore('t'))).toEqual(want(9));
    const recovered = events.find((e) => e.kind === 'recovered');
    expect(recovered?.kind === 'recovered' && recovered.logDamage).toEqual([
      {
        file: expect.stringContaining(file) as unknown,
        offset: expect.any(Number) as unknown,
        bytes: expect.any(Number) as unknown,
        where: 'tail',
      },
    ]);
    const d = recovered?.kind === 'recovered' ? recovered.logDamage[0] : undefined;
    // The damaged record starts before the flipped byte and is dropped whole, its value included.
    expect(d!.offset).toBeLessThan(offset);
    expect(d!.offset + d!.bytes).toBeGreaterThanOrEqual(offset + 'value-9-here'.length);
    await engine.close();
  });

  it('refuses damage in the middle, naming tabletop repair; salvaging skips only the damaged record and says so', async () => {
    const { fs, offset } = await damaged('value-4-here');
    await expect(open(fs)).rejects.toThrow(/corrupt at offset \d+ .*tabletop repair/);
    const { engine, events } = await open(fs, true);
    expect(await rows(await engine.openStore('t'))).toEqual(want(4));
    const recovered = events.find((e) => e.kind === 'recovered');
    const damage = recovered?.kind === 'recovered' ? recovered.logDamage : [];
    expect(damage.map((d) => d.where)).toEqual(['middle']);
    expect(damage[0]!.offset).toBeLessThan(offset);
    await engine.close();
    // Salvaged for good: the replayed rows went to SSTables and the damaged log is gone, so a plain open works.
    const { engine: again, events: later } = await open(fs);
    expect(await rows(await again.openStore('t'))).toEqual(want(4));
    expect(later.find((e) => e.kind === 'recovered')).toMatchObject({ logDamage: [] });
    await again.close();
  });
});

describe('disk engine commit-log bookkeeping under concurrent manifest writes', () => {
  it('a log rotated while obsolete logs are being dropped is not forgotten (its rows survive a crash), and no spare is listed twice', async () => {
    const mem = new MemoryFileSystem();
    const { fs, hold } = holdingSyncs(mem, 'MANIFEST');
    const engine = await openDiskEngine({ fs, dir: 'db', manualCompaction: true, config: { walFileBytes: 1 << 30 } });
    const h = await engine.openStore('h');
    const c = await engine.openStore('c');
    const flush = async (id: string): Promise<void> => {
      const st = engine['stores'].get(id)!;
      engine['rotate'](st, 'requested');
      await runFlush(engine, st);
    };
    await h.write([{ key: 'h0', ops: [put('q', 1, 'h0')] }]);
    await engine['log'].start();
    await c.write([{ key: 'c1', ops: [put('q', 1, 'c1')] }]);
    await engine['log'].start();
    await flush('h'); // the first log is obsolete now
    await h.write([{ key: 'h2', ops: [put('q', 1, 'h2')] }]); // acknowledged, in the third log
    const release = hold();
    const rotation = engine['log'].start(); // retires the third log once its manifest record is synced
    await new Promise((r) => setImmediate(r));
    const drops = [engine.dropObsoleteWals(), engine.dropObsoleteWals()];
    release();
    await Promise.all([rotation, ...drops]);
    expect(engine['log']['spares']).toHaveLength(new Set(engine['log']['spares']).size);
    await flush('c');
    await engine.dropObsoleteWals();
    const reopened = await openDiskEngine({ fs: mem.crash(), dir: 'db', config: {} });
    expect(await rows(await reopened.openStore('h'))).toEqual(['h0:q@1=h0', 'h2:q@1=h2']);
    await reopened.close();
    await engine.close();
  });
});

describe('disk engine block cache', () => {
  it('a compaction reads its inputs without filling the cache, so the blocks reads use stay cached', async () => {
    const engine = await openDiskEngine({
      fs: new MemoryFileSystem(),
      dir: 'db',
      manualCompaction: true,
      config: { memtableBytes: 1 << 20, blockBytes: 256, blockCacheBytes: 32 * 1024 },
    });
    const hot = await engine.openStore('hot');
    const big = await engine.openStore('big');
    for (let i = 0; i < 20; i++)
      await hot.write([{ key: `h${String(i).padStart(3, '0')}`, ops: [put('q', 1, `hot-${i}`.padEnd(60, '.'))] }]);
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 400; i++)
        await big.write([{ key: `b${String(i).padStart(3, '0')}`, ops: [put('q', round + 1, `v${round}-${i}`.padEnd(60, '.'))] }]);
      await engine.flushAll();
    }
    expect(await rows(hot)).toHaveLength(20);
    const cached = engine.cache.stats().entries;
    expect(cached).toBeGreaterThan(0);
    const missesBefore = engine.cache.stats().misses;
    await engine.compactNow(engine['stores'].get('big')!, true);
    // The compaction read ~200 KiB of blocks (6x the cache) and missed on every one of them...
    expect(engine.cache.stats().misses - missesBefore).toBeGreaterThan(100);
    // ...yet the hot store's blocks are all still there.
    expect(engine.cache.stats().entries).toBe(cached);
    const misses = engine.cache.stats().misses;
    expect(await rows(hot)).toHaveLength(20);
    expect(engine.cache.stats().misses).toBe(misses);
    expect(await rows(big)).toHaveLength(400);
    await engine.close();
  });
});

describe('disk engine with build workers', () => {
  /** Rows of random bytes (they do not compress), `rounds` flushed SSTables of every row. */
  async function loaded(events: EngineEvent[], rounds: number, perRound: number): Promise<{ engine: DiskEngine; mem: MemoryFileSystem }> {
    const mem = new MemoryFileSystem();
    const engine = await openDiskEngine({
      fs: mem,
      dir: 'db',
      manualCompaction: true,
      config: { memtableBytes: 64 << 20, blockBytes: 4096, backgroundThreads: 1 },
      onEvent: (e) => events.push(e),
    });
    const store = await engine.openStore('t');
    for (let round = 0; round < rounds; round++) {
      const batch: RowWrite[] = [];
      for (let i = 0; i < perRound; i++)
        batch.push({ key: `r${String(i).padStart(5, '0')}`, ops: [put('q', round + 1, randomBytes(150).toString('latin1'))] });
      await store.write(batch);
      await engine.flushAll();
    }
    return { engine, mem };
  }

  it('builds flushes and compactions on a worker thread, and the rows read back the same', async () => {
    const events: EngineEvent[] = [];
    const { engine } = await loaded(events, 3, 2000);
    const built = engine.builders!.completedBuilds;
    const store = await engine.openStore('t');
    const before = await rows(store);
    expect(before).toHaveLength(2000);
    await engine.compactNow(engine['stores'].get('t')!, true);
    expect(engine.builders!.completedBuilds).toBe(built + 1);
    expect(engine['stores'].get('t')!.files).toHaveLength(1);
    expect(await rows(store)).toEqual(before);
    expect(events.filter((e) => e.kind === 'flushed')).toHaveLength(3);
    expect(events.some((e) => e.kind === 'worker-lost')).toBe(false);
    await engine.close();
  });

  it('a worker that dies mid-compaction: the compaction is redone on the engine thread, nothing is lost, and the engine says so', async () => {
    const events: EngineEvent[] = [];
    const { engine, mem } = await loaded(events, 4, 6000);
    const store = await engine.openStore('t');
    const before = await rows(store);
    const pool = engine.builders!;
    const compaction = engine.compactNow(engine['stores'].get('t')!, true);
    await until(() => pool.activeBuilds > 0);
    pool.crashWorkers();
    await compaction;
    const lost = events.filter((e) => e.kind === 'worker-lost');
    expect(lost).toEqual([
      {
        kind: 'worker-lost',
        store: 't',
        job: 'compaction',
        worker: 1,
        reason: expect.stringMatching(/background worker 1 died: .*code 1/),
      },
    ]);
    expect(events.filter((e) => e.kind === 'compacted')).toHaveLength(1);
    expect(engine['stores'].get('t')!.files).toHaveLength(1);
    expect(await rows(store)).toEqual(before);
    // Only the compacted file and nothing half-built is left, and a crash right now keeps every row.
    await engine.close();
    expect(mem.list('db/sst')).toHaveLength(1);
    const reopened = await openDiskEngine({ fs: mem.crash(), dir: 'db', manualCompaction: true });
    expect(await rows(await reopened.openStore('t'))).toEqual(before);
    await reopened.close();
  });

  it('a compaction whose file a worker builds stops when a split wants the store, leaving the files as they were', async () => {
    const events: EngineEvent[] = [];
    const { engine, mem } = await loaded(events, 4, 6000);
    const store = await engine.openStore('t');
    const before = await rows(store);
    const ds = engine['stores'].get('t')!;
    const files = mem.list('db/sst');
    const compaction = engine.compactNow(ds, true);
    await until(() => engine.builders!.activeBuilds > 0);
    ds.yieldCompaction = true;
    await compaction;
    ds.yieldCompaction = false;
    expect(events.filter((e) => e.kind === 'compacted' || e.kind === 'worker-lost')).toEqual([]);
    expect(ds.files).toHaveLength(4);
    expect(mem.list('db/sst')).toEqual(files);
    expect(await rows(store)).toEqual(before);
    await engine.compactNow(ds, true);
    expect(ds.files).toHaveLength(1);
    expect(await rows(store)).toEqual(before);
    await engine.close();
  });
});

describe('disk engine flushes beside compactions', () => {
  it('a flush during a major compaction neither waits for it nor brings back rows a range drop removed', async () => {
    const engine = await openDiskEngine({
      fs: new MemoryFileSystem(),
      dir: 'db',
      manualCompaction: true,
      config: { memtableBytes: 1 << 20, blockBytes: 256, backgroundSliceMillis: 0 },
    });
    const store = await engine.openStore('t');
    for (let f = 0; f < 2; f++) {
      for (let i = 0; i < 300; i++)
        await store.write([{ key: `b${f}${String(i).padStart(3, '0')}`, ops: [put('q', 1, 'old'.padEnd(40, '.'))] }]);
      await engine.flushAll();
    }
    // Rows written once (their fragments are flushed as they are), then dropped while still in the memtable.
    for (let i = 0; i < 10; i++) await store.write([{ key: `d${i}`, ops: [put('q', 1, 'doomed')] }]);
    await store.dropRange({ start: 'd', end: 'e' });
    const ds = engine['stores'].get('t')!;
    let compacted = false;
    const compaction = engine.compactNow(ds, true).then(() => (compacted = true));
    await new Promise((r) => setImmediate(r));
    engine['rotate'](ds, 'requested');
    await engine['background'].add('flush', 't', () => engine['flushStore'](ds));
    expect(compacted).toBe(false); // the flush did not wait for the compaction
    expect(ds.imms).toHaveLength(0);
    await compaction;
    expect((await rows(store)).filter((r) => r.startsWith('d'))).toEqual([]);
    await engine.close();
  });
});

describe('disk engine splits', () => {
  it('children share the parent files until their compactions rewrite them, then the files go', async () => {
    const fs = new MemoryFileSystem();
    const engine = await freshEngine(fs, true);
    const parent = await engine.openStore('p');
    await parent.write(Array.from({ length: 100 }, (_, i) => ({ key: `k${String(i).padStart(3, '0')}`, ops: [put('q', 1000, 'v')] })));
    await engine.flushAll();
    const before = fs.list('db/sst');
    expect(before).toHaveLength(1);
    await engine.splitStore('p', 'k050', 'l', 'r');
    expect(fs.list('db/sst')).toEqual(before);
    const stores = engine['stores'];
    expect(stores.get('l')!.files[0]).toBe(stores.get('r')!.files[0]);
    await engine.compactNow(stores.get('l')!, true);
    expect(fs.list('db/sst')).toContain(before[0]);
    await engine.compactNow(stores.get('r')!, true);
    expect(fs.list('db/sst')).not.toContain(before[0]);
    expect(fs.list('db/sst')).toHaveLength(2);
    expect(await rows(await engine.openStore('l'))).toHaveLength(50);
    expect(await rows(await engine.openStore('r'))).toHaveLength(50);
    await engine.close();
  });
});

describe('disk engine splits during a compaction', () => {
  it('a split does not wait for a running compaction of its store: the compaction gives up, its output goes, and the children share the inputs', async () => {
    const mem = new MemoryFileSystem();
    const engine = await openDiskEngine({
      fs: mem,
      dir: 'db',
      manualCompaction: true,
      config: { blockBytes: 256, backgroundSliceMillis: 0 },
    });
    const store = await engine.openStore('p');
    for (let f = 0; f < 3; f++) {
      await store.write(Array.from({ length: 2000 }, (_, i) => ({ key: `k${String(i).padStart(4, '0')}`, ops: [put('q', f, `v${f}`)] })));
      await engine.flushAll();
    }
    const inputs = mem.list('db/sst');
    expect(inputs).toHaveLength(3);
    const ds = engine['stores'].get('p')!;
    let compacted = false;
    // A major compaction yields after every row (slices of 0 ms): it runs for thousands of event-loop turns.
    const compaction = engine.compactNow(ds, true).then(() => (compacted = true));
    await until(() => mem.list('db/sst').length === 4); // its output file is being written
    await engine.splitStore('p', 'k1000', 'l', 'r');
    expect(compacted).toBe(true); // it ended (gave up) before the split ran
    await compaction;
    // Nothing of the compaction was installed: the children list the three inputs, and its output is gone.
    expect(mem.list('db/sst')).toEqual(inputs);
    const stores = engine['stores'];
    expect(stores.get('l')!.files.map((f) => f.meta.number)).toHaveLength(3);
    expect(await rows(await engine.openStore('l'))).toHaveLength(1000);
    expect((await rows(await engine.openStore('r')))[0]).toBe('k1000:q@2=v2,q@1=v1,q@0=v0');
    // The children compact as usual later.
    await engine.compactNow(stores.get('l')!, true);
    expect(stores.get('l')!.files).toHaveLength(1);
    await engine.close();
  });
});

describe('disk engine file references', () => {
  it('a range drop and a compaction retiring the same file let go of it once: open cursors keep it', async () => {
    const fs = new MemoryFileSystem();
    const engine = await openDiskEngine({ fs, dir: 'db', manualCompaction: true, config: { backgroundSliceMillis: 0 } });
    const store = await engine.openStore('t');
    await store.write([{ key: 'a1', ops: [put('q', 1000, 'x')] }]);
    await engine.flushAll();
    await store.write([
      { key: 'b1', ops: [put('q', 1000, 'y')] },
      { key: 'b2', ops: [put('q', 1000, 'z')] },
    ]);
    await engine.flushAll();
    const inputs = fs.list('db/sst');
    expect(inputs).toHaveLength(2);
    const cursor = store.scan({ range: FULL_RANGE });
    // The compaction takes both files; while it runs, the drop retires the file holding only a1.
    const compaction = engine.compactNow(engine['stores'].get('t')!, true);
    await store.dropRange({ start: 'a', end: 'b' });
    await compaction;
    // The cursor opened before both still holds both input files.
    for (const name of inputs) expect(fs.list('db/sst')).toContain(name);
    cursor.close();
    for (const name of inputs) expect(fs.list('db/sst')).not.toContain(name);
    expect(await rows(store)).toEqual(['b1:q@1000=y', 'b2:q@1000=z']);
    await engine.close();
  });
});

describe('disk engine background work the system fails', () => {
  const config = { memtableBytes: 2048, blockBytes: 256, compactionTrigger: 3, walFileBytes: 8192 };
  const key = (i: number): string => `k${String(i).padStart(4, '0')}`;
  const value = (i: number): string => `v${i}-`.padEnd(60, 'x');

  /** An engine over a file system that fails `ops` on paths containing `where` with `errno` while `faulty()`. */
  async function engineWith(where: string, ops: readonly FsOp[], fate: 'short' | `E${string}`) {
    const mem = new MemoryFileSystem();
    let on = false;
    let failures = 0;
    const fs = createFaultFileSystem(mem, (op, path) => {
      if (!on || !path.includes(where) || !ops.includes(op)) return undefined;
      failures++;
      return fate;
    });
    const events: EngineEvent[] = [];
    const errors: unknown[] = [];
    const engine = await openDiskEngine({
      fs,
      dir: 'db',
      config,
      onEvent: (e) => events.push(e),
      onBackgroundError: (e) => errors.push(e),
    });
    return { mem, engine, events, errors, fail: (v: boolean) => void (on = v), failures: () => failures };
  }

  it('retries flushes that find no file descriptor (EMFILE) and takes writes meanwhile; nothing is lost', async () => {
    const t = await engineWith('/sst/', ['create'], 'EMFILE');
    const store = await t.engine.openStore('t');
    t.fail(true);
    for (let i = 0; i < 150; i++) await store.write([{ key: key(i), ops: [put('q', 1, value(i))] }]);
    await until(() => t.events.filter((e) => e.kind === 'background-retry').length >= 2);
    const retries = t.events.filter((e) => e.kind === 'background-retry');
    expect(retries[0]).toMatchObject({ job: 'flush', store: 't', errno: 'EMFILE' });
    // Backing off: each wait at least the one before.
    const waits = retries.map((e) => (e.kind === 'background-retry' ? e.delayMillis : 0));
    expect(waits[1]).toBeGreaterThan(waits[0]!);
    expect(t.mem.list('db/sst')).toEqual([]);
    t.fail(false);
    await until(() => t.events.some((e) => e.kind === 'flushed'));
    await t.engine.flushAll();
    for (let i = 150; i < 160; i++) await store.write([{ key: key(i), ops: [put('q', 1, value(i))] }]);
    expect(await rows(store)).toEqual(Array.from({ length: 160 }, (_, i) => `${key(i)}:q@1=${value(i)}`));
    expect(t.errors).toEqual([]);
    await t.engine.close();
    // And durable: every write is back after a crash.
    const after = await openDiskEngine({ fs: t.mem.crash(), dir: 'db', config });
    expect(await rows(await after.openStore('t'))).toHaveLength(160);
    await after.close();
  });

  it('a compaction that fills the disk (ENOSPC mid-file) is retried, leaves no half-written file, and writes go on', async () => {
    const t = await engineWith('/sst/', ['append'], 'short');
    const store = await t.engine.openStore('t');
    for (let i = 0; i < 60; i++) {
      await store.write([{ key: key(i), ops: [put('q', 1, value(i))] }]);
      if (i % 20 === 19) await t.engine.flushAll();
    }
    const before = t.mem.list('db/sst');
    t.fail(true);
    const compaction = t.engine.compactNow(t.engine['stores'].get('t')!, true);
    await expect(compaction).rejects.toMatchObject({ errno: 'ENOSPC' });
    expect(t.events.find((e) => e.kind === 'background-retry')).toMatchObject({ job: 'compaction', errno: 'ENOSPC' });
    // The inputs are all there, and nothing else.
    expect(t.mem.list('db/sst')).toEqual(before);
    await store.write([{ key: key(60), ops: [put('q', 1, value(60))] }]);
    t.fail(false);
    await until(() => t.events.some((e) => e.kind === 'compacted'));
    expect(await rows(store)).toEqual(Array.from({ length: 61 }, (_, i) => `${key(i)}:q@1=${value(i)}`));
    expect(t.errors).toEqual([]);
    await t.engine.close();
  });

  it('a commit-log file that cannot be started keeps the writes in the current one, and a later rotation succeeds', async () => {
    const t = await engineWith('/wal/', ['create', 'reuse', 'rename'], 'EMFILE');
    const store = await t.engine.openStore('t');
    t.fail(true);
    for (let i = 0; i < 300; i++) await store.write([{ key: key(i), ops: [put('q', 1, value(i))] }]);
    expect(t.failures()).toBeGreaterThan(0);
    // Backed off between tries, not one try per write.
    expect(t.failures()).toBeLessThan(20);
    expect(t.events.find((e) => e.kind === 'background-retry')).toMatchObject({ job: 'commit-log rotation', errno: 'EMFILE' });
    t.fail(false);
    const files = t.mem.list('db/wal').length;
    await new Promise((r) => setTimeout(r, 250));
    for (let i = 300; i < 400; i++) await store.write([{ key: key(i), ops: [put('q', 1, value(i))] }]);
    expect(t.mem.list('db/wal').length + t.events.filter((e) => e.kind === 'flushed').length).toBeGreaterThan(files);
    await t.engine.close();
    const after = await openDiskEngine({ fs: t.mem.crash(), dir: 'db', config });
    expect(await rows(await after.openStore('t'))).toHaveLength(400);
    await after.close();
  });
});

describe('disk engine on the real disk', () => {
  it('deletes the inputs of a compaction off the serving thread, and close() waits for the deletions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tabletop-remove-'));
    try {
      const fs = createNodeFileSystem(dir);
      let removedInBackground = 0;
      const counting: FileSystem = {
        ...fs,
        removeInBackground: (p) => {
          removedInBackground++;
          return fs.removeInBackground!(p);
        },
      };
      const engine = await openDiskEngine({ fs: counting, dir: 'db', manualCompaction: true });
      const store = await engine.openStore('t');
      for (let i = 0; i < 3; i++) {
        await store.write([{ key: `k${i}`, ops: [put('q', 1, `v${i}`)] }]);
        await engine.flushAll();
      }
      expect(fs.list('db/sst')).toHaveLength(3);
      await engine.compactNow(engine['stores'].get('t')!, true);
      expect(await rows(store)).toEqual(['k0:q@1=v0', 'k1:q@1=v1', 'k2:q@1=v2']);
      await engine.close();
      expect(removedInBackground).toBe(3);
      expect(fs.list('db/sst')).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('disk engine on a full disk', () => {
  it('refuses writes with ResourceExhausted while less than the reserve is free, serves reads, and takes writes again once space is back', async () => {
    const mem = new MemoryFileSystem();
    let free = 500 * 2 ** 20;
    const fs = createFaultFileSystem(mem, () => undefined, { freeBytes: () => free });
    const events: EngineEvent[] = [];
    const engine = await openDiskEngine({ fs, dir: 'db', config: { minFreeDiskBytes: 100 * 2 ** 20 }, onEvent: (e) => events.push(e) });
    const store = await engine.openStore('t');
    await store.write([{ key: 'a', ops: [put('q', 1, 'before')] }]);
    // Another process fills the disk.
    free = 50 * 2 ** 20;
    await until(() => events.some((e) => e.kind === 'disk-full'));
    let refused: unknown;
    try {
      await store.write([{ key: 'b', ops: [put('q', 1, 'while full')] }]);
    } catch (e) {
      refused = e;
    }
    expect(refused).toMatchObject({
      code: 'ResourceExhausted',
      message: expect.stringMatching(
        /disk of the data directory db is full: 50\.0 MiB free, less than the 100\.0 MiB kept in reserve.*resume by themselves, reads go on/,
      ) as unknown,
    });
    expect(await rows(store)).toEqual(['a:q@1=before']);
    expect(events.find((e) => e.kind === 'disk-full')).toEqual({ kind: 'disk-full', freeBytes: 50 * 2 ** 20, reserveBytes: 100 * 2 ** 20 });
    // Space is freed: writes resume without a restart.
    free = 400 * 2 ** 20;
    await until(() => events.some((e) => e.kind === 'disk-space-back'));
    await store.write([{ key: 'c', ops: [put('q', 1, 'after')] }]);
    expect(await rows(store)).toEqual(['a:q@1=before', 'c:q@1=after']);
    await engine.close();
  });

  it('refuses a write that would eat into the reserve, and only that write', async () => {
    const mem = new MemoryFileSystem();
    const fs = createFaultFileSystem(mem, () => undefined, { freeBytes: () => 3 * 2 ** 20 });
    const engine = await openDiskEngine({ fs, dir: 'db', config: { minFreeDiskBytes: 2 ** 20 } });
    const store = await engine.openStore('t');
    await expect((async () => store.write([{ key: 'big', ops: [put('q', 1, 'x'.repeat(3 * 2 ** 20))] }]))()).rejects.toMatchObject({
      code: 'ResourceExhausted',
      message: expect.stringMatching(/a write of 3\.0 MiB does not fit on the disk/) as unknown,
    });
    await store.write([{ key: 'small', ops: [put('q', 1, 'fits')] }]);
    expect(await rows(store)).toEqual(['small:q@1=fits']);
    await engine.close();
  });
});

describe('disk engine manifest failures', () => {
  it('a store whose creation failed to reach the manifest takes no writes', async () => {
    const mem = new MemoryFileSystem();
    let failNext = false;
    const fs = createFaultFileSystem(mem, (op, path) => {
      if (failNext && op === 'sync' && path.includes('MANIFEST')) {
        failNext = false;
        return 'error';
      }
      return undefined;
    });
    const engine = await openDiskEngine({ fs, dir: 'db', manualCompaction: true });
    failNext = true;
    await expect(engine.openStore('t')).rejects.toThrow(/injected/);
    // Opening it again must not hand out a store the manifest does not know: its writes would be
    // acknowledged from the commit log and then ignored by recovery.
    const again = (async () => {
      const s = await engine.openStore('t');
      await s.write([{ key: 'k', ops: [put('q', 1000, 'v')] }]);
    })();
    await expect(again).rejects.toMatchObject({ code: 'Unavailable' });
    await engine.close();
  });
});

describe('opening on a full disk', () => {
  it('serves reads, refuses writes with ResourceExhausted, and takes them once its start-up writes succeed', async () => {
    const mem = new MemoryFileSystem();
    const first = await openDiskEngine({ fs: mem, dir: 'db' });
    const before = await first.openStore('t');
    for (const k of ['a', 'b', 'c']) await before.write([{ key: k, ops: [put('q', 1, `v${k}`)] }]);
    await first.close();

    let full = true;
    const fs = createFaultFileSystem(mem, (op) => (full && (op === 'create' || op === 'append' || op === 'reuse') ? 'ENOSPC' : undefined));
    const events: EngineEvent[] = [];
    const engine = await openDiskEngine({ fs, dir: 'db', onEvent: (e) => events.push(e) });
    const store = await engine.openStore('t');
    // Replayed from the commit log, which stays where it is.
    expect(await rows(store)).toEqual(['a:q@1=va', 'b:q@1=vb', 'c:q@1=vc']);
    await expect((async () => store.write([{ key: 'd', ops: [put('q', 1, 'vd')] }]))()).rejects.toMatchObject({
      code: 'ResourceExhausted',
      message: expect.stringMatching(/was full when the server started \(ENOSPC\): reads are served/) as unknown,
    });
    expect(events.filter((e) => e.kind === 'start-writes')).toEqual([
      { kind: 'start-writes', state: 'deferred', errno: 'ENOSPC', reason: expect.stringMatching(/ENOSPC/) as unknown },
    ]);
    full = false;
    const deadline = Date.now() + 5000;
    while (!events.some((e) => e.kind === 'start-writes' && e.state === 'done')) {
      if (Date.now() > deadline) throw new Error('the start-up writes were not retried within 5 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    await store.write([{ key: 'd', ops: [put('q', 1, 'vd')] }]);
    await engine.close();

    const again = await openDiskEngine({ fs: mem, dir: 'db' });
    expect(await rows(await again.openStore('t'))).toEqual(['a:q@1=va', 'b:q@1=vb', 'c:q@1=vc', 'd:q@1=vd']);
    // Only the files in use: the failed tries left no manifest or commit log behind.
    expect(mem.list('db').filter((f) => f.startsWith('MANIFEST'))).toHaveLength(1);
    expect(mem.list('db/wal')).toHaveLength(1);
    await again.close();
  });
});

describe('a commit-log sync the disk fails', () => {
  it('fails the writes that waited for it, refuses later ones, says so once, and keeps serving reads', async () => {
    const mem = new MemoryFileSystem();
    let failSync = false;
    const fs = createFaultFileSystem(mem, (op, path) => (failSync && op === 'sync' && path.includes('wal') ? 'EIO' : undefined));
    const events: EngineEvent[] = [];
    const engine = await openDiskEngine({ fs, dir: 'db', manualCompaction: true, onEvent: (e) => events.push(e) });
    const store = await engine.openStore('t');
    await store.write([{ key: 'a', ops: [put('q', 1, 'durable')] }]);
    failSync = true;
    await expect((async () => store.write([{ key: 'b', ops: [put('q', 1, 'lost')] }]))()).rejects.toMatchObject({
      code: 'Unavailable',
      message: expect.stringMatching(/refused until restart/) as unknown,
    });
    failSync = false;
    // Never retried: the next write is refused although the disk would take it now.
    await expect((async () => store.write([{ key: 'c', ops: [put('q', 1, 'refused')] }]))()).rejects.toMatchObject({ code: 'Unavailable' });
    expect(await rows(store)).toEqual(['a:q@1=durable']);
    const failed = events.filter((e) => e.kind === 'storage-failed');
    expect(failed).toEqual([{ kind: 'storage-failed', errno: 'EIO', reason: expect.stringMatching(/refused until restart/) as unknown }]);
    await engine.close();
  });
});

describe('disk engine memtable accounting', () => {
  it('keeps its running totals of memtable bytes equal to the sum over the stores', async () => {
    const engine = await openDiskEngine({
      fs: new MemoryFileSystem(),
      dir: 'db',
      config: { memtableBytes: 2048, totalMemtableBytes: 6000, blockBytes: 256 },
    });
    const totals = (): { active: number; unflushed: number } => {
      let active = 0;
      let unflushed = 0;
      for (const s of engine['stores'].values()) {
        active += s.mem.bytes;
        unflushed += s.mem.bytes;
        for (const m of s.imms) unflushed += m.bytes;
      }
      return { active, unflushed };
    };
    const check = (): void => expect({ active: engine['activeMemBytes'], unflushed: engine['unflushedMemBytes'] }).toEqual(totals());
    const stores = await Promise.all(['a', 'b', 'c'].map((id) => engine.openStore(id)));
    for (let i = 0; i < 300; i++) {
      const store = stores[i % 3]!;
      await store.write([{ key: `k${String(i).padStart(3, '0')}`, ops: [put('q', 1000, 'v'.repeat(i % 50))] }]);
      if (i % 37 === 0) check();
    }
    await engine.splitStore('a', 'k150', 'a1', 'a2');
    check();
    await engine.mergeStores('a1', 'a2', 'a3');
    check();
    await (await engine.openStore('b')).write([{ key: 'x', ops: [put('q', 1, 'v')] }]);
    await engine.deleteStore('b');
    check();
    await engine.flushAll();
    check();
    expect(engine['unflushedMemBytes']).toBe(0);
    await engine.close();
  });
});

describe('disk engine stats', () => {
  it('report stored (compressed) bytes and logical bytes apart, and say which figures are estimates', async () => {
    const engine = await openDiskEngine({ fs: new MemoryFileSystem(), dir: 'db', manualCompaction: true });
    const store = await engine.openStore('p');
    const key = (i: number): string => `k${String(i).padStart(4, '0')}`;
    // Compressible values: lz4 shrinks them many times over on disk.
    await store.write(Array.from({ length: 400 }, (_, i) => ({ key: key(i), ops: [put('q', 1000, 'abcd'.repeat(250))] })));
    const inMemtable = store.stats();
    // In the memtable: the logical bytes are the fragments; stored bytes add the memtable's per-entry charge.
    expect(inMemtable.logicalBytes).toBeGreaterThan(400 * 1000);
    expect(inMemtable.bytes).toBeGreaterThan(inMemtable.logicalBytes);
    expect(inMemtable).toMatchObject({ rows: 400, rowsEstimated: true, bytesEstimated: false });
    await engine.flushAll();
    const flushed = store.stats();
    expect(flushed.logicalBytes).toBe(inMemtable.logicalBytes);
    expect(flushed.bytes * 5).toBeLessThan(flushed.logicalBytes);
    expect(flushed).toMatchObject({ rows: 400, rowsEstimated: true, bytesEstimated: false });
    // A row written again counts twice until a compaction merges its versions.
    await store.write([{ key: key(7), ops: [put('q', 2000, 'x')] }]);
    expect(store.stats().rows).toBe(401);
    // Split children share the parent's file: each counts the share its key range covers, an estimate.
    await engine.splitStore('p', key(200), 'l', 'r');
    const [l, r] = [await engine.openStore('l'), await engine.openStore('r')];
    for (const child of [l.stats(), r.stats()]) {
      expect(child.bytesEstimated).toBe(true);
      expect(child.logicalBytes).toBeGreaterThan(flushed.logicalBytes * 0.3);
      expect(child.logicalBytes).toBeLessThan(flushed.logicalBytes * 0.7);
    }
    expect((await engine.openStore('empty')).stats()).toEqual({
      bytes: 0,
      logicalBytes: 0,
      rows: 0,
      rowsEstimated: false,
      bytesEstimated: false,
    });
    await engine.close();
  });
});

describe('disk engine row size bound', () => {
  it('stays near the row itself in a store much larger than one row, so the row-size check reads nothing', async () => {
    const engine = await openDiskEngine({ fs: new MemoryFileSystem(), dir: 'db', manualCompaction: true });
    const store = await engine.openStore('t');
    const key = (i: number): string => `row${String(i).padStart(5, '0')}`;
    for (let file = 0; file < 4; file++) {
      await store.write(
        Array.from({ length: 300 }, (_, i) => ({ key: key(file * 300 + i), ops: [put('q', 1, randomBytes(500).toString('hex'))] })),
      );
      await engine.flushAll();
    }
    await store.write([{ key: key(5), ops: [put('q', 2, 'w'.repeat(1000))] }]);
    expect(store.stats().bytes).toBeGreaterThan(1_000_000);
    // Four files of 1 KiB rows plus one memtable fragment: a few KiB, not the store's MiB.
    expect(store.rowBytesBound(key(5), Infinity)).toBeLessThan(16 * 1024);
    // Refined (as when the coarse bound is too big), a key no file holds counts only its memtable part.
    expect(store.rowBytesBound('absent', 0)).toBe('absent'.length);
    expect(store.rowBytesBound(key(5), 0)).toBeLessThan(6 * 1024);
    await engine.close();
  });

  it('counts every fragment of a row written many times since the last flush (a running total per row)', async () => {
    const engine = await openDiskEngine({ fs: new MemoryFileSystem(), dir: 'db', manualCompaction: true });
    const store = await engine.openStore('t');
    for (let i = 0; i < 50; i++) await store.write([{ key: 'hot', ops: [put(`q${i}`, 1, 'x'.repeat(100))] }]);
    const row = await store.getForUpdate('hot');
    const actual = rowBytes('hot', row!.cells);
    // Coarsest (everything the memtables hold, enough here) and refined (the row's own fragments).
    expect(store.rowBytesBound('hot', Infinity)).toBeGreaterThanOrEqual(actual);
    expect(store.rowBytesBound('hot', 0)).toBeGreaterThanOrEqual(actual);
    expect(store.rowBytesBound('hot', 0)).toBeLessThanOrEqual(2 * actual + 2 * 50 * 8);
    await engine.close();
  });
});

describe('disk engine close', () => {
  it('waits for a commit-log rotation whose manifest record is still syncing, then reopens with every write', async () => {
    const mem = new MemoryFileSystem();
    const { fs, hold } = holdingSyncs(mem, 'MANIFEST');
    const failures: unknown[] = [];
    const engine = await openDiskEngine({
      fs,
      dir: 'db',
      manualCompaction: true,
      config: { walFileBytes: 512 },
      onBackgroundError: (e) => failures.push(e),
    });
    const store = await engine.openStore('t');
    const release = hold();
    // Passes the log size: the write starts a rotation, whose manifest record waits.
    await store.write([{ key: 'a', ops: [put('q', 1, 'x'.repeat(600))] }]);
    const closed = engine.close();
    await new Promise((r) => setTimeout(r, 5));
    release();
    await closed;
    await new Promise((r) => setTimeout(r, 5));
    expect(failures).toEqual([]);
    const reopened = await openDiskEngine({ fs: mem, dir: 'db', config: {} });
    expect(await rows(await reopened.openStore('t'))).toEqual([`a:q@1=${'x'.repeat(600)}`]);
    await reopened.close();
  });

  it('acknowledges the durable writes held back by a write stall instead of leaving them pending', async () => {
    const engine = await openDiskEngine({
      fs: new MemoryFileSystem(),
      dir: 'db',
      manualCompaction: true,
      config: { memtableBytes: 1024, totalMemtableBytes: 1024 },
    });
    const store = await engine.openStore('t');
    // Flushes only run when asked, so the stall outlasts the write's sync.
    const stalled = store.write([{ key: 'k', ops: [put('q', 1000, 'v'.repeat(4096))] }]);
    let settled = false;
    void Promise.resolve(stalled).then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    await engine.close();
    await expect(stalled).resolves.toBeUndefined();
  });
});

describe('hot-row reads over a memtable rotated with unsynced writes', () => {
  it('never serve a cached row that misses a write which was still syncing when the memtable rotated', async () => {
    const mem = new MemoryFileSystem();
    let slow = false;
    const fs = new Proxy(mem, {
      get(target, prop, receiver) {
        if (prop === 'create') {
          return (path: string) => {
            const f = target.create(path);
            const sync = f.sync.bind(f);
            f.sync = async () => {
              if (slow) await new Promise((r) => setTimeout(r, 30));
              await sync();
            };
            return f;
          };
        }
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const engine = await openDiskEngine({ fs, dir: 'db', manualCompaction: true });
    const store = await engine.openStore('t');
    await store.write([{ key: 'r', ops: [put('a', 1000, 'old')] }]);
    slow = true;
    const deleting = store.write([{ key: 'r', ops: [{ kind: 'deleteColumn', family: 'f', qualifier: 'a', start: 0, end: undefined }] }]);
    // The memtable holding the unsynced delete rotates (manual mode: it waits to be flushed).
    (engine as unknown as { scheduleFlush(s: unknown): void }).scheduleFlush(engine['stores'].get('t'));
    const more = [store.write([{ key: 'r', ops: [put('b', 1000, 'x')] }]), store.write([{ key: 'r', ops: [put('c', 1000, 'y')] }])];
    // A read now, before anything synced: the row as it was.
    expect((await store.get('r'))?.cells.map((c) => c.qualifier)).toEqual(['a']);
    await Promise.all([deleting, ...more]);
    expect((await store.get('r'))?.cells.map((c) => c.qualifier)).toEqual(['b', 'c']);
    await engine.close();
  });
});

describe('disk engine commit-log bound', () => {
  it('flushes a quiet tablet that pins the oldest log once the logs pass maxWalBytes, so a restart replays little', async () => {
    const fs = new MemoryFileSystem();
    const events: EngineEvent[] = [];
    const config = { memtableBytes: 1 << 20, walFileBytes: 4096, maxWalBytes: 16 * 1024, blockBytes: 256 };
    const engine = await openDiskEngine({ fs, dir: 'db', config, onEvent: (e) => events.push(e) });
    // One write to a quiet tablet (as the catalog or the `_insight` history takes), then many to a busy one.
    const quiet = await engine.openStore('quiet');
    await quiet.write([{ key: 'q', ops: [put('q', 1000, 'once')] }]);
    const busy = await engine.openStore('busy');
    const value = 'x'.repeat(200);
    for (let i = 0; i < 1000; i++) await busy.write([{ key: `k${String(i).padStart(4, '0')}`, ops: [put('q', 1000, value)] }]);
    await until(() => events.some((e) => e.kind === 'flushed' && e.store === 'quiet'));
    expect(events.find((e) => e.kind === 'flushed' && e.store === 'quiet')).toMatchObject({ reason: 'commit log size' });
    // The busy tablet's memtable never filled: it too was flushed for the log's size, not its own.
    expect(
      events.filter((e) => e.kind === 'flushed' && e.store === 'busy').every((e) => e.kind === 'flushed' && e.reason === 'commit log size'),
    ).toBe(true);
    // A crash now: the restart reads the logs still live, about maxWalBytes, not the ~230 KiB written.
    events.length = 0;
    const reopened = await openDiskEngine({ fs: fs.crash(), dir: 'db', config, onEvent: (e) => events.push(e) });
    const recovered = events.find((e) => e.kind === 'recovered');
    expect(recovered?.kind === 'recovered' && recovered.logBytes).toBeLessThanOrEqual(config.maxWalBytes + 2 * config.walFileBytes);
    expect((await rows(await reopened.openStore('busy'))).length).toBe(1000);
    expect(await rows(await reopened.openStore('quiet'))).toEqual(['q:q@1000=once']);
    await reopened.close();
    await engine.close();
  });
});

describe('disk engine events', () => {
  it('reports recovery, flushes (with their reason) and compactions with their figures', async () => {
    const fs = new MemoryFileSystem();
    const events: EngineEvent[] = [];
    const open = () =>
      openDiskEngine({
        fs,
        dir: 'db',
        manualCompaction: true,
        config: { memtableBytes: 1 << 20, blockBytes: 256 },
        onEvent: (e) => events.push(e),
      });
    let engine = await open();
    expect(events).toEqual([expect.objectContaining({ kind: 'recovered', stores: 0, sstables: 0, rowsReplayed: 0, storesFlushed: 0 })]);
    let store = await engine.openStore('t');
    for (let i = 0; i < 50; i++) await store.write([{ key: `k${i}`, ops: [put('q', 1000, `v${i}`)] }]);
    await engine.flushAll();
    const flushed = events.filter((e) => e.kind === 'flushed');
    expect(flushed).toEqual([expect.objectContaining({ store: 't', reason: 'requested', entries: 50 })]);
    expect(flushed[0]!.kind === 'flushed' && flushed[0]!.fileBytes).toBeGreaterThan(0);
    for (let i = 0; i < 50; i++) await store.write([{ key: `k${i}`, ops: [put('q', 2000, `w${i}`)] }]);
    await engine.flushAll();
    await engine.compactNow(engine['stores'].get('t')!, true);
    const compacted = events.find((e) => e.kind === 'compacted');
    expect(compacted).toMatchObject({ store: 't', major: true, inputFiles: 2, outputEntries: 50 });
    // Unflushed writes at a crash are replayed into memtables and flushed before serving.
    for (let i = 0; i < 7; i++) await store.write([{ key: `n${i}`, ops: [put('q', 1000, 'x')] }]);
    events.length = 0;
    engine = await openDiskEngine({ fs: fs.crash(), dir: 'db', manualCompaction: true, onEvent: (e) => events.push(e) });
    expect(events.map((e) => e.kind)).toEqual(['flushed', 'recovered']);
    expect(events[0]).toMatchObject({ reason: 'recovery', entries: 7 });
    expect(events[1]).toMatchObject({ stores: 1, sstables: 1, rowsReplayed: 7, storesFlushed: 1, logFiles: expect.any(Number) });
    const recovered = events[1]!;
    expect(recovered.kind === 'recovered' && recovered.logBytes).toBeGreaterThan(0);
    store = await engine.openStore('t');
    expect((await rows(store)).length).toBe(57);
    await engine.close();
  });
});
