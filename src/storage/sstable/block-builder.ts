/**
 * Builds one block body (format.ts): entries with their keys prefix-compressed
 * against the previous key, a full key at every `restartInterval`-th entry,
 * then the restart offsets and their count. The caller keeps keys ascending.
 */
import type { ByteString } from '../../model/bytes.js';
import { putLatin1, putVarint, varintLength } from '../coding.js';

export class BlockBuilder {
  private buf: Buffer;
  private len = 0;
  private restarts: number[] = [];
  private sinceRestart = 0;
  private lastKey: ByteString = '';
  private count = 0;

  constructor(
    private readonly restartInterval: number,
    initialCapacity = 4096,
  ) {
    this.buf = Buffer.allocUnsafe(initialCapacity);
  }

  get entries(): number {
    return this.count;
  }

  get empty(): boolean {
    return this.count === 0;
  }

  /** Body size if finished now. */
  get estimatedSize(): number {
    return this.len + 4 * this.restarts.length + 4;
  }

  /** Body bytes one more entry would add, at most (assumes a restart). */
  static entrySizeBound(keyLength: number, valueLength: number): number {
    return varintLength(keyLength) + 1 + varintLength(valueLength) + keyLength + valueLength + 4;
  }

  add(key: ByteString, value: Uint8Array): void {
    let shared = 0;
    if (this.sinceRestart >= this.restartInterval || this.count === 0) {
      this.restarts.push(this.len);
      this.sinceRestart = 0;
    } else {
      const last = this.lastKey;
      const n = Math.min(last.length, key.length);
      while (shared < n && last.charCodeAt(shared) === key.charCodeAt(shared)) shared++;
    }
    const unshared = key.length - shared;
    this.reserve(15 + unshared + value.byteLength);
    let p = putVarint(this.buf, this.len, shared);
    p = putVarint(this.buf, p, unshared);
    p = putVarint(this.buf, p, value.byteLength);
    p = putLatin1(this.buf, p, key, shared);
    this.buf.set(value, p);
    this.len = p + value.byteLength;
    this.lastKey = key;
    this.sinceRestart++;
    this.count++;
  }

  /** The finished body (a view valid until the next `reset`). */
  finish(): Buffer {
    this.reserve(4 * this.restarts.length + 4);
    let p = this.len;
    for (const r of this.restarts) p = this.buf.writeUInt32LE(r, p);
    p = this.buf.writeUInt32LE(this.restarts.length, p);
    return this.buf.subarray(0, p);
  }

  /** Empties the builder; drops a buffer grown past `maxCapacity` (after an oversized entry). */
  reset(maxCapacity = Infinity): void {
    if (this.buf.length > maxCapacity) this.buf = Buffer.allocUnsafe(maxCapacity);
    this.len = 0;
    this.restarts = [];
    this.sinceRestart = 0;
    this.lastKey = '';
    this.count = 0;
  }

  private reserve(extra: number): void {
    if (this.len + extra <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.len + extra, this.buf.length * 2));
    this.buf.copy(grown, 0, 0, this.len);
    this.buf = grown;
  }
}
