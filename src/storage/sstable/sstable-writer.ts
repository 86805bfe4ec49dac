import { compressSync } from './lz4.js';
import { printable, type ByteString } from '../../model/bytes.js';
import { TabletopError } from '../../model/errors.js';
import type { WritableFile } from '../fs/file-system.js';
import { BlockBuilder } from './block-builder.js';
import { addBloomHashes, bloomHash, emptyBloomFilter } from './bloom.js';
import { putVarint } from '../../model/byte-writer.js';
import { BlockType, encodeFooter, encodeTrailer, FORMAT_VERSION, MAX_BLOCK_BYTES, type BlockHandle } from './format.js';
import { encodeProperties, type Compression, type SSTableInfo } from './properties.js';
import { shortestSeparator, shortSuccessor } from './separator.js';

export interface SSTableWriterOptions {
  /** Target uncompressed size of a data block (default 32 KiB); a bigger entry gets a block of its own. */
  readonly blockSize?: number;
  /** Entries between full (not prefix-compressed) keys in a block (default 16). */
  readonly restartInterval?: number;
  /** Bloom filter bits per key (default 10, about 1% false positives); 0 writes no filter. */
  readonly bloomBitsPerKey?: number;
  /** Default 'lz4': each block is compressed when that saves at least 12.5%. */
  readonly compression?: Compression;
  /** Recorded in the properties (default Date.now()). */
  readonly createdAtMillis?: number;
  /** Recorded in the properties: who wrote the table and why (default "tabletop"). */
  readonly creator?: string;
}

/**
 * Writes one SSTable (format.ts) to a new file, streaming: each data block is
 * appended as soon as it is full, so memory stays at about one block plus
 * the index and 4 bytes per key for the filter.
 *
 * A writer that fails (I/O error) or is abandoned cannot be used again; the
 * caller removes the file. Not safe for concurrent use.
 */
export interface SSTableWriter {
  readonly path: string;
  /** Entries added so far. */
  readonly entries: number;
  /** Bytes the file would have if finished now, roughly (for cutting output files at a target size). */
  readonly estimatedSize: number;
  /** Appends an entry. Keys must be strictly ascending in unsigned byte order. */
  add(key: ByteString, value: Uint8Array): void;
  /**
   * Writes the filter, properties, index and footer, syncs and closes the file. `pause`, when given, is called
   * between pieces of the filter's construction (a large file's filter takes milliseconds); a promise it returns is
   * awaited first (the serving thread's time share).
   */
  finish(pause?: () => Promise<void> | undefined): Promise<SSTableInfo>;
  /** Gives up: closes the file without finishing it. Idempotent. */
  abandon(): void;
}

export function createSSTableWriter(file: WritableFile, options: SSTableWriterOptions = {}): SSTableWriter {
  return new Writer(file, options);
}

type State = 'open' | 'finishing' | 'finished' | 'abandoned' | 'failed';

/** Keys put in the filter between two calls of finish's pause (~0.2 ms of work here). */
const FILTER_PIECE_KEYS = 8192;

class Writer implements SSTableWriter {
  private readonly blockSize: number;
  private readonly restartInterval: number;
  private readonly bitsPerKey: number;
  private readonly compression: Compression;
  private readonly createdAtMillis: number;
  private readonly creator: string;

  private readonly block: BlockBuilder;
  private readonly index: BlockBuilder;
  private state: State = 'open';
  private offset = 0;
  private count = 0;
  private lastKey: ByteString = '';
  private smallestKey: ByteString | undefined;
  private rawKeyBytes = 0;
  private rawValueBytes = 0;
  private maxEntryBytes = 0;
  private dataBlocks = 0;
  private incompressibleRun = 0;
  private skipped = 0;
  private hashes = new Uint32Array(1024);
  private readonly handleScratch = Buffer.allocUnsafe(20);

  constructor(
    private readonly file: WritableFile,
    options: SSTableWriterOptions,
  ) {
    this.blockSize = positive(options.blockSize ?? 32 * 1024, 'blockSize', 1, MAX_BLOCK_BYTES);
    this.restartInterval = positive(options.restartInterval ?? 16, 'restartInterval', 1, 1 << 20);
    this.bitsPerKey = options.bloomBitsPerKey ?? 10;
    if (!(this.bitsPerKey >= 0 && this.bitsPerKey <= 100)) throw bad(`bloomBitsPerKey must be in [0, 100], got ${this.bitsPerKey}`);
    this.compression = options.compression ?? 'lz4';
    if (this.compression !== 'lz4' && this.compression !== 'none') throw bad(`unknown compression ${String(this.compression)}`);
    this.createdAtMillis = options.createdAtMillis ?? Date.now();
    this.creator = options.creator ?? 'tabletop';
    this.block = new BlockBuilder(this.restartInterval, Math.min(this.blockSize + 1024, 1 << 20));
    this.index = new BlockBuilder(this.restartInterval);
  }

  get path(): string {
    return this.file.path;
  }

  get entries(): number {
    return this.count;
  }

  get estimatedSize(): number {
    return this.offset + this.block.estimatedSize + this.index.estimatedSize + (this.count * this.bitsPerKey) / 8;
  }

