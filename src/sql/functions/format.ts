import { STRING, SqlDate, SqlJson, SqlMap, SqlStruct, SqlTimestamp, type SqlValue } from '../types.js';
import { bytesToStringLossy, formatFloat } from '../values/cast.js';
import { evalError } from '../values/errors.js';
import { formatDate, formatTimestamp } from '../values/time.js';
import { defineFunction } from './registry.js';

/**
 * FORMAT(format, args...): printf-like. `%[flags][width][.precision]spec` with flags `-+ #0'`, `*` for a width
 * or precision taken from the arguments, and specs d i (INT64), o x X (INT64 in base 8/16), f F e E g G
 * (FLOAT64 or INT64), s (STRING or BYTES), t (any value as text), T (any value as a literal), %%.
 * A NULL argument prints as NULL; a NULL format gives NULL.
 */

const ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\t': '\\t', '\r': '\\r', '\\': '\\\\' };

function quoted(s: string): string {
  return '"' + s.replace(/["\\\n\t\r]/g, (c) => (c === '"' ? '\\"' : ESCAPES[c]!)) + '"';
}

function bytesLiteral(b: Uint8Array): string {
  let s = '';
  for (const c of b)
    s +=
      c === 0x22 ? '\\"' : c === 0x5c ? '\\\\' : c >= 0x20 && c < 0x7f ? String.fromCharCode(c) : `\\x${c.toString(16).padStart(2, '0')}`;
  return `b"${s}"`;
}

function floatText(f: number, literal: boolean): string {
  if (Number.isNaN(f)) return literal ? 'CAST("nan" AS FLOAT64)' : 'nan';
  if (!Number.isFinite(f)) return literal ? `CAST("${f > 0 ? 'inf' : '-inf'}" AS FLOAT64)` : f > 0 ? 'inf' : '-inf';
  const t = formatFloat(f);
  return literal && /^-?\d+$/.test(t) ? t + '.0' : t;
}

/** %t (literal false) and %T (literal true) of a value. */
export function valueText(v: SqlValue, literal: boolean): string {
  if (v === null) return 'NULL';
  switch (typeof v) {
    case 'bigint':
      return v.toString();
    case 'number':
      return floatText(v, literal);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'string':
      return literal ? quoted(v) : v;
  }
  if (v instanceof Uint8Array) return literal ? bytesLiteral(v) : bytesToStringLossy(v);
  if (v instanceof SqlTimestamp) return literal ? `TIMESTAMP "${formatTimestamp(v)}"` : formatTimestamp(v);
  if (v instanceof SqlDate) return literal ? `DATE "${formatDate(v)}"` : formatDate(v);
  if (v instanceof SqlJson) return literal ? `JSON ${quoted(v.text)}` : v.text;
  if (v instanceof SqlStruct) return `(${v.values.map((x) => valueText(x, literal)).join(', ')})`;
  if (v instanceof SqlMap) return `{${v.entries.map(([k, x]) => `${valueText(k, literal)}: ${valueText(x, literal)}`).join(', ')}}`;
  return `[${(v as readonly SqlValue[]).map((x) => valueText(x, literal)).join(', ')}]`;
}

interface Spec {
  readonly flags: string;
  readonly width: number | undefined;
  readonly precision: number | undefined;
  readonly conv: string;
}

function pad(body: string, sign: string, spec: Spec): string {
  const width = spec.width ?? 0;
  const len = sign.length + body.length;
  if (len >= width) return sign + body;
  if (spec.flags.includes('-')) return sign + body + ' '.repeat(width - len);
  if (spec.flags.includes('0') && 'diouxXfFeEgG'.includes(spec.conv) && /^[0-9a-fA-F.]/.test(body))
    return sign + '0'.repeat(width - len) + body;
  return ' '.repeat(width - len) + sign + body;
}

function group(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function signOf(negative: boolean, flags: string): string {
  return negative ? '-' : flags.includes('+') ? '+' : flags.includes(' ') ? ' ' : '';
}

function formatInteger(v: SqlValue, spec: Spec, argNo: number): string {
  if (typeof v !== 'bigint') throw evalError(`FORMAT: %${spec.conv} needs an INT64 for argument ${argNo}`);
  const neg = v < 0n;
  const mag = neg ? -v : v;
  let body: string;
  if (spec.conv === 'o') body = (spec.flags.includes('#') && mag !== 0n ? '0' : '') + mag.toString(8);
  else if (spec.conv === 'x' || spec.conv === 'X') {
    body = (spec.flags.includes('#') && mag !== 0n ? '0x' : '') + mag.toString(16);
    if (spec.conv === 'X') body = body.toUpperCase();
  } else {
    body = mag.toString();
    if (spec.flags.includes("'")) body = group(body);
  }
  if (spec.precision !== undefined && body.length < spec.precision) body = body.padStart(spec.precision, '0');
  return pad(body, signOf(neg, spec.flags), spec);
}

function formatFloatSpec(v: SqlValue, spec: Spec, argNo: number): string {
  if (typeof v !== 'number' && typeof v !== 'bigint') throw evalError(`FORMAT: %${spec.conv} needs a FLOAT64 for argument ${argNo}`);
  const f = Number(v);
  const upper = spec.conv === spec.conv.toUpperCase();
  if (!Number.isFinite(f)) {
    const t = Number.isNaN(f) ? 'nan' : 'inf';
    return pad(upper ? t.toUpperCase() : t, signOf(f < 0, spec.flags), { ...spec, flags: spec.flags.replace('0', '') });
  }
  const neg = f < 0 || Object.is(f, -0);
  const a = Math.abs(f);
  const p = spec.precision ?? 6;
  let body: string;
  switch (spec.conv.toLowerCase()) {
    case 'f':
      body = a.toFixed(Math.min(p, 100));
      if (spec.flags.includes("'")) {
        const [i, d] = body.split('.');
        body = group(i!) + (d === undefined ? '' : '.' + d);
      }
      break;
    case 'e':
      body = expText(a, p);
      break;
    default: {
      const P = p === 0 ? 1 : p;
      const exp = a === 0 ? 0 : Math.floor(Math.log10(Number(a.toExponential(P - 1))));
      body = exp < -4 || exp >= P ? expText(a, P - 1) : a.toFixed(Math.max(0, P - 1 - exp));
      if (!spec.flags.includes('#') && body.includes('.')) body = body.replace(/\.?0+(e|$)/, '$1');
    }
  }
  if (upper) body = body.toUpperCase();
  return pad(body, signOf(neg, spec.flags), spec);
}

/** C's %e: d.ddde+XX (at least two exponent digits). */
function expText(a: number, p: number): string {
  const [m, e] = a.toExponential(Math.min(p, 100)).split('e');
  const n = Number(e);
  return `${m}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
}

/** The widest field or precision FORMAT pads to (a larger one is an error, not a huge string). */
const MAX_WIDTH = 1n << 20n;

export function formatPrintf(format: string, args: readonly SqlValue[]): string {
  let out = '';
  let next = 0;
  const take = (): SqlValue => {
    if (next >= args.length) throw evalError(`FORMAT: too few arguments for the format string '${format}'`);
    return args[next++]!;
  };
  const re = /%([-+ #0']*)(\*|\d+)?(?:\.(\*|\d+))?([dioxXfFeEgGstT%])?/g;
  let last = 0;
  for (let m = re.exec(format); m !== null; m = re.exec(format)) {
    out += format.slice(last, m.index);
    last = re.lastIndex;
    const conv = m[4];
    if (conv === undefined) throw evalError(`FORMAT: invalid format specifier at position ${m.index + 1} of '${format}'`);
    if (conv === '%') {
      out += '%';
      continue;
    }
    const star = (x: string | undefined): number | undefined => {
      if (x === undefined) return undefined;
      const n = x === '*' ? take() : BigInt(x);
      if (typeof n !== 'bigint') throw evalError('FORMAT: a * width or precision needs an INT64 argument');
      if (n < 0n || n > MAX_WIDTH) throw evalError(`FORMAT: a width or precision must be in [0, ${MAX_WIDTH}], not ${n}`);
      return Number(n);
    };
    const width = star(m[2]);
    const precision = star(m[3]);
    const spec: Spec = { flags: m[1]!, width, precision, conv };
    const argNo = next + 2;
    const v = take();
    if (v === null) {
      out += pad('NULL', '', { ...spec, flags: spec.flags.replace('0', '') });
      continue;
    }
    switch (conv) {
      case 'd':
      case 'i':
      case 'o':
      case 'x':
      case 'X':
        out += formatInteger(v, spec, argNo);
        break;
      case 's': {
        if (typeof v !== 'string' && !(v instanceof Uint8Array)) throw evalError(`FORMAT: %s needs a STRING for argument ${argNo}`);
        let s = typeof v === 'string' ? v : bytesToStringLossy(v);
        if (precision !== undefined) s = Array.from(s).slice(0, precision).join('');
        out += pad(s, '', spec);
        break;
      }
      case 't':
      case 'T': {
        let s = valueText(v, conv === 'T');
        if (precision !== undefined) s = Array.from(s).slice(0, precision).join('');
        out += pad(s, '', spec);
        break;
      }
      default:
        out += formatFloatSpec(v, spec, argNo);
    }
  }
  out += format.slice(last);
  if (next < args.length) throw evalError(`FORMAT: too many arguments for the format string '${format}'`);
  return out;
}

export const FORMAT = defineFunction({
  name: 'FORMAT',
  signatures: [{ params: [STRING, 'ANY'], optionalFrom: 1, repeated: true, result: STRING }],
  strict: false,
  eval: ([f, ...rest]) => (f === null ? null : formatPrintf(f as string, rest)),
});
