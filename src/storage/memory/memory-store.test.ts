import { describe, expect, it } from 'vitest';
import { FULL_RANGE } from '../../model/key-range.js';
import { runRowStoreConformance } from '../testing/row-store-conformance.js';
import { runSplitMergeConformance } from '../testing/split-merge-conformance.js';
import { createMemoryEngine } from './index.js';
import { MemoryRowStore } from './memory-store.js';

runRowStoreConformance('memory', () => new MemoryRowStore('test'));

describe('memory store specifics', () => {
  it('answers synchronously', () => {
    const store = new MemoryRowStore('s');
    const w = store.write([{ key: 'a', ops: [{ kind: 'put', family: 'f', qualifier: 'q', timestamp: 1000, value: new Uint8Array([1]) }] }]);
    expect(w).toBeUndefined();
    expect(store.get('a')).toBeDefined();
    expect(store.scan({ range: FULL_RANGE }).next()).toBeDefined();
  });

  it('copies a small value that pins a large buffer, and keeps a whole buffer as is', () => {
    const store = new MemoryRowStore('s');
    const big = new Uint8Array(1 << 20);
    const own = new Uint8Array([9, 9]);
    store.write([
      { key: 'a', ops: [{ kind: 'put', family: 'f', qualifier: 'q', timestamp: 1000, value: big.subarray(10, 12) }] },
      { key: 'b', ops: [{ kind: 'put', family: 'f', qualifier: 'q', timestamp: 1000, value: own }] },
    ]);
    // Copied: held in a slab of Node's small-buffer pool, not in the 1 MiB buffer. A slab is Buffer.poolSize
    // (8 KiB in Node 22, 64 KiB from 24) and a little more in Node 26 (65,600 bytes).
    const copied = store.get('a')?.cells[0]?.value;
    expect(copied?.buffer).not.toBe(big.buffer);
    expect(copied?.buffer.byteLength).toBeLessThanOrEqual(2 * Buffer.poolSize);
    expect([...(copied ?? [])]).toEqual([0, 0]);
    expect(store.get('b')?.cells[0]?.value).toBe(own);
  });

  it('hands out the same immutable row object until the row is written', () => {
    const store = new MemoryRowStore('s');
    store.write([{ key: 'a', ops: [{ kind: 'put', family: 'f', qualifier: 'q', timestamp: 1000, value: new Uint8Array([1]) }] }]);
    const before = store.get('a');
    expect(store.get('a')).toBe(before);
    store.write([{ key: 'a', ops: [{ kind: 'put', family: 'f', qualifier: 'q', timestamp: 2000, value: new Uint8Array([2]) }] }]);
    expect(store.get('a')).not.toBe(before);
    expect(before?.cells).toHaveLength(1);
  });

  it('rejects use after close; the engine reopens a store with its data and deletes it for good', async () => {
    const engine = createMemoryEngine();
    const store = await engine.openStore('t1');
    await store.write([{ key: 'a', ops: [{ kind: 'put', family: 'f', qualifier: 'q', timestamp: 1000, value: new Uint8Array([1]) }] }]);
    await store.close();
    expect(() => store.get('a')).toThrow(/closed/);
    const again = await engine.openStore('t1');
    expect(await again.get('a')).toBeDefined();
    await engine.deleteStore('t1');
    const fresh = await engine.openStore('t1');
    expect(await fresh.get('a')).toBeUndefined();
    await engine.close();
    expect(() => engine.openStore('t2')).toThrow(/closed/);
  });

  it('writes after a snapshot stay fast (copy-on-write touches one path)', () => {
    const store = new MemoryRowStore('s');
    const value = new Uint8Array(8);
    const n = 50_000;
    store.write(
      Array.from({ length: n }, (_, i) => ({
        key: `k${i}`,
        ops: [{ kind: 'put' as const, family: 'f', qualifier: 'q', timestamp: 1000, value }],
      })),
    );
    const t0 = performance.now();
    for (let i = 0; i < 5000; i++) {
      store.scan({ range: FULL_RANGE }).close();
      store.write([{ key: `k${(i * 7919) % n}`, ops: [{ kind: 'put', family: 'f', qualifier: 'q', timestamp: 2000, value }] }]);
    }
    const perWrite = (performance.now() - t0) / 5000;
    // A full copy of a 50k-row tree would take milliseconds; a path copy takes microseconds.
    expect(perWrite).toBeLessThan(0.2);
  });
});

runSplitMergeConformance('memory', () => createMemoryEngine());
