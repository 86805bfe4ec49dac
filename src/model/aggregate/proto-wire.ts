import { invalidArgument } from '../errors.js';

/**
 * Just enough of the protobuf wire format to read and write the ZetaSketch
 * HLL++ state message (a handful of varint and length-delimited fields).
 * The model layer has no protobuf dependency; this is a byte codec like any
 * other. Malformed input throws InvalidArgument naming `what` was parsed.
 */

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LENGTH_DELIMITED = 2;
export const WIRE_FIXED32 = 5;

export class WireReader {
  private pos = 0;

  constructor(
    private readonly buf: Uint8Array,
    private readonly what: string,
    private readonly end: number = buf.length,
  ) {}

  get atEnd(): boolean {
    return this.pos >= this.end;
  }

  private fail(problem: string): never {
    throw invalidArgument(`Invalid ${this.what}: ${problem} at byte ${this.pos}`);
  }

  /** A varint of up to 64 bits, as an unsigned bigint. */
  varint64(): bigint {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.pos >= this.end) this.fail('truncated varint');
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return BigInt.asUintN(64, result);
    }
    return this.fail('varint longer than 10 bytes');
  }

  /** A varint that must fit in [0, 2^31): field numbers, lengths, precisions, deltas. */
  varint31(): number {
    let result = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (this.pos >= this.end) this.fail('truncated varint');
      const b = this.buf[this.pos++]!;
      result += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) {
        if (result >= 2 ** 31) this.fail(`value ${result} out of range`);
        return result;
      }
    }
    return this.fail('varint out of range');
  }

  /** A field tag: [field number, wire type]. */
  tag(): [number, number] {
    const t = this.varint31();
    return [Math.floor(t / 8), t & 7];
  }

  /** The payload of a length-delimited field (a view, not a copy). */
  bytes(): Uint8Array {
    const n = this.varint31();
    if (this.pos + n > this.end) this.fail(`length ${n} runs past the end`);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  skip(wireType: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.varint64();
        return;
      case WIRE_FIXED64:
        this.advance(8);
        return;
      case WIRE_LENGTH_DELIMITED:
        this.bytes();
        return;
      case WIRE_FIXED32:
        this.advance(4);
        return;
      default:
        this.fail(`unsupported wire type ${wireType}`);
    }
  }

  private advance(n: number): void {
    if (this.pos + n > this.end) this.fail('truncated field');
    this.pos += n;
  }
}

/** Size of a non-negative integer below 2^31 as a varint (fast path). */
export function varint31Size(v: number): number {
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}

export class WireWriter {
  private chunks: number[] = [];
  private parts: Uint8Array[] = [];
  private length = 0;

  private flushChunks(): void {
    if (this.chunks.length > 0) {
      this.parts.push(Uint8Array.from(this.chunks));
      this.chunks = [];
    }
  }

  varint(v: number | bigint): this {
    if (typeof v === 'number' && v >= 0 && v < 2 ** 31) {
      let n = v;
      while (n >= 0x80) {
        this.chunks.push((n & 0x7f) | 0x80);
        n >>>= 7;
        this.length++;
      }
      this.chunks.push(n);
      this.length++;
      return this;
    }
    let x = BigInt.asUintN(64, BigInt(v));
    while (x >= 0x80n) {
      this.chunks.push(Number(x & 0x7fn) | 0x80);
      x >>= 7n;
      this.length++;
    }
    this.chunks.push(Number(x));
    this.length++;
    return this;
  }

  tag(field: number, wireType: number): this {
    return this.varint(field * 8 + wireType);
  }

  varintField(field: number, v: number | bigint): this {
    return this.tag(field, WIRE_VARINT).varint(v);
  }

  bytesField(field: number, payload: Uint8Array): this {
    this.tag(field, WIRE_LENGTH_DELIMITED).varint(payload.length);
    this.flushChunks();
    this.parts.push(payload);
    this.length += payload.length;
    return this;
  }

  finish(): Uint8Array {
    this.flushChunks();
    const out = new Uint8Array(this.length);
    let pos = 0;
    for (const p of this.parts) {
      out.set(p, pos);
      pos += p.length;
    }
    return out;
  }
}