  add(key: ByteString, value: Uint8Array): void {
    this.checkOpen('add');
    if (this.count > 0 && !(key > this.lastKey)) {
      throw new TabletopError(
        'Internal',
        `sstable ${this.path}: key ${printable(key)} does not sort after the previous key ${printable(this.lastKey)}`,
      );
    }
    const bound = BlockBuilder.entrySizeBound(key.length, value.byteLength);
    if (bound > MAX_BLOCK_BYTES)
      throw bad(`sstable ${this.path}: an entry of ${bound} bytes exceeds the ${MAX_BLOCK_BYTES}-byte block limit`);
    if (!this.block.empty && this.block.estimatedSize + bound > this.blockSize) this.guard(() => this.flushBlock(key));
    this.block.add(key, value);
    if (this.count === this.hashes.length) {
      const grown = new Uint32Array(this.hashes.length * 2);
      grown.set(this.hashes);
      this.hashes = grown;
    }
    if (this.bitsPerKey > 0) this.hashes[this.count] = bloomHash(key);
    if (this.count === 0) this.smallestKey = key;
    this.count++;
    this.lastKey = key;
    this.rawKeyBytes += key.length;
    this.rawValueBytes += value.byteLength;
    if (key.length + value.byteLength > this.maxEntryBytes) this.maxEntryBytes = key.length + value.byteLength;
  }

  async finish(pause?: () => Promise<void> | undefined): Promise<SSTableInfo> {
    this.checkOpen('finish');
    this.state = 'finishing';
    try {
      if (!this.block.empty) this.flushBlock(undefined);
      let filter: BlockHandle = { offset: 0, size: 0 };
      if (this.bitsPerKey > 0) {
        const bits = emptyBloomFilter(this.count, this.bitsPerKey);
        for (let from = 0; from < this.count; from += FILTER_PIECE_KEYS) {
          addBloomHashes(bits, this.hashes, from, Math.min(this.count, from + FILTER_PIECE_KEYS));
          const wait = pause?.();
          if (wait !== undefined) await wait;
        }
        filter = this.writeBlock(bits, false);
      }
      const info: Omit<SSTableInfo, 'size'> = {
        entries: this.count,
        smallestKey: this.smallestKey,
        largestKey: this.count > 0 ? this.lastKey : undefined,
        rawKeyBytes: this.rawKeyBytes,
        rawValueBytes: this.rawValueBytes,
        maxEntryBytes: this.maxEntryBytes,
        dataBlocks: this.dataBlocks,
        formatVersion: FORMAT_VERSION,
        createdAtMillis: this.createdAtMillis,
        creator: this.creator,
        compression: this.compression,
      };
      const properties = this.writeBlock(encodeProperties(info, this.restartInterval), true);
      const index = this.writeBlock(this.index.finish(), true);
      this.append(encodeFooter({ index, properties, filter, version: FORMAT_VERSION }));
      await this.file.sync();
      this.file.close();
      this.state = 'finished';
      return { ...info, size: this.offset };
    } catch (e) {
      this.fail();
      throw e;
    }
  }

  abandon(): void {
    if (this.state === 'finished' || this.state === 'abandoned') return;
    this.state = 'abandoned';
    this.file.close();
  }

  /** Writes the current block and its index entry; `nextKey` is the first key of the next block. */
  private flushBlock(nextKey: ByteString | undefined): void {
    const handle = this.writeBlock(this.block.finish(), true);
    this.block.reset(4 * this.blockSize + 1024);
    this.dataBlocks++;
    const sep = nextKey === undefined ? shortSuccessor(this.lastKey) : shortestSeparator(this.lastKey, nextKey);
    const h = this.handleScratch;
    const end = putVarint(h, putVarint(h, 0, handle.offset), handle.size);
    this.index.add(sep, h.subarray(0, end));
  }

  private writeBlock(body: Buffer, compressible: boolean): BlockHandle {
    let contents: Buffer = body;
    let type: BlockType = BlockType.none;
    if (compressible && this.compression === 'lz4' && body.length >= 64 && this.shouldTryCompression()) {
      const c = compressSync(body);
      if (c.length <= body.length - body.length / 8) {
        contents = c;
        type = BlockType.lz4;
        this.incompressibleRun = 0;
      } else {
        this.incompressibleRun++;
      }
    }
    const handle = { offset: this.offset, size: contents.length };
    const trailer = encodeTrailer(contents, type);
    this.file.appendv([contents, trailer]);
    this.offset += contents.byteLength + trailer.byteLength;
    return handle;
  }

  /**
   * Data that does not compress (random or already compressed values) is
   * sampled rather than compressed block after block: after a run of blocks
   * that did not shrink, only every 16th block is tried, as RocksDB samples.
   */
  private shouldTryCompression(): boolean {
    if (this.incompressibleRun < 4) return true;
    return ++this.skipped % 16 === 0;
  }

  private append(data: Uint8Array): void {
    this.file.append(data);
    this.offset += data.byteLength;
  }

  private guard(f: () => void): void {
    try {
      f();
    } catch (e) {
      this.fail();
      throw e;
    }
  }

  private fail(): void {
    if (this.state === 'abandoned' || this.state === 'finished') return;
    this.state = 'failed';
    try {
      this.file.close();
    } catch {
      // The write already failed; that error is the one the caller sees.
    }
  }

  private checkOpen(op: string): void {
    if (this.state !== 'open')
      throw new TabletopError('FailedPrecondition', `sstable ${this.path}: cannot ${op}, the writer is ${this.state}`);
  }
}

function bad(message: string): TabletopError {
  return new TabletopError('InvalidArgument', message);
}

function positive(v: number, name: string, min: number, max: number): number {
  if (!Number.isInteger(v) || v < min || v > max) throw bad(`${name} must be an integer in [${min}, ${max}], got ${v}`);
  return v;
}
