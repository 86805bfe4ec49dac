/**
 * GoogleSQL query parameters written as text, as people type them in `tabletop sql --param name=TYPE:value` and
 * in the web UI's query box, turned into the JSON the HTTP API takes (`POST .../sql`, src/server/http/sql-route.ts:
 * `{ type, value }`). Each value is checked here, so that a mistake is named with its parameter before anything is
 * sent. No Node-only API: the web UI bundles this module too.
 *
 * The text forms, by type:
 *   INT64      a whole number, -9223372036854775808 to 9223372036854775807
 *   FLOAT32/64 a decimal or exponent number, NaN, Infinity, -Infinity (inf also)
 *   BOOL       true or false
 *   STRING     the text as is
 *   BYTES      the text's UTF-8; or, with the form base64 or hex, the bytes it encodes
 *              (on the command line: BYTES:base64:AAEC, BYTES:hex:0001ff, BYTES:text:base64:not-this)
 *   TIMESTAMP  2024-06-01T12:00:00Z, 2024-06-01 12:00:00.123456+02:00, 2024-06-01 (a zone-less time is UTC)
 *   DATE       2024-06-01
 *   ARRAY<T>   a JSON array of T's text forms (or numbers, booleans, null): ARRAY<INT64>:[1,2,"3"]
 */

export const SCALAR_PARAM_TYPES = ['INT64', 'FLOAT64', 'FLOAT32', 'BOOL', 'STRING', 'BYTES', 'TIMESTAMP', 'DATE'] as const;
export type ScalarParamType = (typeof SCALAR_PARAM_TYPES)[number];

/** How a BYTES value's text is read. */
export type BytesForm = 'text' | 'base64' | 'hex';
export const BYTES_FORMS: readonly BytesForm[] = ['text', 'base64', 'hex'];

/** A parameter as the JSON API takes it. */
export interface SqlParamJson {
  readonly type: string;
  readonly value: unknown;
}

/** A parameter that cannot be sent as written; the message says what is wrong and what would do. */
export class SqlParamError extends Error {}

/** A parameter's name without its `@`: letters, digits and `_`, not starting with a digit. */
export function paramName(text: string): string {
  const name = text.trim().replace(/^@/, '');
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new SqlParamError(`"${text}" is not a parameter name (letters, digits and _, as in @name)`);
  }
  return name;
}

/** The parameter `type` (a scalar type or ARRAY<scalar>, any case) whose value is written `text`. */
export function paramFromText(type: string, text: string, bytesForm: BytesForm = 'text'): SqlParamJson {
  const t = paramTypeName(type);
  const array = /^ARRAY<(\w+)>$/.exec(t);
  if (array === null) return { type: t, value: scalarFromText(t as ScalarParamType, text, bytesForm) };
  const element = array[1] as ScalarParamType;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed)) throw new SqlParamError(`${JSON.stringify(text)} is not a JSON array (an ${t} is written like ["a","b"])`);
  return {
    type: t,
    value: parsed.map((e: unknown, i) => {
      if (e === null) return null;
      if (element === 'INT64' && typeof e === 'number' && !Number.isSafeInteger(e)) {
        throw new SqlParamError(`element ${i}: ${e} is not exact in JSON: write large INT64 values as strings ("9007199254740993")`);
      }
      if (typeof e !== 'string' && typeof e !== 'number' && typeof e !== 'boolean') {
        throw new SqlParamError(`element ${i}: ${JSON.stringify(e)} is not a ${element}`);
      }
      try {
        return scalarFromText(element, String(e), bytesForm);
      } catch (err) {
        throw new SqlParamError(`element ${i}: ${(err as Error).message}`);
      }
    }),
  };
}

/**
 * `name=TYPE:value` of `tabletop sql --param` (BYTES may say its form first: `BYTES:base64:AAEC`). The type
 * ends at the first `:`, so the value may hold any character.
 */
export function parseParamFlag(flag: string): { name: string; param: SqlParamJson } {
  const eq = flag.indexOf('=');
  const colon = flag.indexOf(':', eq + 1);
  if (eq < 0 || colon < 0) {
    throw new SqlParamError('write it name=TYPE:value, e.g. --param id=STRING:user1, --param n=INT64:3, --param k=BYTES:base64:AAEC');
  }
  const name = paramName(flag.slice(0, eq));
  const type = flag.slice(eq + 1, colon);
  let value = flag.slice(colon + 1);
  let form: BytesForm = 'text';
  const bytes = /^\s*(ARRAY\s*<\s*)?BYTES\s*>?\s*$/i.test(type);
  const prefix = /^(text|base64|hex):/.exec(value);
  if (bytes && prefix !== null) {
    form = prefix[1] as BytesForm;
    value = value.slice(prefix[0].length);
  }
  return { name, param: paramFromText(type, value, form) };
}

