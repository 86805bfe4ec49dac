import { FLOAT64, INT64 } from '../types.js';
import { checkedInt64 } from '../values/cast.js';
import { compareValues } from '../values/compare.js';
import { evalError, isEvalError } from '../values/errors.js';
import { ADD, DIVIDE, MULTIPLY, NEGATE, SUBTRACT } from './operators.js';
import { type ScalarFunction, type Signature, defineFunction } from './registry.js';

/** Math functions: INT64 forms check overflow; division by zero is an error (SAFE_ forms give NULL). */

const intOrFloat = (n: number): Signature[] => [
  { params: Array<typeof INT64>(n).fill(INT64), result: INT64 },
  { params: Array<typeof FLOAT64>(n).fill(FLOAT64), result: FLOAT64 },
];

export const ABS = defineFunction({
  name: 'ABS',
  signatures: intOrFloat(1),
  eval: ([x]) => (typeof x === 'bigint' ? checkedInt64(x < 0n ? -x : x) : Math.abs(x as number)),
});

export const SIGN = defineFunction({
  name: 'SIGN',
  signatures: intOrFloat(1),
  eval: ([x]) => (typeof x === 'bigint' ? (x > 0n ? 1n : x < 0n ? -1n : 0n) : Number.isNaN(x) ? NaN : Math.sign(x as number)),
});

export const MOD = defineFunction({
  name: 'MOD',
  signatures: [{ params: [INT64, INT64], result: INT64 }],
  eval: ([x, y]) => {
    if (y === 0n) throw evalError(`division by zero: MOD(${String(x)}, 0)`);
    return (x as bigint) % (y as bigint);
  },
});

export const DIV = defineFunction({
  name: 'DIV',
  signatures: [{ params: [INT64, INT64], result: INT64 }],
  eval: ([x, y]) => {
    if (y === 0n) throw evalError(`division by zero: DIV(${String(x)}, 0)`);
    return checkedInt64((x as bigint) / (y as bigint));
  },
});

/** Rounds half away from zero, to `digits` decimal places (negative: to tens, hundreds, ...). */
function roundHalfAway(x: number, digits: number): number {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** digits;
  const r = (Math.sign(x) * Math.round(Math.abs(x) * f)) / f;
  if (!Number.isFinite(r)) throw evalError(`ROUND overflow: ${x}`);
  return r;
}

export const ROUND = defineFunction({
  name: 'ROUND',
  signatures: [{ params: [FLOAT64, INT64], optionalFrom: 1, result: FLOAT64 }],
  eval: ([x, d]) => roundHalfAway(x as number, d === undefined ? 0 : Number(d as bigint)),
});

/**
 * A FLOAT64 function of one argument: a NaN result of a non-NaN argument (or an argument outside `domain`) is a
 * domain error; with `overflow`, an infinite result of a finite argument is an overflow error.
 */
export function unaryFloat(
  name: string,
  f: (x: number) => number,
  opts: { readonly domain?: (x: number) => boolean; readonly overflow?: boolean } = {},
): ScalarFunction {
  return defineFunction({
    name,
    signatures: [{ params: [FLOAT64], result: FLOAT64 }],
    eval: ([v]) => {
      const x = v as number;
      if (Number.isNaN(x)) return NaN;
      const r = opts.domain === undefined || opts.domain(x) ? f(x) : NaN;
      if (Number.isNaN(r)) throw evalError(`${name}: argument out of domain: ${String(x)}`);
      if (opts.overflow === true && Number.isFinite(x) && !Number.isFinite(r)) throw evalError(`${name}: overflow for ${String(x)}`);
      return r;
    },
  });
}

export const TRUNC = unaryFloat('TRUNC', Math.trunc);
export const CEIL = unaryFloat('CEIL', Math.ceil);
export const CEILING = unaryFloat('CEILING', Math.ceil);
export const FLOOR = unaryFloat('FLOOR', Math.floor);
export const SQRT = unaryFloat('SQRT', Math.sqrt);
export const EXP = unaryFloat('EXP', Math.exp);
export const LN = unaryFloat('LN', (x) => (x <= 0 ? NaN : Math.log(x)));
export const LOG10 = unaryFloat('LOG10', (x) => (x <= 0 ? NaN : Math.log10(x)));

export const POW = defineFunction({
  name: 'POW',
  signatures: [{ params: [FLOAT64, FLOAT64], result: FLOAT64 }],
  eval: ([x, y]) => {
    const r = (x as number) ** (y as number);
    if (!Number.isFinite(r) && Number.isFinite(x as number) && Number.isFinite(y as number))
      throw evalError('POW: overflow or division by zero');
    return r;
  },
});
export const POWER = { ...POW, name: 'POWER' };

export const IEEE_DIVIDE = defineFunction({
  name: 'IEEE_DIVIDE',
  signatures: [{ params: [FLOAT64, FLOAT64], result: FLOAT64 }],
  eval: ([x, y]) => (x as number) / (y as number),
});

function extreme(name: string, pick: (c: number) => boolean): ScalarFunction {
  return defineFunction({
    name,
    signatures: [{ params: ['T'], repeated: true, result: (_a, t) => t! }],
    eval: (args) => {
      let best = args[0]!;
      for (const a of args) {
        if (typeof a === 'number' && Number.isNaN(a)) return NaN;
        if (pick(compareValues(a!, best!))) best = a!;
      }
      return best;
    },
  });
}
export const GREATEST = extreme('GREATEST', (c) => c > 0);
export const LEAST = extreme('LEAST', (c) => c < 0);

export const MATH_FUNCTIONS: readonly ScalarFunction[] = [
  ABS,
  SIGN,
  MOD,
  DIV,
  ROUND,
  TRUNC,
  CEIL,
  CEILING,
  FLOOR,
  SQRT,
  EXP,
  LN,
  LOG10,
  POW,
  POWER,
  IEEE_DIVIDE,
  GREATEST,
  LEAST,
];

/** SAFE_ADD, SAFE_DIVIDE, ...: the operator, with NULL instead of an overflow or division-by-zero error. */
function safeVersion(name: string, op: ScalarFunction): ScalarFunction {
  return {
    ...op,
    name,
    signatureText: op.signatureText.replaceAll(op.name, name),
    eval: (args, ctx) => {
      try {
        return op.eval(args, ctx);
      } catch (e) {
        if (isEvalError(e)) return null;
        throw e;
      }
    },
  };
}
export const SAFE_ADD = safeVersion('SAFE_ADD', ADD);
export const SAFE_SUBTRACT = safeVersion('SAFE_SUBTRACT', SUBTRACT);
export const SAFE_MULTIPLY = safeVersion('SAFE_MULTIPLY', MULTIPLY);
export const SAFE_DIVIDE = safeVersion('SAFE_DIVIDE', DIVIDE);
export const SAFE_NEGATE = safeVersion('SAFE_NEGATE', NEGATE);

export const IS_NAN = defineFunction({
  name: 'IS_NAN',
  signatures: [{ params: [FLOAT64], result: { kind: 'BOOL' } }],
  eval: ([x]) => Number.isNaN(x as number),
});
export const IS_INF = defineFunction({
  name: 'IS_INF',
  signatures: [{ params: [FLOAT64], result: { kind: 'BOOL' } }],
  eval: ([x]) => x === Infinity || x === -Infinity,
});

export const MORE_MATH_FUNCTIONS: readonly ScalarFunction[] = [
  SAFE_ADD,
  SAFE_SUBTRACT,
  SAFE_MULTIPLY,
  SAFE_DIVIDE,
  SAFE_NEGATE,
  IS_NAN,
  IS_INF,
];
