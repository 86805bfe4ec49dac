/**
 * Little helpers for the storage byte formats (SSTables, row fragments, the
 * commit-log payload): varints (LevelDB's base-128
 * little-endian encoding, at most 8 bytes so every value is a safe integer),
 * fixed-width integers, Latin-1 byte strings, and a bounds-checked reader
 * that reports malformed input through a caller-supplied failure function
 * instead of a RangeError.
 */
import type { ByteString } from '../model/bytes.js';

/** Largest value a varint may carry here (2^53 − 1); longer encodings are malformed. */
const MAX_VARINT_BYTES = 8;

/** Bytes needed to encode `v` (a non-negative safe integer) as a varint. */
export function varintLength(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

/** Writes `v` as a varint at `pos`; returns the position after it. */
export function putVarint(buf: Uint8Array, pos: number, v: number): number {
  while (v >= 0x80) {
    buf[pos++] = (v & 0x7f) | 0x80;
    v = Math.floor(v / 128);
  }
  buf[pos++] = v;
  return pos;
}

/** Writes a Latin-1 byte string at `pos`; returns the position after it. */
export function putLatin1(buf: Buffer, pos: number, s: ByteString, from = 0): number {
  const n = s.length - from;
  if (n > 32) return pos + buf.write(from === 0 ? s : s.slice(from), pos, n, 'latin1');
  for (let i = from; i < s.length; i++) buf[pos++] = s.charCodeAt(i);
  return pos;
}

type Latin1Buffer = Buffer & { latin1Slice?: (start: number, end: number) => string };
const hasLatin1Slice = typeof (Buffer.prototype as Latin1Buffer).latin1Slice === 'function';

/** The byte string of `buf[start, end)` (Node's fast latin1Slice when present). */
export function latin1(buf: Buffer, start: number, end: number): ByteString {
  return hasLatin1Slice ? (buf as Latin1Buffer).latin1Slice!(start, end) : buf.toString('latin1', start, end);
}

/** Reads a u64le that must be a safe integer, or returns -1. */
export function readSafeU64(buf: Buffer, pos: number): number {
  const lo = buf.readUInt32LE(pos);
  const hi = buf.readUInt32LE(pos + 4);
  return hi >= 0x200000 ? -1 : hi * 0x1_0000_0000 + lo;
}

/** Writes a non-negative safe integer as u64le. */
export function writeU64(buf: Buffer, pos: number, v: number): void {
  buf.writeUInt32LE(v % 0x1_0000_0000 >>> 0, pos);
  buf.writeUInt32LE(Math.floor(v / 0x1_0000_0000), pos + 4);
}

/**
 * A cursor over `buf[pos, limit)` for the non-hot formats (index,
 * properties, footer). Every read is bounds-checked; on malformed input it
 * calls `fail(reason)`, which must throw.
 */
export class ByteReader {
  constructor(
    readonly buf: Buffer,
    public pos: number,
    readonly limit: number,
    private readonly fail: (reason: string) => never,
  ) {}

  get done(): boolean {
    return this.pos >= this.limit;
  }

  varint(what: string): number {
    let v = 0;
    let mul = 1;
    for (let i = 0; i < MAX_VARINT_BYTES; i++) {
      if (this.pos >= this.limit) this.fail(`${what} runs past the end`);
      const b = this.buf[this.pos++]!;
      v += (b & 0x7f) * mul;
      if (b < 0x80) {
        if (!Number.isSafeInteger(v)) this.fail(`${what} is out of range`);
        return v;
      }
      mul *= 128;
    }
    return this.fail(`${what} is not a valid varint`);
  }

  bytes(n: number, what: string): Buffer {
    if (n > this.limit - this.pos) this.fail(`${what} (${n} bytes) runs past the end`);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}
