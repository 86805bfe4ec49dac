import { BOOL, FLOAT64, INT64, STRING, BYTES, type SqlType, type SqlValue } from '../types.js';
import { checkedInt64 } from '../values/cast.js';
import { compareValues, sqlEquals } from '../values/compare.js';
import { evalError } from '../values/errors.js';
import { type ScalarFunction, type Signature, defineFunction } from './registry.js';

/**
 * Operators as functions (`$add` is `a + b`): arithmetic with INT64 overflow and division-by-zero errors,
 * comparisons with NULL → NULL, and three-valued AND/OR/NOT.
 */

const numeric = (result: 'same' | SqlType): Signature[] => [
  { params: [INT64, INT64], result: result === 'same' ? INT64 : result },
  { params: [FLOAT64, FLOAT64], result: result === 'same' ? FLOAT64 : result },
];

function arith(name: string, op: (a: bigint, b: bigint) => bigint, fop: (a: number, b: number) => number): ScalarFunction {
  return defineFunction({
    name,
    signatures: numeric('same'),
    eval: ([a, b]) => (typeof a === 'bigint' ? checkedInt64(op(a, b as bigint)) : fop(a as number, b as number)),
  });
}

export const ADD = arith(
  '$add',
  (a, b) => a + b,
  (a, b) => a + b,
);
export const SUBTRACT = arith(
  '$subtract',
  (a, b) => a - b,
  (a, b) => a - b,
);
export const MULTIPLY = arith(
  '$multiply',
  (a, b) => a * b,
  (a, b) => a * b,
);

export const DIVIDE = defineFunction({
  name: '$divide',
  signatures: [{ params: [FLOAT64, FLOAT64], result: FLOAT64 }],
  eval: ([a, b]) => {
    if (b === 0) throw evalError(`division by zero: ${String(a)} / 0`);
    return (a as number) / (b as number);
  },
});

export const NEGATE = defineFunction({
  name: '$negate',
  signatures: [
    { params: [INT64], result: INT64 },
    { params: [FLOAT64], result: FLOAT64 },
  ],
  eval: ([a]) => (typeof a === 'bigint' ? checkedInt64(-a) : -(a as number)),
});

const ORDERABLE = new Set(['INT64', 'FLOAT32', 'FLOAT64', 'BOOL', 'STRING', 'BYTES', 'TIMESTAMP', 'DATE', 'ARRAY']);
const EQUATABLE = new Set([...ORDERABLE, 'STRUCT']);

function comparison(name: string, test: (c: number) => boolean, equality: boolean): ScalarFunction {
  return defineFunction({
    name,
    signatures: [{ params: ['T', 'T'], result: BOOL }],
    eval: ([a, b]) => {
      if (equality) {
        const e = sqlEquals(a!, b!);
        return e === null ? null : test(e ? 0 : 1);
      }
      if ((typeof a === 'number' && Number.isNaN(a)) || (typeof b === 'number' && Number.isNaN(b))) return false;
      return test(compareValues(a!, b!));
    },
  });
}

export const EQUAL = comparison('$equal', (c) => c === 0, true);
export const NOT_EQUAL = comparison('$not_equal', (c) => c !== 0, true);
export const LESS = comparison('$less', (c) => c < 0, false);
export const LESS_OR_EQUAL = comparison('$less_or_equal', (c) => c <= 0, false);
export const GREATER = comparison('$greater', (c) => c > 0, false);
export const GREATER_OR_EQUAL = comparison('$greater_or_equal', (c) => c >= 0, false);

/** Types `=` and `<` accept (the analyzer rejects JSON, MAP comparisons with this). */
export function isOrderable(t: SqlType): boolean {
  return ORDERABLE.has(t.kind) && (t.kind !== 'ARRAY' || isOrderable(t.element));
}
export function isEquatable(t: SqlType): boolean {
  return EQUATABLE.has(t.kind);
}

export const AND = defineFunction({
  name: '$and',
  signatures: [{ params: [BOOL, BOOL], repeated: true, result: BOOL }],
  evalLazy: (args) => {
    let sawNull = false;
    for (const a of args) {
      const v = a();
      if (v === false) return false;
      if (v === null) sawNull = true;
    }
    return sawNull ? null : true;
  },
});

export const OR = defineFunction({
  name: '$or',
  signatures: [{ params: [BOOL, BOOL], repeated: true, result: BOOL }],
  evalLazy: (args) => {
    let sawNull = false;
    for (const a of args) {
      const v = a();
      if (v === true) return true;
      if (v === null) sawNull = true;
    }
    return sawNull ? null : false;
  },
});

export const NOT = defineFunction({ name: '$not', signatures: [{ params: [BOOL], result: BOOL }], eval: ([a]) => !(a as boolean) });

export const IS_NULL = defineFunction({
  name: '$is_null',
  signatures: [{ params: ['ANY'], result: BOOL }],
  strict: false,
  eval: ([a]) => a === null,
});

/** `x IS TRUE` / `IS FALSE` (never NULL). */
export const IS_TRUE = defineFunction({
  name: '$is_true',
  signatures: [{ params: [BOOL], result: BOOL }],
  strict: false,
  eval: ([a]) => a === true,
});
export const IS_FALSE = defineFunction({
  name: '$is_false',
  signatures: [{ params: [BOOL], result: BOOL }],
  strict: false,
  eval: ([a]) => a === false,
});

