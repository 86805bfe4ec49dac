/**
 * The bloom filter over all keys of a table.
 *
 *   filter := bits[m] probes:u8         (m >= 8 bytes; bit i is bits[i >> 3] & (1 << (i & 7)))
 *
 * Hash: MurmurHash3 x86_32 of the key's bytes with seed 0xbc9f1d34. Probes
 * use double hashing (Kirsch–Mitzenmacher): h = hash(key), delta =
 * fmix32(h xor 0x5bd1e995) where fmix32 is MurmurHash3's finalizer; probe j
 * (0 <= j < probes) sets bit (h + j * delta) mod 2^32 mod (8 * m). With
 * `bitsPerKey` bits per key, probes = round(bitsPerKey * 0.69) clamped to
 * [1, 30] and m = ceil(max(64, keys * bitsPerKey) / 8): about 0.8% false
 * positives at 10 bits per key, the theoretical rate. (LevelDB's cheaper
 * delta, h rotated by 17 bits, measured 1.27% here: too correlated with h.)
 */
import type { ByteString } from '../../model/bytes.js';

const SEED = 0xbc9f1d34;

/** The filter hash of a key. */
export function bloomHash(key: ByteString): number {
  return murmur3(key, SEED);
}

/** MurmurHash3 x86_32 of a byte string's bytes. */
export function murmur3(key: ByteString, seed: number): number {
  let h = seed | 0;
  const n = key.length;
  const tail = n & ~3;
  for (let i = 0; i < tail; i += 4) {
    let k = key.charCodeAt(i) | (key.charCodeAt(i + 1) << 8) | (key.charCodeAt(i + 2) << 16) | (key.charCodeAt(i + 3) << 24);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  const rest = n & 3;
  if (rest > 0) {
    let k = key.charCodeAt(tail);
    if (rest >= 2) k ^= key.charCodeAt(tail + 1) << 8;
    if (rest === 3) k ^= key.charCodeAt(tail + 2) << 16;
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
  }
  return fmix32(h ^ n);
}

/** MurmurHash3's 32-bit finalizer (avalanches every input bit). */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The probe step for a key hash. */
function probeDelta(h: number): number {
  return fmix32(h ^ 0x5bd1e995);
}

/** Builds the filter block for keys with these hashes. */
export function buildBloomFilter(hashes: Uint32Array, count: number, bitsPerKey: number): Buffer {
  const out = emptyBloomFilter(count, bitsPerKey);
  addBloomHashes(out, hashes, 0, count);
  return out;
}

/**
 * The filter block for `count` keys with no key in it yet: its bits, then its number of probes. addBloomHashes puts
 * keys in, in as many pieces as the caller likes (a filter of a large file is built in slices between requests).
 */
export function emptyBloomFilter(count: number, bitsPerKey: number): Buffer {
  const probes = Math.min(30, Math.max(1, Math.round(bitsPerKey * 0.69)));
  const bytes = Math.ceil(Math.max(64, count * bitsPerKey) / 8);
  const out = Buffer.alloc(bytes + 1);
  out[bytes] = probes;
  return out;
}

/** Sets the bits of the keys with hashes[from..to) in a filter from emptyBloomFilter. */
export function addBloomHashes(out: Buffer, hashes: Uint32Array, from: number, to: number): void {
  const bytes = out.length - 1;
  const bits = bytes * 8;
  const probes = out[bytes]!;
  for (let i = from; i < to; i++) {
    let h = hashes[i]!;
    const delta = probeDelta(h);
    for (let j = 0; j < probes; j++) {
      const bit = h % bits;
      out[bit >>> 3]! |= 1 << (bit & 7);
      h = (h + delta) >>> 0;
    }
  }
}

/** A loaded filter. */
export class BloomFilter {
  private readonly bits: number;
  private readonly probes: number;

  /** `filter` must be validated by `checkBloomFilter` first. */
  constructor(private readonly filter: Uint8Array) {
    this.bits = (filter.length - 1) * 8;
    this.probes = filter[filter.length - 1]!;
  }

  /** False only when no key with this hash was added. */
  mayContainHash(hash: number): boolean {
    let h = hash;
    const delta = probeDelta(h);
    for (let j = 0; j < this.probes; j++) {
      const bit = h % this.bits;
      if ((this.filter[bit >>> 3]! & (1 << (bit & 7))) === 0) return false;
      h = (h + delta) >>> 0;
    }
    return true;
  }

  mayContain(key: ByteString): boolean {
    return this.mayContainHash(bloomHash(key));
  }
}

/** Why a filter block is malformed, or undefined when it is well formed. */
export function checkBloomFilter(filter: Uint8Array): string | undefined {
  if (filter.length < 9) return `filter block is ${filter.length} bytes, at least 9 expected`;
  const probes = filter[filter.length - 1]!;
  if (probes < 1 || probes > 30) return `filter block has ${probes} probes, expected 1 to 30`;
  return undefined;
}
