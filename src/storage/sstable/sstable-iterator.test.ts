import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../fs/memory-fs.js';
import { createBlockCache } from '../cache/block-cache.js';
import { keyArb } from './testing/arbitraries.js';
import { writeTable, type Entry } from './testing/tables.js';
import { openSSTable } from './sstable-reader.js';
import { BlockBuilder } from './block-builder.js';
import { BlockCursor } from './block-cursor.js';
import { checkIteratorOps, iteratorOpArb } from '../testing/iterator-contract.js';

const keySetArb = fc.uniqueArray(keyArb, { maxLength: 150, size: 'max' }).map((ks) => ks.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));

describe('block cursor against a sorted array', () => {
  it('lands where the reference does for every op sequence', () => {
    fc.assert(
      fc.property(
        keySetArb.chain((keys) =>
          fc.tuple(fc.constant(keys), fc.array(iteratorOpArb(keys, keyArb), { minLength: 1, maxLength: 60 }), fc.constantFrom(1, 2, 16)),
        ),
        ([keys, ops, restartInterval]) => {
          const b = new BlockBuilder(restartInterval);
          keys.forEach((k, i) => b.add(k, Buffer.from(`v${i}`)));
          const c = new BlockCursor();
          c.reset(Buffer.from(b.finish()), 'b', 0);
          checkIteratorOps(c, keys, ops, (i) => expect(c.value.toString()).toBe(`v${i}`));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('SSTable iterator against a sorted array', () => {
  it('lands where the reference does for every op sequence, with and without bounds', async () => {
    await fc.assert(
      fc.asyncProperty(
        keySetArb.chain((keys) =>
          fc.tuple(
            fc.constant(keys),
            fc.array(iteratorOpArb(keys, keyArb), { minLength: 1, maxLength: 60 }),
            fc.option(fc.oneof(keyArb, keys.length > 0 ? fc.constantFrom(...keys) : keyArb)),
            fc.option(fc.oneof(keyArb, keys.length > 0 ? fc.constantFrom(...keys) : keyArb)),
            fc.constantFrom(64, 200, 4096),
            fc.constantFrom(1, 2, 16),
          ),
        ),
        async ([keys, ops, lower, upper, blockSize, restartInterval]) => {
          const fs = new MemoryFileSystem();
          const entries: Entry[] = keys.map((k, i) => [k, Buffer.from(`v${i}`)]);
          await writeTable(fs, 't.sst', entries, { blockSize, restartInterval });
          const r = openSSTable(fs, 't.sst', { id: 1, cache: createBlockCache(1 << 20) });
          const bounds = { ...(lower !== null ? { lower } : {}), ...(upper !== null ? { upper } : {}) };
          const visible = keys.filter((k) => (lower === null || k >= lower) && (upper === null || k < upper));
          const it = r.newIterator(bounds);
          checkIteratorOps(
            it,
            visible,
            ops,
            (i) => expect(it.value.toString()).toBe(`v${keys.indexOf(visible[i]!)}`),
            (op) => expect(() => it[op]()).toThrow(/requires a valid position/),
          );
          r.close();
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reverse-scans a many-block table from a seekLT, stepping back across blocks', async () => {
    const fs = new MemoryFileSystem();
    const keys = Array.from({ length: 2000 }, (_, i) => `user#${String(i * 7).padStart(6, '0')}`);
    await writeTable(
      fs,
      't.sst',
      keys.map((k) => [k, Buffer.from(k)]),
      { blockSize: 512 },
    );
    const r = openSSTable(fs, 't.sst', { id: 1 });
    const it = r.newIterator();
    const got: string[] = [];
    for (it.seekLT('user#007000'); it.valid; it.prev()) got.push(it.key);
    expect(got).toEqual(keys.filter((k) => k < 'user#007000').reverse());
    // Direction changes in the middle of a restart run.
    it.seekGE('user#000700');
    it.prev();
    expect(it.key).toBe('user#000693');
    it.next();
    it.next();
    expect(it.key).toBe('user#000707');
    it.prev();
    it.prev();
    it.prev();
    expect(it.key).toBe('user#000686');
    it.close();
    r.close();
  });

  it('does not read blocks past the upper bound', async () => {
    const fs = new MemoryFileSystem();
    const keys = Array.from({ length: 1000 }, (_, i) => `k${String(i).padStart(4, '0')}`);
    await writeTable(
      fs,
      't.sst',
      keys.map((k) => [k, Buffer.alloc(100, 1)]),
      { blockSize: 1024, compression: 'none' },
    );
    const cache = createBlockCache(1 << 20);
    const r = openSSTable(fs, 't.sst', { id: 1, cache });
    const it = r.newIterator({ lower: 'k0100', upper: 'k0200' });
    let n = 0;
    for (it.first(); it.valid; it.next()) n++;
    expect(n).toBe(100);
    const blocksTouched = cache.stats().misses;
    // ~9 entries per 1 KiB block: 100 entries span 12 blocks at most.
    expect(blocksTouched).toBeLessThanOrEqual(13);
    for (it.last(); it.valid; it.prev()) n--;
    expect(n).toBe(0);
    expect(cache.stats().misses).toBe(blocksTouched);
    it.close();
    r.close();
  });

  it('refuses use after close, and key/value when not positioned', async () => {
    const fs = new MemoryFileSystem();
    await writeTable(fs, 't.sst', [['a', Buffer.from('1')]]);
    const r = openSSTable(fs, 't.sst', { id: 1 });
    const it = r.newIterator();
    expect(() => it.key).toThrow(/requires a valid position/);
    it.first();
    expect(it.key).toBe('a');
    it.close();
    it.close();
    expect(() => it.first()).toThrow(/after close/);
    expect(() => it.key).toThrow(/after close/);
    r.close();
    expect(() => r.get('a')).toThrow(/closed/);
    expect(() => r.newIterator()).toThrow(/closed/);
  });
});
