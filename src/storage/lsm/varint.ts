/**
 * Unsigned varints (LEB128, 7 bits a byte, least significant first) for
 * integers up to 2^53, plus length-prefixed byte strings. Shared by the
 * engine's codecs (row fragments, manifest).
 */

/** Node's Buffer has fast Latin-1 codecs that @types/node does not declare. */
interface Latin1Buffer {
  latin1Slice(start: number, end: number): string;
  latin1Write(s: string, offset: number): number;
}

/** Bytes needed for `v` (0 ≤ v ≤ 2^53). */
export function varintSize(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

/** Writes `v` at `pos`; returns the position after it. */
export function putVarint(buf: Uint8Array, pos: number, v: number): number {
  while (v >= 0x80) {
    buf[pos++] = (v & 0x7f) | 0x80;
    v = Math.floor(v / 128);
  }
  buf[pos++] = v;
  return pos;
}

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

  /** A length-prefixed byte string (Latin-1). */
  str(): string {
    const n = this.varint();
    if (n > this.end - this.pos) throw this.onError(`length ${n} overruns the data`);
    const s = (this.buf as unknown as Latin1Buffer).latin1Slice(this.pos, this.pos + n);
    this.pos += n;
    return s;
  }
}

/** Appends values to a growing buffer. */
export class ByteWriter {
  buf: Buffer;
  pos = 0;
  constructor(initial = 256) {
    this.buf = Buffer.allocUnsafe(initial);
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
    this.varint(s.length);
    this.ensure(s.length);
    this.pos += (this.buf as unknown as Latin1Buffer).latin1Write(s, this.pos);
  }

  /** The bytes written so far (a view, valid until the next write). */
  view(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}
