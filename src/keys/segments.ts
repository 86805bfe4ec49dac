import { invalidArgument } from '../model/errors.js';

/**
 * The segments of a key schema (schema.ts): what each one's values are, the text a value stands as in
 * a key, and the texts that bound a range of values. A value segment's text is either fixed-width
 * text (`width` set: integers, ISO and reversed timestamps), which sorts as its values, or free text
 * (`width` undefined: strings, reversed domains), which the schema escapes (escape.ts). A salt
 * segment has no value of its own: the schema computes it from other segments.
 */

export interface ValueSegment<N extends string = string, In = unknown, Out = unknown> {
  readonly kind: 'string' | 'integer' | 'iso-timestamp' | 'reversed-timestamp' | 'reversed-domain';
  readonly name: N;
  /** Characters of every text (digits), or undefined for free text, which the schema escapes. */
  readonly width: number | undefined;
  /** The text of a value (unescaped); throws InvalidArgument when the value does not fit. */
  text(value: In): string;
  /** The value of a text; returns a reason (a string in `{ error }`) when the text does not fit. */
  value(text: string): { ok: Out } | { error: string };
  /**
   * Texts that bound the values in [from, to) in key order: every key whose segment value is in the
   * range has a text ≥ `low` and < `high` (undefined: no bound on that side). Throws when from ≥ to.
   */
  bounds(from: In | undefined, to: In | undefined): { low: string | undefined; high: string | undefined };
}

export interface SaltSegment<N extends string = string> {
  readonly kind: 'salt';
  readonly name: N;
  /** Values 0 .. buckets-1. */
  readonly buckets: number;
  /** The segments hashed (names); undefined: every other value segment. */
  readonly of: readonly string[] | undefined;
  /** Digits of the text: those of buckets - 1. */
  readonly width: number;
}

/** A segment of a key schema. */
export type Segment = ValueSegment<string, never, unknown> | SaltSegment;

const checkName = (name: string): void => {
  if (typeof name !== 'string' || name === '') throw invalidArgument('keySchema: a segment needs a non-empty name');
};

/** A free-text segment: any well-formed Unicode string (empty included), ordered by its UTF-8 bytes (code point order). */
export function string<N extends string>(name: N): ValueSegment<N, string, string> {
  checkName(name);
  return {
    kind: 'string',
    name,
    width: undefined,
    text: (value) => checkText(name, value),
    value: (text) => ({ ok: text }),
    bounds: (from, to) => {
      if (from !== undefined && to !== undefined && compareUtf8(checkText(name, from), checkText(name, to)) >= 0)
        emptyRange(name, from, to);
      return { low: from === undefined ? undefined : checkText(name, from), high: to === undefined ? undefined : checkText(name, to) };
    },
  };
}

/**
 * A domain name stored reversed by labels (`www.example.com` as `com.example.www`), so that a
 * domain's subdomains sit together after it; ordered by the reversed text. Bounds are given as
 * domains and compared reversed.
 */
export function reversedDomain<N extends string>(name: N): ValueSegment<N, string, string> {
  checkName(name);
  const reverse = (domain: string): string => domain.split('.').reverse().join('.');
  return {
    kind: 'reversed-domain',
    name,
    width: undefined,
    text: (value) => reverse(checkText(name, value)),
    value: (text) => ({ ok: reverse(text) }),
    bounds: (from, to) => {
      const low = from === undefined ? undefined : reverse(checkText(name, from));
      const high = to === undefined ? undefined : reverse(checkText(name, to));
      if (low !== undefined && high !== undefined && compareUtf8(low, high) >= 0) emptyRange(name, from, to);
      return { low, high };
    },
  };
}

/** A non-negative integer zero-padded to `width` digits (1..16), so that text order is numeric order. */
export function integer<N extends string>(name: N, width: number): ValueSegment<N, number, number> {
  checkName(name);
  if (!Number.isInteger(width) || width < 1 || width > 16) {
    throw invalidArgument(`keySchema: integer segment '${name}' needs a width of 1 to 16 digits, not ${width}`);
  }
  const limit = 10 ** width; // exact: at most 1e16
  const check = (value: number, top: number): number => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > top) {
      throw invalidArgument(
        `key segment '${name}' takes a non-negative integer of at most ${width} digits, not ${typeof value === 'number' ? value : typeof value}`,
      );
    }
    return value;
  };
  const pad = (n: number | bigint): string => String(n).padStart(width, '0');
  return {
    kind: 'integer',
    name,
    width,
    text: (value) => pad(check(value, limit - 1)),
    value: (text) => (/^[0-9]+$/.test(text) ? { ok: Number(text) } : { error: `'${name}' should be ${width} digits` }),
    bounds: (from, to) => {
      // `to` may be one past the widest value: no upper bound then.
      if (from !== undefined) check(from, limit - 1);
      if (to !== undefined) check(to, limit);
      if (from !== undefined && to !== undefined && from >= to) emptyRange(name, from, to);
      return { low: from === undefined ? undefined : pad(from), high: to === undefined || to === limit ? undefined : pad(to) };
    },
  };
}

