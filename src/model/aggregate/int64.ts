/**
 * Big-endian int64 cell values: the encoding Cloud Bigtable uses for the
 * cells of sum/min/max aggregate families and for ReadModifyWriteRow
 * increments (8 bytes, two's complement, most significant byte first).
 */

export const INT64_MIN = -(1n << 63n);
export const INT64_MAX = (1n << 63n) - 1n;

export function isInt64(v: bigint): boolean {
  return v >= INT64_MIN && v <= INT64_MAX;
}

/** 8 bytes, big-endian two's complement. REQUIRES: v fits in int64. */
export function encodeInt64(v: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigInt64(0, v);
  return out;
}

/** The int64 held in exactly 8 big-endian bytes. REQUIRES: b.byteLength === 8. */
export function decodeInt64(b: Uint8Array): bigint {
  return new DataView(b.buffer, b.byteOffset, 8).getBigInt64(0);
}

/**
 * a + b with 64-bit two's complement wrap-around. Cloud Bigtable does not
 * document overflow of sums or increments; tabletop wraps, as Google's
 * emulator and HBase do, rather than failing a counter update.
 */
export function addWrapping(a: bigint, b: bigint): bigint {
  return BigInt.asIntN(64, a + b);
}
