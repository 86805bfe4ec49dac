import type { ByteString } from '../../model/bytes.js';
import { dataLoss, TabletopError } from '../../model/errors.js';
import type { BlockCache } from '../cache/block-cache.js';
import type { FileSystem, RandomAccessFile } from '../fs/file-system.js';
import type { KeySample } from '../store.js';
import { BlockCursor } from './block-cursor.js';
import { BloomFilter, checkBloomFilter } from './bloom.js';
import { ByteReader } from '../../model/byte-reader.js';
import { decodeFooter, FOOTER_BYTES, FORMAT_VERSION, TRAILER_BYTES, type BlockHandle, type Footer } from './format.js';
import { decodeProperties, type SSTableInfo } from './properties.js';
import { readBlock, readBody } from './read-block.js';
import { createSSTableIterator, type BlockSource, type IteratorBounds, type SSTableIterator } from './sstable-iterator.js';

export interface SSTableReaderOptions {
  /** Shared cache of decompressed blocks; without one every read goes to the file. */
  readonly cache?: BlockCache;
  /** A number unique among open tables (the file number): the block cache key. */
  readonly id: number;
}

/**
 * An open SSTable. Opening reads and verifies the footer, the properties,
 * the index and the filter, which stay in memory; data blocks are read on
 * demand, synchronously, through the block cache. Reads never return wrong
 * data: corruption is DataLoss naming the file and offset.
 *
 * Values returned by `get` and iterators are read-only views of shared
 * blocks. Close every iterator before the table; `close()` does not evict the
 * table's blocks from the cache (the owner calls `cache.evictFile(id)` when
 * the file is deleted).
 */
export interface SSTableReader {
  readonly path: string;
  readonly id: number;
  readonly info: SSTableInfo;
  /** The value stored under `key`, or undefined. */
  get(key: ByteString): Buffer | undefined;
  /** False when the filter proves the key absent (no I/O). */
  mayContain(key: ByteString): boolean;
  newIterator(bounds?: IteratorBounds): SSTableIterator;
  /**
   * The file offset where the data for `key` would begin: the start of the
   * data block that would hold it (the end of the data when the key is past
   * the last block). Needs no I/O.
   */
  approximateOffsetOf(key: ByteString): number;
  /**
   * Split points about every `step` bytes of file, from the index (no I/O):
   * each sample's key is a block's index separator and `offsetBytes` the file
   * offset where the next block begins, i.e. about the bytes of the entries
   * before the key. Never includes the end of the table.
   */
  sampleKeys(step: number): KeySample[];
  /**
   * Reads every data block from the file (never from the cache) and checks
   * it: its checksum, its entries' encoding, keys ascending within and
   * across blocks and within their index separators, every key admitted by
   * the filter, and the entry count and key bounds the properties state.
   * Yields each block's size once it is checked, so a caller can pause
   * between blocks. Throws DataLoss naming the file and offset. (Opening a
   * reader checks the footer, properties, index and filter.)
   */
  verifyBlocks(): Generator<number, void, undefined>;
  close(): void;
}

export function openSSTable(fs: FileSystem, path: string, options: SSTableReaderOptions): SSTableReader {
  const file = fs.openRead(path);
  try {
    return new Reader(file, options);
  } catch (e) {
    file.close();
    throw e;
  }
}

class Reader implements SSTableReader, BlockSource {
  readonly path: string;
  readonly id: number;
  readonly info: SSTableInfo;
  readonly separators: ByteString[] = [];
  readonly offsets: number[] = [];
  private readonly sizes: number[] = [];
  private readonly dataEnd: number;
  private readonly filter: BloomFilter | undefined;
  private readonly cache: BlockCache | undefined;
  private readonly scratch = new BlockCursor();
  private closed = false;

