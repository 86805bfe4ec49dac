import type { ByteString } from '../../model/bytes.js';
import { createRequire } from 'node:module';
import type * as Protobuf from 'protobufjs';
import { loadProtobufBuild } from '../protobuf-build.js';

/**
 * Low-level protobuf wire helpers for the hand-written codecs.
 *
 * Wire format reminder: a field is a key varint `(field_number << 3) | wire_type`
 * followed by its payload: wire type 0 = varint, 1 = 8 bytes, 2 = varint length
 * + bytes (strings, bytes, sub-messages, packed repeated), 5 = 4 bytes.
 * int64 is a varint of the two's complement (10 bytes when negative).
 */

// protobufjs's reader, from its single-file minimal build (../protobuf-build.ts).
const protobuf = loadProtobufBuild(createRequire(import.meta.url).resolve('protobufjs/package.json'), 'minimal');

export type Reader = Protobuf.Reader;
export const createReader = (buf: Uint8Array): Reader => protobuf.Reader.create(buf);
export type Writer = Protobuf.Writer;
export const createWriter = (): Writer => protobuf.Writer.create();

export const WIRE_VARINT = 0;
export const WIRE_LEN = 2;

/** A wire-format violation: the message cannot be decoded at all. */
export class WireError extends Error {}

/** Reads a field key; returns field number and wire type packed as the key itself. */
export function readKey(r: Reader): number {
  const key = r.uint32();
  if (key >>> 3 === 0) throw new WireError(`invalid field number 0 at offset ${r.pos}`);
  return key;
}

/** Reads a length prefix and returns the end offset of the payload (bounds-checked). */
export function readLengthEnd(r: Reader): number {
  const len = r.uint32();
  const end = r.pos + len;
  if (end > r.len) throw new WireError(`length ${len} at offset ${r.pos} runs past the end of the message`);
  return end;
}

const TWO_32 = 4294967296;

/**
 * Reads an int64 varint as an exact JS number, or NaN when it is outside
 * ±(2^53 - 1). Reads the 64 bits as two 32-bit halves to stay exact.
 */
export function readInt64Number(r: Reader): number {
  readVarint64(r);
  return halvesToNumber(lo, hi);
}

/** Reads an int64 varint as a bigint (full range). */
export function readInt64BigInt(r: Reader): bigint {
  readVarint64(r);
  return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo));
}

// The halves of the last varint read (module-level to avoid an allocation per read).
let lo = 0;
let hi = 0;

function readVarint64(r: Reader): void {
  const buf = r.buf;
  const len = r.len;
  let pos = r.pos;
  lo = 0;
  hi = 0;
  let b = 0;
  for (let i = 0; i < 4; i++) {
    if (pos >= len) throw new WireError('truncated varint');
    b = buf[pos++]!;
    lo = (lo | ((b & 0x7f) << (i * 7))) >>> 0;
    if (b < 0x80) {
      r.pos = pos;
      return;
    }
  }
  if (pos >= len) throw new WireError('truncated varint');
  b = buf[pos++]!;
  lo = (lo | ((b & 0x7f) << 28)) >>> 0;
  hi = (b & 0x7f) >>> 4;
  if (b < 0x80) {
    r.pos = pos;
    return;
  }
  for (let i = 0; i < 5; i++) {
    if (pos >= len) throw new WireError('truncated varint');
    b = buf[pos++]!;
    hi = (hi | ((b & 0x7f) << (i * 7 + 3))) >>> 0;
    if (b < 0x80) {
      r.pos = pos;
      return;
    }
  }
  throw new WireError('varint longer than 10 bytes');
}

function halvesToNumber(l: number, h: number): number {
  if (h & 0x80000000) {
    const nlo = (~l + 1) >>> 0;
    const nhi = (~h + (nlo === 0 ? 1 : 0)) >>> 0;
    const magnitude = nhi * TWO_32 + nlo;
    return magnitude <= Number.MAX_SAFE_INTEGER ? -magnitude : NaN;
  }
  const v = h * TWO_32 + l;
  return v <= Number.MAX_SAFE_INTEGER ? v : NaN;
}

/** Skips a field payload of the given wire type (unknown fields). */
export function skipField(r: Reader, key: number): void {
  const wireType = key & 7;
  if (wireType === 4 || wireType > 5) throw new WireError(`invalid wire type ${wireType} at offset ${r.pos}`);
  r.skipType(wireType);
}

/**
 * Latin-1 byte string of buf[start, end). Up to 8 bytes, joining characters
 * in JavaScript is fastest; past that each join leaves an intermediate string
 * behind (a 20-byte row key left ~600 bytes of garbage), and Buffer's
 * decoder takes ~50-65 ns against ~120-150 ns.
 */
