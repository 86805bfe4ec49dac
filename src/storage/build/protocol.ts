/**
 * What the serving thread and a build worker (worker.ts) say to each other.
 *
 * A build is one SSTable. The serving thread decides what goes into it (the
 * rows of a memtable, the merged rows of a compaction) and streams them to
 * the worker as entry batches; the worker runs the SSTable writer (blocks,
 * prefix compression, LZ4, checksums, bloom filter, index), and the file's
 * bytes reach the file one of two ways:
 *  - a file of the operating system's (the FileSystem gives its `descriptor`,
 *    which every thread of the process shares): the worker writes the bytes
 *    itself and reports how many ('wrote'); the serving thread only syncs and
 *    closes the file. It must not close the descriptor while the worker may
 *    still write: an abandoned build waits for the worker's 'abandoned' (or
 *    its death) before it closes, or a file opened meanwhile under the same
 *    number would take the worker's bytes;
 *  - any other file (the memory and fault-injecting file systems of the
 *    tests): the worker streams the bytes back ('out') and the serving thread
 *    appends them through the engine's FileSystem, so those file systems see
 *    the same writes a single-threaded build makes.
 * Batches and output chunks are transferred (their ArrayBuffers move between
 * threads), never copied by postMessage.
 *
 * Entry batch layout: repeated [u32 key length][key bytes][u32 value length][value bytes], little-endian.
 */
import type { ByteString } from '../../model/bytes.js';
import type { ErrorCode } from '../../model/errors.js';
import type { SSTableInfo } from '../sstable/properties.js';
import type { SSTableWriterOptions } from '../sstable/sstable-writer.js';

export type ToWorker =
  | {
      readonly t: 'open';
      readonly id: number;
      readonly path: string;
      readonly options: SSTableWriterOptions;
      /** The file's descriptor and the offset of its next byte, when the worker writes the file itself. */
      readonly direct?: { readonly fd: number; readonly position: number };
    }
  | { readonly t: 'rows'; readonly id: number; readonly buf: ArrayBuffer; readonly length: number }
  | { readonly t: 'finish'; readonly id: number }
  /** Answered by 'abandoned' once the worker has stopped writing the build's file. */
  | { readonly t: 'abandon'; readonly id: number }
  /** An output chunk's buffer, appended and handed back for the worker to fill again (id 0: not a build's). */
  | { readonly t: 'chunk'; readonly id: 0; readonly buf: ArrayBuffer };

export type FromWorker =
  | { readonly t: 'out'; readonly id: number; readonly buf: ArrayBuffer; readonly length: number }
  /** One per `rows` message the worker has added to its writer, handing the batch's buffer back for the next one. */
  | { readonly t: 'ack'; readonly id: number; readonly buf: ArrayBuffer }
  /** A direct build wrote `length` more bytes to its file. */
  | { readonly t: 'wrote'; readonly id: number; readonly length: number }
  | { readonly t: 'done'; readonly id: number; readonly info: SSTableInfo }
  | { readonly t: 'abandoned'; readonly id: number }
  | {
      readonly t: 'error';
      readonly id: number;
      readonly code: ErrorCode | undefined;
      readonly message: string;
      /** The operating system's error code, when a write of the file failed (ENOSPC, EIO, ...). */
      readonly errno: string | undefined;
    };

/**
 * Room past a batch's target in its buffer: the entry that takes a batch past its target fits without the buffer
 * growing (a batch allocated at exactly its target grew, and was copied whole, for its last entry every time: ~30 ms
 * of the serving thread per 0.75 s of compactions, and the grown buffer was never reused).
 */
const BATCH_SLACK = 64 * 1024;

/** Appends entries to batches of about `target` bytes; `take` hands over the filled batch. */
export class EntryBatch {
  private buf: Buffer;
  /** The size of a batch's buffer: the target and room for the entry that passes it. */
  private readonly capacity: number;
  pos = 0;
  /** Entries in the current batch. */
  count = 0;

  /** Buffers handed back (see `reuse`), taken before new ones are allocated. */
  private readonly spare: ArrayBuffer[] = [];

  constructor(private readonly target: number) {
    this.capacity = target + BATCH_SLACK;
    this.buf = Buffer.allocUnsafeSlow(this.capacity);
  }

  /** A batch's buffer, back from the worker: the next batch fills it again instead of allocating. */
  reuse(buf: ArrayBuffer): void {
    if (buf.byteLength === this.capacity) this.spare.push(buf);
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
    const spare = this.spare.pop();
    this.buf = spare === undefined ? Buffer.allocUnsafeSlow(this.capacity) : Buffer.from(spare);
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
