/**
 * Positions within one block body (format.ts) without allocating per entry:
 * the storage iterator contract (../iterator.ts) over one block, without
 * bounds and without checking its REQUIRES (the table's iterator does).
 * `key` and `value` stay valid after the cursor moves (a string, a view of
 * the immutable block). `close()` drops the block; `reset()` starts the
 * cursor again on another one.
 *
 * The current key lives as bytes in a buffer the cursor owns: moving forward
 * copies only the unshared suffix of each key, and `key` turns it into a byte
 * string only when asked. Seeking binary-searches the restart points, then
 * scans forward. Moving backward decodes the restart run before the current
 * entry once and remembers its entries, so a run of `prev()` costs O(1) each
 * after the first.
 *
 * Entry headers are read with the one ByteReader (model/byte-reader.ts),
 * kept for the block. The body must have passed `checkBlockBody`; anything
 * else malformed (varints, lengths, prefixes) is found while decoding and
 * reported as DataLoss naming the file and the block's offset.
 */
import type { ByteString } from '../../model/bytes.js';
import { dataLoss } from '../../model/errors.js';
import { ByteReader, latin1 } from '../../model/byte-reader.js';
import type { StorageIterator } from '../iterator.js';

const EMPTY = Buffer.alloc(0);

/** Copies bytes; a plain loop beats Buffer#copy's native call for the short keys that dominate. */
function copyBytes(src: Buffer, from: number, dst: Buffer, to: number, n: number): void {
  if (n > 48) src.copy(dst, to, from, from + n);
  else for (let i = 0; i < n; i++) dst[to + i] = src[from + i]!;
}

/** Why a block body's restart array is malformed, or undefined when it is sound. */
export function checkBlockBody(body: Buffer): string | undefined {
  if (body.length < 4) return `body is ${body.length} bytes, too short for its restart count`;
  const n = body.readUInt32LE(body.length - 4);
  if (n > (body.length - 4) / 4) return `restart count ${n} does not fit in ${body.length} bytes`;
  const restartsAt = body.length - 4 - 4 * n;
  if (n === 0) return restartsAt === 0 ? undefined : 'has entries but no restart points';
  let prev = -1;
  for (let i = 0; i < n; i++) {
    const r = body.readUInt32LE(restartsAt + 4 * i);
    if (i === 0 ? r !== 0 : r <= prev || r >= restartsAt) return `restart point ${i} (${r}) is out of order or out of range`;
    prev = r;
  }
  return undefined;
}

export class BlockCursor implements StorageIterator<Buffer> {
  /** The body being read. */
  private data: Buffer = EMPTY;
  /** Offset of the first byte of the current entry's value. */
  private valueOffset = 0;
  /** Length of the current entry's value. */
  private valueLength = 0;
  /** The current key's bytes: keyBuf[0, keyLen). */
  private keyLen = 0;
  private keyBuf = Buffer.allocUnsafe(128);

  private restartsAt = 0;
  private numRestarts = 0;
  private off = -1;
  private nextOff = 0;
  private keyStr: ByteString | undefined;
  /** Where the entry header being read is. */
  private p = 0;
  /** Reads the entries' headers: [0, restartsAt) of the body. */
  private readonly r = new ByteReader<Buffer>(EMPTY, 0, 0, (why) => this.corrupt(why));
  private path = '';
  private blockOffset = 0;

  // The restart run decoded for backward steps.
  private runData: Buffer = EMPTY;
  private runCount = 0;
  private runIdx = -1;
  private runOffs: number[] = [];
  private runNext: number[] = [];
  private runValOff: number[] = [];
  private runValLen: number[] = [];
  private runKeyAt: number[] = [];
  private runKeyLen: number[] = [];
  private runKeys = Buffer.allocUnsafe(1024);

  /** Starts reading a checked block body; `path` and `blockOffset` name it in errors. Unpositioned after. */
  reset(data: Buffer, path: string, blockOffset: number): void {
    this.data = data;
    this.numRestarts = data.readUInt32LE(data.length - 4);
    this.restartsAt = data.length - 4 - 4 * this.numRestarts;
    this.r.reset(data, 0, this.restartsAt);
    this.path = path;
    this.blockOffset = blockOffset;
    this.off = -1;
    this.runCount = 0;
    this.keyStr = undefined;
  }

