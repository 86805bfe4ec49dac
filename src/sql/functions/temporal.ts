import { DATE, INT64, STRING, SqlDate, SqlTimestamp, TIMESTAMP } from '../types.js';
import { checkedInt64 } from '../values/cast.js';
import { evalError } from '../values/errors.js';
import {
  checkedDate,
  checkedTimestamp,
  civilOf,
  dateFromParts,
  dateOfTimestamp,
  parseDate,
  parseTimestamp,
  strftime,
  timestampOfDate,
} from '../values/time.js';
import { type ScalarFunction, defineFunction } from './registry.js';

/** Timestamp and date functions (UTC: time zone arguments other than UTC are not supported yet). */

function fromUnix(name: string, perUnit: bigint): ScalarFunction {
  return defineFunction({
    name,
    signatures: [{ params: [INT64], result: TIMESTAMP }],
    eval: ([n]) => checkedTimestamp((n as bigint) * perUnit),
  });
}
export const TIMESTAMP_SECONDS = fromUnix('TIMESTAMP_SECONDS', 1000000n);
export const TIMESTAMP_MILLIS = fromUnix('TIMESTAMP_MILLIS', 1000n);
export const TIMESTAMP_MICROS = fromUnix('TIMESTAMP_MICROS', 1n);
export const TIMESTAMP_FROM_UNIX_SECONDS = fromUnix('TIMESTAMP_FROM_UNIX_SECONDS', 1000000n);
export const TIMESTAMP_FROM_UNIX_MILLIS = fromUnix('TIMESTAMP_FROM_UNIX_MILLIS', 1000n);
export const TIMESTAMP_FROM_UNIX_MICROS = fromUnix('TIMESTAMP_FROM_UNIX_MICROS', 1n);

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

export const CURRENT_DATE = defineFunction({
  name: 'CURRENT_DATE',
  signatures: [{ params: [], result: DATE }],
  volatile: true,
  eval: (_args, ctx) => dateOfTimestamp(ctx.now),
});

export const DATE_FN = defineFunction({
  name: 'DATE',
  signatures: [
    { params: [INT64, INT64, INT64], result: DATE },
    { params: [TIMESTAMP], result: DATE },
    { params: [STRING], result: DATE },
  ],
  eval: (args) => {
    if (args.length === 3) return dateFromParts(Number(args[0] as bigint), Number(args[1] as bigint), Number(args[2] as bigint));
    const a = args[0]!;
    return a instanceof SqlTimestamp ? dateOfTimestamp(a) : parseDate(a as string);
  },
});

export const TIMESTAMP_FN = defineFunction({
  name: 'TIMESTAMP',
  signatures: [
    { params: [STRING], result: TIMESTAMP },
    { params: [DATE], result: TIMESTAMP },
  ],
  eval: ([a]) => (a instanceof SqlDate ? timestampOfDate(a) : parseTimestamp(a as string)),
});

export const FORMAT_TIMESTAMP = defineFunction({
  name: 'FORMAT_TIMESTAMP',
  signatures: [{ params: [STRING, TIMESTAMP, STRING], optionalFrom: 2, result: STRING }],
  eval: ([f, t, zone]) => {
    if (zone !== undefined && !/^(utc|z|\+00(:?00)?|etc\/utc)$/i.test(zone as string))
      throw evalError(`FORMAT_TIMESTAMP: time zone '${zone as string}' is not supported (only UTC)`);
    return strftime(f as string, t as SqlTimestamp);
  },
});

export const FORMAT_DATE = defineFunction({
  name: 'FORMAT_DATE',
  signatures: [{ params: [STRING, DATE], result: STRING }],
  eval: ([f, d]) => strftime(f as string, timestampOfDate(d as SqlDate)),
});

const UNIT_MICROS: Readonly<Record<string, bigint>> = {
  MICROSECOND: 1n,
  MILLISECOND: 1000n,
  SECOND: 1000000n,
  MINUTE: 60000000n,
  HOUR: 3600000000n,
  DAY: 86400000000n,
};

/** `EXTRACT(part FROM ts)` as `$extract('PART', ts)`. */
export const EXTRACT = defineFunction({
  name: '$extract',
  signatures: [
    { params: [STRING, TIMESTAMP], result: INT64 },
    { params: [STRING, DATE], result: INT64 },
  ],
  eval: ([part, v]) => {
    const ts = v instanceof SqlDate ? timestampOfDate(v) : (v as SqlTimestamp);
    const c = civilOf(ts);
    switch ((part as string).toUpperCase()) {
      case 'YEAR':
        return BigInt(c.year);
      case 'QUARTER':
        return BigInt(Math.floor((c.month - 1) / 3) + 1);
      case 'MONTH':
        return BigInt(c.month);
      case 'DAY':
        return BigInt(c.day);
      case 'DAYOFWEEK':
        return BigInt(c.dayOfWeek);
      case 'DAYOFYEAR':
        return BigInt(c.dayOfYear);
      case 'HOUR':
        return BigInt(c.hour);
      case 'MINUTE':
        return BigInt(c.minute);
      case 'SECOND':
        return BigInt(c.second);
      case 'MILLISECOND':
        return BigInt(Math.floor(c.micros / 1000));
      case 'MICROSECOND':
        return BigInt(c.micros);
      default:
        throw evalError(`EXTRACT: unsupported date part ${part as string}`);
    }
  },
});

