import { describe, expect, it } from 'vitest';
import { createBlockCache } from '../cache/block-cache.js';
import { createFaultFileSystem, failNth, type FsOp } from '../fs/fault-fs.js';
import { MemoryFileSystem } from '../fs/memory-fs.js';
import { openSSTable } from './sstable-reader.js';
import { writeTable, type Entry } from './testing/tables.js';

const rows = (n: number, size = 100): Entry[] =>
  Array.from({ length: n }, (_, i) => [`row${String(i).padStart(5, '0')}`, Buffer.alloc(size, i & 0xff)]);

describe('SSTable reader', () => {
  it('reads each data block from the file once when a cache holds it', async () => {
    const mem = new MemoryFileSystem();
    await writeTable(mem, 't.sst', rows(500), { blockSize: 4096, compression: 'none' });
    const reads: FsOp[] = [];
    const fs = createFaultFileSystem(mem, (op) => void reads.push(op));
    const cache = createBlockCache(1 << 20);
    const r = openSSTable(fs, 't.sst', { id: 3, cache });
    const atOpen = reads.filter((o) => o === 'read').length;
    expect(atOpen).toBe(4); // footer, properties, index, filter
    for (let round = 0; round < 3; round++) for (const [k] of rows(500)) r.get(k);
    const blocks = r.info.dataBlocks;
    expect(reads.filter((o) => o === 'read').length - atOpen).toBe(blocks);
    expect(cache.stats()).toMatchObject({ misses: blocks, hits: 1500 - blocks, entries: blocks });
    // The filter answers for absent keys without touching blocks.
    const before = cache.stats().hits + cache.stats().misses;
    let probed = 0;
    for (let i = 0; i < 1000; i++) if (r.get(`row${String(i).padStart(5, '0')}x`) === undefined) probed++;
    expect(probed).toBe(1000);
    expect(cache.stats().hits + cache.stats().misses - before).toBeLessThan(40);
    r.close();
    cache.evictFile(3);
    expect(cache.stats().entries).toBe(0);
  });

  it('skips keys outside [smallest, largest] without I/O', async () => {
    const fs = new MemoryFileSystem();
    await writeTable(fs, 't.sst', rows(10), { bloomBitsPerKey: 0 });
    const cache = createBlockCache(1 << 20);
    const r = openSSTable(fs, 't.sst', { id: 1, cache });
    expect(r.get('a')).toBeUndefined();
    expect(r.get('zzz')).toBeUndefined();
    expect(cache.stats().misses).toBe(0);
    r.close();
  });

  it('an I/O error reading a block surfaces, and a retry succeeds', async () => {
    const mem = new MemoryFileSystem();
    await writeTable(mem, 't.sst', rows(50));
    const fs = createFaultFileSystem(mem, failNth(5, ['read'])); // the first data block read
    const r = openSSTable(fs, 't.sst', { id: 1 });
    const it = r.newIterator();
    let failure: unknown;
    try {
      it.first();
    } catch (e) {
      failure = e;
    }
    // UNAVAILABLE (retryable), naming the block and the disk's error; not DataLoss: the bytes are not known bad.
    expect(failure).toMatchObject({
      code: 'Unavailable',
      message: expect.stringMatching(
        /^sstable t\.sst: data block at offset 0 \(size \d+\) could not be read \(an I\/O error from the disk\): injected I\/O error: read/,
      ) as unknown,
    });
    expect(it.valid).toBe(false);
    it.first();
    expect(it.key).toBe('row00000');
    it.close();
    r.close();
  });

  it('fails to open a missing file with NotFound', () => {
    expect(() => openSSTable(new MemoryFileSystem(), 'nope.sst', { id: 1 })).toThrow(expect.objectContaining({ code: 'NotFound' }));
  });

  it('approximates offsets and samples keys from the index', async () => {
    const fs = new MemoryFileSystem();
    const entries = rows(1000, 1000);
    const info = await writeTable(fs, 't.sst', entries, { blockSize: 32 * 1024, compression: 'none' });
    const r = openSSTable(fs, 't.sst', { id: 1 });
    expect(r.approximateOffsetOf('')).toBe(0);
    const mid = r.approximateOffsetOf('row00500');
    // 500 entries of ~1 KiB precede row00500, give or take a block.
    expect(Math.abs(mid - 500 * 1012)).toBeLessThan(33 * 1024);
    expect(r.approximateOffsetOf('zzz')).toBeGreaterThan(info.rawValueBytes);
    expect(r.approximateOffsetOf('zzz')).toBeLessThan(info.size);
    let last = -1;
    for (const [k] of entries.filter((_, i) => i % 37 === 0)) {
      const o = r.approximateOffsetOf(k);
      expect(o).toBeGreaterThanOrEqual(last);
      last = o;
    }
    const samples = r.sampleKeys(100_000);
    // ~1 MB in 32 KiB blocks: a sample every 4th block.
    expect(samples.length).toBe(Math.floor((r.info.dataBlocks - 1) / 4));
    for (let i = 0; i < samples.length; i++) {
      const s = samples[i]!;
      if (i > 0) {
        expect(s.key > samples[i - 1]!.key).toBe(true);
        expect(s.offsetBytes - samples[i - 1]!.offsetBytes).toBeGreaterThanOrEqual(100_000);
        expect(s.offsetBytes - samples[i - 1]!.offsetBytes).toBeLessThan(100_000 + 33 * 1024);
      }
      // offsetBytes ≈ the bytes of the entries before the key (within an entry: the key may be a block's last key).
      const perEntry = r.approximateOffsetOf('zzz') / entries.length;
      const before = entries.filter(([k]) => k < s.key).length;
      expect(Math.abs(s.offsetBytes - before * perEntry)).toBeLessThan(1.5 * perEntry);
    }
    expect(r.sampleKeys(info.size * 2)).toEqual([]);
    expect(() => r.sampleKeys(0)).toThrow(/positive/);
    r.close();
  });
});
