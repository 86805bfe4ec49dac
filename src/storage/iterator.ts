import type { ByteString } from '../model/bytes.js';

/**
 * The iterator contract of the storage layers, after Pebble's
 * InternalIterator, written once here. Implemented by SSTableIterator
 * (sstable/sstable-iterator.ts: a table, with bounds), BlockCursor
 * (sstable/block-cursor.ts: one block), MemCursor (lsm/memtable.ts: a
 * memtable's rows) and, for its keys, EntryIterator (lsm/sorted-entries.ts:
 * a memtable's entry order). Two cursor shapes stay different, each saying
 * why in its own doc comment: RowCursor (store.ts), the engines' rows to the
 * layers above, and RowSource (lsm/merge-cursor.ts), the merge's view of one
 * of its inputs.
 *
 * Positioning
 *  - A new iterator is unpositioned: `valid` is false.
 *  - `first()` lands on the smallest key, `last()` on the largest,
 *    `seekGE(k)` on the first key >= k, `seekLT(k)` on the last key < k
 *    (reverse scans start there). Each defines the position on its own,
 *    whatever came before; when there is no such key the iterator becomes
 *    invalid.
 *  - `next()` and `prev()` step to the following and preceding key, in
 *    any order (a change of direction needs no new seek), and REQUIRE
 *    `valid`. Stepping past either end makes the iterator invalid; it is not
 *    parked there: only a positioning call makes it valid again.
 *  - Keys are unique and ascend in byte order (ByteString's `<`).
 *  - An iterator opened with bounds [lower, upper) never exposes a key
 *    outside them: `first()` is `seekGE(lower)`, `last()` is
 *    `seekLT(upper)`, seeks outside the bounds are clamped to them, and
 *    stepping past a bound makes the iterator invalid.
 *
 * Access and lifetime
 *  - `key` and `value` REQUIRE `valid`. SSTableIterator checks (and throws
 *    FailedPrecondition); the inner iterators, called once per entry in the
 *    hottest loops, do not, and what they return when invalid is undefined.
 *  - `key` is a ByteString, immutable: it stays valid after the iterator
 *    moves. A value, as in Pebble, is valid until the next positioning call
 *    or `close()`, unless the implementation promises more, saying so. The
 *    Buffers of SSTableIterator, BlockCursor and MemCursor are read-only
 *    views of immutable memory (a block, a commit-log record): correct after
 *    the iterator moves on, which is what lets a scan hand out cells without
 *    copying them; a view pins its whole buffer, so copy a small value that
 *    is kept for long.
 *
 * Errors
 *  - Corruption (DataLoss naming the file and offset) and I/O failures are
 *    thrown by the call that hits them; the iterator is then invalid, and a
 *    later positioning call may try again. (Pebble's Error() method is
 *    Go's way of saying the same.)
 *
 * Close
 *  - `close()` is mandatory and idempotent: it releases what the iterator
 *    pins (blocks, table references) and leaves it invalid. Nothing but
 *    `valid` and `close()` may be used after it (SSTableIterator throws
 *    FailedPrecondition); a BlockCursor is the exception, made reusable by
 *    `reset()` on another block.
 *
 * Synchronous, allocation-free
 *  - Every call is synchronous: memtables are in memory and SSTable blocks
 *    are read synchronously through the block cache. The storage layers'
 *    only asynchronous boundary is RowCursor.next(), a whole row at a time.
 *  - Stepping allocates nothing beyond what the entry itself is made of (its
 *    key string, a view of its value): these are the loops of every scan,
 *    flush and compaction.
 */
export interface KeyIterator {
  readonly valid: boolean;
  /** The current key. REQUIRES: valid. */
  readonly key: ByteString;
  first(): void;
  last(): void;
  seekGE(key: ByteString): void;
  seekLT(key: ByteString): void;
  /** REQUIRES: valid. */
  next(): void;
  /** REQUIRES: valid. */
  prev(): void;
  close(): void;
}

/** A KeyIterator with a value at each key (see KeyIterator for the whole contract). */
export interface StorageIterator<V> extends KeyIterator {
  /** The current value. REQUIRES: valid. Valid until the next positioning call unless the implementation promises more. */
  readonly value: V;
}
