import { TabletopError } from '../../model/errors.js';
import type { EngineStats, MetaUpdate, RowStore, StorageEngine } from '../store.js';
import { MemoryRowStore } from './memory-store.js';

/**
 * The in-memory engine: one MemoryRowStore per id. Closing a store keeps
 * its data (opening the same id again sees it, like a disk engine would);
 * deleteStore drops it. Nothing survives the process.
 */
export class MemoryEngine implements StorageEngine {
  readonly kind = 'memory' as const;
  private readonly stores = new Map<string, MemoryRowStore>();
  private closed = false;
  private readonly meta = new Map<string, string>();

  readMeta(key: string): string | undefined {
    return this.meta.get(key);
  }

  writeMeta(key: string, value: string | null): void {
    if (value === null) this.meta.delete(key);
    else this.meta.set(key, value);
  }

  openStore(id: string): RowStore {
    if (this.closed) throw new TabletopError('Unavailable', 'the storage engine is closed');
    let store = this.stores.get(id);
    if (store === undefined) {
      store = new MemoryRowStore(id);
      this.stores.set(id, store);
    } else {
      store.reopen();
    }
    return store;
  }

  deleteStore(id: string): void {
    const store = this.stores.get(id);
    if (store === undefined) return;
    this.stores.delete(id);
    store.destroy();
  }

  splitStore(parentId: string, at: string, leftId: string, rightId: string, meta?: MetaUpdate): void {
    const parent = this.existing(parentId);
    this.stores.set(leftId, parent.slice(leftId, '', at));
    this.stores.set(rightId, parent.slice(rightId, at, undefined));
    this.stores.delete(parentId);
    parent.close();
    if (meta !== undefined) this.writeMeta(meta.key, meta.value());
  }

  mergeStores(leftId: string, rightId: string, mergedId: string, meta?: MetaUpdate): void {
    const left = this.existing(leftId);
    const right = this.existing(rightId);
    this.stores.set(mergedId, left.concat(mergedId, right));
    this.stores.delete(leftId);
    this.stores.delete(rightId);
    left.close();
    right.close();
    if (meta !== undefined) this.writeMeta(meta.key, meta.value());
  }

  /** Each clone is a copy-on-write copy of its source's tree (O(1) now; nodes copied as either side changes). */
  cloneStores(pairs: readonly (readonly [sourceId: string, cloneId: string])[], meta?: MetaUpdate): void {
    const sources = pairs.map(([sourceId, cloneId]) => {
      if (this.stores.has(cloneId)) throw new TabletopError('AlreadyExists', `store ${cloneId} already exists`);
      return this.existing(sourceId);
    });
    pairs.forEach(([, cloneId], i) => this.stores.set(cloneId, sources[i]!.slice(cloneId, '', undefined)));
    if (meta !== undefined) this.writeMeta(meta.key, meta.value());
  }

  /** Nothing in memory carries a checksum: the store only has to exist (NotFound otherwise). */
  verifyStore(id: string): void {
    this.existing(id);
  }

  storeIds(): string[] {
    return [...this.stores.keys()];
  }

  /** Every row is held in memory (its logical bytes); nothing is cached, logged, flushed, compacted or written to disk. */
  stats(): EngineStats {
    let memtableBytes = 0;
    for (const store of this.stores.values()) memtableBytes += store.stats().logicalBytes;
    return {
      memtableBytes,
      flushes: 0,
      flushedBytes: 0,
      compactions: 0,
      compactionInputBytes: 0,
      compactionOutputBytes: 0,
      sstables: 0,
      sstableBytes: 0,
      diskBytes: 0,
    };
  }

  private existing(id: string): MemoryRowStore {
    const s = this.stores.get(id);
    if (s === undefined) throw new TabletopError('NotFound', `no store ${id}`);
    return s;
  }

  close(): void {
    this.closed = true;
    for (const store of this.stores.values()) store.close();
  }
}
