import { ByteReader } from '../byte-reader.js';
import { ByteWriter } from '../byte-writer.js';
import { invalidArgument } from '../errors.js';

/**
 * Just enough of the protobuf wire format to read and write the ZetaSketch
 * HLL++ state message (a handful of varint and length-delimited fields), on
 * the model's ByteReader and ByteWriter. The model layer has no protobuf
 * dependency; this is a byte codec like any other. Malformed input throws
 * InvalidArgument naming `what` was parsed and where.
 */

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LENGTH_DELIMITED = 2;
export const WIRE_FIXED32 = 5;

/** A protobuf message's fields, read with the one ByteReader. */
export class WireReader {
  private readonly r: ByteReader<Uint8Array>;

  constructor(
    buf: Uint8Array,
    private readonly what: string,
    end: number = buf.length,
  ) {
    this.r = new ByteReader(buf, 0, end, (problem) => {
      throw invalidArgument(`Invalid ${what}: ${problem}`);
    });
  }

  get atEnd(): boolean {
    return this.r.done;
  }

  /** A varint of up to 64 bits, as an unsigned bigint. */
  varint64(): bigint {
    return this.r.varint64();
  }

  /** A varint that must fit in [0, 2^31) in at most 5 bytes: field numbers, lengths, precisions, deltas. */
  varint31(): number {
    const start = this.r.pos;
    const v = this.r.varint();
    if (v >= 2 ** 31 || this.r.pos - start > 5) throw invalidArgument(`Invalid ${this.what}: varint at ${start} (${v}) is out of range`);
    return v;
  }

  /** A field tag: [field number, wire type]. */
  tag(): [number, number] {
    const t = this.varint31();
    return [Math.floor(t / 8), t & 7];
  }

  /** The payload of a length-delimited field (a view, not a copy). */
  bytes(): Uint8Array {
    return this.r.bytes(this.varint31(), 'field');
  }

  skip(wireType: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.r.varint64();
        return;
      case WIRE_FIXED64:
        this.r.skip(8, 'field');
        return;
      case WIRE_LENGTH_DELIMITED:
        this.bytes();
        return;
      case WIRE_FIXED32:
        this.r.skip(4, 'field');
        return;
      default:
        throw invalidArgument(`Invalid ${this.what}: unsupported wire type ${wireType} before byte ${this.r.pos}`);
    }
  }
}

/** Size of a non-negative integer below 2^31 as a varint (fast path). */
export function varint31Size(v: number): number {
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}

/** A protobuf message's fields, written with the one ByteWriter. */
export class WireWriter {
  private readonly w = new ByteWriter(64);

  /** A varint: a number in [0, 2^31) as it is, anything else as its 64-bit two's complement (protobuf's int64). */
  varint(v: number | bigint): this {
    if (typeof v === 'number' && v >= 0 && v < 2 ** 31) this.w.varint(v);
    else this.w.varint64(BigInt.asUintN(64, BigInt(v)));
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
    this.w.raw(payload);
    return this;
  }

  /** The message, in a Uint8Array of its own. */
  finish(): Uint8Array {
    return new Uint8Array(this.w.view());
  }
}
