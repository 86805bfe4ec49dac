import { type U64, add, fromBigInt, load64, load64Partial, mul, rotr, shr, u64, xor } from './u64.js';

/**
 * Fingerprint2011: Google's 64-bit fingerprint, the hash that ZetaSketch (and so
 * BigQuery and Cloud Bigtable HLL++ sketches) applies to every value before it
 * enters a sketch. Using the same hash keeps our sketches mergeable with
 * sketches built elsewhere: the same value lands in the same register.
 *
 * Structure (all arithmetic modulo 2^64, loads little-endian):
 *  - up to 32 bytes: a seeded MurmurHash64 variant;
 *  - 33..64 bytes: two 32-byte mixing passes from both ends;
 *  - longer: a 56-byte state (x, y, z, v, w) stepped over 64-byte chunks;
 *  - finally the result is mixed with the first and last 8 bytes, and the
 *    values 0 and 1 are remapped (they are reserved by the original API).
 * Verified against the published test vectors (Guava's Fingerprint2011Test,
 * ZetaSketch's HashTest) in fingerprint.test.ts.
 */

const K0 = fromBigInt(0xa5b85c5e198ed849n);
const K1 = fromBigInt(0x8d58ac26afe12e47n);
const K2 = fromBigInt(0xc47b6e9e3a970ed3n);
const K3 = fromBigInt(0xc6a4a7935bd1e995n);
const SHORT_SEED = xor(xor(K0, K1), K2);
/** ~1, added to the reserved results 0 and 1. */
const NOT_ONE = fromBigInt(0xfffffffffffffffen);

function shiftMix(v: U64): U64 {
  return xor(v, shr(v, 47));
}

function fromInt(n: number): U64 {
  return u64(Math.floor(n / 4294967296), n % 4294967296);
}

/** Mixes 128 bits down to 64 (Murmur-inspired). */
export function hash128to64(high: U64, low: U64): U64 {
  let a = mul(xor(low, high), K3);
  a = shiftMix(a);
  let b = mul(xor(high, a), K3);
  b = shiftMix(b);
  return mul(b, K3);
}

function murmurHash64WithSeed(bytes: Uint8Array, offset: number, length: number, seed: U64): U64 {
  const aligned = length & ~7;
  const remainder = length & 7;
  let hash = xor(seed, mul(fromInt(length), K3));
  for (let i = 0; i < aligned; i += 8) {
    const data = mul(shiftMix(mul(load64(bytes, offset + i), K3)), K3);
    hash = mul(xor(hash, data), K3);
  }
  if (remainder !== 0) {
    hash = mul(xor(hash, load64Partial(bytes, offset + aligned, remainder)), K3);
  }
  hash = mul(shiftMix(hash), K3);
  return shiftMix(hash);
}

/** Murmur-style 64-bit hash with an explicit seed (exported for its own test vectors). */
export function murmurHash64(bytes: Uint8Array, seed: bigint): U64 {
  return murmurHash64WithSeed(bytes, 0, bytes.length, fromBigInt(seed));
}

function hashLength33To64(bytes: Uint8Array, length: number): U64 {
  let z = load64(bytes, 24);
  let a = add(load64(bytes, 0), mul(add(fromInt(length), load64(bytes, length - 16)), K0));
  let b = rotr(add(a, z), 52);
  let c = rotr(a, 37);
  a = add(a, load64(bytes, 8));
  c = add(c, rotr(a, 7));
  a = add(a, load64(bytes, 16));
  const vf = add(a, z);
  const vs = add(add(b, rotr(a, 31)), c);

  a = add(load64(bytes, 16), load64(bytes, length - 32));
  z = load64(bytes, length - 8);
  b = rotr(add(a, z), 52);
  c = rotr(a, 37);
  a = add(a, load64(bytes, length - 24));
  c = add(c, rotr(a, 7));
  a = add(a, load64(bytes, length - 16));
  const wf = add(a, z);
  const ws = add(add(b, rotr(a, 31)), c);

  const r = shiftMix(add(mul(add(vf, ws), K2), mul(add(wf, vs), K0)));
  return mul(shiftMix(add(mul(r, K0), vs)), K2);
}

/** Hashes 32 bytes at `offset` with two seeds; returns the two new seeds. */
function weakHash32(bytes: Uint8Array, offset: number, seedA: U64, seedB: U64): [U64, U64] {
  const p1 = load64(bytes, offset);
  const p2 = load64(bytes, offset + 8);
  const p3 = load64(bytes, offset + 16);
  const p4 = load64(bytes, offset + 24);
  let a = add(seedA, p1);
  let b = rotr(add(add(seedB, a), p4), 51);
  const c = a;
  a = add(add(a, p2), p3);
  b = add(b, rotr(a, 23));
  return [add(a, p4), add(b, c)];
}

function fullFingerprint(bytes: Uint8Array, length: number): U64 {
  // The tail is hashed first; the loop then keeps 56 bytes of state.
  let x = load64(bytes, 0);
  let y = xor(load64(bytes, length - 16), K1);
  let z = xor(load64(bytes, length - 56), K0);
  let v = weakHash32(bytes, length - 64, fromInt(length), y);
  let w = weakHash32(bytes, length - 32, mul(fromInt(length), K1), K0);
  z = add(z, mul(shiftMix(v[1]), K1));
  x = mul(rotr(add(z, x), 39), K1);
  y = mul(rotr(y, 33), K1);

  let remaining = (length - 1) & ~63;
  let offset = 0;
  do {
    x = mul(rotr(add(add(add(x, y), v[0]), load64(bytes, offset + 16)), 37), K1);
    y = mul(rotr(add(add(y, v[1]), load64(bytes, offset + 48)), 42), K1);
    x = xor(x, w[1]);
    y = xor(y, v[0]);
    z = rotr(xor(z, w[0]), 33);
    const nextV = weakHash32(bytes, offset, mul(v[1], K1), add(x, w[0]));
    const nextW = weakHash32(bytes, offset + 32, add(z, w[1]), y);
    v = nextV;
    w = nextW;
    const t = z;
    z = x;
    x = t;
    offset += 64;
    remaining -= 64;
  } while (remaining !== 0);
  return hash128to64(add(add(hash128to64(v[0], w[0]), mul(shiftMix(y), K1)), z), add(hash128to64(v[1], w[1]), x));
}

/** The Fingerprint2011 of `bytes`. */
export function fingerprint2011(bytes: Uint8Array): U64 {
  const length = bytes.length;
  let result: U64;
  if (length <= 32) result = murmurHash64WithSeed(bytes, 0, length, SHORT_SEED);
  else if (length <= 64) result = hashLength33To64(bytes, length);
  else result = fullFingerprint(bytes, length);

  const first = length >= 8 ? load64(bytes, 0) : K0;
  const last = length >= 9 ? load64(bytes, length - 8) : K0;
  result = hash128to64(add(result, last), first);
  if (result.hi === 0 && (result.lo === 0 || result.lo === 1)) result = add(result, NOT_ONE);
  return result;
}