export interface IsoTimestampOptions {
  /** Seconds (`2023-05-01T12:00:00Z`, the default) or milliseconds (`2023-05-01T12:00:00.000Z`). */
  readonly precision?: 's' | 'ms';
}

/**
 * A time as ISO 8601 UTC text of fixed width (`2023-05-01T12:00:00Z`), which sorts in time order:
 * a Date or epoch milliseconds in, a Date out; years 0000 to 9999. With precision 's' (the default)
 * a time with milliseconds is refused rather than cut, so that decode gives back what was encoded.
 */
export function isoTimestamp<N extends string>(name: N, options: IsoTimestampOptions = {}): ValueSegment<N, Date | number, Date> {
  checkName(name);
  const precision = options.precision ?? 's';
  if (precision !== 's' && precision !== 'ms')
    throw invalidArgument(`keySchema: ISO timestamp '${name}' has precision 's' or 'ms', not '${String(precision)}'`);
  const width = precision === 's' ? 20 : 24;
  const toText = (value: Date | number): string => {
    const ms = value instanceof Date ? value.getTime() : value;
    const iso = typeof ms === 'number' && Number.isSafeInteger(ms) ? new Date(ms).toISOString() : '';
    if (iso.length !== 24 || (precision === 's' && ms % 1000 !== 0)) {
      throw invalidArgument(
        `key segment '${name}' takes a Date or epoch milliseconds in the years 0000 to 9999${precision === 's' ? ', in whole seconds' : ''}, not ${String(value)}`,
      );
    }
    return precision === 's' ? iso.slice(0, 19) + 'Z' : iso;
  };
  const pattern = precision === 's' ? /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/ : /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
  return {
    kind: 'iso-timestamp',
    name,
    width,
    text: toText,
    value: (text) => {
      const ms = pattern.test(text) ? Date.parse(text) : NaN;
      // Date.parse accepts 2023-02-30; only the canonical text of a time fits.
      return Number.isNaN(ms) || toText(ms) !== text
        ? { error: `'${name}' should be an ISO time like ${toText(0)}` }
        : { ok: new Date(ms) };
    },
    bounds: (from, to) => {
      const low = from === undefined ? undefined : toText(from);
      const high = to === undefined ? undefined : toText(to);
      if (low !== undefined && high !== undefined && low >= high) emptyRange(name, from, to);
      return { low, high };
    },
  };
}

/** The largest value of a signed 64-bit integer (Java's Long.MAX_VALUE): reversed timestamps are MAX - t. */
export const REVERSED_TIMESTAMP_MAX = 9_223_372_036_854_775_807n;
/** The last millisecond a Date holds (ECMAScript's time range). */
const MAX_DATE_MILLIS = 8_640_000_000_000_000;
/** Digits of a reversed timestamp: those of REVERSED_TIMESTAMP_MAX. */
export const REVERSED_TIMESTAMP_WIDTH = 19;

export interface ReversedTimestampOptions<U extends 'ms' | 'us'> {
  /** The unit of the stored number and of numbers given: milliseconds (default) or microseconds. */
  readonly unit?: U;
}

/**
 * A timestamp stored as MAX - t (MAX = 2^63 - 1, Java's Long.MAX_VALUE, as the Bigtable schema guide
 * suggests), zero-padded to 19 digits, so that the latest time sorts first. `t` is epoch milliseconds
 * (unit 'ms', the default: a Date or a number in, a Date out) or microseconds (unit 'us': a Date or a
 * number of µs in, a number of µs out). Times before 1970 are refused. Range bounds are times:
 * [from, to) in time, which is (to, from] reversed in the key.
 */
