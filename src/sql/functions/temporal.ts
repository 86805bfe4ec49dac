import { DATE, INT64, STRING, SqlDate, SqlTimestamp, type SqlValue, TIMESTAMP } from '../types.js';
import { checkedInt64 } from '../values/cast.js';
import {
  TIME_PART_MICROS,
  civilIn,
  dateIn,
  diffDays,
  extractPart,
  startOfDay,
  truncateDays,
  truncateTimestamp,
  weekStartOf,
} from '../values/date-parts.js';
import { evalError } from '../values/errors.js';
import { type FormatInput, type ParsedTime, formatTime, parseTime } from '../values/format-elements.js';
import {
  MAX_DATE_DAYS,
  MIN_DATE_DAYS,
  checkedDate,
  checkedTimestamp,
  civilOf,
  dateFromParts,
  formatTimestamp,
  parseDate,
  parseTimestamp,
  timestampOfDate,
} from '../values/time.js';
import { type TimeZone, UTC_ZONE, localToUtc, timeZone } from '../values/time-zone.js';
import { type ScalarFunction, defineFunction } from './registry.js';

/** Timestamp and date functions. Time zones are IANA names or offsets (values/time-zone.ts); UTC by default. */

/** TIMESTAMP_SECONDS(n) and the like; the TIMESTAMP_FROM_UNIX_* forms also take a TIMESTAMP (returned as it is). */
function fromUnix(name: string, perUnit: bigint, acceptsTimestamp = false): ScalarFunction {
  return defineFunction({
    name,
    signatures: [{ params: [INT64], result: TIMESTAMP }, ...(acceptsTimestamp ? [{ params: [TIMESTAMP], result: TIMESTAMP }] : [])],
    eval: ([n]) => (n instanceof SqlTimestamp ? n : checkedTimestamp((n as bigint) * perUnit)),
  });
}
export const TIMESTAMP_SECONDS = fromUnix('TIMESTAMP_SECONDS', 1000000n);
export const TIMESTAMP_MILLIS = fromUnix('TIMESTAMP_MILLIS', 1000n);
export const TIMESTAMP_MICROS = fromUnix('TIMESTAMP_MICROS', 1n);
export const TIMESTAMP_FROM_UNIX_SECONDS = fromUnix('TIMESTAMP_FROM_UNIX_SECONDS', 1000000n, true);
export const TIMESTAMP_FROM_UNIX_MILLIS = fromUnix('TIMESTAMP_FROM_UNIX_MILLIS', 1000n, true);
export const TIMESTAMP_FROM_UNIX_MICROS = fromUnix('TIMESTAMP_FROM_UNIX_MICROS', 1n, true);

/** Floor division, so that times before the epoch round down as GoogleSQL's UNIX_* do. */
function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n ? q - 1n : q;
}

function toUnix(name: string, perUnit: bigint): ScalarFunction {
  return defineFunction({
    name,
    signatures: [{ params: [TIMESTAMP], result: INT64 }],
    eval: ([t]) => floorDiv((t as SqlTimestamp).micros, perUnit),
  });
}
export const UNIX_SECONDS = toUnix('UNIX_SECONDS', 1000000n);
export const UNIX_MILLIS = toUnix('UNIX_MILLIS', 1000n);
export const UNIX_MICROS = toUnix('UNIX_MICROS', 1n);

export const UNIX_DATE = defineFunction({
  name: 'UNIX_DATE',
  signatures: [{ params: [DATE], result: INT64 }],
  eval: ([d]) => BigInt((d as SqlDate).days),
});

export const CURRENT_TIMESTAMP = defineFunction({
  name: 'CURRENT_TIMESTAMP',
  signatures: [{ params: [], result: TIMESTAMP }],
  volatile: true,
  eval: (_args, ctx) => ctx.now,
});

/** An optional time zone argument (UTC when left out). */
const zoneArg = (z: SqlValue | undefined): TimeZone => (z === undefined ? UTC_ZONE : timeZone(z as string));

export const CURRENT_DATE = defineFunction({
  name: 'CURRENT_DATE',
  signatures: [{ params: [STRING], optionalFrom: 0, result: DATE }],
  volatile: true,
  eval: ([z], ctx) => dateIn(ctx.now, zoneArg(z)),
});

