import { BOOL, BYTES, INT64, STRING, type SqlValue } from '../types.js';
import { evalError } from '../values/errors.js';
import { type ScalarFunction, type Signature, defineFunction } from './registry.js';

/**
 * String and bytes functions. STRING positions and lengths count characters (code points), BYTES count bytes;
 * positions are 1-based and negative positions count from the end.
 */

const both = (params: (t: typeof STRING) => Signature['params'], result: (t: typeof STRING) => Signature['result']): Signature[] => [
  { params: params(STRING), result: result(STRING) },
  { params: params(BYTES), result: result(BYTES) },
];

const chars = (s: string): string[] => Array.from(s);
const isBytes = (v: SqlValue): v is Uint8Array => v instanceof Uint8Array;

/** A STRING as code points or BYTES as a byte array, sliced, and back. */
function units(v: SqlValue): { n: number; slice(a: number, b?: number): SqlValue } {
  if (isBytes(v)) return { n: v.byteLength, slice: (a, b) => v.slice(a, b) };
  const cs = chars(v as string);
  return { n: cs.length, slice: (a, b) => cs.slice(a, b).join('') };
}

export const CONCAT = defineFunction({
  name: 'CONCAT',
  signatures: [
    { params: [STRING], repeated: true, result: STRING },
    { params: [BYTES], repeated: true, result: BYTES },
  ],
  eval: (args) => (typeof args[0] === 'string' ? (args as string[]).join('') : new Uint8Array(Buffer.concat(args as Uint8Array[]))),
});

export const LENGTH = defineFunction({
  name: 'LENGTH',
  signatures: both(
    (t) => [t],
    () => INT64,
  ),
  eval: ([v]) => BigInt(units(v!).n),
});

export const CHAR_LENGTH = defineFunction({
  name: 'CHAR_LENGTH',
  signatures: [{ params: [STRING], result: INT64 }],
  eval: ([v]) => BigInt(chars(v as string).length),
});
export const CHARACTER_LENGTH = defineFunction({
  name: 'CHARACTER_LENGTH',
  signatures: [{ params: [STRING], result: INT64 }],
  eval: ([v]) => BigInt(chars(v as string).length),
});

export const BYTE_LENGTH = defineFunction({
  name: 'BYTE_LENGTH',
  signatures: both(
    (t) => [t],
    () => INT64,
  ),
  eval: ([v]) => BigInt(isBytes(v!) ? v.byteLength : Buffer.byteLength(v as string, 'utf8')),
});

function caseFn(name: string, upper: boolean): ScalarFunction {
  return defineFunction({
    name,
    signatures: both(
      (t) => [t],
      (t) => t,
    ),
    eval: ([v]) => {
      if (typeof v === 'string') return upper ? v.toUpperCase() : v.toLowerCase();
      // BYTES: ASCII letters only.
      const b = Uint8Array.from(v as Uint8Array);
      for (let i = 0; i < b.length; i++) {
        const c = b[i]!;
        if (upper && c >= 0x61 && c <= 0x7a) b[i] = c - 32;
        if (!upper && c >= 0x41 && c <= 0x5a) b[i] = c + 32;
      }
      return b;
    },
  });
}
export const LOWER = caseFn('LOWER', false);
export const UPPER = caseFn('UPPER', true);

function substr(name: string): ScalarFunction {
  return defineFunction({
    name,
    signatures: both(
      (t) => [t, INT64, INT64],
      (t) => t,
    ).map((s) => ({ ...s, optionalFrom: 2 })),
    eval: ([v, pos, len]) => {
      const u = units(v!);
      let p = Number(pos as bigint);
      if (len !== undefined && (len as bigint) < 0n) throw evalError(`${name}: negative length`);
      if (p > 0) p -= 1;
      else if (p < 0) p = Math.max(0, u.n + p);
      const start = Math.min(p, u.n);
      const end = len === undefined ? u.n : Math.min(u.n, start + Number((len as bigint) > BigInt(u.n) ? BigInt(u.n) : (len as bigint)));
      return u.slice(start, end);
    },
  });
}
export const SUBSTR = substr('SUBSTR');
export const SUBSTRING = substr('SUBSTRING');

const text = (v: SqlValue): string => (isBytes(v) ? Buffer.from(v).toString('latin1') : (v as string));

