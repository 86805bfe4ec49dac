import { invalidArgument } from '../model/errors.js';

/**
 * The order-preserving escaping of variable-width segments (strings, reversed domains).
 *
 * A key is its segments' texts joined by the delimiter D. For byte order of keys to be the order of
 * their segments compared one by one, a segment's end (D, or the key's end) must sort below every
 * byte that can continue the segment: otherwise `ab` + D + `…` would sort after `ab!…` (with D = `#`,
 * `!` < `#`). So no byte ≤ D may stand in a segment as itself, and the escape E must come right after D:
 * E = D + 1. Every byte ≤ E of a segment is written as E followed by that byte; every byte above E is
 * itself. Then
 *   - an escaped byte (E, b) sorts above D and below every byte > E, and two escaped bytes compare as
 *     their b: the code is monotone;
 *   - the code is prefix-free (E always takes exactly one byte after it), so a segment that is a prefix
 *     of another compares at the D that ends it, which sorts below any continuation (bytes > E, or E).
 * Hence key order = segment order (each string segment by its UTF-8 bytes, i.e. Unicode code point
 * order), proven by the property tests in schema.test.ts. Only ASCII bytes (≤ 0x2f) are ever escaped,
 * and UTF-8 never puts an ASCII byte inside a multi-byte character, so escaping the text's ASCII
 * characters is escaping its UTF-8 bytes, and keys stay valid UTF-8 text.
 *
 * The escape being D + 1 is what limits the delimiter: every byte up to it is escaped, so a delimiter
 * at or above `/` would escape digits (and `:` or `|` all digits, `|` all letters too). Delimiters are
 * therefore the ASCII characters below `/` (controls, space, `!"#$%&'()*+,-.`). `#` (the Bigtable
 * documentation's own) escapes only the controls, space, `!`, `"`, `#` and `$`.
 */

/** The delimiters allowed: ASCII below `/` (see above). */
export function checkDelimiter(delimiter: string): void {
  if (delimiter.length !== 1 || delimiter.charCodeAt(0) >= 0x2f) {
    throw invalidArgument(
      `keySchema: the delimiter must be one ASCII character below '/' (such as '#', the default), not ${JSON.stringify(delimiter)}: ` +
        `keys keep their segments' order only when every byte up to the delimiter's successor is escaped inside string ` +
        `segments, and a delimiter from '/' up would escape digits or letters`,
    );
  }
}

/** The escape character of a delimiter: the next character. */
export const escapeOf = (delimiter: string): string => String.fromCharCode(delimiter.charCodeAt(0) + 1);

/** `text` with every character ≤ the escape preceded by the escape. */
export function escapeText(text: string, escape: string): string {
  const e = escape.charCodeAt(0);
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) <= e) {
      out += text.slice(from, i) + escape + text[i];
      from = i + 1;
    }
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * Reads an escaped segment of `key` from `pos` up to the next unescaped delimiter (or the end):
 * the unescaped text and where the segment ends. Throws (via `fail`) on what `escapeText` never
 * writes: an unescaped character ≤ the escape, an escape at the end or before a character above it.
 */
export function readEscaped(key: string, pos: number, delimiter: string, fail: (why: string) => never): { text: string; end: number } {
  const d = delimiter.charCodeAt(0);
  const e = d + 1;
  let text = '';
  let from = pos;
  let i = pos;
  for (; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c > e) continue;
    if (c === d) break;
    if (c !== e) fail(`the character ${JSON.stringify(key[i])} at ${i} should be escaped`);
    const next = key.charCodeAt(i + 1);
    if (Number.isNaN(next)) fail(`the key ends in an escape character`);
    if (next > e) fail(`the escape at ${i} is followed by ${JSON.stringify(key[i + 1])}, which is never escaped`);
    text += key.slice(from, i) + key[i + 1];
    i++;
    from = i + 1;
  }
  return { text: text + key.slice(from, i), end: i };
}
