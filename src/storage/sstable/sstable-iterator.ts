/**
 * The SSTable iterator: the storage iterator contract (../iterator.ts) over
 * one table, with optional bounds. What it adds to the contract:
 *
 * - It checks its REQUIRES: `key`, `value`, `next()` and `prev()` without a
 *   valid position, and any call after `close()`, throw FailedPrecondition.
 * - An upper bound also stops it from reading a block that cannot hold a key
 *   below it.
 * - `value` is a read-only view of a (possibly cached, shared) block: it
 *   stays correct after the iterator moves on, and pins the block.
 * - `close()` releases the block it holds. Iterators must be closed before
 *   their table is; any number of iterators may read one table.
 */
import type { ByteString } from '../../model/bytes.js';
import { TabletopError } from '../../model/errors.js';
import type { StorageIterator } from '../iterator.js';
import { BlockCursor } from './block-cursor.js';

/** A table's entries: keys and read-only views of their values. */
export type SSTableIterator = StorageIterator<Buffer>;

export interface IteratorBounds {
  /** Inclusive lower bound. */
  readonly lower?: ByteString;
  /** Exclusive upper bound. */
  readonly upper?: ByteString;
  /**
   * Whether blocks read from the file go into the block cache (default true).
   * Compactions pass false, as RocksDB's compaction reads do: their inputs are
   * about to be deleted, and filling the cache with them would evict the
   * blocks that reads use and, during a bulk load, fill it for nothing.
   * Blocks already cached are used either way.
   */
  readonly fillCache?: boolean;
}

/** What the iterator needs from its table: the index and the blocks. */
export interface BlockSource {
  readonly path: string;
  /** Index separators: block i holds keys <= separators[i] and > separators[i - 1]. */
  readonly separators: readonly ByteString[];
  readonly offsets: readonly number[];
  /** First block whose separator is >= key (separators.length when none). */
  findBlock(key: ByteString): number;
  /** The checked body of data block i (via the cache; a block read from the file is cached unless fillCache is false). */
  blockBody(i: number, fillCache?: boolean): Buffer;
}

export function createSSTableIterator(source: BlockSource, bounds: IteratorBounds = {}): SSTableIterator {
  return new TableIterator(source, bounds.lower, bounds.upper, bounds.fillCache ?? true);
}

class TableIterator implements SSTableIterator {
  private readonly cursor = new BlockCursor();
  private loaded = -1;
  private ok = false;
  private closed = false;

  constructor(
    private readonly src: BlockSource,
    private readonly lower: ByteString | undefined,
    private readonly upper: ByteString | undefined,
    private readonly fillCache: boolean,
  ) {}

  get valid(): boolean {
    return this.ok;
  }

  get key(): ByteString {
    if (!this.ok) this.notValid('key');
    return this.cursor.key;
  }

  get value(): Buffer {
    if (!this.ok) this.notValid('value');
    return this.cursor.value;
  }

  first(): void {
    this.checkOpen();
    try {
      if (this.lower !== undefined) this.doSeekGE(this.lower);
      else this.forwardFrom(0);
      this.clampUpper();
    } catch (e) {
      this.ok = false;
      throw e;
    }
  }

  last(): void {
    this.checkOpen();
    try {
      if (this.upper !== undefined) this.doSeekLT(this.upper);
      else this.backwardFrom(this.src.separators.length - 1);
      this.clampLower();
    } catch (e) {
      this.ok = false;
      throw e;
    }
  }

  seekGE(key: ByteString): void {
    this.checkOpen();
    try {
      this.doSeekGE(this.lower !== undefined && key < this.lower ? this.lower : key);
      this.clampUpper();
    } catch (e) {
      this.ok = false;
      throw e;
    }
  }

  seekLT(key: ByteString): void {
    this.checkOpen();
    try {
      this.doSeekLT(this.upper !== undefined && key > this.upper ? this.upper : key);
      this.clampLower();
    } catch (e) {
      this.ok = false;
      throw e;
    }
  }

  next(): void {
    if (!this.ok) this.notValid('next');
    try {
      this.cursor.next();
      if (!this.cursor.valid) this.forwardFrom(this.loaded + 1);
      this.clampUpper();
    } catch (e) {
      this.ok = false;
      throw e;
    }
  }

  prev(): void {
    if (!this.ok) this.notValid('prev');
    try {
      this.cursor.prev();
      if (!this.cursor.valid) this.backwardFrom(this.loaded - 1);
      this.clampLower();
    } catch (e) {
      this.ok = false;
      throw e;
    }
  }

  close(): void {
    this.closed = true;
    this.ok = false;
    this.loaded = -1;
    this.cursor.close();
  }

  private doSeekGE(key: ByteString): void {
    const i = this.src.findBlock(key);
    if (i >= this.src.separators.length) return this.invalidate();
    this.load(i);
    this.cursor.seekGE(key);
    if (!this.cursor.valid) this.forwardFrom(i + 1);
  }

  private doSeekLT(key: ByteString): void {
    const i = this.src.findBlock(key);
    if (i >= this.src.separators.length) return this.backwardFrom(i - 1);
    this.load(i);
    this.cursor.seekLT(key);
    if (!this.cursor.valid) this.backwardFrom(i - 1);
  }

  /** Positions on the first entry of the first non-empty block from i on. */
  private forwardFrom(i: number): void {
    const seps = this.src.separators;
    for (; i < seps.length; i++) {
      // Every key of block i is > separators[i - 1]: none is below the upper bound.
      if (this.upper !== undefined && i > 0 && seps[i - 1]! >= this.upper) break;
      this.load(i);
      this.cursor.first();
      if (this.cursor.valid) return;
    }
    this.invalidate();
  }

  /** Positions on the last entry of the last non-empty block from i down. */
  private backwardFrom(i: number): void {
    const seps = this.src.separators;
    for (; i >= 0; i--) {
      // Every key of block i is <= separators[i]: all are below the lower bound.
      if (this.lower !== undefined && seps[i]! < this.lower) break;
      this.load(i);
      this.cursor.last();
      if (this.cursor.valid) return;
    }
    this.invalidate();
  }

  private clampUpper(): void {
    this.ok = this.cursor.valid && (this.upper === undefined || this.cursor.compareKey(this.upper) < 0);
  }

  private clampLower(): void {
    this.ok = this.cursor.valid && (this.lower === undefined || this.cursor.compareKey(this.lower) >= 0);
  }

  private invalidate(): void {
    this.cursor.close();
    this.loaded = -1;
  }

  private load(i: number): void {
    if (i === this.loaded) return;
    this.loaded = -1;
    this.cursor.reset(this.src.blockBody(i, this.fillCache), this.src.path, this.src.offsets[i]!);
    this.loaded = i;
  }

  private checkOpen(): void {
    if (this.closed) throw new TabletopError('FailedPrecondition', `sstable ${this.src.path}: iterator used after close()`);
  }

  private notValid(op: string): never {
    if (this.closed) throw new TabletopError('FailedPrecondition', `sstable ${this.src.path}: iterator used after close()`);
    throw new TabletopError('FailedPrecondition', `sstable ${this.src.path}: iterator ${op} requires a valid position`);
  }
}