  constructor(
    private readonly file: RandomAccessFile,
    options: SSTableReaderOptions,
  ) {
    this.path = file.path;
    this.id = options.id;
    this.cache = options.cache;
    const footer = this.readFooter();
    this.info = decodeProperties(readBody(file, footer.properties, 'properties block'), this.path, footer.properties.offset, file.size);
    this.dataEnd = this.decodeIndex(footer.index);
    this.checkLayout(footer);
    if (footer.filter.size > 0) {
      const bits = readBlock(file, footer.filter, 'filter block');
      const why = checkBloomFilter(bits);
      if (why !== undefined) throw this.corrupt(`filter block at offset ${footer.filter.offset} is malformed: ${why}`);
      this.filter = new BloomFilter(Buffer.from(bits));
    }
  }

  get(key: ByteString): Buffer | undefined {
    this.checkOpen();
    const { smallestKey, largestKey } = this.info;
    if (smallestKey === undefined || key < smallestKey || key > largestKey!) return undefined;
    if (this.filter !== undefined && !this.filter.mayContain(key)) return undefined;
    const i = this.findBlock(key);
    if (i >= this.separators.length) return undefined;
    const c = this.scratch;
    c.reset(this.blockBody(i), this.path, this.offsets[i]!);
    c.seekGE(key);
    const found = c.positionedOn(key) ? c.value : undefined;
    c.close();
    return found;
  }

  mayContain(key: ByteString): boolean {
    return this.filter === undefined || this.filter.mayContain(key);
  }

  newIterator(bounds?: IteratorBounds): SSTableIterator {
    this.checkOpen();
    return createSSTableIterator(this, bounds);
  }

  approximateOffsetOf(key: ByteString): number {
    const i = this.findBlock(key);
    return i < this.offsets.length ? this.offsets[i]! : this.dataEnd;
  }

  sampleKeys(step: number): KeySample[] {
    if (!(step > 0)) throw new TabletopError('InvalidArgument', `sampleKeys step must be positive, got ${step}`);
    const out: KeySample[] = [];
    let last = 0;
    for (let i = 0; i + 1 < this.separators.length; i++) {
      const end = this.offsets[i + 1]!;
      if (end - last >= step) {
        out.push({ key: this.separators[i]!, offsetBytes: end });
        last = end;
      }
    }
    return out;
  }

  *verifyBlocks(): Generator<number, void, undefined> {
    this.checkOpen();
    const c = new BlockCursor();
    let first: ByteString | undefined;
    let prev: ByteString | undefined;
    let entries = 0;
    try {
      for (let i = 0; i < this.separators.length; i++) {
        const offset = this.offsets[i]!;
        c.reset(readBody(this.file, { offset, size: this.sizes[i]! }, 'data block'), this.path, offset);
        const bad = (n: number, why: string): TabletopError => this.corrupt(`data block at offset ${offset}: entry ${n} ${why}`);
        let n = 0;
        for (c.first(); c.valid; c.next(), n++) {
          const key = c.key;
          if (prev !== undefined && !(key > prev)) throw bad(n, 'does not sort after the one before');
          if (key > this.separators[i]!) throw bad(n, 'sorts after its index separator');
          if (this.filter !== undefined && !this.filter.mayContain(key)) throw bad(n, 'is not admitted by the filter block');
          first ??= key;
          prev = key;
        }
        entries += n;
        yield this.sizes[i]!;
      }
    } finally {
      c.close();
    }
    const { entries: stated, smallestKey, largestKey } = this.info;
    if (entries !== stated) throw this.corrupt(`data blocks hold ${entries} entries, the properties say ${stated}`);
    if (entries > 0 && (first !== smallestKey || prev !== largestKey))
      throw this.corrupt('the smallest or largest key differs from what the properties say');
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.scratch.close();
    this.file.close();
  }