export function reversedTimestamp<N extends string>(
  name: N,
  options?: ReversedTimestampOptions<'ms'>,
): ValueSegment<N, Date | number, Date>;
export function reversedTimestamp<N extends string>(
  name: N,
  options: ReversedTimestampOptions<'us'>,
): ValueSegment<N, Date | number, number>;
export function reversedTimestamp<N extends string>(
  name: N,
  options: ReversedTimestampOptions<'ms' | 'us'> = {},
): ValueSegment<N, Date | number, Date | number> {
  checkName(name);
  const unit = options.unit ?? 'ms';
  if (unit !== 'ms' && unit !== 'us')
    throw invalidArgument(`keySchema: reversed timestamp '${name}' has unit 'ms' or 'us', not '${String(unit)}'`);
  const perMs = unit === 'ms' ? 1n : 1000n;
  // The latest time a value can hold: a Date's last millisecond, or the last exact µs of a number.
  const top = unit === 'ms' ? BigInt(MAX_DATE_MILLIS) : BigInt(Number.MAX_SAFE_INTEGER);
  const toUnits = (value: Date | number): bigint => {
    const n = value instanceof Date ? value.getTime() : value;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0 || (value instanceof Date ? BigInt(n) * perMs : BigInt(n)) > top) {
      throw invalidArgument(
        `key segment '${name}' takes a Date or a number of ${unit === 'ms' ? 'milliseconds' : 'microseconds'} since 1970 (a non-negative integer), not ${String(value)}`,
      );
    }
    return value instanceof Date ? BigInt(n) * perMs : BigInt(n);
  };
  const pad = (n: bigint): string => n.toString().padStart(REVERSED_TIMESTAMP_WIDTH, '0');
  return {
    kind: 'reversed-timestamp',
    name,
    width: REVERSED_TIMESTAMP_WIDTH,
    text: (value) => pad(REVERSED_TIMESTAMP_MAX - toUnits(value)),
    value: (text) => {
      if (!/^[0-9]+$/.test(text)) return { error: `'${name}' should be ${REVERSED_TIMESTAMP_WIDTH} digits` };
      const t = REVERSED_TIMESTAMP_MAX - BigInt(text);
      if (t < 0n || t > top) return { error: `'${name}' holds no time a value of the schema gives` };
      return { ok: unit === 'ms' ? new Date(Number(t)) : Number(t) };
    },
    bounds: (from, to) => {
      const f = from === undefined ? undefined : toUnits(from);
      const t = to === undefined ? undefined : toUnits(to);
      if (f !== undefined && t !== undefined && f >= t) emptyRange(name, from, to);
      // t in [f, to) ⇔ MAX - t in [MAX - to + 1, MAX - f + 1): MAX - 0 + 1 = 2^63 still has 19 digits.
      return {
        low: t === undefined ? undefined : pad(REVERSED_TIMESTAMP_MAX - t + 1n),
        high: f === undefined ? undefined : pad(REVERSED_TIMESTAMP_MAX - f + 1n),
      };
    },
  };
}

/**
 * A salt: the bucket `crc32(text) % buckets`, zero-padded to the digits of `buckets - 1`, where `text`
 * is the key text of the segments named in `of` (all value segments when omitted), escaped, joined by
 * the delimiter. CRC-32 is the IEEE polynomial of zlib, PNG and Ethernet (Node's zlib.crc32, Python's
 * zlib.crc32, Go's crc32.ChecksumIEEE, Java's java.util.zip.CRC32) over the text's UTF-8 bytes: fixed
 * by the standard, so a key's bucket is the same on every platform, in every version of tabletop and
 * in any language. Hash an entity's id (`of: ['sensor']`) to keep its rows together in one bucket.
 */
export function salt<N extends string>(name: N, buckets: number, of?: readonly string[]): SaltSegment<N> {
  checkName(name);
  if (!Number.isSafeInteger(buckets) || buckets < 1 || buckets > 1_000_000) {
    throw invalidArgument(`keySchema: salt '${name}' needs 1 to 1,000,000 buckets, not ${buckets}`);
  }
  return { kind: 'salt', name, buckets, of: of === undefined ? undefined : [...of], width: String(buckets - 1).length };
}

/** With the u flag a surrogate pair is one code point: this matches only lone surrogates. */
export const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** A string value, checked: well-formed Unicode (a lone surrogate has no UTF-8 form). */
function checkText(name: string, value: unknown): string {
  if (typeof value !== 'string') throw invalidArgument(`key segment '${name}' takes a string, not ${typeof value}`);
  if (LONE_SURROGATE.test(value)) throw invalidArgument(`key segment '${name}' holds a lone surrogate, which has no UTF-8 form`);
  return value;
}

/** Unicode code point order (= UTF-8 byte order), unlike `<` on JavaScript strings (UTF-16 units). */
export function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function emptyRange(name: string, from: unknown, to: unknown): never {
  throw invalidArgument(`key range: '${name}' from ${String(from)} to ${String(to)} is empty ('from' is inclusive, 'to' exclusive)`);
}
