import { type U64, clz, isZero, shl } from './u64.js';

/**
 * The HLL++ value encodings of ZetaSketch (see the HLL++ paper, Heule et al.,
 * EDBT 2013, and ZetaSketch's hllplus/Encoding): how a 64-bit hash becomes a
 * register update in the normal representation and a 32-bit "sparse value"
 * in the sparse representation.
 *
 * Normal, precision p: the top p bits of the hash are the register index;
 * the register holds rho(w) = 1 + the number of leading zeros of the other
 * 64 - p bits (64 - p + 1 when they are all zero). 0 means "never set".
 *
 * Sparse, precisions (p, sp), sp >= p: a value is one of
 *
 *   0 | padding | sparse index (sp bits)              when the low sp - p bits
 *                                                      of the sparse index are
 *                                                      not all zero; the normal
 *                                                      rho(w) follows from them
 *   1 | padding | normal index (p bits) | rho(w') (6)  otherwise, with rho(w')
 *                                                      taken after sp bits
 *
 * where the flag bit sits at position max(sp, p + 6) so that both forms sort
 * apart and never interleave. Sorted ascending, the values of one index are
 * adjacent, and the largest has the largest rho.
 */

export const RHO_BITS = 6;
const RHO_MASK = (1 << RHO_BITS) - 1;

export interface SparseEncoding {
  /** Normal precision p. */
  readonly p: number;
  /** Sparse precision sp >= p. */
  readonly sp: number;
  /** The flag bit marking rho-encoded values. */
  readonly flag: number;
}

export function sparseEncoding(p: number, sp: number): SparseEncoding {
  return { p, sp, flag: 2 ** Math.max(sp, p + RHO_BITS) };
}

/** rho of the bits of `hash` after its top `indexBits` bits. */
export function rhoAfter(hash: U64, indexBits: number): number {
  const w = shl(hash, indexBits);
  return isZero(w) ? 64 - indexBits + 1 : clz(w) + 1;
}

/** rho of the low `bits` bits of `value` (bits + 1 when they are all zero). */
export function rhoOfLowBits(value: number, bits: number): number {
  const low = value & ((1 << bits) - 1);
  return low === 0 ? bits + 1 : Math.clz32(low) - (32 - bits) + 1;
}

/** Register index of a hash at precision p (p <= 31). */
export function normalIndexOf(hash: U64, p: number): number {
  return hash.hi >>> (32 - p);
}

export function encodeSparse(e: SparseEncoding, sparseIndex: number, sparseRho: number): number {
  const lowBits = e.sp - e.p;
  if ((sparseIndex & ((1 << lowBits) - 1)) !== 0) return sparseIndex;
  const normalIndex = sparseIndex >>> lowBits;
  return e.flag + normalIndex * 2 ** RHO_BITS + sparseRho;
}

export function encodeHash(e: SparseEncoding, hash: U64): number {
  return encodeSparse(e, hash.hi >>> (32 - e.sp), rhoAfter(hash, e.sp));
}

export function isRhoEncoded(e: SparseEncoding, v: number): boolean {
  return v >= e.flag;
}

export function decodeSparseIndex(e: SparseEncoding, v: number): number {
  if (!isRhoEncoded(e, v)) return v;
  return Math.floor((v - e.flag) / 2 ** RHO_BITS) * 2 ** (e.sp - e.p);
}

/** The rho(w') a value carries, or 0 when it is not rho-encoded. */
export function decodeSparseRho(e: SparseEncoding, v: number): number {
  return isRhoEncoded(e, v) ? v & RHO_MASK : 0;
}

export function decodeNormalIndex(e: SparseEncoding, v: number): number {
  if (!isRhoEncoded(e, v)) return v >>> (e.sp - e.p);
  return Math.floor((v - e.flag) / 2 ** RHO_BITS);
}

export function decodeNormalRho(e: SparseEncoding, v: number): number {
  if (!isRhoEncoded(e, v)) return rhoOfLowBits(v, e.sp - e.p);
  return (v & RHO_MASK) + e.sp - e.p;
}

/** True when two sparse values (of one encoding) address the same sparse index. */
export function sameSparseIndex(e: SparseEncoding, a: number, b: number): boolean {
  if (a === b) return true;
  return isRhoEncoded(e, a) && isRhoEncoded(e, b) && Math.floor(a / 2 ** RHO_BITS) === Math.floor(b / 2 ** RHO_BITS);
}

/**
 * rho at a lower precision: the bits dropped from the index now lead the
 * suffix. If any is set, rho is found among them; otherwise it grows by
 * their number.
 */
export function downgradeRho(index: number, rho: number, fromBits: number, toBits: number): number {
  if (fromBits === toBits) return rho;
  const dropped = fromBits - toBits;
  const suffix = index & ((1 << dropped) - 1);
  return suffix === 0 ? rho + dropped : rhoOfLowBits(suffix, dropped);
}

/** Re-encodes a sparse value for a target encoding of lower or equal precisions. */
export function downgradeSparse(from: SparseEncoding, to: SparseEncoding, v: number): number {
  if (from.p === to.p && from.sp === to.sp) return v;
  const index = decodeSparseIndex(from, v);
  const rho = decodeSparseRho(from, v);
  return encodeSparse(to, index >>> (from.sp - to.sp), downgradeRho(index, rho, from.sp, to.sp));
}

/** True when `v` is a well-formed sparse value of encoding `e`. */
export function isValidSparseValue(e: SparseEncoding, v: number): boolean {
  if (!Number.isInteger(v) || v < 0) return false;
  if (!isRhoEncoded(e, v)) {
    return v < 2 ** e.sp && e.sp > e.p && (v & ((1 << (e.sp - e.p)) - 1)) !== 0;
  }
  const rho = v & RHO_MASK;
  const rest = Math.floor((v - e.flag) / 2 ** RHO_BITS);
  return rest < 2 ** e.p && rho >= 1 && rho <= 64 - e.sp + 1;
}