  findBlock(key: ByteString): number {
    const seps = this.separators;
    let lo = 0;
    let hi = seps.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (seps[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  blockBody(i: number, fillCache = true): Buffer {
    this.checkOpen();
    const offset = this.offsets[i]!;
    const cached = this.cache?.get(this.id, offset);
    if (cached !== undefined) return cached;
    const body = readBody(this.file, { offset, size: this.sizes[i]! }, 'data block');
    if (fillCache) this.cache?.insert(this.id, offset, body);
    return body;
  }

  private readFooter(): Footer {
    const size = this.file.size;
    if (size < FOOTER_BYTES) throw this.corrupt(`file is ${size} bytes, too short to hold the ${FOOTER_BYTES}-byte footer (truncated?)`);
    const at = size - FOOTER_BYTES;
    const footer = decodeFooter(this.file.read(at, FOOTER_BYTES));
    if (typeof footer === 'string') throw this.corrupt(`footer at offset ${at}: ${footer}`);
    if (footer.version > FORMAT_VERSION) {
      throw new TabletopError(
        'FailedPrecondition',
        `sstable ${this.path}: format version ${footer.version} was written by a newer tabletop; this one reads up to version ${FORMAT_VERSION}`,
      );
    }
    if (footer.version < 1) throw this.corrupt(`footer at offset ${at}: format version ${footer.version} is invalid`);
    return footer;
  }

  /** Decodes the index into separators and handles; returns the end of the data blocks. */
  private decodeIndex(handle: BlockHandle): number {
    const body = readBody(this.file, handle, 'index block');
    const c = new BlockCursor();
    c.reset(body, this.path, handle.offset);
    let expected = 0;
    const fail = (why: string): never => {
      throw this.corrupt(`index block at offset ${handle.offset} is malformed: ${why}`);
    };
    for (c.first(); c.valid; c.next()) {
      const n = this.separators.length;
      const sep = c.key;
      if (n > 0 && !(sep > this.separators[n - 1]!)) fail(`separator ${n} is not ascending`);
      const v = c.value;
      const r = new ByteReader(v, 0, v.length, fail);
      const offset = r.varint(`handle ${n} offset`);
      const size = r.varint(`handle ${n} size`);
      if (!r.done) fail(`handle ${n} has trailing bytes`);
      if (offset !== expected) fail(`data block ${n} starts at ${offset}, expected ${expected}`);
      this.separators.push(sep);
      this.offsets.push(offset);
      this.sizes.push(size);
      expected = offset + size + TRAILER_BYTES;
    }
    return expected;
  }

  /** The blocks must tile the file exactly: data, filter, properties, index, footer. */
  private checkLayout(f: Footer): void {
    const end = (h: BlockHandle): number => h.offset + h.size + TRAILER_BYTES;
    let at = this.dataEnd;
    const parts: [string, BlockHandle][] = [
      ['properties block', f.properties],
      ['index block', f.index],
    ];
    if (f.filter.size > 0) parts.unshift(['filter block', f.filter]);
    for (const [what, h] of parts) {
      if (h.offset !== at) throw this.corrupt(`${what} is at offset ${h.offset}, expected ${at}`);
      at = end(h);
    }
    if (at !== this.file.size - FOOTER_BYTES)
      throw this.corrupt(`blocks end at ${at}, but the footer starts at ${this.file.size - FOOTER_BYTES}`);
    const { entries, dataBlocks, largestKey } = this.info;
    const n = this.separators.length;
    if (n !== dataBlocks) throw this.corrupt(`index lists ${n} data blocks, properties say ${dataBlocks}`);
    if ((entries === 0) !== (n === 0)) throw this.corrupt(`${entries} entries in ${n} data blocks`);
    if (largestKey !== undefined && largestKey > this.separators[n - 1]!)
      throw this.corrupt('largest key sorts after the last index separator');
  }

  private checkOpen(): void {
    if (this.closed) throw new TabletopError('FailedPrecondition', `sstable ${this.path} is closed`);
  }

  private corrupt(reason: string): TabletopError {
    return dataLoss(`sstable ${this.path}: ${reason}`);
  }
}
