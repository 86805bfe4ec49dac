/**
 * Aggregate column families: the public surface of src/model/aggregate.
 * See aggregate.ts for semantics and hll-state.ts for the HLL++ cell format.
 */
export {
  addToAggregate,
  aggregateResult,
  hllEstimate,
  inputKindOf,
  mergeAggregate,
  validateAggregateInput,
  validateMergeInput,
} from './aggregate.js';
export { type HllOptions, type HllSketch, createHll, parseHll } from './hll.js';
export { HLL_VALUE_TYPE } from './hll-state.js';
export { INT64_MAX, INT64_MIN, decodeInt64, encodeInt64 } from './int64.js';
