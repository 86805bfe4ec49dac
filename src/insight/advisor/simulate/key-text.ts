import { crc32 } from 'node:zlib';
import type { ByteString } from '../../../model/bytes.js';
import { epochUnit, isoSpans, reverseHost } from '../../key-shape.js';

/**
 * What the transform steps do inside a key segment: timestamps (ISO, found
 * as key-shape.ts finds them for cutting keys, or epoch s/ms/µs), numbers,
 * dotted domain names; and the one hash salting uses. Keys are cut into
 * segments by key-shape.ts (detectDelimiter, splitKey), as the advisor's
 * rules cut them.
 */

/** A host name written with dots: `www.example.com`. */
const DOTTED_DOMAIN = /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+$/;

/** Each run of digits outside ISO timestamps, replaced by `fn(run)`. */
export function mapNumbers(text: string, fn: (digits: string) => string): string {
  const spans = isoSpans(text);
  let out = '';
  let at = 0;
  for (const piece of [...spans, { from: text.length, to: text.length }]) {
    out += text.slice(at, piece.from).replace(/\d+/g, fn) + text.slice(piece.from, piece.to);
    at = piece.to;
  }
  return out;
}

/** A timestamp found in a text: where it stands, and its value (epoch milliseconds of an ISO time, else the epoch's digits). */
interface FoundTimestamp {
  readonly from: number;
  readonly to: number;
  readonly value: bigint;
  /** The digits MAX - t takes: 13 for an ISO time (milliseconds), else the epoch's own. */
  readonly digits: number;
  /** The value in milliseconds. */
  readonly millis: number;
}

/**
 * The first timestamp in the text: an ISO time, else the first run of digits
 * that is an epoch in s, ms, µs or ns between 1990 and 2100 (key-shape.ts
 * epochUnit, as the advisor's rules classify timestamps).
 */
export function findTimestamp(text: string): FoundTimestamp | undefined {
  const iso = isoSpans(text)[0];
  if (iso !== undefined) {
    const ms = Date.parse(text.slice(iso.from, iso.to).replace(' ', 'T').replace(',', '.'));
    if (Number.isFinite(ms) && ms >= 0) return { ...iso, value: BigInt(ms), digits: 13, millis: ms };
  }
  for (const m of text.matchAll(/\d+/g)) {
    const unit = epochUnit(m[0]);
    if (unit === undefined) continue;
    const value = BigInt(m[0]);
    const millis = Number((value * 1000n) / BigInt(unit.perSecond));
    return { from: m.index, to: m.index + m[0].length, value, digits: m[0].length, millis };
  }
  return undefined;
}

/**
 * The first timestamp in the text replaced by MAX - t, zero-padded so that
 * newer times sort first: an ISO time by 10^13 - 1 - its epoch milliseconds
 * (13 digits), an epoch of n = 10, 13, 16 or 19 digits by 10^n - 1 - t (n digits).
 * The text as it is when it holds no timestamp.
 */
export function reverseTimestamp(text: string): string {
  const t = findTimestamp(text);
  if (t === undefined) return text;
  return text.slice(0, t.from) + reversedDigits(t.value, t.digits) + text.slice(t.to);
}

function reversedDigits(t: bigint, digits: number): string {
  return (10n ** BigInt(digits) - 1n - t).toString().padStart(digits, '0');
}

/** A dotted domain by its labels (`www.example.com` → `com.example.www`), anything else by its characters. */
export function reverseSegment(segment: string): string {
  if (DOTTED_DOMAIN.test(segment)) return reverseHost(segment);
  return [...segment].reverse().join('');
}

/**
 * The salt hash: CRC-32 (IEEE, zlib's) of the key's bytes, the one the row-key builder's salt segments use
 * (src/keys), so that a salted key the advisor shows is the key the builder writes; stable across versions and
 * platforms, and every language has it (Java's CRC32, Go's hash/crc32, Python's zlib.crc32).
 */
export function saltHash(s: ByteString): number {
  return crc32(Buffer.from(s, 'latin1'));
}
