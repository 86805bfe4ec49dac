/**
 * The block cache: decompressed SSTable blocks shared by every open table,
 * keyed by (file id, block offset) and bounded by the bytes it holds.
 *
 * Replacement is LRU approximated by "second chance" (CLOCK) over a Map's
 * insertion order: a hit only marks the entry as referenced; when space is
 * needed, the oldest entry is evicted unless it was referenced since it
 * last came up, in which case it loses its mark and moves to the young end.
 * A hit therefore costs one Map lookup, and a scan of blocks that are read
 * once cannot flush out blocks that are read again and again.
 *
 * A block bigger than `maxBlockFraction` of the capacity bypasses the cache
 * (one huge row must not evict everything else). Cached blocks are shared:
 * callers must never modify them. Synchronous and single-threaded, like the
 * reads that use it.
 */

export interface BlockCacheStats {
  readonly capacity: number;
  /** Bytes charged for the cached blocks (their sizes plus a fixed per-entry overhead). */
  readonly bytes: number;
  readonly entries: number;
  readonly hits: number;
  readonly misses: number;
  readonly evictions: number;
  /** Blocks not cached because they were too big. */
  readonly bypassed: number;
}

export interface BlockCache {
  readonly capacity: number;
  /** The cached block, counting a hit, or undefined, counting a miss. */
  get(fileId: number, offset: number): Buffer | undefined;
  /** Caches a block (replacing any block at that key), evicting others to make room. */
  insert(fileId: number, offset: number, block: Buffer): void;
  /** Drops every block of a file (the file was deleted or is being closed for good). */
  evictFile(fileId: number): void;
  clear(): void;
  stats(): BlockCacheStats;
}

export interface BlockCacheOptions {
  /** Blocks larger than this fraction of the capacity are not cached (default 1/8). */
  readonly maxBlockFraction?: number;
}

/** Bytes charged per entry on top of the block, for the Map slot, the entry and the Buffer object. */
export const ENTRY_OVERHEAD_BYTES = 128;

export function createBlockCache(capacityBytes: number, options: BlockCacheOptions = {}): BlockCache {
  if (!(capacityBytes >= 0 && Number.isFinite(capacityBytes)))
    throw new RangeError(`block cache capacity must be a non-negative number, got ${capacityBytes}`);
  const fraction = options.maxBlockFraction ?? 1 / 8;
  if (!(fraction > 0 && fraction <= 1)) throw new RangeError(`maxBlockFraction must be in (0, 1], got ${fraction}`);
  return new ClockCache(capacityBytes, Math.floor(capacityBytes * fraction));
}

type Key = number | string;

interface Entry {
  readonly fileId: number;
  readonly block: Buffer;
  readonly charge: number;
  referenced: boolean;
}

/** Numeric keys while they stay exact (file ids < 2^21, offsets < 4 GiB); strings beyond. */
function keyOf(fileId: number, offset: number): Key {
  return fileId < 0x20_0000 && offset < 0x1_0000_0000 ? fileId * 0x1_0000_0000 + offset : `${fileId}:${offset}`;
}

class ClockCache implements BlockCache {
  private readonly entries = new Map<Key, Entry>();
  private readonly byFile = new Map<number, Set<Key>>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;
  private evictions = 0;
  private bypassed = 0;

  constructor(
    readonly capacity: number,
    private readonly maxBlock: number,
  ) {}

  get(fileId: number, offset: number): Buffer | undefined {
    const e = this.entries.get(keyOf(fileId, offset));
    if (e === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    e.referenced = true;
    return e.block;
  }

  insert(fileId: number, offset: number, block: Buffer): void {
    const charge = block.byteLength + ENTRY_OVERHEAD_BYTES;
    if (charge > this.maxBlock) {
      this.bypassed++;
      return;
    }
    const key = keyOf(fileId, offset);
    this.remove(key);
    this.entries.set(key, { fileId, block, charge, referenced: false });
    let keys = this.byFile.get(fileId);
    if (keys === undefined) this.byFile.set(fileId, (keys = new Set()));
    keys.add(key);
    this.bytes += charge;
    this.makeRoom(key);
  }

  evictFile(fileId: number): void {
    const keys = this.byFile.get(fileId);
    if (keys === undefined) return;
    for (const key of keys) {
      const e = this.entries.get(key);
      if (e !== undefined) {
        this.entries.delete(key);
        this.bytes -= e.charge;
      }
    }
    this.byFile.delete(fileId);
  }

  clear(): void {
    this.entries.clear();
    this.byFile.clear();
    this.bytes = 0;
  }

  stats(): BlockCacheStats {
    const { capacity, bytes, hits, misses, evictions, bypassed } = this;
    return { capacity, bytes, entries: this.entries.size, hits, misses, evictions, bypassed };
  }

  /** Evicts until the charge fits; `fresh` (just inserted) is passed over once rather than evicted at once. */
  private makeRoom(fresh: Key): void {
    while (this.bytes > this.capacity) {
      const first = this.entries.entries().next();
      if (first.done === true) return;
      const [key, e] = first.value;
      if (e.referenced || key === fresh) {
        if (key === fresh) fresh = NaN;
        e.referenced = false;
        this.entries.delete(key);
        this.entries.set(key, e);
        continue;
      }
      this.remove(key);
      this.evictions++;
    }
  }

  private remove(key: Key): void {
    const e = this.entries.get(key);
    if (e === undefined) return;
    this.entries.delete(key);
    this.bytes -= e.charge;
    const keys = this.byFile.get(e.fileId);
    if (keys !== undefined) {
      keys.delete(key);
      if (keys.size === 0) this.byFile.delete(e.fileId);
    }
  }
}
