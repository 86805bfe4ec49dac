import type { ByteString } from '../model/bytes.js';
import { KEY_DELIMITERS } from './key-hierarchy.js';

/**
 * The shape of row keys, shared by the schema advisor's rules and the
 * heatmap's key diagnostics (unpadded numbers, unreversed domains): the
 * key's delimiter, its segments, and what each segment holds (a timestamp,
 * a number, a hash, a host name, ...). Pure functions over byte strings; the
 * patterns are fixed and linear (no user input is ever compiled).
 */

export type SegmentKind =
  /** ISO date/time, a compact date (`20230501`), an epoch in s/ms/µs/ns, a time-ordered UUID (v6, v7). */
  | 'timestamp'
  /** MAX - epoch (latest first): decreasing with time. */
  | 'reversed-timestamp'
  /** Digits without a leading zero (`42`, `1234567`). */
  | 'decimal'
  /** Digits with a leading zero (`00042`). */
  | 'padded'
  /** A random-looking token: long hex, base64, a random UUID. */
  | 'hashed'
  /** A host name written the usual way round (`www.example.com`). */
  | 'host'
  /** A host name reversed (`com.example.www`). */
  | 'reversed-host'
  | 'empty'
  /** Anything else: words, identifiers (`sensor123`, `user`). */
  | 'text';

/** Top-level domains that end a host name written the usual way round (and begin a reversed one). */
const TLDS = 'com|net|org|io|dev|app|edu|gov|info|biz|co|uk|de|fr|jp|cn|ru|nl|au|ca|in|br|es|it|se|ch';
/** `www.` first, or a host name `label(.label)*.tld` ending where the first key field ends. */
const HOST_FIRST = new RegExp(`^(?:www\\d*\\.|[a-z0-9-]+(?:\\.[a-z0-9-]+)*\\.(?:${TLDS})(?:[/:#|_]|$))`, 'i');
const HOST = new RegExp(`^(?:www\\d*\\.[a-z0-9-]+(?:\\.[a-z0-9-]+)*|[a-z0-9-]+(?:\\.[a-z0-9-]+)*\\.(?:${TLDS}))$`, 'i');
const REVERSED_HOST = new RegExp(`^(?:${TLDS})\\.[a-z0-9-]+(?:\\.[a-z0-9-]+)*$`, 'i');

