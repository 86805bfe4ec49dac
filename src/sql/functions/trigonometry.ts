import { FLOAT64, type SqlType, type SqlValue } from '../types.js';
import { evalError } from '../values/errors.js';
import { unaryFloat } from './math.js';
import { type ScalarFunction, defineFunction } from './registry.js';

/**
 * Trigonometric and hyperbolic functions, LOG(x [, base]), the vector distances and RAND. An argument outside the
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

const VECTOR: SqlType = { kind: 'ARRAY', element: FLOAT64 };

/** Two dense vectors of the same length without NULL elements, or a runtime error. */
function vectors(name: string, a: SqlValue, b: SqlValue): [number[], number[]] {
  const x = a as readonly SqlValue[];
  const y = b as readonly SqlValue[];
  if (x.length !== y.length) throw evalError(`${name}: the vectors have different lengths (${x.length} and ${y.length})`);
  if (x.includes(null) || y.includes(null)) throw evalError(`${name}: a vector has a NULL element`);
  return [x as number[], y as number[]];
}

export const EUCLIDEAN_DISTANCE = defineFunction({
  name: 'EUCLIDEAN_DISTANCE',
  signatures: [{ params: [VECTOR, VECTOR], result: FLOAT64 }],
  eval: ([a, b]) => {
    const [x, y] = vectors('EUCLIDEAN_DISTANCE', a!, b!);
    return Math.sqrt(x.reduce((s, v, i) => s + (v - y[i]!) ** 2, 0));
  },
});

/** COSINE_DISTANCE: 1 − the cosine of the angle between the vectors; a zero vector is an error. */
export const COSINE_DISTANCE = defineFunction({
  name: 'COSINE_DISTANCE',
  signatures: [{ params: [VECTOR, VECTOR], result: FLOAT64 }],
  eval: ([a, b]) => {
    const [x, y] = vectors('COSINE_DISTANCE', a!, b!);
    let dot = 0;
    let nx = 0;
    let ny = 0;
    x.forEach((v, i) => {
      dot += v * y[i]!;
      nx += v * v;
      ny += y[i]! * y[i]!;
    });
    if (nx === 0 || ny === 0) throw evalError('COSINE_DISTANCE: a vector has no length (all zeros or empty)');
    return 1 - dot / Math.sqrt(nx * ny);
  },
});

/** RAND(): a FLOAT64 in [0, 1), new at each call (not allowed where a query must be deterministic). */
export const RAND = defineFunction({
  name: 'RAND',
  signatures: [{ params: [], result: FLOAT64 }],
  volatile: true,
  eval: () => Math.random(),
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
  defineFunction({
    name: 'ATAN2',
    signatures: [{ params: [FLOAT64, FLOAT64], result: FLOAT64 }],
    eval: ([y, x]) => Math.atan2(y as number, x as number),
  }),
  LOG,
  EUCLIDEAN_DISTANCE,
  COSINE_DISTANCE,
  RAND,
];