function paramTypeName(type: string): string {
  const t = type.trim().toUpperCase().replace(/\s+/g, '');
  const scalar = /^ARRAY<(\w+)>$/.exec(t)?.[1] ?? t;
  if (!(SCALAR_PARAM_TYPES as readonly string[]).includes(scalar)) {
    throw new SqlParamError(`"${type}" is not a parameter type: one of ${SCALAR_PARAM_TYPES.join(', ')}, or ARRAY<...> of one`);
  }
  return t;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function scalarFromText(type: ScalarParamType, text: string, bytesForm: BytesForm): unknown {
  const shown = JSON.stringify(text);
  switch (type) {
    case 'INT64': {
      const t = text.trim();
      const n = /^[+-]?\d+$/.test(t) ? BigInt(t) : undefined;
      if (n === undefined || n < INT64_MIN || n > INT64_MAX) {
        throw new SqlParamError(`${shown} is not an INT64 (a whole number from ${INT64_MIN} to ${INT64_MAX})`);
      }
      return n.toString();
    }
    case 'FLOAT32':
    case 'FLOAT64': {
      const t = text.trim().toLowerCase();
      if (t === 'nan') return 'NaN';
      if (/^\+?inf(inity)?$/.test(t)) return 'Infinity';
      if (/^-inf(inity)?$/.test(t)) return '-Infinity';
      if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(t) || !Number.isFinite(Number(t))) {
        throw new SqlParamError(`${shown} is not a ${type} (a number such as 1.5 or 2e-3, NaN, Infinity or -Infinity)`);
      }
      return Number(t);
    }
    case 'BOOL': {
      const t = text.trim().toLowerCase();
      if (t !== 'true' && t !== 'false') throw new SqlParamError(`${shown} is not a BOOL (true or false)`);
      return t === 'true';
    }
    case 'STRING':
      return text;
    case 'BYTES':
      return { base64: bytesFromText(text, bytesForm) };
    case 'TIMESTAMP':
      return timestampFromText(text);
    case 'DATE': {
      const t = text.trim();
      const m = /^(\d{4})-(\d\d)-(\d\d)$/.exec(t);
      if (m === null || !validDate(m[1]!, m[2]!, m[3]!)) throw new SqlParamError(`${shown} is not a DATE (YYYY-MM-DD, e.g. 2024-06-01)`);
      return t;
    }
  }
}

/** The base64 of the bytes `text` stands for in `form`. */
function bytesFromText(text: string, form: BytesForm): string {
  const shown = JSON.stringify(text);
  switch (form) {
    case 'text':
      return toBase64(new TextEncoder().encode(text));
    case 'hex': {
      const hex = text.replace(/\s+/g, '').replace(/^0x/i, '');
      if (!/^([0-9a-fA-F]{2})*$/.test(hex)) throw new SqlParamError(`${shown} is not hex (pairs of 0-9 a-f, e.g. 00ff1a)`);
      return toBase64(Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16)));
    }
    case 'base64': {
      // Standard or URL-safe alphabet, padding optional.
      const b64 = text.replace(/\s+/g, '').replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
      if (!/^[A-Za-z0-9+/]*$/.test(b64) || b64.length % 4 === 1) throw new SqlParamError(`${shown} is not base64 (e.g. AAEC/w==)`);
      const padded = b64 + '='.repeat((4 - (b64.length % 4)) % 4);
      return toBase64(Uint8Array.from(atob(padded), (c) => c.charCodeAt(0)));
    }
  }
}

function toBase64(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

const TIMESTAMP_TEXT = /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?)?\s*(Z|UTC|[+-]\d\d(?::?\d\d)?)?$/i;

/** RFC 3339 (what the JSON API reads) of a GoogleSQL timestamp's text; without a zone it is UTC. */
function timestampFromText(text: string): string {
  const m = TIMESTAMP_TEXT.exec(text.trim());
  const bad = () =>
    new SqlParamError(`${JSON.stringify(text)} is not a TIMESTAMP (e.g. 2024-06-01T12:00:00Z, 2024-06-01 12:00:00.5+02:00, 2024-06-01)`);
  if (m === null) throw bad();
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac, zone = 'Z'] = m;
  if (!validDate(y!, mo!, d!) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) throw bad();
  let z = zone.toUpperCase();
  if (z === 'UTC') z = 'Z';
  else if (z !== 'Z') {
    const [, sign, zh, zm = '00'] = /^([+-])(\d\d):?(\d\d)?$/.exec(z)!;
    if (Number(zh) > 14 || Number(zm) > 59) throw bad();
    z = `${sign}${zh}:${zm}`;
  }
  return `${y}-${mo}-${d}T${h}:${mi}:${s}${frac === undefined ? '' : `.${frac}`}${z}`;
}

function validDate(y: string, m: string, d: string): boolean {
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(m) - 1, Number(d));
  return date.getUTCFullYear() === Number(y) && date.getUTCMonth() === Number(m) - 1 && date.getUTCDate() === Number(d);
}
