import { SqlDate, SqlTimestamp } from '../types.js';
import { evalError } from './errors.js';
import { type CivilTime, civilOf } from './time.js';
import { type TimeZone, UTC_ZONE, localToUtc } from './time-zone.js';

/**
 * Date parts (`YEAR`, `WEEK(MONDAY)`, `ISOWEEK`, ...) over civil dates and over timestamps in a time zone:
 * what EXTRACT, DATE_TRUNC, TIMESTAMP_TRUNC and DATE_DIFF share. Days are counted from 1970-01-01; a weekday
 * is 0 (Sunday) .. 6 (Saturday). A part arrives as its upper-case text: `WEEK(MONDAY)` for a week that starts
 * on Monday.
 */

export const WEEKDAYS = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'];

/** 0 = Sunday .. 6 = Saturday. */
export function weekday(days: number): number {
  return (((days + 4) % 7) + 7) % 7;
}

/** The first day of a week that starts on `start` (0 = Sunday) and holds `days`. */
export function weekStart(days: number, start: number): number {
  return days - ((weekday(days) - start + 7) % 7);
}

/** The day number of a civil date (unchecked: years 0 and 10000 are fine here). */
function daysOf(y: number, m: number, d: number): number {
  const t = new Date(0);
  t.setUTCFullYear(y, m - 1, d);
  return Math.round(t.getTime() / 86400000);
}

/** The Monday that starts ISO week 1 of an ISO year (the week holding January 4). */
function isoYearStart(isoYear: number): number {
  return weekStart(daysOf(isoYear, 1, 4), 1);
}

export function isoYear(days: number): number {
  const y = new Date(days * 86400000).getUTCFullYear();
  if (days >= isoYearStart(y + 1)) return y + 1;
  if (days < isoYearStart(y)) return y - 1;
  return y;
}

export function isoWeek(days: number): number {
  return Math.floor((days - isoYearStart(isoYear(days))) / 7) + 1;
}

/** A week part's first weekday: `WEEK` is Sunday, `WEEK(MONDAY)` Monday, `ISOWEEK` Monday; else undefined. */
export function weekStartOf(part: string): number | undefined {
  if (part === 'WEEK' || part === 'WEEK(SUNDAY)') return 0;
  if (part === 'ISOWEEK') return 1;
  const m = /^WEEK\((\w+)\)$/.exec(part);
  if (m === null) return undefined;
  const i = WEEKDAYS.indexOf(m[1]!);
  return i < 0 ? undefined : i;
}

/** True when `part` names a date part that counts days or longer (what a DATE has). */
export function isDatePart(part: string): boolean {
  return ['DAY', 'MONTH', 'QUARTER', 'YEAR', 'ISOYEAR', 'DAYOFWEEK', 'DAYOFYEAR'].includes(part) || weekStartOf(part) !== undefined;
}

/** Sub-day parts of a TIMESTAMP, with their length in microseconds. */
export const TIME_PART_MICROS: Readonly<Record<string, bigint>> = {
  MICROSECOND: 1n,
  MILLISECOND: 1000n,
  SECOND: 1000000n,
  MINUTE: 60000000n,
  HOUR: 3600000000n,
};

/** EXTRACT of a date part from civil fields (`c.days` the day number). */
export function extractPart(part: string, c: CivilTime): number {
  switch (part) {
    case 'YEAR':
      return c.year;
    case 'QUARTER':
      return Math.floor((c.month - 1) / 3) + 1;
    case 'MONTH':
      return c.month;
    case 'DAY':
      return c.day;
    case 'DAYOFWEEK':
      return c.dayOfWeek;
    case 'DAYOFYEAR':
      return c.dayOfYear;
    case 'HOUR':
      return c.hour;
    case 'MINUTE':
      return c.minute;
    case 'SECOND':
      return c.second;
    case 'MILLISECOND':
      return Math.floor(c.micros / 1000);
    case 'MICROSECOND':
      return c.micros;
    case 'ISOYEAR':
      return isoYear(c.days);
    case 'ISOWEEK':
      return isoWeek(c.days);
  }
  const start = weekStartOf(part);
  if (start === undefined) throw evalError(`EXTRACT: unsupported date part ${part}`);
  // Weeks start on `start`; the days of the year before its first such day are week 0.
  const firstOfYear = daysOf(c.year, 1, 1);
  const first = firstOfYear + ((start - weekday(firstOfYear) + 7) % 7);
  return c.days < first ? 0 : Math.floor((c.days - first) / 7) + 1;
}