  /** Drops the block reference (the cursor can be reused after `reset`). */
  close(): void {
    this.data = EMPTY;
    this.r.reset(EMPTY, 0, 0);
    this.runData = EMPTY;
    this.runCount = 0;
    this.off = -1;
  }

  get valid(): boolean {
    return this.off >= 0;
  }

  /** The current key as a byte string. REQUIRES: valid. */
  get key(): ByteString {
    return (this.keyStr ??= latin1(this.keyBuf, 0, this.keyLen));
  }

  /** The current value, a view of the block. REQUIRES: valid. */
  get value(): Buffer {
    return this.data.subarray(this.valueOffset, this.valueOffset + this.valueLength);
  }

  /** Sign of (current key − `target`) in byte order. REQUIRES: valid. */
  compareKey(target: ByteString): number {
    const k = this.keyBuf;
    const n = Math.min(this.keyLen, target.length);
    for (let i = 0; i < n; i++) {
      const d = k[i]! - target.charCodeAt(i);
      if (d !== 0) return d;
    }
    return this.keyLen - target.length;
  }

  first(): void {
    this.keyLen = 0;
    if (this.restartsAt === 0) this.off = -1;
    else this.decodeAt(0);
  }

  last(): void {
    this.prevBefore(this.restartsAt);
  }

  /** REQUIRES: valid. */
  next(): void {
    const p = this.nextOff;
    if (p >= this.restartsAt) this.off = -1;
    else this.decodeAt(p);
  }

  /** REQUIRES: valid. */
  prev(): void {
    this.prevBefore(this.off);
  }