export const DATE_FN = defineFunction({
  name: 'DATE',
  signatures: [
    { params: [INT64, INT64, INT64], result: DATE },
    { params: [TIMESTAMP, STRING], optionalFrom: 1, result: DATE },
    { params: [STRING], result: DATE },
  ],
  eval: (args) => {
    if (args.length === 3) return dateFromParts(Number(args[0] as bigint), Number(args[1] as bigint), Number(args[2] as bigint));
    const a = args[0]!;
    return a instanceof SqlTimestamp ? dateIn(a, zoneArg(args[1])) : parseDate(a as string);
  },
});

export const DATE_FROM_UNIX_DATE = defineFunction({
  name: 'DATE_FROM_UNIX_DATE',
  signatures: [{ params: [INT64], result: DATE }],
  eval: ([n]) => {
    const d = n as bigint;
    if (d < BigInt(MIN_DATE_DAYS) || d > BigInt(MAX_DATE_DAYS)) throw evalError(`DATE_FROM_UNIX_DATE: ${d} is out of the DATE range`);
    return new SqlDate(Number(d));
  },
});

export const TIMESTAMP_FN = defineFunction({
  name: 'TIMESTAMP',
  signatures: [
    { params: [STRING, STRING], optionalFrom: 1, result: TIMESTAMP },
    { params: [DATE, STRING], optionalFrom: 1, result: TIMESTAMP },
  ],
  eval: ([a, z]) => (a instanceof SqlDate ? checkedTimestamp(startOfDay(a, zoneArg(z)).micros) : parseTimestamp(a as string, zoneArg(z))),
});

/** STRING(timestamp [, zone]): the canonical text in the zone. */
export const STRING_FN = defineFunction({
  name: 'STRING',
  signatures: [{ params: [TIMESTAMP, STRING], optionalFrom: 1, result: STRING }],
  eval: ([t, z]) => formatTimestamp(t as SqlTimestamp, zoneArg(z)),
});

function formatInput(ts: SqlTimestamp, zone: TimeZone | undefined): FormatInput {
  const c = civilIn(ts, zone ?? UTC_ZONE);
  return { civil: c, offsetSeconds: c.offsetSeconds, zone, epochSeconds: floorDiv(ts.micros, 1000000n) };
}

export const FORMAT_TIMESTAMP = defineFunction({
  name: 'FORMAT_TIMESTAMP',
  signatures: [{ params: [STRING, TIMESTAMP, STRING], optionalFrom: 2, result: STRING }],
  eval: ([f, t, z]) => formatTime(f as string, formatInput(t as SqlTimestamp, zoneArg(z))),
});

export const FORMAT_DATE = defineFunction({
  name: 'FORMAT_DATE',
  signatures: [{ params: [STRING, DATE], result: STRING }],
  eval: ([f, d]) => formatTime(f as string, formatInput(timestampOfDate(d as SqlDate), undefined)),
});

/** The civil date of parsed fields (day of year, when given, wins over month and day). */
function parsedDate(p: ParsedTime): SqlDate {
  if (p.dayOfYear !== undefined) {
    const jan1 = dateFromParts(p.year, 1, 1);
    const d = checkedDate(jan1.days + p.dayOfYear - 1);
    if (p.dayOfYear < 1 || civilOf(timestampOfDate(d)).year !== p.year) throw evalError(`Invalid day of year ${p.dayOfYear}`);
    return d;
  }
  return dateFromParts(p.year, p.month, p.day);
}

export const PARSE_DATE = defineFunction({
  name: 'PARSE_DATE',
  signatures: [{ params: [STRING, STRING], result: DATE }],
  eval: ([f, s]) => parsedDate(parseTime(f as string, s as string)),
});

export const PARSE_TIMESTAMP = defineFunction({
  name: 'PARSE_TIMESTAMP',
  signatures: [{ params: [STRING, STRING, STRING], optionalFrom: 2, result: TIMESTAMP }],
  eval: ([f, s, z]) => {
    const p = parseTime(f as string, s as string);
    if (p.epochSeconds !== undefined) return checkedTimestamp(checkedInt64(p.epochSeconds * 1000000n) + BigInt(p.micros));
    const local = (BigInt(parsedDate(p).days) * 86400n + BigInt(p.hour * 3600 + p.minute * 60 + p.second)) * 1000000n + BigInt(p.micros);
    if (p.offsetSeconds !== undefined) return checkedTimestamp(local - BigInt(p.offsetSeconds) * 1000000n);
    return checkedTimestamp(localToUtc(p.zone ?? zoneArg(z), local));
  },
});

