/**
 * Unsigned 64-bit arithmetic modulo 2^64 on pairs of 32-bit halves.
 *
 * The hash behind HLL++ (Fingerprint2011) is a chain of 64-bit multiplies,
 * shifts and rotations. BigInt would express it directly but is an order of
 * magnitude slower; two doubles holding the high and low 32 bits keep every
 * intermediate exact (all partial products stay below 2^53).
 *
 * Values are immutable; every operation returns a new value.
 */
export interface U64 {
  /** Bits 63..32, in [0, 2^32). */
  readonly hi: number;
  /** Bits 31..0, in [0, 2^32). */
  readonly lo: number;
}

const TWO_32 = 4294967296;

export function u64(hi: number, lo: number): U64 {
  return { hi: hi >>> 0, lo: lo >>> 0 };
}

export function fromBigInt(v: bigint): U64 {
  const x = BigInt.asUintN(64, v);
  return u64(Number(x >> 32n), Number(x & 0xffffffffn));
}

/** The value as an unsigned bigint. */
export function toBigInt(a: U64): bigint {
  return (BigInt(a.hi) << 32n) | BigInt(a.lo);
}

/** The value as a signed (two's complement) bigint. */
export function toSignedBigInt(a: U64): bigint {
  return BigInt.asIntN(64, toBigInt(a));
}

export function add(a: U64, b: U64): U64 {
  const lo = a.lo + b.lo;
  const carry = lo >= TWO_32 ? 1 : 0;
  return u64(a.hi + b.hi + carry, lo);
}

export function xor(a: U64, b: U64): U64 {
  return u64(a.hi ^ b.hi, a.lo ^ b.lo);
}

export function isZero(a: U64): boolean {
  return a.hi === 0 && a.lo === 0;
}

/** a * b modulo 2^64. */
export function mul(a: U64, b: U64): U64 {
  // Full 64-bit product of the low halves, from 16-bit limbs.
  const a0 = a.lo & 0xffff;
  const a1 = a.lo >>> 16;
  const b0 = b.lo & 0xffff;
  const b1 = b.lo >>> 16;
  const mid = a0 * b1 + a1 * b0; // < 2^33
  const low = a0 * b0 + (mid % 65536) * 65536; // < 2^33
  const highOfLow = a1 * b1 + Math.floor(mid / 65536) + Math.floor(low / TWO_32);
  // The cross terms only reach the high half; their low 32 bits suffice.
  const hi = highOfLow + Math.imul(a.hi, b.lo) + Math.imul(a.lo, b.hi);
  return u64(hi, low);
}

/** Logical (unsigned) shift right by n in [0, 63]. */
export function shr(a: U64, n: number): U64 {
  if (n === 0) return a;
  if (n >= 32) return u64(0, a.hi >>> (n - 32));
  return u64(a.hi >>> n, (a.lo >>> n) | (a.hi << (32 - n)));
}

/** Shift left by n in [0, 63]. */
export function shl(a: U64, n: number): U64 {
  if (n === 0) return a;
  if (n >= 32) return u64(a.lo << (n - 32), 0);
  return u64((a.hi << n) | (a.lo >>> (32 - n)), a.lo << n);
}

/** Rotate right by n in [0, 63]. */
export function rotr(a: U64, n: number): U64 {
  const k = n & 63;
  if (k === 0) return a;
  const r = shr(a, k);
  const l = shl(a, 64 - k);
  return u64(r.hi | l.hi, r.lo | l.lo);
}

/** Number of leading zero bits (64 for zero). */
export function clz(a: U64): number {
  return a.hi !== 0 ? Math.clz32(a.hi) : 32 + Math.clz32(a.lo);
}

/** The 8 bytes at `offset`, little-endian. REQUIRES: offset + 8 <= bytes.length. */
export function load64(bytes: Uint8Array, offset: number): U64 {
  const lo = (bytes[offset]! | (bytes[offset + 1]! << 8) | (bytes[offset + 2]! << 16) | (bytes[offset + 3]! << 24)) >>> 0;
  const hi = (bytes[offset + 4]! | (bytes[offset + 5]! << 8) | (bytes[offset + 6]! << 16) | (bytes[offset + 7]! << 24)) >>> 0;
  return { hi, lo };
}

/** The `n` (< 8) bytes at `offset`, little-endian, zero-padded to 8 bytes. */
export function load64Partial(bytes: Uint8Array, offset: number, n: number): U64 {
  let hi = 0;
  let lo = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[offset + i]!;
    if (i < 4) lo |= b << (8 * i);
    else hi |= b << (8 * (i - 4));
  }
  return u64(hi, lo);
}

/** Eight bytes of a signed 64-bit integer, little-endian (how ZetaSketch hashes an int64). */
export function int64LittleEndian(v: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigInt64(0, BigInt.asIntN(64, v), true);
  return out;
}
