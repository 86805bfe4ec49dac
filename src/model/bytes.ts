/**
 * Byte strings.
 *
 * Row keys and column qualifiers are arbitrary bytes. Inside tabletop they are
 * held as "byte strings": JavaScript strings whose every char code is one byte
 * (0..255), i.e. the Latin-1 decoding of the bytes. Plain string comparison
 * (`<`, `===`) on byte strings is exactly unsigned lexicographic byte order,
 * and V8 stores them as compact one-byte strings, so keys are cheap to compare,
 * hash and use as Map/B-tree keys. Convert at the edges with `toBytes` and
 * `fromBytes`. Cell values stay `Uint8Array`.
 */
export type ByteString = string;

/** The byte string for a buffer (Latin-1 view of the bytes). */
export function fromBytes(b: Uint8Array): ByteString {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');
}

/** The bytes of a byte string. */
export function toBytes(s: ByteString): Buffer {
  return Buffer.from(s, 'latin1');
}

/** Byte string of a UTF-8 text (for tests and tools that speak text keys). */
export function fromUtf8(text: string): ByteString {
  return Buffer.from(text, 'utf8').toString('latin1');
}

/** UTF-8 text of a byte string (lossy for non-UTF-8 bytes). */
export function toUtf8(s: ByteString): string {
  return Buffer.from(s, 'latin1').toString('utf8');
}

/** Unsigned byte-order comparison: negative, zero or positive. */
export function compareBytes(a: ByteString, b: ByteString): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The smallest byte string greater than every string that starts with
 * `prefix`, or undefined when there is none (empty prefix or all 0xff).
 */
export function prefixSuccessor(prefix: ByteString): ByteString | undefined {
  let end = prefix.length;
  while (end > 0 && prefix.charCodeAt(end - 1) === 0xff) end--;
  if (end === 0) return undefined;
  return prefix.slice(0, end - 1) + String.fromCharCode(prefix.charCodeAt(end - 1) + 1);
}

/** The immediate successor of a key in byte order: key + 0x00. */
export function keySuccessor(key: ByteString): ByteString {
  return key + '\x00';
}

/** A printable form of a byte string: printable ASCII as is, other bytes as \xNN. */
export function printable(s: ByteString): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f && c !== 0x5c) out += s[i];
    else if (c === 0x5c) out += '\\\\';
    else out += '\\x' + c.toString(16).padStart(2, '0');
  }
  return out;
}
