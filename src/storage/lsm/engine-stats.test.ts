import { describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../fs/memory-fs.js';
import type { RowWrite } from '../store.js';
import { createMemoryEngine } from '../memory/index.js';
import { openDiskEngine } from './disk-engine.js';
import type { DiskStore } from './disk-store.js';

/** The engines' stats() (for /metrics): memtables, cache, commit log, flushes, compactions, files. */

const rows = (prefix: string, n: number, valueBytes: number): RowWrite[] =>
  Array.from({ length: n }, (_, i) => ({
    key: `${prefix}${String(i).padStart(4, '0')}`,
    ops: [{ kind: 'put', family: 'cf', qualifier: 'q', timestamp: 1, value: new Uint8Array(valueBytes).fill(i) }],
  }));

describe('engine stats', () => {
  it('durable engine: memtable bytes until a flush, then SSTables; flushes, compactions and the commit log counted', async () => {
    const fs = new MemoryFileSystem();
    const engine = await openDiskEngine({
      fs,
      dir: 'db',
      manualCompaction: true,
      config: { memtableBytes: 1 << 20, blockBytes: 256, gcCompactionIntervalMillis: 0 },
    });
    const store = (await engine.openStore('s1')) as DiskStore;
    const empty = engine.stats();
    expect(empty).toMatchObject({ memtableBytes: 0, flushes: 0, compactions: 0, sstables: 0, sstableBytes: 0 });
    expect(empty.commitLog!.files).toBe(1);

    await store.write(rows('a', 100, 50));
    const written = engine.stats();
    expect(written.memtableBytes).toBeGreaterThan(100 * 50);
    expect(written.commitLog!.bytes).toBeGreaterThan(100 * 50);
    expect(written.diskBytes).toBe(written.commitLog!.bytes);

    await engine.flushAll();
    await store.write(rows('b', 100, 50));
    await engine.flushAll();
    const flushed = engine.stats();
    expect(flushed).toMatchObject({ memtableBytes: 0, flushes: 2, sstables: 2, compactions: 0 });
    expect(flushed.flushedBytes).toBe(flushed.sstableBytes);
    expect(flushed.diskBytes).toBe(flushed.sstableBytes + flushed.commitLog!.bytes);

    // Reads go through the block cache: misses first, then hits.
    for (let i = 0; i < 2; i++) for (const key of ['a0007', 'b0042']) await store.get(key);
    const cache = engine.stats().blockCache!;
    expect(cache.misses).toBeGreaterThan(0);
    expect(cache.hits).toBeGreaterThan(0);
    expect(cache.capacityBytes).toBe(engine.config.blockCacheBytes);

    await engine.compactNow(store, true);
    const compacted = engine.stats();
    expect(compacted).toMatchObject({ compactions: 1, sstables: 1 });
    expect(compacted.compactionInputBytes).toBe(flushed.sstableBytes);
    expect(compacted.compactionOutputBytes).toBe(compacted.sstableBytes);

    // Split children share their parent's file: it counts once.
    await engine.splitStore('s1', 'b', 'left', 'right');
    expect(engine.stats()).toMatchObject({ sstables: 1, sstableBytes: compacted.sstableBytes });
    await engine.close();
  });

  it('memory engine: every row is memtable bytes, nothing on disk', async () => {
    const engine = createMemoryEngine();
    const store = await engine.openStore('s1');
    await store.write(rows('a', 10, 50));
    const stats = engine.stats!();
    expect(stats).toMatchObject({ memtableBytes: store.stats().logicalBytes, flushes: 0, compactions: 0, sstables: 0, diskBytes: 0 });
    expect(stats.blockCache).toBeUndefined();
    expect(stats.memtableBytes).toBeGreaterThan(10 * 50);
  });
});
