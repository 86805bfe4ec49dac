/**
 * Builds one block body (format.ts): entries with their keys prefix-compressed
 * against the previous key, a full key at every `restartInterval`-th entry,
 * then the restart offsets and their count. The caller keeps keys ascending.
 */
import type { ByteString } from '../../model/bytes.js';
import { ByteWriter, varintLength } from '../../model/byte-writer.js';

export class BlockBuilder {
  private readonly w: ByteWriter;
  private restarts: number[] = [];
  private sinceRestart = 0;
  private lastKey: ByteString = '';
  private count = 0;

  constructor(
    private readonly restartInterval: number,
    initialCapacity = 4096,
  ) {
    this.w = new ByteWriter(initialCapacity);
  }

  get entries(): number {
    return this.count;
  }

  get empty(): boolean {
    return this.count === 0;
  }

  /** Body size if finished now. */
  get estimatedSize(): number {
    return this.w.pos + 4 * this.restarts.length + 4;
  }

  /** Body bytes one more entry would add, at most (assumes a restart). */
  static entrySizeBound(keyLength: number, valueLength: number): number {
    return varintLength(keyLength) + 1 + varintLength(valueLength) + keyLength + valueLength + 4;
  }

  add(key: ByteString, value: Uint8Array): void {
    let shared = 0;
    const w = this.w;
    if (this.sinceRestart >= this.restartInterval || this.count === 0) {
      this.restarts.push(w.pos);
      this.sinceRestart = 0;
    } else {
      const last = this.lastKey;
      const n = Math.min(last.length, key.length);
      while (shared < n && last.charCodeAt(shared) === key.charCodeAt(shared)) shared++;
    }
    w.varint(shared);
    w.varint(key.length - shared);
    w.varint(value.byteLength);
    w.latin1(key, shared);
    w.raw(value);
    this.lastKey = key;
    this.sinceRestart++;
    this.count++;
  }

  /** The finished body (a view valid until the next `add` or `reset`); the builder itself is unchanged. */
  finish(): Buffer {
    const w = this.w;
    const entriesEnd = w.pos;
    for (const r of this.restarts) w.u32le(r);
    w.u32le(this.restarts.length);
    const body = w.view();
    w.pos = entriesEnd;
    return body;
  }

  /** Empties the builder; drops a buffer grown past `maxCapacity` (after an oversized entry). */
  reset(maxCapacity = Infinity): void {
    const w = this.w;
    if (w.buf.length > maxCapacity) w.buf = Buffer.allocUnsafe(maxCapacity);
    w.pos = 0;
    this.restarts = [];
    this.sinceRestart = 0;
    this.lastKey = '';
    this.count = 0;
  }
}
