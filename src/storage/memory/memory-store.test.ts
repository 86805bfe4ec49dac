import { describe, expect, it } from 'vitest';
import { FULL_RANGE } from '../../model/key-range.js';
import { runRowStoreConformance } from '../testing/row-store-conformance.js';
import { runCloneConformance } from '../testing/clone-conformance.js';
import { runSplitMergeConformance } from '../testing/split-merge-conformance.js';
import { createMemoryEngine } from './index.js';
import { MemoryEngine } from './memory-engine.js';
import { MemoryRowStore } from './memory-store.js';

runRowStoreConformance('memory', () => new MemoryRowStore('test'));
runCloneConformance('memory engine', () => new MemoryEngine());

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
    const engine = new MemoryEngine();
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

describe('memory engine clones', () => {
  const put = (key: string, v: number) => ({
    key,
    ops: [{ kind: 'put' as const, family: 'f', qualifier: 'q', timestamp: 1000, value: new Uint8Array([v]) }],
  });
  const keys = (engine: MemoryEngine, id: string): string[] => {
    const cursor = engine.openStore(id).scan({ range: FULL_RANGE });
    const out: string[] = [];
    for (let r = cursor.next(); r !== undefined; r = cursor.next())
      if (!(r instanceof Promise)) out.push(`${r.key}=${r.cells[0]!.value[0]}`);
    cursor.close();
    return out;
  };

  it('copies every source at one point, independent of later writes on either side, with the meta', () => {
    const engine = new MemoryEngine();
    engine.openStore('a').write([put('k1', 1), put('k2', 2)]);
    engine.openStore('b').write([put('x', 3)]);
    engine.cloneStores(
      [
        ['a', 'a-copy'],
        ['b', 'b-copy'],
      ],
      { key: 'm', value: () => 'cloned' },
    );
    expect(engine.readMeta('m')).toBe('cloned');
    engine.openStore('a').write([put('k1', 9), put('k3', 3)]);
    engine.openStore('b-copy').write([put('y', 4)]);
    expect(keys(engine, 'a-copy')).toEqual(['k1=1', 'k2=2']);
    expect(keys(engine, 'a')).toEqual(['k1=9', 'k2=2', 'k3=3']);
    expect(keys(engine, 'b')).toEqual(['x=3']);
    expect(keys(engine, 'b-copy')).toEqual(['x=3', 'y=4']);
    engine.deleteStore('a');
    expect(keys(engine, 'a-copy')).toEqual(['k1=1', 'k2=2']);
  });

  it('refuses a missing source or an existing clone id, cloning nothing', () => {
    const engine = new MemoryEngine();
    engine.openStore('a');
    engine.openStore('b');
    expect(() =>
      engine.cloneStores([
        ['a', 'c'],
        ['nope', 'd'],
      ]),
    ).toThrow(/no store nope/);
    expect(() => engine.cloneStores([['a', 'b']])).toThrow(/already exists/);
    expect(engine.storeIds().sort()).toEqual(['a', 'b']);
    expect(() => engine.verifyStore('nope')).toThrow(/no store nope/);
    expect(engine.verifyStore('a')).toBeUndefined();
  });
});
