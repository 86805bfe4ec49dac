/**
 * Aggregate column families and 64-bit integer cells: what the rest of
 * tabletop imports from src/model/aggregate (its one entry point). See
 * aggregate.ts for semantics, hll-state.ts for the HLL++ cell format and
 * int64.ts for the big-endian int64 encoding that increments share.
 */
export { addToAggregate, hllEstimate, mergeAggregate, validateAggregateInput, validateMergeInput } from './aggregate.js';
export { createHll } from './hll.js';
export { HLL_VALUE_TYPE } from './hll-state.js';
export { INT64_MAX, INT64_MIN, addWrapping, decodeInt64, encodeInt64, isInt64 } from './int64.js';