/** `x IN (a, b, ...)`: TRUE if one equals, else NULL if x or one is NULL, else FALSE. */
export const IN = defineFunction({
  name: '$in',
  signatures: [{ params: ['T', 'T'], repeated: true, result: BOOL }],
  strict: false,
  eval: ([x, ...list]) => {
    if (x === null) return list.length === 0 ? false : null;
    let sawNull = false;
    for (const v of list) {
      const e = sqlEquals(x!, v!);
      if (e === true) return true;
      if (e === null) sawNull = true;
    }
    return sawNull ? null : false;
  },
});

/** `x IN UNNEST(array)`: as IN over the array's elements (an empty or NULL array gives FALSE). */
export const IN_UNNEST = defineFunction({
  name: '$in_unnest',
  signatures: [{ params: ['T', 'ARRAY<T>'], result: BOOL }],
  strict: false,
  eval: ([x, array], ctx) => (array === null || array === undefined ? false : IN.eval([x!, ...(array as readonly SqlValue[])], ctx)),
});

/** `x BETWEEN lo AND hi` = lo <= x AND x <= hi (three-valued). */
export const BETWEEN = defineFunction({
  name: '$between',
  signatures: [{ params: ['T', 'T', 'T'], result: BOOL }],
  strict: false,
  eval: ([x, lo, hi]) => {
    const a = x === null || lo === null ? null : compareValues(lo!, x!) <= 0;
    const b = x === null || hi === null ? null : compareValues(x!, hi!) <= 0;
    if (a === false || b === false) return false;
    return a === null || b === null ? null : true;
  },
});

/** `a || b` on STRING or BYTES. */
export const CONCAT_OP = defineFunction({
  name: '$concat',
  signatures: [
    { params: [STRING, STRING], result: STRING },
    { params: [BYTES, BYTES], result: BYTES },
  ],
  eval: ([a, b]) => (typeof a === 'string' ? a + (b as string) : Buffer.concat([a as Uint8Array, b as Uint8Array])),
});

/** `x LIKE pattern`: `%` any sequence, `_` one character (byte for BYTES), `\` escapes. */
export const LIKE = defineFunction({
  name: '$like',
  signatures: [
    { params: [STRING, STRING], result: BOOL },
    { params: [BYTES, BYTES], result: BOOL },
  ],
  eval: ([x, p]) => likeRegex(p!).test(typeof x === 'string' ? x : Buffer.from(x as Uint8Array).toString('latin1')),
});

const likeCache = new Map<string, RegExp>();
function likeRegex(p: SqlValue): RegExp {
  const bytes = p instanceof Uint8Array;
  const text = bytes ? Buffer.from(p).toString('latin1') : (p as string);
  const key = (bytes ? 'b' : 's') + text;
  let re = likeCache.get(key);
  if (re === undefined) {
    let src = '';
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      if (c === '\\') {
        const next = text[++i];
        if (next === undefined) throw evalError('LIKE pattern ends with a backslash');
        src += escapeRegex(next);
      } else if (c === '%') src += '[\\s\\S]*';
      else if (c === '_') src += bytes ? '[\\s\\S]' : '(?:[\\s\\S])';
      else src += escapeRegex(c);
    }
    re = new RegExp(`^${src}$`, bytes ? '' : 'u');
    if (likeCache.size > 1000) likeCache.clear();
    likeCache.set(key, re);
  }
  return re;
}

function escapeRegex(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}

function bitwise(name: string, op: (a: bigint, b: bigint) => bigint): ScalarFunction {
  return defineFunction({ name, signatures: [{ params: [INT64, INT64], result: INT64 }], eval: ([a, b]) => op(a as bigint, b as bigint) });
}
export const BIT_AND_OP = bitwise('$bitwise_and', (a, b) => a & b);
export const BIT_OR_OP = bitwise('$bitwise_or', (a, b) => a | b);
export const BIT_XOR_OP = bitwise('$bitwise_xor', (a, b) => a ^ b);
/** Logical shifts on the 64 bits (`>>` fills with zeros: no sign extension); by 64 or more gives 0; a negative shift is an error. */
function shift(name: string, left: boolean): ScalarFunction {
  return bitwise(name, (a, b) => {
    if (b < 0n) throw evalError(`Bit shift by a negative amount: ${b}`);
    if (b >= 64n) return 0n;
    return BigInt.asIntN(64, left ? a << b : BigInt.asUintN(64, a) >> b);
  });
}
export const SHIFT_LEFT = shift('$bitwise_left_shift', true);
export const SHIFT_RIGHT = shift('$bitwise_right_shift', false);
export const BIT_NOT_OP = defineFunction({
  name: '$bitwise_not',
  signatures: [{ params: [INT64], result: INT64 }],
  eval: ([a]) => ~(a as bigint),
});

export const OPERATORS: readonly ScalarFunction[] = [
  BIT_AND_OP,
  BIT_OR_OP,
  BIT_XOR_OP,
  SHIFT_LEFT,
  SHIFT_RIGHT,
  BIT_NOT_OP,
  ADD,
  SUBTRACT,
  MULTIPLY,
  DIVIDE,
  NEGATE,
  EQUAL,
  NOT_EQUAL,
  LESS,
  LESS_OR_EQUAL,
  GREATER,
  GREATER_OR_EQUAL,
  AND,
  OR,
  NOT,
  IS_NULL,
  IS_TRUE,
  IS_FALSE,
  IN,
  IN_UNNEST,
  BETWEEN,
  CONCAT_OP,
  LIKE,
];