  /** Positions at the first entry with key >= target (unpositioned when none). */
  seekGE(target: ByteString): void {
    const n = this.numRestarts;
    if (n === 0) {
      this.off = -1;
      return;
    }
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.compareRestartKey(mid, target) < 0) lo = mid;
      else hi = mid - 1;
    }
    this.keyLen = 0;
    let p = this.restart(lo);
    const end = this.restartsAt;
    while (p < end) {
      this.decodeAt(p);
      if (this.compareKey(target) >= 0) return;
      p = this.nextOff;
    }
    this.off = -1;
  }

  /** Positions at the last entry with key < target (unpositioned when none). */
  seekLT(target: ByteString): void {
    this.seekGE(target);
    if (this.off >= 0) this.prev();
    else this.last();
  }

  /** True when positioned on an entry whose key equals `target` after seekGE. */
  positionedOn(target: ByteString): boolean {
    return this.off >= 0 && this.keyLen === target.length && this.compareKey(target) === 0;
  }

  private restart(i: number): number {
    return this.data.readUInt32LE(this.restartsAt + 4 * i);
  }

  /** Compares the (full) key stored at restart point i with target, without copying it. */
  private compareRestartKey(i: number, target: ByteString): number {
    this.p = this.restart(i);
    const shared = this.varint('shared key length');
    const unshared = this.varint('key length');
    this.varint('value length');
    if (shared !== 0) this.corrupt(`entry at restart point ${i} shares ${shared} bytes with a previous key`);
    const p = this.p;
    if (unshared > this.restartsAt - p) this.corrupt(`key at ${p} (${unshared} bytes) runs past the entries`);
    const d = this.data;
    const n = Math.min(unshared, target.length);
    for (let j = 0; j < n; j++) {
      const c = d[p + j]! - target.charCodeAt(j);
      if (c !== 0) return c;
    }
    return unshared - target.length;
  }

  /** Decodes the entry at p; keyBuf must hold the previous key (keyLen = 0 at a restart). */
  private decodeAt(p: number): void {
    this.p = p;
    const shared = this.varint('shared key length');
    const unshared = this.varint('key length');
    const vlen = this.varint('value length');
    const at = this.p;
    if (shared > this.keyLen) this.corrupt(`entry at ${p} shares ${shared} bytes with a key of ${this.keyLen}`);
    if (unshared + vlen > this.restartsAt - at) this.corrupt(`entry at ${p} (${unshared}+${vlen} bytes) runs past the entries`);
    const len = shared + unshared;
    if (len > this.keyBuf.length) this.growKey(len);
    const k = this.keyBuf;
    const d = this.data;
    copyBytes(d, at, k, shared, unshared);
    this.keyLen = len;
    this.keyStr = undefined;
    this.off = p;
    this.valueOffset = at + unshared;
    this.valueLength = vlen;
    this.nextOff = at + unshared + vlen;
  }

  /** Positions at the entry that ends at `end` (unpositioned when `end` is the first entry). */
  private prevBefore(end: number): void {
    if (end <= 0) {
      this.off = -1;
      return;
    }
    let j = -1;
    if (this.runData === this.data && this.runCount > 0) {
      const hint = this.runIdx;
      if (hint >= 0 && hint < this.runCount && this.runNext[hint] === end) j = hint;
      else if (hint > 0 && hint <= this.runCount && this.runNext[hint - 1] === end) j = hint - 1;
      else for (let i = 0; i < this.runCount && j < 0; i++) if (this.runNext[i] === end) j = i;
    }
    if (j < 0) {
      this.decodeRunBefore(end);
      this.runIdx = this.runCount - 1;
      return; // decodeRunBefore leaves the cursor on the run's last entry
    }
    this.loadRunEntry(j);
  }

  private loadRunEntry(j: number): void {
    const len = this.runKeyLen[j]!;
    const at = this.runKeyAt[j]!;
    if (len > this.keyBuf.length) this.growKey(len);
    copyBytes(this.runKeys, at, this.keyBuf, 0, len);
    this.keyLen = len;
    this.keyStr = undefined;
    this.off = this.runOffs[j]!;
    this.nextOff = this.runNext[j]!;
    this.valueOffset = this.runValOff[j]!;
    this.valueLength = this.runValLen[j]!;
    this.runIdx = j;
  }

  /** Decodes the restart run holding the entry that ends at `end`, remembering every entry. */
  private decodeRunBefore(end: number): void {
    let lo = 0;
    let hi = this.numRestarts - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.restart(mid) < end) lo = mid;
      else hi = mid - 1;
    }
    this.runData = this.data;
    this.runCount = 0;
    this.keyLen = 0;
    let p = this.restart(lo);
    let keysLen = 0;
    for (;;) {
      this.decodeAt(p);
      const i = this.runCount++;
      this.runOffs[i] = p;
      this.runNext[i] = this.nextOff;
      this.runValOff[i] = this.valueOffset;
      this.runValLen[i] = this.valueLength;
      this.runKeyAt[i] = keysLen;
      this.runKeyLen[i] = this.keyLen;
      if (keysLen + this.keyLen > this.runKeys.length) {
        const grown = Buffer.allocUnsafe(Math.max(keysLen + this.keyLen, 2 * this.runKeys.length));
        this.runKeys.copy(grown, 0, 0, keysLen);
        this.runKeys = grown;
      }
      copyBytes(this.keyBuf, 0, this.runKeys, keysLen, this.keyLen);
      keysLen += this.keyLen;
      p = this.nextOff;
      if (p === end) return;
      if (p > end) this.corrupt(`entries do not end at offset ${end}`);
    }
  }

  /**
   * The entry-header varint at `p`, moving `p` past it: the one-byte case,
   * nearly every header field, read here; longer ones, and every error, by
   * the shared reader. (Its own one-byte path repeated: going through the
   * reader held in a field for every header cost 5-10% of a table's
   * iteration, three varints per entry.)
   */
  private varint(what: string): number {
    const p = this.p;
    if (p < this.restartsAt) {
      const b = this.data[p]!;
      if (b < 0x80) {
        this.p = p + 1;
        return b;
      }
    }
    const r = this.r;
    r.pos = p;
    const v = r.varint(what);
    this.p = r.pos;
    return v;
  }

  private growKey(len: number): void {
    const grown = Buffer.allocUnsafe(Math.max(len, 2 * this.keyBuf.length));
    this.keyBuf.copy(grown, 0, 0, this.keyLen);
    this.keyBuf = grown;
  }

  private corrupt(reason: string): never {
    this.off = -1;
    throw dataLoss(`sstable ${this.path}: block at offset ${this.blockOffset} is malformed: ${reason}`);
  }
}
