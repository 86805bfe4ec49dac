import type { ByteString } from './bytes.js';

/**
 * The one reader of the byte formats, for every layer: the storage formats
 * (SSTable blocks, index and properties; row fragments; commit-log payloads)
 * and the model's protobuf wire (HLL++ state, proto-wire.ts). A cursor over
 * `buf[pos, end)`: every read is bounds-checked, and malformed input calls
 * `fail(reason)`, which must throw the format's own error (DataLoss for what
 * storage wrote, InvalidArgument for what a client sent). Reasons name what
 * was read (`what`, "varint" by default) and where.
 *
 * Varints are base-128 little-endian, low group first (LevelDB's and
 * protobuf's encoding). `varint()` takes at most 8 bytes and must be a safe
 * integer: every number the storage formats hold. `varint64()` takes the
 * 10 bytes of a protobuf varint, as an unsigned 64-bit bigint.
 *
 * Reads of byte ranges return views of `buf`, not copies (a Buffer when
 * `buf` is one). The one-byte varint is the common case and costs a compare:
 * these reads run per entry of every scan, flush and compaction.
 */
/** The most bytes varint() reads: 8 bytes carry 56 bits, enough for a safe integer (53). */
const MAX_VARINT_BYTES = 8;

export class ByteReader<B extends Uint8Array = Buffer> {
  constructor(
    public buf: B,
    public pos: number,
    public end: number,
    private readonly fail: (reason: string) => never,
  ) {}

  /** Starts reading `buf[pos, end)` afresh: a reader kept for many buffers allocates nothing. */
  reset(buf: B, pos: number, end: number): void {
    this.buf = buf;
    this.pos = pos;
    this.end = end;
  }

  /** True once every byte up to `end` is read. */
  get done(): boolean {
    return this.pos >= this.end;
  }

  u8(what = 'byte'): number {
    if (this.pos >= this.end) this.fail(`${what} at ${this.pos} runs past the end`);
    return this.buf[this.pos++]!;
  }

  /** A varint of at most 8 bytes that is a safe integer. */
  varint(what?: string): number {
    // The one-byte case apart, small enough to be inlined where it is called.
    const p = this.pos;
    if (p < this.end) {
      const b = this.buf[p]!;
      if (b < 0x80) {
        this.pos = p + 1;
        return b;
      }
    }
    return this.longVarint(what);
  }

  private longVarint(what = 'varint'): number {
    const buf = this.buf;
    const end = this.end;
    let p = this.pos;
    if (p >= end) return this.fail(`${what} at ${p} runs past the end`);
    let b = buf[p++]!;
    let v = b & 0x7f;
    let mul = 0x80;
    for (let i = 1; i < MAX_VARINT_BYTES; i++) {
      if (p >= end) return this.fail(`${what} at ${this.pos} runs past the end`);
      b = buf[p++]!;
      v += (b & 0x7f) * mul;
      if (b < 0x80) {
        // Seven bytes hold 49 bits: only an eighth can leave the safe integers.
        if (i === MAX_VARINT_BYTES - 1 && !Number.isSafeInteger(v)) return this.fail(`${what} at ${this.pos} is out of range`);
        this.pos = p;
        return v;
      }
      mul *= 0x80;
    }
    return this.fail(`${what} at ${this.pos} is longer than ${MAX_VARINT_BYTES} bytes`);
  }

  /** A varint of at most 10 bytes (protobuf's), as an unsigned 64-bit bigint. */
  varint64(what = 'varint'): bigint {
    const start = this.pos;
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.pos >= this.end) return this.fail(`${what} at ${start} runs past the end`);
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return BigInt.asUintN(64, result);
    }
    return this.fail(`${what} at ${start} is longer than 10 bytes`);
  }

  /** The next `n` bytes, as a view. */
  bytes(n: number, what = 'bytes'): B {
    if (n > this.end - this.pos) this.fail(`${what} at ${this.pos} (${n} bytes) runs past the end`);
    const out = this.buf.subarray(this.pos, this.pos + n) as B;
    this.pos += n;
    return out;
  }

  skip(n: number, what = 'bytes'): void {
    if (n > this.end - this.pos) this.fail(`${what} at ${this.pos} (${n} bytes) runs past the end`);
    this.pos += n;
  }

  /** A byte range after its length (a varint), as a view. */
  lengthPrefixed(what = 'bytes'): B {
    return this.bytes(this.varint(what), what);
  }

  /** Skips a byte range after its length (a varint). */
  skipLengthPrefixed(what = 'bytes'): void {
    this.skip(this.varint(what), what);
  }

  /** A byte string after its length (a varint). */
  str(this: ByteReader<Buffer>, what = 'string'): ByteString {
    const n = this.varint(what);
    if (n > this.end - this.pos) this.fail(`${what} at ${this.pos} (${n} bytes) runs past the end`);
    const s = latin1(this.buf, this.pos, this.pos + n);
    this.pos += n;
    return s;
  }
}

type Latin1Buffer = Buffer & { latin1Slice?: (start: number, end: number) => string };
const hasLatin1Slice = typeof (Buffer.prototype as Latin1Buffer).latin1Slice === 'function';

/** The byte string of `buf[start, end)` (Node's fast latin1Slice when present). */
export function latin1(buf: Buffer, start: number, end: number): ByteString {
  return hasLatin1Slice ? (buf as Latin1Buffer).latin1Slice!(start, end) : buf.toString('latin1', start, end);
}