export const STARTS_WITH = defineFunction({
  name: 'STARTS_WITH',
  signatures: both(
    (t) => [t, t],
    () => BOOL,
  ),
  eval: ([a, b]) => text(a!).startsWith(text(b!)),
});

export const ENDS_WITH = defineFunction({
  name: 'ENDS_WITH',
  signatures: both(
    (t) => [t, t],
    () => BOOL,
  ),
  eval: ([a, b]) => text(a!).endsWith(text(b!)),
});

export const STRPOS = defineFunction({
  name: 'STRPOS',
  signatures: both(
    (t) => [t, t],
    () => INT64,
  ),
  eval: ([a, b]) => {
    const i = text(a!).indexOf(text(b!));
    if (i < 0) return 0n;
    return BigInt(isBytes(a!) ? i + 1 : chars(text(a!).slice(0, i)).length + 1);
  },
});

export const REPLACE = defineFunction({
  name: 'REPLACE',
  signatures: both(
    (t) => [t, t, t],
    (t) => t,
  ),
  eval: ([a, from, to]) => {
    const f = text(from!);
    const out = f === '' ? text(a!) : text(a!).split(f).join(text(to!));
    return isBytes(a!) ? new Uint8Array(Buffer.from(out, 'latin1')) : out;
  },
});

function trimFn(name: string, left: boolean, right: boolean): ScalarFunction {
  return defineFunction({
    name,
    signatures: both(
      (t) => [t, t],
      (t) => t,
    ).map((s) => ({ ...s, optionalFrom: 1 })),
    eval: ([v, set]) => {
      const cs = isBytes(v!) ? Array.from(text(v!)) : chars(v as string);
      const drop = new Set(
        set === undefined
          ? isBytes(v!)
            ? []
            : [' ', '\t', '\n', '\r', '\v', '\f']
          : isBytes(set!)
            ? Array.from(text(set))
            : chars(set as string),
      );
      if (set === undefined && isBytes(v!)) throw evalError(`${name} of BYTES needs the bytes to trim`);
      let a = 0;
      let b = cs.length;
      if (left) while (a < b && drop.has(cs[a]!)) a++;
      if (right) while (b > a && drop.has(cs[b - 1]!)) b--;
      const out = cs.slice(a, b).join('');
      return isBytes(v!) ? new Uint8Array(Buffer.from(out, 'latin1')) : out;
    },
  });
}
export const TRIM = trimFn('TRIM', true, true);
export const LTRIM = trimFn('LTRIM', true, false);
export const RTRIM = trimFn('RTRIM', false, true);

export const REVERSE = defineFunction({
  name: 'REVERSE',
  signatures: both(
    (t) => [t],
    (t) => t,
  ),
  eval: ([v]) =>
    isBytes(v!)
      ? Uint8Array.from(v).reverse()
      : chars(v as string)
          .reverse()
          .join(''),
});

export const REPEAT = defineFunction({
  name: 'REPEAT',
  signatures: both(
    (t) => [t, INT64],
    (t) => t,
  ),
  eval: ([v, n]) => {
    if ((n as bigint) < 0n) throw evalError('REPEAT: negative count');
    const count = Number(n as bigint);
    if (count * (isBytes(v!) ? v.byteLength : (v as string).length) > 16 << 20) throw evalError('REPEAT: result too large');
    return isBytes(v!) ? new Uint8Array(Buffer.concat(Array(count).fill(v))) : (v as string).repeat(count);
  },
});

export const STRING_FUNCTIONS: readonly ScalarFunction[] = [
  CONCAT,
  LENGTH,
  CHAR_LENGTH,
  CHARACTER_LENGTH,
  BYTE_LENGTH,
  LOWER,
  UPPER,
  SUBSTR,
  SUBSTRING,
  STARTS_WITH,
  ENDS_WITH,
  STRPOS,
  REPLACE,
  TRIM,
  LTRIM,
  RTRIM,
  REVERSE,
  REPEAT,
];

export const SPLIT = defineFunction({
  name: 'SPLIT',
  signatures: [
    { params: [STRING, STRING], optionalFrom: 1, result: { kind: 'ARRAY', element: STRING } },
    { params: [BYTES, BYTES], result: { kind: 'ARRAY', element: BYTES } },
  ],
  eval: ([v, d]) => {
    if (isBytes(v!)) {
      const sep = text(d!);
      if (sep === '') throw evalError('SPLIT of BYTES needs a non-empty delimiter');
      return text(v)
        .split(sep)
        .map((p) => new Uint8Array(Buffer.from(p, 'latin1')));
    }
    const s = v as string;
    const sep = d === undefined ? ',' : (d as string);
    if (sep === '') return s === '' ? [''] : chars(s);
    return s.split(sep);
  },
});

