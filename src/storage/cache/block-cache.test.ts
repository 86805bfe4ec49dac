import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBlockCache, ENTRY_OVERHEAD_BYTES } from './block-cache.js';

const block = (n: number, fill = 0): Buffer => Buffer.alloc(n, fill);
const charge = (n: number): number => n + ENTRY_OVERHEAD_BYTES;

describe('block cache', () => {
  it('returns what was inserted under (file, offset) and counts hits and misses', () => {
    const c = createBlockCache(1 << 20);
    const a = block(100, 1);
    c.insert(1, 0, a);
    c.insert(2, 0, block(100, 2));
    expect(c.get(1, 0)).toBe(a);
    expect(c.get(2, 0)?.[0]).toBe(2);
    expect(c.get(1, 100)).toBeUndefined();
    expect(c.stats()).toMatchObject({ hits: 2, misses: 1, entries: 2, bytes: 2 * charge(100), evictions: 0 });
  });

  it('keeps files with large ids and offsets apart', () => {
    const c = createBlockCache(1 << 20);
    c.insert(2 ** 21, 5, block(1, 1));
    c.insert(0, 2 ** 32 + 5, block(1, 2));
    c.insert(1, 5, block(1, 3));
    c.insert(2 ** 40, 2 ** 40, block(1, 4));
    expect([c.get(2 ** 21, 5)?.[0], c.get(0, 2 ** 32 + 5)?.[0], c.get(1, 5)?.[0], c.get(2 ** 40, 2 ** 40)?.[0]]).toEqual([1, 2, 3, 4]);
  });

  it('never holds more than its capacity, whatever the inserts', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1000, max: 50_000 }),
        fc.array(fc.tuple(fc.nat(5), fc.nat(20), fc.integer({ min: 0, max: 8000 }), fc.boolean()), { maxLength: 200, size: 'max' }),
        (capacity, ops) => {
          const c = createBlockCache(capacity, { maxBlockFraction: 0.5 });
          for (const [file, slot, size, read] of ops) {
            if (read) c.get(file, slot * 8192);
            else c.insert(file, slot * 8192, block(size));
            const s = c.stats();
            expect(s.bytes).toBeLessThanOrEqual(capacity);
            expect(s.bytes).toBeGreaterThanOrEqual(0);
          }
        },
      ),
    );
  });

  it('evicts the least recently used blocks, giving recently read ones a second chance', () => {
    const c = createBlockCache(4 * charge(1000), { maxBlockFraction: 1 });
    for (let i = 0; i < 4; i++) c.insert(1, i * 1000, block(1000));
    c.get(1, 0); // block 0 is hot
    c.insert(1, 4000, block(1000));
    expect(c.get(1, 0)).toBeDefined();
    expect(c.get(1, 1000)).toBeUndefined(); // the coldest one went
    expect(c.stats().evictions).toBe(1);
    // A scan of blocks read once cannot push the hot block out.
    for (let i = 10; i < 14; i++) {
      c.insert(2, i * 1000, block(1000));
      c.get(1, 0);
    }
    expect(c.get(1, 0)).toBeDefined();
  });

  it('does not evict a block at once just because everything else was read recently', () => {
    const c = createBlockCache(2 * charge(1000), { maxBlockFraction: 1 });
    c.insert(1, 0, block(1000));
    c.insert(1, 1000, block(1000));
    c.get(1, 0);
    c.get(1, 1000);
    c.insert(1, 2000, block(1000));
    expect(c.get(1, 2000)).toBeDefined();
    expect(c.stats().entries).toBe(2);
  });

  it('lets blocks bigger than its fraction of the capacity bypass it', () => {
    const c = createBlockCache(8000);
    c.insert(1, 0, block(900)); // 900 + overhead > 1000 = 8000 / 8
    c.insert(1, 1000, block(800));
    expect(c.get(1, 0)).toBeUndefined();
    expect(c.get(1, 1000)).toBeDefined();
    expect(c.stats()).toMatchObject({ bypassed: 1, entries: 1 });
    const none = createBlockCache(0);
    none.insert(1, 0, block(1));
    expect(none.stats()).toMatchObject({ bypassed: 1, entries: 0, bytes: 0 });
  });

  it('evictFile drops exactly that file and its bytes; re-inserting replaces', () => {
    const c = createBlockCache(1 << 20);
    for (let i = 0; i < 5; i++) {
      c.insert(7, i * 100, block(100));
      c.insert(8, i * 100, block(100));
    }
    c.insert(7, 0, block(50));
    expect(c.stats()).toMatchObject({ entries: 10, bytes: 9 * charge(100) + charge(50) });
    c.evictFile(7);
    c.evictFile(99);
    expect(c.stats()).toMatchObject({ entries: 5, bytes: 5 * charge(100) });
    expect(c.get(7, 100)).toBeUndefined();
    expect(c.get(8, 100)).toBeDefined();
    c.clear();
    expect(c.stats()).toMatchObject({ entries: 0, bytes: 0 });
  });

  it('rejects a nonsensical capacity', () => {
    expect(() => createBlockCache(-1)).toThrow(/capacity/);
    expect(() => createBlockCache(10, { maxBlockFraction: 0 })).toThrow(/maxBlockFraction/);
  });
});
