/**
 * Reading and writing the row-fragment and commit-log payload encodings:
 * unsigned varints (see storage/coding.ts) and length-prefixed byte strings.
 */
import { latin1, putVarint } from '../coding.js';


/** A cursor over bytes being decoded; throws `onError()` on malformed input. */
export class ByteReader {
  pos: number;
  constructor(
    readonly buf: Buffer,
    start: number,
    readonly end: number,
    private readonly onError: (what: string) => Error,
  ) {
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  u8(): number {
    if (this.pos >= this.end) throw this.onError('unexpected end of data');
    return this.buf[this.pos++]!;
  }

  varint(): number {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 8; i++) {
      if (this.pos >= this.end) throw this.onError('unexpected end of varint');
      const b = this.buf[this.pos++]!;
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 128;
    }
    throw this.onError('varint too long');
  }

  /** A length-prefixed byte range, as a subarray (no copy). */
  bytes(): Buffer {
    const n = this.varint();
    if (n > this.end - this.pos) throw this.onError(`length ${n} overruns the data`);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** Skips a length-prefixed byte range. */
  skip(): void {
    const n = this.varint();
    if (n > this.end - this.pos) throw this.onError(`length ${n} overruns the data`);
    this.pos += n;
  }

  /** A length-prefixed byte string (Latin-1). */
  str(): string {
    const n = this.varint();
    if (n > this.end - this.pos) throw this.onError(`length ${n} overruns the data`);
    const s = latin1(this.buf, this.pos, this.pos + n);
    this.pos += n;
    return s;
  }
}

/** Appends values to a growing buffer. */
export class ByteWriter {
  buf: Buffer;
  pos = 0;
  /** `initial`: the first buffer, or its size. */
  constructor(initial: number | Buffer = 256) {
    this.buf = typeof initial === 'number' ? Buffer.allocUnsafe(initial) : initial;
  }

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

  varint(v: number): void {
    this.ensure(8);
    this.pos = putVarint(this.buf, this.pos, v);
  }

  bytes(b: Uint8Array): void {
    this.varint(b.byteLength);
    this.ensure(b.byteLength);
    this.buf.set(b, this.pos);
    this.pos += b.byteLength;
  }

  str(s: string): void {
    const n = s.length;
    this.varint(n);
    this.ensure(n);
    if (n <= 16) {
      // Short strings (families, qualifiers, most keys): a loop beats a call into Buffer.write.
      const buf = this.buf;
      let p = this.pos;
      for (let i = 0; i < n; i++) buf[p++] = s.charCodeAt(i);
      this.pos = p;
    } else {
      this.pos += this.buf.write(s, this.pos, 'latin1');
    }
  }

  /** The bytes written so far (a view, valid until the next write). */
  view(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}