/** ISO 8601 date/time at a position (sticky): `2023-05-01`, `2023-05-01T12:00:00.123Z`, `2023-05-01 12:00+02:00`. */
const ISO_AT = /\d{4}-[01]\d-[0-3]\d(?:[T ][0-2]\d:[0-5]\d(?::[0-6]\d(?:[.,]\d{1,9})?)?(?:Z|[+-][0-2]\d:?[0-5]\d)?)?/y;
const ISO_MONTH = /^\d{4}-[01]\d$/;
/** `20230501T120000Z`, `20230501T1200`. */
const COMPACT_ISO = /^\d{8}T\d{4,6}(?:\.\d{1,9})?Z?$/;
const DIGITS = /^\d+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-([0-9a-f])[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX = /^[0-9a-f]{12,}$/i;
const BASE64 = /^[A-Za-z0-9+/_-]{16,}={0,2}$/;

const YEAR_MIN = 1990;
const YEAR_MAX = 2100;
const EPOCH_MIN_S = Date.UTC(YEAR_MIN, 0, 1) / 1000;
const EPOCH_MAX_S = Date.UTC(YEAR_MAX, 0, 1) / 1000;
/** Digits of an epoch in s, ms, µs, ns, and the unit's name. */
const EPOCH_UNITS: readonly (readonly [number, number, string])[] = [
  [10, 1, 'epoch seconds'],
  [13, 1e3, 'epoch milliseconds'],
  [16, 1e6, 'epoch microseconds'],
  [19, 1e9, 'epoch nanoseconds'],
];
/** What latest-first keys subtract from: Long.MAX_VALUE, or all nines of the width. */
const LONG_MAX = 9223372036854775807n;

/** A segment's kind, with a name for people (`epoch milliseconds`, `UUIDv4`, ...). */
export interface SegmentClass {
  readonly kind: SegmentKind;
  readonly detail: string;
}

/** What a key segment holds. */
export function classifySegment(s: string): SegmentClass {
  if (s === '') return { kind: 'empty', detail: 'empty' };
  const time = timestampDetail(s);
  if (time !== undefined) return { kind: 'timestamp', detail: time };
  if (DIGITS.test(s)) {
    const reversed = reversedEpochDetail(s);
    if (reversed !== undefined) return { kind: 'reversed-timestamp', detail: reversed };
    return s.length > 1 && s[0] === '0' ? { kind: 'padded', detail: 'zero-padded number' } : { kind: 'decimal', detail: 'number' };
  }
  const uuid = UUID.exec(s);
  if (uuid !== null) {
    const v = uuid[1]!;
    return v === '6' || v === '7' ? { kind: 'timestamp', detail: `UUIDv${v} (time-ordered)` } : { kind: 'hashed', detail: `UUIDv${v}` };
  }
  if (HEX.test(s) && /[a-f]/i.test(s) && /\d/.test(s)) return { kind: 'hashed', detail: 'hex' };
  if (looksBase64(s)) return { kind: 'hashed', detail: 'base64' };
  if (HOST.test(s)) return { kind: 'host', detail: 'host name' };
  if (REVERSED_HOST.test(s)) return { kind: 'reversed-host', detail: 'reversed host name' };
  return { kind: 'text', detail: 'text' };
}

/** The kind of timestamp `s` is, if it is one. */
function timestampDetail(s: string): string | undefined {
  ISO_AT.lastIndex = 0;
  if (ISO_AT.test(s) && ISO_AT.lastIndex === s.length && validDate(s.slice(0, 4), s.slice(5, 7), s.slice(8, 10))) {
    return s.length > 10 ? 'ISO date/time' : 'ISO date';
  }
  if (ISO_MONTH.test(s) && validDate(s.slice(0, 4), s.slice(5, 7), '01')) return 'ISO month';
  if (COMPACT_ISO.test(s) && validDate(s.slice(0, 4), s.slice(4, 6), s.slice(6, 8))) return 'compact ISO date/time';
  if (/^\d{10}\.\d{1,9}$/.test(s)) return timestampDetail(s.slice(0, 10)) === undefined ? undefined : 'epoch seconds';
  if (!DIGITS.test(s)) return undefined;
  if ((s.length === 8 || s.length === 14) && validDate(s.slice(0, 4), s.slice(4, 6), s.slice(6, 8))) return 'compact date';
  const unit = EPOCH_UNITS.find(([digits]) => digits === s.length);
  if (unit === undefined || s[0] === '0') return undefined;
  const seconds = Number(s) / unit[1];
  return seconds >= EPOCH_MIN_S && seconds < EPOCH_MAX_S ? unit[2] : undefined;
}

function validDate(y: string, m: string, d: string): boolean {
  const [year, month, day] = [Number(y), Number(m), Number(d)];
  return year >= YEAR_MIN && year < YEAR_MAX && month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

/** `MAX - epoch` zero-padded (MAX = Long.MAX_VALUE or all nines of the width), the latest-first form. */
function reversedEpochDetail(s: string): string | undefined {
  const v = BigInt(s);
  // As wide as the MAX it came from (zero padding aside): `000009175` is a padded id, not MAX - t.
  const width = v.toString().length;
  if (!EPOCH_UNITS.some(([digits]) => digits === width)) return undefined;
  const maxes = [...(width === 19 ? [LONG_MAX] : []), 10n ** BigInt(width) - 1n];
  for (const max of maxes) {
    if (v > max) continue;
    const t = max - v;
    for (const [, perSecond, name] of EPOCH_UNITS) {
      const seconds = Number(t) / perSecond;
      if (seconds >= EPOCH_MIN_S && seconds < EPOCH_MAX_S) return `reversed ${name}`;
    }
  }
  return undefined;
}

/** Random-looking base64: upper, lower and digits mixed, no long lowercase words. */
function looksBase64(s: string): boolean {
  if (!BASE64.test(s)) return false;
  const count = (re: RegExp): number => s.match(re)?.length ?? 0;
  return count(/[A-Z]/g) >= 3 && count(/[a-z]/g) >= 3 && count(/\d/g) >= 2 && !/[a-z]{6}/.test(s);
}

/** Whether the key starts with a host name written the usual way round (`www.` or `name.tld` then a delimiter). */
export function startsWithHost(key: ByteString): boolean {
  return HOST_FIRST.test(key);
}

/** A host name reversed by labels (`www.example.com` → `com.example.www`). */
export function reverseHost(host: string): string {
  return host.split('.').reverse().join('.');
}

// ---- delimiters and segments ----

/** Text that holds delimiter characters without being split there: ISO date/times, host names, dotted numbers. */
const ATOM = new RegExp(
  `\\d{4}-[01]\\d-[0-3]\\d[T ][0-2]\\d:[0-5]\\d(?::[0-6]\\d(?:[.,]\\d{1,9})?)?(?:Z|[+-][0-2]\\d:?[0-5]\\d)?|` +
    `[a-z0-9-]+(?:\\.[a-z0-9-]+)*\\.(?:${TLDS})(?![a-z0-9-])|(?:${TLDS})(?:\\.[a-z0-9-]+)+|\\d+(?:\\.\\d+)+`,
  'gi',
);

/** The delimiter characters, in the order ties are broken. */
const DELIMITERS = [...KEY_DELIMITERS];

/**
 * The key set's delimiter: the most common of `# : / . | _` outside
 * timestamps, host names and dotted numbers (`2023-05-01T12:00:00Z#s1` is
 * split on `#`, not on `:`; `www.example.com/a` on `/`); `#` when none occurs.
 */
export function detectDelimiter(keys: readonly ByteString[]): string {
  const counts = new Map<string, number>();
  for (const key of keys) {
    const bare = key.replace(ATOM, 'x');
    for (const c of bare) if (DELIMITERS.includes(c)) counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  let best = '#';
  let most = 0;
  for (const d of DELIMITERS) {
    const n = counts.get(d) ?? 0;
    if (n > most) [best, most] = [d, n];
  }
  return best;
}

/** Whether the keys hold a delimiter character other than `delimiter` (a transform then names its delimiter). */
export function otherDelimiters(keys: readonly ByteString[], delimiter: string): boolean {
  return keys.some((k) => DELIMITERS.some((d) => d !== delimiter && k.includes(d)));
}

/**
 * The key's segments on `delimiter`; a segment that starts with an ISO
 * date/time keeps it whole (`sensor:2023-05-01T12:00:00Z:temp` on `:` is
 * three segments).
 */
export function splitKey(key: ByteString, delimiter: string): string[] {
  if (delimiter !== ':' && delimiter !== '.') return key.split(delimiter);
  const out: string[] = [];
  let start = 0;
  for (;;) {
    ISO_AT.lastIndex = start;
    const from = ISO_AT.test(key) ? ISO_AT.lastIndex : start;
    const end = key.indexOf(delimiter, from);
    if (end < 0) break;
    out.push(key.slice(start, end));
    start = end + 1;
  }
  out.push(key.slice(start));
  return out;
}

/**
 * Whether segments `position`, `position + 1` are a year and a month
 * (`2023/05/01/...`): a date split over segments. Answers how many
 * segments it takes (2 or 3 with a day), else 0.
 */
export function datePathAt(segments: readonly string[], position: number): number {
  const [y, m, d] = [segments[position], segments[position + 1], segments[position + 2]];
  if (y === undefined || m === undefined || !/^\d{4}$/.test(y) || !/^\d{2}$/.test(m) || !validDate(y, m, '01')) return 0;
  return d !== undefined && /^\d{2}$/.test(d) && validDate(y, m, d) ? 3 : 2;
}

// ---- numbers ----

/**
 * Whether a < b in bytes while the numbers where they first differ say
 * otherwise (`item10` < `item9`): two digit runs without a leading zero of
 * different lengths, the longer first. Fractions of seconds (`12:00:00.5Z`
 * after `12:00:00.123Z`) are in order and do not count, nor digits inside a
 * hash or UUID.
 */
export function outOfOrder(a: ByteString, b: ByteString): boolean {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  // Back up to the start of the digit run the difference falls in.
  while (i > 0 && isDigit(a, i - 1)) i--;
  const na = digitRun(a, i);
  const nb = digitRun(b, i);
  if (na === '' || nb === '' || na[0] === '0' || nb[0] === '0') return false;
  if (i >= 4 && a[i - 1] === '.' && a[i - 4] === ':' && isDigit(a, i - 2)) return false;
  return na.length > nb.length && classifySegment(tokenAt(a, i)).kind !== 'hashed';
}

/** The run of letters, digits and `-` around offset `i` (a hash or UUID holds digit runs of any width). */
function tokenAt(s: string, i: number): string {
  const word = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9-]/.test(c);
  let [a, b] = [i, i];
  while (a > 0 && word(s[a - 1])) a--;
  while (b < s.length && word(s[b])) b++;
  return s.slice(a, b);
}

/** Neighbours of the sorted keys whose numbers sort out of numeric order. */
export function outOfOrderPairs(sorted: readonly ByteString[]): [ByteString, ByteString][] {
  const pairs: [ByteString, ByteString][] = [];
  for (let i = 1; i < sorted.length; i++) if (outOfOrder(sorted[i - 1]!, sorted[i]!)) pairs.push([sorted[i - 1]!, sorted[i]!]);
  return pairs;
}

/** The digit run of `key` that starts where `a` and `b` first differ (backed up to the run's start), and its offset. */
export function differingNumber(a: ByteString, b: ByteString): { readonly offset: number; readonly digits: string } {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  while (i > 0 && isDigit(a, i - 1)) i--;
  return { offset: i, digits: digitRun(a, i) };
}

export function isDigit(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 0x30 && c <= 0x39;
}

export function digitRun(s: string, from: number): string {
  let j = from;
  while (j < s.length && isDigit(s, j)) j++;
  return s.slice(from, j);
}

/** Whether every byte is printable ASCII. */
export function isPrintableAscii(s: ByteString): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c >= 0x7f) return false;
  }
  return true;
}

/** Whether the bytes are valid UTF-8 text without control characters. */
export function isReadableText(s: ByteString): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) < 0x20 || s.charCodeAt(i) === 0x7f) return false;
  if (isPrintableAscii(s)) return true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(s, 'latin1'));
    return true;
  } catch {
    return false;
  }
}