/** `EXTRACT(part FROM v [AT TIME ZONE z])` as `$extract('PART', v[, z])` (the analyzer checks the part). */
export const EXTRACT = defineFunction({
  name: '$extract',
  signatures: [
    { params: [STRING, TIMESTAMP, STRING], optionalFrom: 2, result: INT64 },
    { params: [STRING, DATE], result: INT64 },
  ],
  eval: ([part, v, z]) => {
    const c = v instanceof SqlDate ? civilOf(timestampOfDate(v)) : civilIn(v as SqlTimestamp, zoneArg(z));
    return BigInt(extractPart(part as string, c));
  },
});

const DATE_PARTS = ['DAY', 'WEEK', 'WEEK(<WEEKDAY>)', 'ISOWEEK', 'MONTH', 'QUARTER', 'YEAR', 'ISOYEAR'];
const TIME_PARTS = ['MICROSECOND', 'MILLISECOND', 'SECOND', 'MINUTE', 'HOUR'];

/**
 * The date parts each function takes (the analyzer checks a part where it is written). `WEEK(<WEEKDAY>)`
 * stands for WEEK(SUNDAY) .. WEEK(SATURDAY).
 */
export const DATE_PART_RULES: Readonly<Record<string, readonly string[]>> = {
  EXTRACT_DATE: ['DAYOFWEEK', 'DAYOFYEAR', ...DATE_PARTS],
  EXTRACT_TIMESTAMP: [...TIME_PARTS, 'DAYOFWEEK', 'DAYOFYEAR', ...DATE_PARTS, 'DATE'],
  DATE_TRUNC: DATE_PARTS,
  TIMESTAMP_TRUNC: [...TIME_PARTS, ...DATE_PARTS],
  DATE_DIFF: DATE_PARTS,
  TIMESTAMP_DIFF: [...TIME_PARTS, 'DAY'],
  LAST_DAY: DATE_PARTS.filter((p) => p !== 'DAY'),
  DATE_ADD: ['DAY', 'WEEK', 'MONTH', 'QUARTER', 'YEAR'],
  DATE_SUB: ['DAY', 'WEEK', 'MONTH', 'QUARTER', 'YEAR'],
  TIMESTAMP_ADD: [...TIME_PARTS, 'DAY'],
  TIMESTAMP_SUB: [...TIME_PARTS, 'DAY'],
  GENERATE_DATE_ARRAY: ['DAY', 'WEEK', 'MONTH', 'QUARTER', 'YEAR'],
  GENERATE_TIMESTAMP_ARRAY: [...TIME_PARTS, 'DAY'],
};

/** True when `part` (`WEEK(MONDAY)`) is one of `rules`. */
export function datePartAllowed(part: string, rules: readonly string[]): boolean {
  if (rules.includes(part)) return true;
  return /^WEEK\(\w+\)$/.test(part) && rules.includes('WEEK(<WEEKDAY>)') && weekStartOf(part) !== undefined;
}

const UNIT_MICROS: Readonly<Record<string, bigint>> = { ...TIME_PART_MICROS, DAY: 86400000000n };

function timestampShift(name: string, sign: 1n | -1n): ScalarFunction {
  return defineFunction({
    name,
    signatures: [{ params: [TIMESTAMP, INT64, STRING], result: TIMESTAMP }],
    eval: ([t, n, unit]) => shiftTimestamp(t as SqlTimestamp, sign * (n as bigint), unit as string, name),
  });
}
function shiftTimestamp(t: SqlTimestamp, n: bigint, unit: string, name: string): SqlTimestamp {
  const per = UNIT_MICROS[unit.toUpperCase()];
  if (per === undefined) throw evalError(`${name}: unsupported unit ${unit}`);
  return checkedTimestamp(t.micros + checkedInt64(n * per));
}
/** `TIMESTAMP_ADD(ts, INTERVAL n UNIT)` as `TIMESTAMP_ADD(ts, n, 'UNIT')`. */
export const TIMESTAMP_ADD = timestampShift('TIMESTAMP_ADD', 1n);
export const TIMESTAMP_SUB = timestampShift('TIMESTAMP_SUB', -1n);

