/**
 * What the serving thread and a build worker (worker.ts) say to each other.
 *
 * A build is one SSTable. The serving thread decides what goes into it (the
 * rows of a memtable, the merged rows of a compaction) and streams them to
 * the worker as entry batches; the worker runs the SSTable writer (blocks,
 * prefix compression, LZ4, checksums, bloom filter, index) and streams the
 * file's bytes back; the serving thread appends them to the file through the
 * engine's FileSystem and syncs it. Every byte of the file passes through
 * the engine's FileSystem on the serving thread, so the memory and
 * fault-injecting file systems of the tests see the same writes a
 * single-threaded build makes. Batches and output chunks are transferred
 * (their ArrayBuffers move between threads), never copied by postMessage.
 *
 * A compaction runs on the worker whole: the worker reads the input files
 * through the serving thread (a `read` request answered in shared memory,
 * the worker waiting on it with Atomics.wait: the SSTable reader reads
 * synchronously), merges their rows (lsm/merge-rows.ts) and builds the
 * output as above. The serving thread answers `stop` to a read once the
 * compaction is to be abandoned.
 *
 * Entry batch layout: repeated [u32 key length][key bytes][u32 value length][value bytes], little-endian.
 */
import type { ByteString } from '../../model/bytes.js';
import type { ErrorCode } from '../../model/errors.js';
import type { GcRule } from '../../model/gc-rule.js';
import type { RangeDrop } from '../manifest/manifest-state.js';
import type { SSTableInfo } from '../sstable/properties.js';
import type { SSTableWriterOptions } from '../sstable/sstable-writer.js';

export type ToWorker =
  | { readonly t: 'open'; readonly id: number; readonly path: string; readonly options: SSTableWriterOptions }
  | { readonly t: 'rows'; readonly id: number; readonly buf: ArrayBuffer; readonly length: number }
  | { readonly t: 'finish'; readonly id: number }
  | ({ readonly t: 'compact'; readonly id: number; readonly path: string; readonly options: SSTableWriterOptions } & CompactJob)
  | { readonly t: 'abandon'; readonly id: number };

export type FromWorker =
  | { readonly t: 'out'; readonly id: number; readonly buf: ArrayBuffer; readonly length: number }
  /** One per `rows` message the worker has added to its writer. */
  | { readonly t: 'ack'; readonly id: number }
  | { readonly t: 'done'; readonly id: number; readonly info: SSTableInfo }
  | { readonly t: 'error'; readonly id: number; readonly code: ErrorCode | 'stopped' | undefined; readonly message: string }
  /** A compaction's read of an input file: answered in `sab` (see ReadReply). */
  | {
      readonly t: 'read';
      readonly id: number;
      readonly path: string;
      readonly offset: number;
      readonly length: number;
      readonly sab: SharedArrayBuffer;
    };

/** What a compaction on a worker needs to know: all of it plain data. */
export interface CompactJob {
  /** The input SSTables, newest first as the store lists them. */
  readonly inputs: readonly { readonly path: string; readonly number: number; readonly size: number; readonly where: string }[];
  /** The store's key range: rows of a shared file outside it are skipped. */
  readonly lower: string;
  readonly upper: string | undefined;
  readonly major: boolean;
  readonly dropsSeq: number;
  readonly drops: { readonly families: Readonly<Record<string, number>>; readonly ranges: readonly RangeDrop[] };
  /** The store's GC rules and the time they are applied at (major compactions with rules only). */
  readonly gc: { readonly rules: ReadonlyMap<string, GcRule | undefined>; readonly nowMicros: number } | undefined;
}

/**
 * A read's reply in its SharedArrayBuffer: Int32 [state, bytes], then the data
 * (or the error message, UTF-8) from byte 8. The worker waits while state is
 * PENDING; the serving thread stores the state last and notifies.
 */
export const ReadReply = { PENDING: 0, OK: 1, STOP: 2, ERROR: 3, HEADER_BYTES: 8 } as const;

/** Appends entries to batches of about `target` bytes; `take` hands over the filled batch. */
export class EntryBatch {
  private buf: Buffer;
  pos = 0;
  /** Entries in the current batch. */
  count = 0;

  constructor(private readonly target: number) {
    this.buf = Buffer.allocUnsafeSlow(target);
  }

  add(key: ByteString, value: Uint8Array): void {
    const need = 8 + key.length + value.byteLength;
    if (this.pos + need > this.buf.length) this.grow(need);
    const b = this.buf;
    b.writeUInt32LE(key.length, this.pos);
    this.pos += 4;
    this.pos += b.write(key, this.pos, 'latin1');
    b.writeUInt32LE(value.byteLength, this.pos);
    this.pos += 4;
    b.set(value, this.pos);
    this.pos += value.byteLength;
    this.count++;
  }

  /** Whether the batch has reached its target size. */
  get full(): boolean {
    return this.pos >= this.target;
  }

  /** The filled batch (its own ArrayBuffer, to transfer) and its length; the next batch starts empty. */
  take(): { buf: ArrayBuffer; length: number } {
    const out = { buf: this.buf.buffer as ArrayBuffer, length: this.pos };
    this.buf = Buffer.allocUnsafeSlow(this.target);
    this.pos = 0;
    this.count = 0;
    return out;
  }

  private grow(need: number): void {
    // One entry larger than the target gets a batch of its own size.
    const bigger = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.pos + need));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }
}

/** Calls `add` for every entry of a batch, in order. Values are views into the batch. */
export function readEntryBatch(buf: ArrayBuffer, length: number, add: (key: ByteString, value: Uint8Array) => void): void {
  const b = Buffer.from(buf, 0, length);
  let pos = 0;
  while (pos < length) {
    const keyLength = b.readUInt32LE(pos);
    pos += 4;
    const key = b.toString('latin1', pos, pos + keyLength);
    pos += keyLength;
    const valueLength = b.readUInt32LE(pos);
    pos += 4;
    add(key, b.subarray(pos, pos + valueLength));
    pos += valueLength;
  }
}
