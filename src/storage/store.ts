import type { ByteString } from '../model/bytes.js';
import type { Cell, Row } from '../model/cell.js';
import type { GcRule } from '../model/gc-rule.js';
import type { KeyRange } from '../model/key-range.js';

/**
 * The storage contract: what the database layer needs from an engine.
 * Implemented by the in-memory engine (storage/memory) and the durable
 * log-structured engine (storage/lsm).
 *
 * A RowStore holds the rows of one tablet (a key range of one table). It
 * knows nothing of schemas, filters or the API: it stores cells, applies
 * resolved row operations atomically per row, and streams rows in key order.
 *
 * Thread-safety: the database layer serialises operations on one row
 * (row locks); a store must tolerate concurrent operations on different rows
 * and reads concurrent with writes. A read sees one consistent point in time
 * (a snapshot taken when the cursor is opened).
 */

/** A resolved write operation on one row: timestamps are concrete. */
export type StoreOp =
  | {
      readonly kind: 'put';
      readonly family: string;
      readonly qualifier: ByteString;
      readonly timestamp: number;
      readonly value: Uint8Array;
    }
  /** Deletes versions of a column with timestamp in [start, end); end undefined = unbounded. */
  | {
      readonly kind: 'deleteColumn';
      readonly family: string;
      readonly qualifier: ByteString;
      readonly start: number;
      readonly end: number | undefined;
    }
  | { readonly kind: 'deleteFamily'; readonly family: string }
  | { readonly kind: 'deleteRow' };

/** A column of a row: family and qualifier. */
export interface ColumnRef {
  readonly family: string;
  readonly qualifier: ByteString;
}

/** All ops of one row, applied atomically. */
export interface RowWrite {
  readonly key: ByteString;
  readonly ops: readonly StoreOp[];
}

/** A value that is either ready now or arrives later (I/O). Callers check `instanceof Promise` only when it matters. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * A cursor over rows in key order (descending when opened reversed).
 * Contract:
 *  - `next()` returns the next row, or `undefined` at the end; rows are
 *    never empty (a row with no cells does not exist);
 *  - cells of a row are in storage order (family, qualifier, timestamp desc);
 *  - a row returned is the caller's: it stays valid, unchanged, after later
 *    calls (its values may be views of immutable storage buffers);
 *  - errors (I/O, corruption) surface from `next()`;
 *  - `close()` is mandatory and idempotent; it releases the snapshot.
 *
 * Not the storage iterator contract (iterator.ts), on purpose: this is what
 * an engine hands to the layers above, and they need less and other things.
 * A row is whole and resolved (every fragment of it merged, tombstones
 * applied), so there is one call per row and no separate key and value;
 * range and direction are fixed when the cursor opens (ScanOptions), on one
 * snapshot, and the database never seeks within a scan (a new range opens a
 * new cursor); and `next()` may return a promise (MaybePromise), so that an
 * engine may read asynchronously, at a row's granularity, while the storage
 * iterators below stay synchronous.
 */
export interface RowCursor {
  next(): MaybePromise<Row | undefined>;
  close(): void;
}

export interface ScanOptions {
  readonly range: KeyRange;
  readonly reverse?: boolean;
}

/**
 * Decides, during garbage collection, which cells of one column survive.
 * `cells` are the versions of one column, newest first; returns the survivors.
 * Made from a table's rules by row-ops.ts `columnGcOf`.
 */
export type ColumnGc = (family: string, cells: readonly Cell[], nowMicros: number) => readonly Cell[];

/**
 * A table's garbage-collection rules, supplied by the database layer and read
 * whenever collection runs (a compaction that starts later reads them again,
 * so a rule changed meanwhile is the one applied): each family of the schema
 * with its rule (undefined keeps every cell); cells of families the map lacks
 * are collected. Plain data, so that a build worker can be handed a copy.
 */
export interface GcRules {
  current(): ReadonlyMap<string, GcRule | undefined>;
}

