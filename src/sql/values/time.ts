import { SqlDate, SqlTimestamp } from '../types.js';
import { evalError } from './errors.js';
import { type TimeZone, UTC_ZONE, localToUtc, offsetText, timeZone } from './time-zone.js';

/**
 * Timestamps and dates as text (GoogleSQL's canonical forms, UTC: Bigtable's default time zone):
 * TIMESTAMP `2024-06-01 12:00:00.5+00` (fraction only as long as needed), DATE `2024-06-01`.
 */

export const MIN_TIMESTAMP_MICROS = -62135596800000000n; // 0001-01-01 00:00:00 UTC
export const MAX_TIMESTAMP_MICROS = 253402300799999999n; // 9999-12-31 23:59:59.999999 UTC
export const MIN_DATE_DAYS = -719162; // 0001-01-01
export const MAX_DATE_DAYS = 2932896; // 9999-12-31

export function checkedTimestamp(micros: bigint): SqlTimestamp {
  if (micros < MIN_TIMESTAMP_MICROS || micros > MAX_TIMESTAMP_MICROS) throw evalError(`Timestamp out of range: ${micros} microseconds`);
  return new SqlTimestamp(micros);
}

export function checkedDate(days: number): SqlDate {
  if (!Number.isInteger(days) || days < MIN_DATE_DAYS || days > MAX_DATE_DAYS) throw evalError('Date out of range');
  return new SqlDate(days);
}

/** Civil fields of a timestamp (UTC). */
export interface CivilTime {
  readonly year: number;
  readonly month: number; // 1..12
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly micros: number; // 0..999999
  readonly dayOfWeek: number; // 1 = Sunday .. 7
  readonly dayOfYear: number;
  /** Days since 1970-01-01. */
  readonly days: number;
}

export function civilOf(ts: SqlTimestamp): CivilTime {
  const micros = ts.micros;
  let secs = micros / 1000000n;
  let frac = micros % 1000000n;
  if (frac < 0n) {
    frac += 1000000n;
    secs -= 1n;
  }
  const d = new Date(Number(secs) * 1000);
  const start = new Date(0);
  start.setUTCFullYear(d.getUTCFullYear(), 0, 1);
  const startOfDay = Number(secs - BigInt(d.getUTCHours() * 3600 + d.getUTCMinutes() * 60 + d.getUTCSeconds())) * 1000;
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    micros: Number(frac),
    dayOfWeek: d.getUTCDay() + 1,
    dayOfYear: Math.round((startOfDay - start.getTime()) / 86400000) + 1,
    days: Math.round(startOfDay / 86400000),
  };
}

export function timestampOfDate(d: SqlDate): SqlTimestamp {
  return new SqlTimestamp(BigInt(d.days) * 86400000000n);
}

export function dateOfTimestamp(ts: SqlTimestamp): SqlDate {
  let days = ts.micros / 86400000000n;
  if (ts.micros % 86400000000n < 0n) days -= 1n;
  return new SqlDate(Number(days));
}

export function dateFromParts(year: number, month: number, day: number): SqlDate {
  const check = new Date(0);
  check.setUTCFullYear(year, month - 1, day);
  const ms = check.getTime();
  if (month < 1 || month > 12 || day < 1 || check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) {
    throw evalError(`Invalid date: ${year}-${month}-${day}`);
  }
  return checkedDate(Math.round(ms / 86400000));
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

export function formatDate(d: SqlDate): string {
  const dt = new Date(d.days * 86400000);
  return `${pad(dt.getUTCFullYear(), 4)}-${pad(dt.getUTCMonth() + 1)}-${pad(dt.getUTCDate())}`;
}

/** A timestamp's canonical text in a zone (UTC by default): `2024-06-01 05:00:00.5-07`. */
export function formatTimestamp(ts: SqlTimestamp, zone: TimeZone = UTC_ZONE): string {
  const offset = zone.offsetSecondsAt(ts.micros);
  const c = civilOf(new SqlTimestamp(ts.micros + BigInt(offset) * 1000000n));
  let frac = '';
  if (c.micros !== 0) frac = '.' + pad(c.micros, 6).replace(/0+$/, '');
  return `${pad(c.year, 4)}-${pad(c.month)}-${pad(c.day)} ${pad(c.hour)}:${pad(c.minute)}:${pad(c.second)}${frac}${offsetText(offset, 'short')}`;
}

const DATE_RE = /^\s*(\d{1,4})-(\d{1,2})-(\d{1,2})\s*$/;
const TS_RE =
  /^\s*(\d{1,4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt]|\s+)(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?)?\s*(?:(Z|z|UTC|[+-]\d{1,2}(?::?\d{2})?|[A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)+))?\s*$/;

export function parseDate(text: string): SqlDate {
  const m = DATE_RE.exec(text);
  if (m === null) throw evalError(`Invalid date: '${text}'`);
  return dateFromParts(Number(m[1]), Number(m[2]), Number(m[3]));
}

/** A timestamp's text; a time without a zone of its own is in `zone` (UTC by default). */
export function parseTimestamp(text: string, zone: TimeZone = UTC_ZONE): SqlTimestamp {
  const m = TS_RE.exec(text);
  if (m === null) throw evalError(`Invalid timestamp: '${text}'`);
  const date = dateFromParts(Number(m[1]), Number(m[2]), Number(m[3]));
  const h = Number(m[4] ?? 0);
  const mi = Number(m[5] ?? 0);
  const s = Number(m[6] ?? 0);
  if (h > 23 || mi > 59 || s > 59) throw evalError(`Invalid timestamp: '${text}'`);
  const fracText = (m[7] ?? '').slice(0, 6).padEnd(6, '0');
  const local = (BigInt(date.days) * 86400n + BigInt(h * 3600 + mi * 60 + s)) * 1000000n + BigInt(fracText);
  const named = m[8];
  return checkedTimestamp(localToUtc(named === undefined ? zone : timeZone(named), local));
}
