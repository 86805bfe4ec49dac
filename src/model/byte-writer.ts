import type { ByteString } from './bytes.js';

/**
 * The one writer of the byte formats (the counterpart of byte-reader.ts):
 * appends to a Buffer that grows as needed. Varints are base-128
 * little-endian; `varint()` takes a non-negative safe integer, `varint64()`
 * an unsigned 64-bit bigint (protobuf). `bytes()` and `str()` write a length
 * (a varint) first; `raw()` and `latin1()` write the bytes alone.
 *
 * `buf` and `pos` are open: a format may reserve room and patch it later
 * (wal-batch.ts writes fragments in place behind a padded length).
 */
/** The most bytes varint() writes (a safe integer needs 8). */
const MAX_VARINT_BYTES = 8;

export class ByteWriter {
  buf: Buffer;
  pos = 0;

  /** `initial`: the first buffer, or its size. */
  constructor(initial: number | Buffer = 256) {
    this.buf = typeof initial === 'number' ? Buffer.allocUnsafe(initial) : initial;
  }

  /** Makes room for `n` more bytes (at least doubling the buffer when it grows). */
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  u8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }

  /** A non-negative safe integer. */
  varint(v: number): void {
    this.ensure(MAX_VARINT_BYTES);
    this.pos = putVarint(this.buf, this.pos, v);
  }

  /** A 32-bit unsigned integer, little-endian. */
  u32le(v: number): void {
    this.ensure(4);
    this.pos = this.buf.writeUInt32LE(v, this.pos);
  }

  /** An unsigned 64-bit integer (protobuf's varint: up to 10 bytes). */
  varint64(v: bigint): void {
    this.ensure(10);
    while (v >= 0x80n) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.pos++] = Number(v);
  }

  /** The bytes as they are. */
  raw(b: Uint8Array): void {
    this.ensure(b.byteLength);
    this.buf.set(b, this.pos);
    this.pos += b.byteLength;
  }

  /** The bytes of `s[from..]`, as they are. */
  latin1(s: ByteString, from = 0): void {
    this.ensure(s.length - from);
    this.pos = putLatin1(this.buf, this.pos, s, from);
  }

  /** Length, then the bytes. */
  bytes(b: Uint8Array): void {
    this.varint(b.byteLength);
    this.raw(b);
  }

  /** Length, then the byte string's bytes. */
  str(s: ByteString): void {
    this.varint(s.length);
    this.latin1(s);
  }

  /** The bytes written so far (a view, valid until the next write). */
  view(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

/** Bytes needed to encode `v` (a non-negative safe integer) as a varint. */
export function varintLength(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

/** Writes `v` (a non-negative safe integer) as a varint at `pos`; returns the position after it. */
export function putVarint(buf: Uint8Array, pos: number, v: number): number {
  while (v >= 0x80) {
    buf[pos++] = (v & 0x7f) | 0x80;
    v = Math.floor(v / 128);
  }
  buf[pos++] = v;
  return pos;
}

/**
 * Writes the bytes of `s[from..]` at `pos`; returns the position after them.
 * Short strings (families, qualifiers, most keys) are copied by a loop,
 * which beats a call into Buffer.write up to about 16 bytes.
 */
export function putLatin1(buf: Buffer, pos: number, s: ByteString, from = 0): number {
  const n = s.length - from;
  if (n > 16) return pos + buf.write(from === 0 ? s : s.slice(from), pos, n, 'latin1');
  for (let i = from; i < s.length; i++) buf[pos++] = s.charCodeAt(i);
  return pos;
}