export interface RowStore {
  /**
   * Applies the writes, each row's ops atomically and in order, and returns
   * once they are durable (a promise, or nothing when durable at once).
   * The writes are applied before `write` returns: `getForUpdate` sees them
   * at once, while reads (`get`, `scan`) see them only once they are durable.
   * So a caller holding a row's lock may release it as soon as `write`
   * returns and acknowledge the write once the promise resolves.
   */
  write(batch: readonly RowWrite[]): MaybePromise<void>;
  /** The row with this key (all its cells), or undefined: what is durable. */
  get(key: ByteString): MaybePromise<Row | undefined>;
  /**
   * The row including writes applied but not yet durable, for a caller
   * holding the row's lock (read-modify-write, check-and-mutate, aggregates).
   * With `columns`, the row holds only the newest cell of each of those
   * columns (what read-modify-write needs), so that a row with many versions
   * is not assembled whole for each increment.
   */
  getForUpdate(key: ByteString, columns?: readonly ColumnRef[]): MaybePromise<Row | undefined>;
  /**
   * Resolves once every write applied so far (all that getForUpdate can
   * have seen) is durable: a caller that answers from what getForUpdate
   * read, without writing (a CheckAndMutateRow whose branch is empty), waits
   * for it, so that no answer reveals a write a crash could still lose.
   * Nothing (or undefined) when that is so already.
   */
  durableNow(): MaybePromise<void>;
  /** Streams rows in `range`, on a snapshot taken now. */
  scan(options: ScanOptions): RowCursor;
  /** Removes every row in the range (DropRowRange): fast, not row by row when the engine can. */
  dropRange(range: KeyRange): MaybePromise<void>;
  /** Removes every cell of a family (the family was dropped from the schema). */
  dropFamily(family: string): MaybePromise<void>;
  /** Physically drops what the GC policy collects. Background work; may be slow. */
  collectGarbage(rules: GcRules, nowMicros: number): MaybePromise<void>;
  /** Stored and logical bytes and rows (see StoreStats for which engine estimates what). */
  stats(): StoreStats;
  /**
   * An upper bound of the bytes the row holds, as `rowBytes` counts them
   * (including writes applied but not yet durable), found without I/O, so
   * that the row-size limit is checked without reading the row. May stop
   * refining once the bound is at most `enough`.
   */
  rowBytesBound(key: ByteString, enough: number): number;
  /** Keys that cut the store into pieces of roughly `bytesPerPiece`, ascending, with the byte offset at each. */
  sampleKeys(bytesPerPiece: number): MaybePromise<readonly KeySample[]>;
  close(): MaybePromise<void>;
}

/**
 * What a store holds. Both engines count what is stored, so versions
 * overwritten and cells deleted count until the engine drops them (the memory
 * engine at once, the durable engine when a compaction rewrites them).
 */
export interface StoreStats {
  /**
   * Bytes the store takes. Durable engine: its SSTable files as written
   * (lz4-compressed blocks, index and filter) plus its memtables' memory
   * (fragments with a per-entry charge). Memory engine: the logical bytes.
   * The figure the tablet split size is compared with.
   */
  readonly bytes: number;
  /**
   * Uncompressed bytes of the keys and cells held. Durable engine: the
   * encoded row fragments (key, family, qualifier, timestamp, value, per
   * write) in memtables and SSTables. Memory engine: each row's key plus,
   * per cell, family + qualifier + value + 8.
   */
  readonly logicalBytes: number;
  readonly rows: number;
  /**
   * True when `rows` is an estimate: the durable engine adds up each
   * memtable's and SSTable's row count, so a row held by several of them
   * counts several times, and a deleted row counts until compaction.
   */
  readonly rowsEstimated: boolean;
  /**
   * True when `bytes` and `logicalBytes` are estimates: after a split the
   * children share their parent's SSTables until compaction, and each counts
   * the share of a shared file that its key range covers, from the file's
   * block index.
   */
  readonly bytesEstimated: boolean;
}

export interface KeySample {
  readonly key: ByteString;
  readonly offsetBytes: number;
}

/**
 * A named blob (writeMeta) to change atomically with a split or merge. The
 * value is computed at the moment the change is recorded (not before the
 * engine's preparatory work), so that it includes every change made to the
 * blob meanwhile.
 */
