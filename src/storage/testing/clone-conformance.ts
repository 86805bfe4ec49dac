import { describe, expect, it } from 'vitest';
import { FULL_RANGE } from '../../model/key-range.js';
import type { MaybePromise, RowStore, StorageEngine, StoreOp } from '../store.js';

/**
 * Conformance of StorageEngine.cloneStores / verifyStore (issue 25: backups,
 * restores, copies of backups): every engine runs it. `make` returns a fresh
 * engine; `reopen` (optional) closes it and opens it again on the same
 * storage, for engines that persist; `settle` (optional) runs the engine's
 * background work (flushes, compactions), which must not change a clone.
 */
export function runCloneConformance(
  name: string,
  make: () => MaybePromise<StorageEngine>,
  hooks: { reopen?: (e: StorageEngine) => Promise<StorageEngine>; settle?: (e: StorageEngine) => Promise<void> } = {},
): void {
  const put = (family: string, value: string): StoreOp => ({
    kind: 'put',
    family,
    qualifier: 'q',
    timestamp: 1000,
    value: Buffer.from(value),
  });
  const key = (i: number): string => `k${String(i).padStart(3, '0')}`;
  /** Every row as `key:family=value,...`. */
  async function contents(store: RowStore): Promise<string[]> {
    const c = store.scan({ range: FULL_RANGE });
    const out: string[] = [];
    try {
      for (let r = await c.next(); r !== undefined; r = await c.next())
        out.push(`${r.key}:${r.cells.map((x) => `${x.family}=${Buffer.from(x.value).toString()}`).join(',')}`);
      return out;
    } finally {
      c.close();
    }
  }
  async function fill(store: RowStore, from: number, to: number, v: string): Promise<void> {
    await store.write(Array.from({ length: to - from }, (_, i) => ({ key: key(from + i), ops: [put('f', v), put('g', v)] })));
  }
  function clone(engine: StorageEngine, pairs: [string, string][], meta?: { key: string; value: () => string }): Promise<void> {
    if (engine.cloneStores === undefined) throw new Error(`${name} has no cloneStores`);
    return Promise.resolve().then(() => engine.cloneStores!(pairs, meta));
  }
  const verify = (engine: StorageEngine, id: string): Promise<void> => Promise.resolve().then(() => engine.verifyStore!(id));

  describe(`clone conformance: ${name}`, () => {
    it('a clone holds what its source held, through later writes, drops and deletion of the source, with the meta', async () => {
      let engine = await make();
      const source = await engine.openStore('s');
      await fill(source, 0, 50, 'v1');
      await source.dropRange({ start: key(10), end: key(20) });
      await fill(source, 40, 60, 'v2');
      const expected = await contents(source);
      expect(expected).toHaveLength(50);
      await clone(engine, [['s', 'c']], { key: 'catalog', value: () => 'with c' });
      expect(engine.readMeta('catalog')).toBe('with c');
      expect(engine.storeIds().sort()).toEqual(['c', 's']);
      await fill(source, 0, 60, 'v3');
      await source.dropRange({ start: key(0), end: key(5) });
      await source.dropFamily('g');
      await hooks.settle?.(engine);
      expect(await contents(await engine.openStore('c'))).toEqual(expected);
      await engine.deleteStore('s');
      await hooks.settle?.(engine);
      expect(await contents(await engine.openStore('c'))).toEqual(expected);
      await verify(engine, 'c');
      if (hooks.reopen !== undefined) {
        engine = await hooks.reopen(engine);
        expect(engine.readMeta('catalog')).toBe('with c');
        expect(await contents(await engine.openStore('c'))).toEqual(expected);
        await verify(engine, 'c');
      }
      await engine.close();
    });

    it('writes and drops on a clone leave its source alone; a clone of a clone', async () => {
      const engine = await make();
      const source = await engine.openStore('s');
      await fill(source, 0, 30, 'v1');
      const expected = await contents(source);
      await clone(engine, [['s', 'c']]);
      const c = await engine.openStore('c');
      await fill(c, 0, 5, 'mine');
      await c.dropRange({ start: key(10), end: key(20) });
      await c.dropFamily('f');
      await clone(engine, [['c', 'cc']]);
      const ofClone = await contents(c);
      expect(ofClone).toHaveLength(20);
      expect(ofClone[0]).toBe('k000:g=mine');
      await fill(c, 0, 30, 'later');
      await hooks.settle?.(engine);
      expect(await contents(source)).toEqual(expected);
      expect(await contents(await engine.openStore('cc'))).toEqual(ofClone);
      await engine.close();
    });

    it('clones several stores at one point: writes after it are in the sources only', async () => {
      const engine = await make();
      const a = await engine.openStore('a');
      const b = await engine.openStore('b');
      await fill(a, 0, 20, 'a1');
      await fill(b, 10, 30, 'b1');
      const expected = [await contents(a), await contents(b)];
      await clone(engine, [
        ['a', 'a-copy'],
        ['b', 'b-copy'],
      ]);
      await fill(a, 0, 20, 'a2');
      await fill(b, 0, 20, 'b2');
      expect(await contents(await engine.openStore('a-copy'))).toEqual(expected[0]);
      expect(await contents(await engine.openStore('b-copy'))).toEqual(expected[1]);
      await engine.close();
    });

    it('refuses an unknown source (NotFound) or a clone id in use (AlreadyExists), cloning nothing and keeping the meta', async () => {
      const engine = await make();
      await engine.openStore('s');
      await engine.openStore('t');
      await engine.writeMeta('catalog', 'old');
      const meta = { key: 'catalog', value: () => 'new' };
      await expect(
        clone(
          engine,
          [
            ['s', 'c'],
            ['nope', 'd'],
          ],
          meta,
        ),
      ).rejects.toMatchObject({ code: 'NotFound' });
      await expect(
        clone(
          engine,
          [
            ['s', 'c'],
            ['s', 't'],
          ],
          meta,
        ),
      ).rejects.toMatchObject({ code: 'AlreadyExists' });
      expect(engine.storeIds().sort()).toEqual(['s', 't']);
      expect(engine.readMeta('catalog')).toBe('old');
      await expect(verify(engine, 'nope')).rejects.toMatchObject({ code: 'NotFound' });
      await engine.close();
    });
  });
}