export function latin1(buf: Uint8Array, start: number, end: number): string {
  const n = end - start;
  if (n === 0) return '';
  if (n <= 8) {
    let s = '';
    for (let i = start; i < end; i++) s += String.fromCharCode(buf[i]!);
    return s;
  }
  return (Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength)).toString('latin1', start, end);
}

/** UTF-8 text of buf[start, end) (string fields). */
export function utf8(buf: Uint8Array, start: number, end: number): string {
  const n = end - start;
  if (n === 0) return '';
  if (n <= 24) {
    let s = '';
    for (let i = start; i < end; i++) {
      const c = buf[i]!;
      if (c >= 0x80) return Buffer.from(buf.buffer, buf.byteOffset + start, n).toString('utf8');
      s += String.fromCharCode(c);
    }
    return s;
  }
  return Buffer.from(buf.buffer, buf.byteOffset + start, n).toString('utf8');
}

// ---- encoding ----

/** Bytes a uint32 / non-negative safe integer takes as a varint. */
export function varintSize(v: number): number {
  if (v < 0x80) return 1;
  if (v < 0x4000) return 2;
  if (v < 0x200000) return 3;
  if (v < 0x10000000) return 4;
  if (v < 0x800000000) return 5;
  if (v < 0x40000000000) return 6;
  if (v < 0x2000000000000) return 7;
  if (v < 0x100000000000000) return 8;
  return 9;
}

/** Size of an int64 varint holding a safe integer (negative ones take 10 bytes). */
export function int64Size(v: number): number {
  return v < 0 ? 10 : varintSize(v);
}

/** Writes a non-negative safe integer as a varint at `pos`; returns the new position. */
export function writeVarint(buf: Uint8Array, pos: number, v: number): number {
  while (v >= 0x80000000) {
    buf[pos++] = (v % 128) | 0x80;
    v = Math.floor(v / 128);
  }
  while (v >= 0x80) {
    buf[pos++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[pos++] = v;
  return pos;
}

/** Writes a safe integer as an int64 varint (two's complement for negatives). */
export function writeInt64(buf: Uint8Array, pos: number, v: number): number {
  if (v >= 0) return writeVarint(buf, pos, v);
  const b = BigInt.asUintN(64, BigInt(v));
  let x = b;
  for (let i = 0; i < 9; i++) {
    buf[pos++] = Number(x & 0x7fn) | 0x80;
    x >>= 7n;
  }
  buf[pos++] = Number(x);
  return pos;
}

/** Size of a length-delimited field with a one-byte key and an n-byte body. */
export function fieldSize(n: number): number {
  return 1 + varintSize(n) + n;
}

/** Size of a varint field with a one-byte key; 0 for the default value, which is not sent. */
export function varintFieldSize(v: number): number {
  return v === 0 ? 0 : 1 + varintSize(v);
}

export function writeFieldHeader(buf: Buffer, pos: number, key: number, len: number): number {
  buf[pos++] = key;
  return writeVarint(buf, pos, len);
}

export function writeVarintField(buf: Buffer, pos: number, key: number, v: number): number {
  if (v === 0) return pos;
  buf[pos++] = key;
  return writeVarint(buf, pos, v);
}

/** A string field: Latin-1 byte strings (byteLength = length) or UTF-8 names and labels. */
export function writeStringField(buf: Buffer, pos: number, key: number, s: string, byteLength: number): number {
  return writeUtf8(buf, writeFieldHeader(buf, pos, key, byteLength), s, byteLength);
}

/** UTF-8 byte length; names and labels are ASCII in practice, so check that cheaply first. */
export function utf8Length(s: string): number {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return Buffer.byteLength(s, 'utf8');
  return s.length;
}

/** Writes s as UTF-8 (byteLength bytes); a string whose byte length is its length is ASCII or a Latin-1 byte string. */
export function writeUtf8(buf: Buffer, pos: number, s: string, byteLength: number): number {
  if (byteLength === s.length) return writeLatin1(buf, pos, s);
  return pos + buf.write(s, pos, byteLength, 'utf8');
}

export function writeLatin1(buf: Buffer, pos: number, s: ByteString): number {
  const n = s.length;
  if (n <= 32) {
    for (let i = 0; i < n; i++) buf[pos + i] = s.charCodeAt(i);
    return pos + n;
  }
  return pos + buf.write(s, pos, n, 'latin1');
}

/** A length-delimited string field (UTF-8) at the reader's position. */
export function readString(r: Reader): string {
  const end = readLengthEnd(r);
  const s = utf8(r.buf, r.pos, end);
  r.pos = end;
  return s;
}