export const TIMESTAMP_DIFF = defineFunction({
  name: 'TIMESTAMP_DIFF',
  signatures: [{ params: [TIMESTAMP, TIMESTAMP, STRING], result: INT64 }],
  eval: ([a, b, unit]) => {
    const per = UNIT_MICROS[(unit as string).toUpperCase()];
    if (per === undefined) throw evalError(`TIMESTAMP_DIFF: unsupported unit ${unit as string}`);
    return ((a as SqlTimestamp).micros - (b as SqlTimestamp).micros) / per;
  },
});

/** Adds months to a civil date, clamping the day to the month's last (GoogleSQL's DATE_ADD with MONTH/QUARTER/YEAR). */
function addMonths(d: SqlDate, months: number): SqlDate {
  const dt = new Date(d.days * 86400000);
  const y = dt.getUTCFullYear();
  const m = dt.getUTCMonth() + months;
  const first = new Date(0);
  first.setUTCFullYear(y, m, 1);
  const last = new Date(0);
  last.setUTCFullYear(first.getUTCFullYear(), first.getUTCMonth() + 1, 0);
  const day = Math.min(dt.getUTCDate(), last.getUTCDate());
  return dateFromParts(first.getUTCFullYear(), first.getUTCMonth() + 1, day);
}

function shiftDate(date: SqlDate, k: number, unit: string, name: string): SqlDate {
  switch (unit.toUpperCase()) {
    case 'DAY':
      return checkedDate(date.days + k);
    case 'WEEK':
      return checkedDate(date.days + 7 * k);
    case 'MONTH':
      return addMonths(date, k);
    case 'QUARTER':
      return addMonths(date, 3 * k);
    case 'YEAR':
      return addMonths(date, 12 * k);
    default:
      throw evalError(`${name}: unsupported date part ${unit}`);
  }
}

function dateShift(name: string, sign: 1 | -1): ScalarFunction {
  return defineFunction({
    name,
    signatures: [{ params: [DATE, INT64, STRING], result: DATE }],
    eval: ([d, n, unit]) => {
      const k = n as bigint;
      if (k > 4000000n || k < -4000000n) throw evalError(`${name}: date out of range`);
      return shiftDate(d as SqlDate, Number(k) * sign, unit as string, name);
    },
  });
}
/** `DATE_ADD(d, INTERVAL n UNIT)` as `DATE_ADD(d, n, 'UNIT')`. */
export const DATE_ADD = dateShift('DATE_ADD', 1);
export const DATE_SUB = dateShift('DATE_SUB', -1);

export const DATE_DIFF = defineFunction({
  name: 'DATE_DIFF',
  signatures: [{ params: [DATE, DATE, STRING], result: INT64 }],
  eval: ([a, b, unit]) => BigInt(diffDays((a as SqlDate).days, (b as SqlDate).days, (unit as string).toUpperCase())),
});

export const DATE_TRUNC = defineFunction({
  name: 'DATE_TRUNC',
  signatures: [{ params: [DATE, STRING], result: DATE }],
  eval: ([d, part]) => checkedDate(truncateDays((d as SqlDate).days, (part as string).toUpperCase(), 'DATE_TRUNC')),
});

export const TIMESTAMP_TRUNC = defineFunction({
  name: 'TIMESTAMP_TRUNC',
  signatures: [{ params: [TIMESTAMP, STRING, STRING], optionalFrom: 2, result: TIMESTAMP }],
  eval: ([t, part, z]) => {
    const r = truncateTimestamp(t as SqlTimestamp, (part as string).toUpperCase(), zoneArg(z));
    return checkedTimestamp(r.micros);
  },
});