function pad(name: string, left: boolean): ScalarFunction {
  return defineFunction({
    name,
    signatures: both(
      (t) => [t, INT64, t],
      (t) => t,
    ).map((s) => ({ ...s, optionalFrom: 2 })),
    eval: ([v, n, p]) => {
      const len = n as bigint;
      if (len < 0n) throw evalError(`${name}: negative length`);
      if (len > 1n << 20n) throw evalError(`${name}: result too large`);
      const target = Number(len);
      const bytes = isBytes(v!);
      const unit = (x: SqlValue): string[] => (bytes ? Array.from(text(x)) : chars(x as string));
      const base = unit(v!);
      const filler = p === undefined ? [' '] : unit(p);
      if (base.length >= target) return join(base.slice(0, target), bytes);
      if (filler.length === 0) throw evalError(`${name}: empty pattern`);
      const fill: string[] = [];
      while (fill.length < target - base.length) fill.push(filler[fill.length % filler.length]!);
      return join(left ? [...fill, ...base] : [...base, ...fill], bytes);
    },
  });
}
const join = (parts: string[], bytes: boolean): SqlValue =>
  bytes ? new Uint8Array(Buffer.from(parts.join(''), 'latin1')) : parts.join('');
export const LPAD = pad('LPAD', true);
export const RPAD = pad('RPAD', false);

function side(name: string, left: boolean): ScalarFunction {
  return defineFunction({
    name,
    signatures: both(
      (t) => [t, INT64],
      (t) => t,
    ),
    eval: ([v, n]) => {
      if ((n as bigint) < 0n) throw evalError(`${name}: negative length`);
      const u = units(v!);
      const k = Math.min(u.n, Number(n as bigint));
      return left ? u.slice(0, k) : u.slice(u.n - k);
    },
  });
}
export const LEFT = side('LEFT', true);
export const RIGHT = side('RIGHT', false);

/** INITCAP's default word delimiters: white space and these characters. */
const INITCAP_DELIMITERS = new Set([...' \t\n\r\v\f[](){}/|\\<>!?@"^#$&~_,.:;*%+-']);

/** INITCAP(value [, delimiters]): each character after a delimiter (or first) upper-cased, the others lower-cased. */
export const INITCAP = defineFunction({
  name: 'INITCAP',
  signatures: [{ params: [STRING, STRING], optionalFrom: 1, result: STRING }],
  eval: ([v, d]) => {
    const delimiters = d === undefined ? INITCAP_DELIMITERS : new Set(chars(d as string));
    let start = true;
    return chars(v as string)
      .map((c) => {
        const out = start ? c.toUpperCase() : c.toLowerCase();
        start = delimiters.has(c);
        return out;
      })
      .join('');
  },
});

export const TO_CODE_POINTS = defineFunction({
  name: 'TO_CODE_POINTS',
  signatures: both(
    (t) => [t],
    () => ({ kind: 'ARRAY', element: INT64 }),
  ),
  eval: ([v]) => (isBytes(v!) ? Array.from(v, (b) => BigInt(b)) : chars(v as string).map((c) => BigInt(c.codePointAt(0)!))),
});

export const CODE_POINTS_TO_STRING = defineFunction({
  name: 'CODE_POINTS_TO_STRING',
  signatures: [{ params: [{ kind: 'ARRAY', element: INT64 }], result: STRING }],
  eval: ([a]) => {
    const list = a as readonly SqlValue[];
    if (list.some((x) => x === null)) return null;
    return list
      .map((x) => {
        const n = Number(x as bigint);
        if (n < 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) throw evalError(`Invalid code point ${n}`);
        return String.fromCodePoint(n);
      })
      .join('');
  },
});

export const MORE_STRING_FUNCTIONS: readonly ScalarFunction[] = [
  SPLIT,
  LPAD,
  RPAD,
  LEFT,
  RIGHT,
  INITCAP,
  TO_CODE_POINTS,
  CODE_POINTS_TO_STRING,
];
