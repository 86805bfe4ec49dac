import { FLOAT64 } from '../types.js';
import { evalError } from '../values/errors.js';
import { unaryFloat } from './math.js';
import { type ScalarFunction, defineFunction } from './registry.js';

/**
 * Trigonometric and hyperbolic functions, LOG(x [, base]) and CBRT over FLOAT64. An argument outside the
 * function's domain (COS(+inf) too), or a finite argument whose result overflows, is a runtime error; NaN gives NaN.
 */

const unary = (name: string, f: (x: number) => number, domain?: (x: number) => boolean): ScalarFunction =>
  unaryFloat(name, f, { overflow: true, ...(domain === undefined ? {} : { domain }) });

const nonZero = (x: number): boolean => x !== 0;

export const LOG = defineFunction({
  name: 'LOG',
  signatures: [{ params: [FLOAT64, FLOAT64], optionalFrom: 1, result: FLOAT64 }],
  eval: ([v, b]) => {
    const x = v as number;
    const base = (b as number | undefined) ?? Math.E;
    if (Number.isNaN(x) || Number.isNaN(base)) return NaN;
    if (x <= 0 || base <= 0 || base === 1) throw evalError(`LOG: invalid argument (${x}, base ${base})`);
    return Math.log(x) / Math.log(base);
  },
});

export const TRIGONOMETRY_FUNCTIONS: readonly ScalarFunction[] = [
  unary('COS', Math.cos),
  unary('SIN', Math.sin),
  unary('TAN', Math.tan),
  unary('ACOS', Math.acos, (x) => x >= -1 && x <= 1),
  unary('ASIN', Math.asin, (x) => x >= -1 && x <= 1),
  unary('ATAN', Math.atan),
  unary('COSH', Math.cosh),
  unary('SINH', Math.sinh),
  unary('TANH', Math.tanh),
  unary('ACOSH', Math.acosh, (x) => x >= 1),
  unary('ASINH', Math.asinh),
  unary('ATANH', Math.atanh, (x) => x > -1 && x < 1),
  unary('COT', (x) => 1 / Math.tan(x), nonZero),
  unary('CSC', (x) => 1 / Math.sin(x), nonZero),
  unary('SEC', (x) => 1 / Math.cos(x)),
  unary('COTH', (x) => 1 / Math.tanh(x), nonZero),
  unary('CSCH', (x) => 1 / Math.sinh(x), nonZero),
  unary('SECH', (x) => 1 / Math.cosh(x)),
  unary('CBRT', Math.cbrt),
  defineFunction({
    name: 'ATAN2',
    signatures: [{ params: [FLOAT64, FLOAT64], result: FLOAT64 }],
    eval: ([y, x]) => Math.atan2(y as number, x as number),
  }),
  LOG,
];