export interface MetaUpdate {
  readonly key: string;
  readonly value: () => string;
}

/** Creates and opens the stores of an engine. */
export interface StorageEngine {
  readonly kind: 'memory' | 'disk';
  /** Opens (creating if needed) the store with this id. */
  openStore(id: string): MaybePromise<RowStore>;
  /** Deletes a store and its data. */
  deleteStore(id: string): MaybePromise<void>;
  /**
   * Splits store `parentId` at key `at` into `leftId` (keys < at) and
   * `rightId` (keys >= at), without rewriting data where the engine can (the
   * durable engine's children share the parent's files until compaction).
   * REQUIRES: no write to the parent is in flight. Afterwards the parent id is
   * gone; cursors opened on it before keep working until closed. `meta`, when
   * given, is written in the same atomic step (the catalog naming the new
   * stores), so a crash never leaves a catalog naming stores that are gone.
   */
  splitStore(parentId: string, at: ByteString, leftId: string, rightId: string, meta?: MetaUpdate): MaybePromise<void>;
  /**
   * Merges two stores holding adjacent key ranges (left below right) into
   * `mergedId`. REQUIRES: no write to either is in flight.
   */
  mergeStores(leftId: string, rightId: string, mergedId: string, meta?: MetaUpdate): MaybePromise<void>;
  /**
   * Point-in-time copies of stores (backups, restores, copies of backups):
   * for each `[sourceId, cloneId]`, a new store `cloneId` holding exactly
   * what `sourceId` holds now, every pair at one and the same point in the
   * engine's order. The durable engine shares the source's immutable files
   * (copy-on-write: a file stays until no store refers to it), after making
   * what its memtables hold durable in a file; the copy costs no rewrite of
   * data. The sources keep serving. REQUIRES: no write to a source in
   * flight (the caller holds the table's write gate). `meta`, when given, is
   * written in the same atomic step, so a crash leaves either no clone and
   * the old meta, or every clone and the new meta.
   */
  cloneStores(pairs: readonly (readonly [sourceId: string, cloneId: string])[], meta?: MetaUpdate): MaybePromise<void>;
  /**
   * Reads all of a store's data and checks every checksum (the durable
   * engine: each file's blocks, index and footer); throws a TabletopError
   * DataLoss naming the store, the file and the damage. The memory engine
   * has nothing to check.
   */
  verifyStore(id: string): MaybePromise<void>;
  /** The ids of every store the engine holds. */
  storeIds(): string[];
  /** A small named blob kept by the engine (the catalog), or undefined. */
  readMeta(key: string): string | undefined;
  /** Replaces (null: removes) a named blob; durable once the promise resolves. */
  writeMeta(key: string, value: string | null): MaybePromise<void>;
  /** What the engine holds and has done since it opened (for /metrics); cheap: no I/O, a walk of the stores. */
  stats?(): EngineStats;
  close(): MaybePromise<void>;
}

/**
 * An engine's figures for operators. Counts are since the engine opened.
 * The memory engine has no cache, commit log, flushes, compactions or files:
 * those are 0 (and `blockCache`, `commitLog` absent).
 */
export interface EngineStats {
  /** Memory held by memtables: the durable engine's active and waiting ones; every row for the memory engine (logical bytes). */
  readonly memtableBytes: number;
  readonly blockCache?: {
    readonly capacityBytes: number;
    readonly bytes: number;
    readonly hits: number;
    readonly misses: number;
    readonly evictions: number;
  };
  /** Commit-log files still needed and their bytes. */
  readonly commitLog?: { readonly files: number; readonly bytes: number };
  readonly flushes: number;
  /** Bytes of the SSTables flushes wrote. */
  readonly flushedBytes: number;
  readonly compactions: number;
  readonly compactionInputBytes: number;
  readonly compactionOutputBytes: number;
  /** Live SSTables (each counted once, however many stores share it) and their bytes. */
  readonly sstables: number;
  readonly sstableBytes: number;
  /** SSTables plus commit-log files: what the data directory takes (the manifest aside). */
  readonly diskBytes: number;
}
