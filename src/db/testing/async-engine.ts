import { createMemoryEngine } from '../../storage/memory/index.js';
import type { RowCursor, RowStore, StorageEngine } from '../../storage/store.js';

/** Resolves after the current macrotask, so other requests interleave. */
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A storage engine that answers every call with a promise settled on a later
 * turn of the event loop, as a disk engine does: it exercises the database's
 * asynchronous paths (and request interleavings) over the memory engine.
 * Scans still take their snapshot when opened.
 */
export function createAsyncEngine(inner: StorageEngine = createMemoryEngine()): StorageEngine {
  return {
    kind: 'disk',
    openStore: async (id) => {
      await tick();
      return asyncStore(await inner.openStore(id));
    },
    deleteStore: async (id) => {
      await tick();
      await inner.deleteStore(id);
    },
    readMeta: (key) => inner.readMeta(key),
    storeIds: () => inner.storeIds(),
    splitStore: (parentId, at, leftId, rightId, meta) => inner.splitStore(parentId, at, leftId, rightId, meta),
    mergeStores: (leftId, rightId, mergedId, meta) => inner.mergeStores(leftId, rightId, mergedId, meta),
    cloneStores: async (pairs, meta) => {
      await tick();
      await inner.cloneStores(pairs, meta);
    },
    verifyStore: async (id) => {
      await tick();
      await inner.verifyStore(id);
    },
    writeMeta: async (key, value) => {
      await tick();
      await inner.writeMeta(key, value);
    },
    close: async () => {
      await tick();
      await inner.close();
    },
  };
}

function asyncStore(s: RowStore): RowStore {
  return {
    // Applied at once (the contract), durable a turn later.
    write: (batch) => {
      const durable = s.write(batch);
      return tick().then(() => durable);
    },
    // The row is read when asked and handed over a turn later: a caller that does not hold the row's
    // lock meanwhile may act on a stale row, which is what the row locks must prevent.
    durableNow: async () => {
      await s.durableNow();
      await tick();
    },
    getForUpdate: async (key, columns) => {
      const row = await s.getForUpdate(key, columns);
      await tick();
      return row;
    },
    get: async (key) => {
      await tick();
      return s.get(key);
    },
    scan: (options): RowCursor => {
      const cursor = s.scan(options);
      return {
        next: async () => {
          await tick();
          return cursor.next();
        },
        close: () => cursor.close(),
      };
    },
    dropRange: async (range) => {
      await tick();
      await s.dropRange(range);
    },
    dropFamily: async (family) => {
      await tick();
      await s.dropFamily(family);
    },
    collectGarbage: async (gc, now) => {
      await tick();
      await s.collectGarbage(gc, now);
    },
    stats: () => s.stats(),
    rowBytesBound: (key, enough) => s.rowBytesBound(key, enough),
    sampleKeys: async (bytesPerPiece) => {
      await tick();
      return s.sampleKeys(bytesPerPiece);
    },
    close: async () => {
      await s.close();
    },
  };
}
