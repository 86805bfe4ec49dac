import type { RowCursor, RowStore, StorageEngine } from '../../storage/store.js';

/**
 * Wraps an engine so that every scan cursor answers asynchronously, one row per
 * event-loop turn, as a scan over slow storage would: lets server tests see
 * what happens while a read is busy (heartbeats, cancellation).
 */
export function slowEngine(inner: StorageEngine): StorageEngine {
  return {
    kind: inner.kind,
    openStore: async (id) => slowStore(await inner.openStore(id)),
    deleteStore: (id) => inner.deleteStore(id),
    readMeta: (key) => inner.readMeta(key),
    storeIds: () => inner.storeIds(),
    splitStore: (parentId, at, leftId, rightId, meta) => inner.splitStore(parentId, at, leftId, rightId, meta),
    mergeStores: (leftId, rightId, mergedId, meta) => inner.mergeStores(leftId, rightId, mergedId, meta),
    cloneStores: (pairs, meta) => inner.cloneStores(pairs, meta),
    verifyStore: (id) => inner.verifyStore(id),
    writeMeta: (key, value) => inner.writeMeta(key, value),
    close: () => inner.close(),
  };
}

function slowStore(store: RowStore): RowStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'scan') return (options: Parameters<RowStore['scan']>[0]) => slowCursor(target.scan(options));
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

function slowCursor(cursor: RowCursor): RowCursor {
  return {
    next: () => new Promise((resolve, reject) => setImmediate(() => Promise.resolve(cursor.next()).then(resolve, reject))),
    close: () => cursor.close(),
  };
}