/** The first day of the date part's period that holds `days` (DATE_TRUNC). */
export function truncateDays(days: number, part: string, fn: string): number {
  const c = civilOf(new SqlTimestamp(BigInt(days) * 86400000000n));
  switch (part) {
    case 'DAY':
      return days;
    case 'MONTH':
      return daysOf(c.year, c.month, 1);
    case 'QUARTER':
      return daysOf(c.year, Math.floor((c.month - 1) / 3) * 3 + 1, 1);
    case 'YEAR':
      return daysOf(c.year, 1, 1);
    case 'ISOYEAR':
      return isoYearStart(isoYear(days));
  }
  const start = weekStartOf(part);
  if (start === undefined) throw evalError(`${fn}: unsupported date part ${part}`);
  return weekStart(days, start);
}

/** DATE_DIFF: the number of the part's boundaries between two days (x - y). */
export function diffDays(x: number, y: number, part: string): number {
  const cx = civilOf(new SqlTimestamp(BigInt(x) * 86400000000n));
  const cy = civilOf(new SqlTimestamp(BigInt(y) * 86400000000n));
  switch (part) {
    case 'DAY':
      return x - y;
    case 'MONTH':
      return (cx.year - cy.year) * 12 + cx.month - cy.month;
    case 'QUARTER':
      return (cx.year - cy.year) * 4 + Math.floor((cx.month - 1) / 3) - Math.floor((cy.month - 1) / 3);
    case 'YEAR':
      return cx.year - cy.year;
    case 'ISOYEAR':
      return isoYear(x) - isoYear(y);
  }
  const start = weekStartOf(part);
  if (start === undefined) throw evalError(`DATE_DIFF: unsupported date part ${part}`);
  return (weekStart(x, start) - weekStart(y, start)) / 7;
}

/** Civil fields of a timestamp in a zone, and the zone's offset then (seconds). */
export function civilIn(ts: SqlTimestamp, zone: TimeZone = UTC_ZONE): CivilTime & { readonly offsetSeconds: number } {
  const offsetSeconds = zone.offsetSecondsAt(ts.micros);
  return { ...civilOf(new SqlTimestamp(ts.micros + BigInt(offsetSeconds) * 1000000n)), offsetSeconds };
}

/** The date of a timestamp in a zone. */
export function dateIn(ts: SqlTimestamp, zone: TimeZone): SqlDate {
  return new SqlDate(civilIn(ts, zone).days);
}

/** Midnight of a date in a zone. */
export function startOfDay(d: SqlDate, zone: TimeZone): SqlTimestamp {
  return new SqlTimestamp(localToUtc(zone, BigInt(d.days) * 86400000000n));
}

/** TIMESTAMP_TRUNC in a zone: truncates the wall-clock time, then maps it back to an instant. */
export function truncateTimestamp(ts: SqlTimestamp, part: string, zone: TimeZone): SqlTimestamp {
  const offset = BigInt(zone.offsetSecondsAt(ts.micros)) * 1000000n;
  const local = ts.micros + offset;
  const per = TIME_PART_MICROS[part];
  if (per !== undefined) {
    const r = local % per;
    const truncated = local - (r < 0n ? r + per : r);
    // Below an hour the offset is the same on both sides (zones move by whole minutes at most... mostly).
    return new SqlTimestamp(part === 'HOUR' ? localToUtc(zone, truncated) : truncated - offset);
  }
  let days = local / 86400000000n;
  if (local % 86400000000n < 0n) days -= 1n;
  return new SqlTimestamp(localToUtc(zone, BigInt(truncateDays(Number(days), part, 'TIMESTAMP_TRUNC')) * 86400000000n));
}
