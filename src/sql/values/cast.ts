import { SqlDate, SqlJson, SqlTimestamp, type SqlType, type SqlValue, typeText } from '../types.js';
import { evalError } from './errors.js';
import { dateOfTimestamp, formatDate, formatTimestamp, parseDate, parseTimestamp, timestampOfDate } from './time.js';

/**
 * CAST between GoogleSQL types (the conversion rules of the reference's conversion functions), on values of a
 * known source type. `canCast` is the static check the analyzer makes; `castValue` fails at run time with an
 * OUT_OF_RANGE evalError (SAFE_CAST turns that into NULL).
 */

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

const SCALAR_CASTS: Readonly<Record<string, readonly string[]>> = {
  INT64: ['INT64', 'FLOAT64', 'FLOAT32', 'BOOL', 'STRING'],
  FLOAT64: ['INT64', 'FLOAT64', 'FLOAT32', 'STRING'],
  FLOAT32: ['INT64', 'FLOAT64', 'FLOAT32', 'STRING'],
  BOOL: ['INT64', 'BOOL', 'STRING'],
  STRING: ['INT64', 'FLOAT64', 'FLOAT32', 'BOOL', 'STRING', 'BYTES', 'TIMESTAMP', 'DATE'],
  BYTES: ['STRING', 'BYTES'],
  TIMESTAMP: ['STRING', 'TIMESTAMP', 'DATE'],
  DATE: ['STRING', 'TIMESTAMP', 'DATE'],
  JSON: ['JSON'],
};

export function canCast(from: SqlType, to: SqlType): boolean {
  if (from.kind === 'ARRAY' && to.kind === 'ARRAY') return canCast(from.element, to.element);
  if (
    from.kind === 'MAP' ||
    to.kind === 'MAP' ||
    from.kind === 'STRUCT' ||
    to.kind === 'STRUCT' ||
    from.kind === 'ARRAY' ||
    to.kind === 'ARRAY'
  ) {
    return typeText(from) === typeText(to);
  }
  return SCALAR_CASTS[from.kind]?.includes(to.kind) ?? false;
}

export function checkedInt64(v: bigint): bigint {
  if (v < INT64_MIN || v > INT64_MAX) throw evalError('int64 overflow');
  return v;
}

/** A float rounded half away from zero to INT64; NaN, infinities and out-of-range values fail. */
export function floatToInt64(f: number): bigint {
  if (!Number.isFinite(f)) throw evalError(`Illegal conversion of non-finite floating point number to an integer: ${f}`);
  const r = Math.sign(f) * Math.round(Math.abs(f));
  const b = BigInt(r);
  if (b < INT64_MIN || b > INT64_MAX) throw evalError(`int64 out of range: ${f}`);
  return b;
}

export function parseInt64(text: string): bigint {
  const t = text.trim();
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|\d+)$/.exec(t);
  if (m === null) throw evalError(`Bad int64 value: ${text}`);
  const digits = m[2]!;
  const abs = BigInt(digits.toLowerCase().startsWith('0x') ? digits : digits.replace(/^0+(?=\d)/, ''));
  return checkedInt64(m[1] === '-' ? -abs : abs);
}

export function parseFloat64(text: string): number {
  const t = text.trim().toLowerCase();
  if (/^[+-]?(inf|infinity)$/.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/.test(t)) return NaN;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(t)) throw evalError(`Bad double value: ${text}`);
  return Number(t);
}

/** GoogleSQL's text of a float: shortest round-trip digits, `inf`, `-inf`, `nan`, exponent form for large and small magnitudes. */
export function formatFloat(f: number): string {
  if (Number.isNaN(f)) return 'nan';
  if (!Number.isFinite(f)) return f > 0 ? 'inf' : '-inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const abs = Math.abs(f);
  if (abs >= 1e15 || abs < 1e-4) {
    return f.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
  }
  return String(f);
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });
const lossyDecoder = new TextDecoder('utf-8');

export function bytesToString(b: Uint8Array): string {
  try {
    return utf8Decoder.decode(b);
  } catch {
    throw evalError('Invalid UTF-8 in BYTES converted to STRING');
  }
}

/** SAFE_CONVERT_BYTES_TO_STRING: invalid UTF-8 sequences become U+FFFD. */
export function bytesToStringLossy(b: Uint8Array): string {
  return lossyDecoder.decode(b);
}

export function stringToBytes(s: string): Uint8Array {
  return new Uint8Array(Buffer.from(s, 'utf8'));
}

export function castValue(v: SqlValue, from: SqlType, to: SqlType): SqlValue {
  if (v === null) return null;
  if (from.kind === to.kind && from.kind !== 'ARRAY') return v;
  switch (to.kind) {
    case 'INT64':
      if (typeof v === 'bigint') return v;
      if (typeof v === 'number') return floatToInt64(v);
      if (typeof v === 'boolean') return v ? 1n : 0n;
      if (typeof v === 'string') return parseInt64(v);
      break;
    case 'FLOAT64':
    case 'FLOAT32':
      if (typeof v === 'bigint') return to.kind === 'FLOAT32' ? Math.fround(Number(v)) : Number(v);
      if (typeof v === 'number') return to.kind === 'FLOAT32' ? toFloat32(v) : v;
      if (typeof v === 'string') {
        const f = parseFloat64(v);
        return to.kind === 'FLOAT32' ? toFloat32(f) : f;
      }
      break;
    case 'BOOL':
      if (typeof v === 'bigint') return v !== 0n;
      if (typeof v === 'string') {
        const t = v.trim().toLowerCase();
        if (t === 'true') return true;
        if (t === 'false') return false;
        throw evalError(`Bad bool value: ${v}`);
      }
      break;
    case 'STRING':
      if (typeof v === 'bigint') return v.toString();
      if (typeof v === 'number') return formatFloat(from.kind === 'FLOAT32' ? Number(v.toPrecision(9)) : v);
      if (typeof v === 'boolean') return v ? 'true' : 'false';
      if (v instanceof Uint8Array) return bytesToString(v);
      if (v instanceof SqlTimestamp) return formatTimestamp(v);
      if (v instanceof SqlDate) return formatDate(v);
      if (v instanceof SqlJson) return v.text;
      break;
    case 'BYTES':
      if (typeof v === 'string') return stringToBytes(v);
      break;
    case 'TIMESTAMP':
      if (typeof v === 'string') return parseTimestamp(v);
      if (v instanceof SqlDate) return timestampOfDate(v);
      break;
    case 'DATE':
      if (typeof v === 'string') return parseDate(v);
      if (v instanceof SqlTimestamp) return dateOfTimestamp(v);
      break;
    case 'ARRAY':
      if (Array.isArray(v) && from.kind === 'ARRAY') return (v as readonly SqlValue[]).map((e) => castValue(e, from.element, to.element));
      break;
    default:
      break;
  }
  throw evalError(`Invalid cast from ${typeText(from)} to ${typeText(to)}`);
}

function toFloat32(f: number): number {
  const r = Math.fround(f);
  if (Number.isFinite(f) && !Number.isFinite(r)) throw evalError(`Float out of range for FLOAT32: ${f}`);
  return r;
}