/** The date parts `$extract` takes (the analyzer checks the part at analysis time). */
export const EXTRACT_PARTS = [
  'YEAR',
  'QUARTER',
  'MONTH',
  'DAY',
  'DAYOFWEEK',
  'DAYOFYEAR',
  'HOUR',
  'MINUTE',
  'SECOND',
  'MILLISECOND',
  'MICROSECOND',
];

function timestampShift(name: string, sign: 1n | -1n): ScalarFunction {
  return defineFunction({
    name,
    signatures: [{ params: [TIMESTAMP, INT64, STRING], result: TIMESTAMP }],
    eval: ([t, n, unit]) => {
      const per = UNIT_MICROS[(unit as string).toUpperCase()];
      if (per === undefined) throw evalError(`${name}: unsupported unit ${unit as string}`);
      return checkedTimestamp((t as SqlTimestamp).micros + sign * checkedInt64((n as bigint) * per));
    },
  });
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

function shiftDate(name: string, sign: 1 | -1): ScalarFunction {
  return defineFunction({
    name,
    signatures: [{ params: [DATE, INT64, STRING], result: DATE }],
    eval: ([d, n, unit]) => {
      const k = Number(n as bigint) * sign;
      const date = d as SqlDate;
      switch ((unit as string).toUpperCase()) {
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
          throw evalError(`${name}: unsupported date part ${unit as string}`);
      }
    },
  });
}
/** `DATE_ADD(d, INTERVAL n UNIT)` as `DATE_ADD(d, n, 'UNIT')`. */
export const DATE_ADD = shiftDate('DATE_ADD', 1);
export const DATE_SUB = shiftDate('DATE_SUB', -1);

export const DATE_DIFF = defineFunction({
  name: 'DATE_DIFF',
  signatures: [{ params: [DATE, DATE, STRING], result: INT64 }],
  eval: ([a, b, unit]) => {
    const x = a as SqlDate;
    const y = b as SqlDate;
    const cx = civilOf(timestampOfDate(x));
    const cy = civilOf(timestampOfDate(y));
    switch ((unit as string).toUpperCase()) {
      case 'DAY':
        return BigInt(x.days - y.days);
      case 'WEEK':
        // Weeks start on Sunday: the number of Sunday boundaries crossed.
        return BigInt(Math.floor((x.days + 4) / 7) - Math.floor((y.days + 4) / 7));
      case 'MONTH':
        return BigInt((cx.year - cy.year) * 12 + cx.month - cy.month);
      case 'QUARTER':
        return BigInt((cx.year - cy.year) * 4 + Math.floor((cx.month - 1) / 3) - Math.floor((cy.month - 1) / 3));
      case 'YEAR':
        return BigInt(cx.year - cy.year);
      default:
        throw evalError(`DATE_DIFF: unsupported date part ${unit as string}`);
    }
  },
});

function truncateDate(d: SqlDate, part: string, fn: string): SqlDate {
  const c = civilOf(timestampOfDate(d));
  switch (part) {
    case 'DAY':
      return d;
    case 'WEEK':
      return new SqlDate(d.days - (c.dayOfWeek - 1));
    case 'MONTH':
      return dateFromParts(c.year, c.month, 1);
    case 'QUARTER':
      return dateFromParts(c.year, Math.floor((c.month - 1) / 3) * 3 + 1, 1);
    case 'YEAR':
      return dateFromParts(c.year, 1, 1);
    default:
      throw evalError(`${fn}: unsupported date part ${part}`);
  }
}

export const DATE_TRUNC = defineFunction({
  name: 'DATE_TRUNC',
  signatures: [{ params: [DATE, STRING], result: DATE }],
  eval: ([d, part]) => truncateDate(d as SqlDate, (part as string).toUpperCase(), 'DATE_TRUNC'),
});

export const TIMESTAMP_TRUNC = defineFunction({
  name: 'TIMESTAMP_TRUNC',
  signatures: [{ params: [TIMESTAMP, STRING], result: TIMESTAMP }],
  eval: ([t, part]) => {
    const ts = t as SqlTimestamp;
    const p = (part as string).toUpperCase();
    const per = UNIT_MICROS[p];
    if (per !== undefined) {
      const r = ts.micros % per;
      return new SqlTimestamp(ts.micros - (r < 0n ? r + per : r));
    }
    return timestampOfDate(truncateDate(dateOfTimestamp(ts), p, 'TIMESTAMP_TRUNC'));
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
];
