import { AGGREGATE_FUNCTIONS, type AggregateFunction } from './aggregates.js';
import { MORE_AGGREGATES } from './aggregates-more.js';
import { STATISTICAL_AGGREGATES } from './statistics.js';
import { COLLECTION_FUNCTIONS, MORE_COLLECTION_FUNCTIONS } from './collections.js';
import { CONDITIONAL_FUNCTIONS } from './conditional.js';
import { CONVERSION_FUNCTIONS } from './conversion.js';
import { MATH_FUNCTIONS, MORE_MATH_FUNCTIONS } from './math.js';
import { OPERATORS } from './operators.js';
import { FunctionRegistry } from './registry.js';
import { MORE_STRING_FUNCTIONS, STRING_FUNCTIONS } from './strings.js';
import { REGEX_FUNCTIONS } from './regex.js';
import { HLL_AGGREGATES, HLL_COUNT_EXTRACT } from './hll.js';
import { TEMPORAL_FUNCTIONS } from './temporal.js';
import { CODE_POINT_FUNCTIONS } from './code-points.js';
import { FORMAT } from './format.js';
import { HASH_FUNCTIONS } from './hashing.js';
import { JSON_FUNCTIONS } from './json.js';
import { TRIGONOMETRY_FUNCTIONS } from './trigonometry.js';

/** The function library: every scalar function and operator by name, and the aggregates. */
export const SCALAR_FUNCTIONS = new FunctionRegistry().add(
  ...OPERATORS,
  ...CONDITIONAL_FUNCTIONS,
  ...CONVERSION_FUNCTIONS,
  ...STRING_FUNCTIONS,
  ...MATH_FUNCTIONS,
  ...TEMPORAL_FUNCTIONS,
  ...COLLECTION_FUNCTIONS,
  ...MORE_STRING_FUNCTIONS,
  ...MORE_MATH_FUNCTIONS,
  ...MORE_COLLECTION_FUNCTIONS,
  ...REGEX_FUNCTIONS,
  HLL_COUNT_EXTRACT,
  ...CODE_POINT_FUNCTIONS,
  ...HASH_FUNCTIONS,
  ...JSON_FUNCTIONS,
  ...TRIGONOMETRY_FUNCTIONS,
  FORMAT,
);

const aggregates = new Map(
  [...AGGREGATE_FUNCTIONS, ...HLL_AGGREGATES, ...MORE_AGGREGATES, ...STATISTICAL_AGGREGATES].map((a) => [a.name, a]),
);

export function aggregateFunction(name: string): AggregateFunction | undefined {
  return aggregates.get(name.toUpperCase());
}

export type { AggregateFunction, Accumulator } from './aggregates.js';
export { COUNT_STAR } from './aggregates.js';
export type { EvalContext, ScalarFunction } from './registry.js';
