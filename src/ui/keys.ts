/**
 * Row keys as the API sends them (base64 of the bytes): decoding, hex for the
 * tooltip, and byte order (the table's key order) for matching ranges to buckets.
 */

export function base64ToBytes(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function bytesToBase64(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** Lower-case hex, bytes separated by nothing: `ts#01` → `74732330 31`-style grouping is left to CSS. */
export function base64ToHex(b64: string): string {
  let out = '';
  for (const b of base64ToBytes(b64)) out += b.toString(16).padStart(2, '0');
  return out;
}

/** Unsigned lexicographic byte order (Bigtable's key order). */
export function compareKeys(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** The printable form of a key (model/bytes.ts printable): printable ASCII as is, `\` doubled, other bytes as \xNN. */
export function base64ToPrintable(b64: string): string {
  let out = '';
  for (const c of base64ToBytes(b64)) {
    if (c === 0x5c) out += '\\\\';
    else if (c >= 0x20 && c < 0x7f) out += String.fromCharCode(c);
    else out += '\\x' + c.toString(16).padStart(2, '0');
  }
  return out;
}

/** A key range's ends for people: the empty key is the table's start, a missing end its end. */
export function keyText(printableKey: string | null | undefined, end = false): string {
  if (printableKey === null || printableKey === undefined) return end ? '(end of table)' : '(start of table)';
  return printableKey === '' ? '(start of table)' : printableKey;
}