/** LAST_DAY(date [, part]): the last day of the part's period (MONTH by default) that holds the date. */
export const LAST_DAY = defineFunction({
  name: 'LAST_DAY',
  signatures: [{ params: [DATE, STRING], optionalFrom: 1, result: DATE }],
  eval: ([d, part]) => {
    const p = ((part as string | undefined) ?? 'MONTH').toUpperCase();
    const date = d as SqlDate;
    const first = new SqlDate(truncateDays(date.days, p, 'LAST_DAY'));
    if (weekStartOf(p) !== undefined) return checkedDate(first.days + 6);
    if (p === 'ISOYEAR') return checkedDate(truncateDays(first.days + 371, 'ISOYEAR', 'LAST_DAY') - 1);
    const months = p === 'MONTH' ? 1 : p === 'QUARTER' ? 3 : 12;
    const c = civilOf(timestampOfDate(first));
    const last = new Date(0);
    last.setUTCFullYear(c.year, c.month - 1 + months, 0);
    return checkedDate(Math.round(last.getTime() / 86400000));
  },
});

const MAX_ARRAY = 1_000_000;

export const GENERATE_DATE_ARRAY = defineFunction({
  name: 'GENERATE_DATE_ARRAY',
  signatures: [{ params: [DATE, DATE, INT64, STRING], optionalFrom: 2, result: { kind: 'ARRAY', element: DATE } }],
  eval: ([a, b, n, unit]) => {
    const step = (n as bigint | undefined) ?? 1n;
    const u = (unit as string | undefined) ?? 'DAY';
    if (step === 0n) throw evalError('GENERATE_DATE_ARRAY: the step must not be 0');
    const start = a as SqlDate;
    const end = (b as SqlDate).days;
    const out: SqlDate[] = [];
    for (let i = 0; ; i++) {
      let d: SqlDate;
      try {
        d = shiftDate(start, Number(step) * i, u, 'GENERATE_DATE_ARRAY');
      } catch {
        break;
      }
      if (step > 0n ? d.days > end : d.days < end) break;
      out.push(d);
      if (out.length > MAX_ARRAY) throw evalError('GENERATE_DATE_ARRAY: too many elements');
    }
    return out;
  },
});

export const GENERATE_TIMESTAMP_ARRAY = defineFunction({
  name: 'GENERATE_TIMESTAMP_ARRAY',
  signatures: [{ params: [TIMESTAMP, TIMESTAMP, INT64, STRING], result: { kind: 'ARRAY', element: TIMESTAMP } }],
  eval: ([a, b, n, unit]) => {
    const step = n as bigint;
    if (step === 0n) throw evalError('GENERATE_TIMESTAMP_ARRAY: the step must not be 0');
    const per = UNIT_MICROS[(unit as string).toUpperCase()]!;
    const end = (b as SqlTimestamp).micros;
    const out: SqlTimestamp[] = [];
    for (let t = (a as SqlTimestamp).micros; step > 0n ? t <= end : t >= end; t += step * per) {
      out.push(new SqlTimestamp(t));
      if (out.length > MAX_ARRAY) throw evalError('GENERATE_TIMESTAMP_ARRAY: too many elements');
    }
    return out;
  },
});

export const TEMPORAL_FUNCTIONS: readonly ScalarFunction[] = [
  DATE_ADD,
  DATE_SUB,
  DATE_DIFF,
  DATE_TRUNC,
  TIMESTAMP_TRUNC,
  TIMESTAMP_SECONDS,
  TIMESTAMP_MILLIS,
  TIMESTAMP_MICROS,
  TIMESTAMP_FROM_UNIX_SECONDS,
  TIMESTAMP_FROM_UNIX_MILLIS,
  TIMESTAMP_FROM_UNIX_MICROS,
  UNIX_SECONDS,
  UNIX_MILLIS,
  UNIX_MICROS,
  UNIX_DATE,
  CURRENT_TIMESTAMP,
  CURRENT_DATE,
  DATE_FN,
  TIMESTAMP_FN,
  FORMAT_TIMESTAMP,
  FORMAT_DATE,
  EXTRACT,
  TIMESTAMP_ADD,
  TIMESTAMP_SUB,
  TIMESTAMP_DIFF,
  DATE_FROM_UNIX_DATE,
  STRING_FN,
  PARSE_DATE,
  PARSE_TIMESTAMP,
  LAST_DAY,
  GENERATE_DATE_ARRAY,
  GENERATE_TIMESTAMP_ARRAY,
];
