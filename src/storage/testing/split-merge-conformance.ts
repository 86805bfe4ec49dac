import { describe, expect, it } from 'vitest';
import { FULL_RANGE } from '../../model/key-range.js';
import type { MaybePromise, RowCursor, RowStore, StorageEngine, StoreOp } from '../store.js';

/**
 * Conformance of StorageEngine.splitStore / mergeStores: every engine runs it.
 * `make` returns a fresh engine; `reopen` (optional) closes it and opens it
 * again on the same storage, for engines that persist.
 */
export function runSplitMergeConformance(
  name: string,
  make: () => MaybePromise<StorageEngine>,
  hooks: { reopen?: (e: StorageEngine) => Promise<StorageEngine>; settle?: (e: StorageEngine) => Promise<void> } = {},
): void {
  const put = (value: string): StoreOp => ({ kind: 'put', family: 'f', qualifier: 'q', timestamp: 1000, value: Buffer.from(value) });
  async function keys(store: RowStore): Promise<string[]> {
    const c: RowCursor = store.scan({ range: FULL_RANGE });
    const out: string[] = [];
    try {
      for (;;) {
        const r = await c.next();
        if (r === undefined) return out;
        out.push(`${r.key}=${Buffer.from(r.cells[0]!.value).toString()}`);
      }
    } finally {
      c.close();
    }
  }
  const all = Array.from({ length: 200 }, (_, i) => `k${String(i).padStart(3, '0')}`);

  describe(`split and merge conformance: ${name}`, () => {
    it('splits a store at a key; each side holds its keys and takes writes; a merge joins them again', async () => {
      let engine = await make();
      const parent = await engine.openStore('p');
      await parent.write(all.map((k) => ({ key: k, ops: [put('v1')] })));
      const cursor = parent.scan({ range: FULL_RANGE });
      await engine.splitStore('p', 'k100', 'l', 'r');
      // A cursor opened before the split still reads the parent's data.
      let n = 0;
      for (let r = await cursor.next(); r !== undefined; r = await cursor.next()) n++;
      cursor.close();
      expect(n).toBe(200);
      let left = await engine.openStore('l');
      let right = await engine.openStore('r');
      expect(await keys(left)).toEqual(all.slice(0, 100).map((k) => `${k}=v1`));
      expect(await keys(right)).toEqual(all.slice(100).map((k) => `${k}=v1`));
      expect((await left.get('k150')) ?? null).toBeNull();
      expect((await right.get('k150'))?.key).toBe('k150');
      await left.write([{ key: 'k000', ops: [put('v2')] }]);
      await right.write([{ key: 'k199', ops: [{ kind: 'deleteRow' }] }]);
      expect(left.stats().rows).toBeGreaterThan(0);
      expect(left.stats().rows).toBeLessThan(200);
      await hooks.settle?.(engine);
      if (hooks.reopen !== undefined) {
        engine = await hooks.reopen(engine);
        left = await engine.openStore('l');
        right = await engine.openStore('r');
      }
      expect((await keys(left))[0]).toBe('k000=v2');
      expect(await keys(right)).toHaveLength(99);
      await engine.mergeStores('l', 'r', 'm');
      const merged = await engine.openStore('m');
      const expected = all.slice(0, 199).map((k) => `${k}=${k === 'k000' ? 'v2' : 'v1'}`);
      expect(await keys(merged)).toEqual(expected);
      await hooks.settle?.(engine);
      if (hooks.reopen !== undefined) {
        engine = await hooks.reopen(engine);
        expect(await keys(await engine.openStore('m'))).toEqual(expected);
      }
      await engine.close();
    });
  });
}
