import type { ByteString } from '../../../model/bytes.js';

/**
 * What the transform steps see inside a key: ISO timestamps (which hold `:`
 * and `.`, so a delimiter never cuts them), epoch timestamps, numbers, dotted
 * domain names, and the segments between delimiters.
 */

/** An ISO 8601 date or date-time: `2023-05-01`, `2023-05-01T12:00:00Z`, `2023-05-01 12:00:00.123+02:00`. */
const ISO = /\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?/g;
/** Epoch timestamps by their digit count: seconds (10), milliseconds (13), microseconds (16). */
const EPOCH_DIGITS = new Set([10, 13, 16]);
/** A host name written with dots: `www.example.com`. */
const DOTTED_DOMAIN = /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+$/;

interface Span {
  readonly from: number;
  readonly to: number;
}

/** Where ISO timestamps stand in a text. */
export function isoSpans(text: string): Span[] {
  return [...text.matchAll(ISO)].map((m) => ({ from: m.index, to: m.index + m[0].length }));
}

/** The key cut on `delimiter`, except inside ISO timestamps; `joinSegments` undoes it. */
export function splitSegments(key: ByteString, delimiter: string): string[] {
  const spans = isoSpans(key);
  const out: string[] = [];
  let from = 0;
  let span = 0;
  for (let i = 0; i + delimiter.length <= key.length;) {
    while (span < spans.length && spans[span]!.to <= i) span++;
    const s = spans[span];
    if (s !== undefined && s.from <= i) {
      i = s.to;
    } else if (key.startsWith(delimiter, i)) {
      out.push(key.slice(from, i));
      i += delimiter.length;
      from = i;
    } else {
      i++;
    }
  }
  out.push(key.slice(from));
  return out;
}

export function joinSegments(segments: readonly string[], delimiter: string): ByteString {
  return segments.join(delimiter);
}

/** The text without its ISO timestamps (each becomes `T`): what delimiter detection counts. */
export function withoutTimestamps(text: string): string {
  return text.replace(ISO, 'T');
}

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

/** The first timestamp in the text: an ISO time, else an epoch of 10 (s), 13 (ms) or 16 (µs) digits. */
export function findTimestamp(text: string): FoundTimestamp | undefined {
  const iso = isoSpans(text)[0];
  if (iso !== undefined) {
    const ms = Date.parse(text.slice(iso.from, iso.to).replace(' ', 'T'));
    if (Number.isFinite(ms) && ms >= 0) return { ...iso, value: BigInt(ms), digits: 13, millis: ms };
  }
  for (const m of text.matchAll(/\d+/g)) {
    const digits = m[0].length;
    if (EPOCH_DIGITS.has(digits)) {
      const value = BigInt(m[0]);
      const millis = digits === 10 ? Number(value) * 1000 : digits === 13 ? Number(value) : Number(value / 1000n);
      return { from: m.index, to: m.index + digits, value, digits, millis };
    }
  }
  return undefined;
}

/**
 * The first timestamp in the text replaced by MAX - t, zero-padded so that
 * newer times sort first: an ISO time by 10^13 - 1 - its epoch milliseconds
 * (13 digits), an epoch of 10, 13 or 16 digits by 10^n - 1 - t (n digits).
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
  if (DOTTED_DOMAIN.test(segment)) return segment.split('.').reverse().join('.');
  return [...segment].reverse().join('');
}

/** FNV-1a (32 bits) of a byte string: stable across runs and machines, cheap, and spreads similar keys evenly. */
export function fnv1a(s: ByteString): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i) & 0xff;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
