import { dataLoss, invalidArgument, isTabletopError } from '../errors.js';
import type { AggregateInput } from '../mutation.js';
import type { ValueType } from '../value-type.js';
import { type HllSketch, compatibleValueTypes, createHll, parseHll } from './hll.js';
import { HLL_VALUE_TYPE } from './hll-state.js';
import { addWrapping, decodeInt64, encodeInt64, isInt64 } from './int64.js';

/**
 * Aggregate column families (admin `Type.Aggregate`): every cell holds one
 * aggregated value that AddToCell (one input) and MergeToCell (another
 * aggregate's state) fold into. Cells merge only with the cell at the same
 * timestamp of the same column; a write at a new timestamp starts a new cell.
 *
 *  - sum / min / max over int64: the cell is 8 bytes, big-endian two's
 *    complement. min and max compare signed. Sums wrap around on overflow
 *    (Cloud Bigtable does not document overflow; see int64.ts).
 *  - hll: the cell is a ZetaSketch HLL++ state (hll-state.ts).
 *
 * Behaviour recorded against production (jayfeng0625/better-bttest parity data):
 *  - AddToCell takes `int_value` for int64 families; a NULL input adds 0
 *    (the converter maps it to { kind: 'int', value: 0n });
 *  - MergeToCell takes `bytes_value`; an empty or absent state changes
 *    nothing (not even creating the cell); a state of the wrong size fails with
 *    "Column family type mismatch".
 * Messages of type problems start with "Column family type mismatch" so that
 * validate-mutation.ts can present them as production does.
 */

type AggregateType = Extract<ValueType, { kind: 'aggregate' }>;

const TYPE_MISMATCH = 'Column family type mismatch';

function describeType(t: AggregateType): string {
  return t.aggregator === 'hll' ? `HLL++ (${t.input} input)` : `${t.aggregator} over int64`;
}

function requireAggregate(type: ValueType): AggregateType {
  if (type.kind !== 'aggregate') throw invalidArgument(`${TYPE_MISMATCH}: the family holds plain values, not aggregates`);
  return type;
}

/** The AggregateInput kind a family takes. */
export function inputKindOf(type: AggregateType): AggregateInput['kind'] {
  if (type.aggregator !== 'hll') return 'int';
  return type.input === 'int64' ? 'int' : 'bytes';
}

/** The HLL++ value type id recorded in the sketches of a family. */
function hllValueTypeOf(type: AggregateType): number {
  return type.input === 'int64' ? HLL_VALUE_TYPE.int64 : HLL_VALUE_TYPE.bytes;
}

/** Checks an AddToCell input against the family type. InvalidArgument with production's field message. */
export function validateAggregateInput(type: ValueType, input: AggregateInput): void {
  const t = requireAggregate(type);
  const want = inputKindOf(t);
  if (input.kind !== want) {
    throw invalidArgument(`Error in field 'input' : must use \`${want === 'int' ? 'int_value' : 'bytes_value'}\``);
  }
  if (input.kind === 'int' && !isInt64(input.value)) {
    throw invalidArgument(`Error in field 'input' : ${input.value} does not fit in int64`);
  }
}

/** Checks a MergeToCell state against the family type (empty states are accepted: they change nothing). */
export function validateMergeInput(type: ValueType, state: Uint8Array): void {
  const t = requireAggregate(type);
  if (state.byteLength === 0) return;
  if (t.aggregator !== 'hll') {
    if (state.byteLength !== 8) {
      throw invalidArgument(
        `${TYPE_MISMATCH}: MergeToCell into a ${describeType(t)} family takes an 8-byte big-endian int64, got ${state.byteLength} bytes`,
      );
    }
    return;
  }
  const sketch = parseIncomingHll(state);
  if (!compatibleValueTypes(sketch.valueType, hllValueTypeOf(t))) {
    throw invalidArgument(
      `${TYPE_MISMATCH}: MergeToCell state of value type ${sketch.valueType} cannot merge into a ${describeType(t)} family`,
    );
  }
}

function parseIncomingHll(state: Uint8Array): HllSketch {
  try {
    return parseHll(state);
  } catch (e) {
    if (isTabletopError(e, 'InvalidArgument')) throw invalidArgument(`${TYPE_MISMATCH}: ${e.message}`);
    throw e;
  }
}

function existingInt64(existing: Uint8Array): bigint {
  if (existing.byteLength !== 8) {
    throw dataLoss(`Aggregate cell holds ${existing.byteLength} bytes; an int64 aggregate cell holds exactly 8`);
  }
  return decodeInt64(existing);
}

function existingHll(existing: Uint8Array): HllSketch {
  try {
    return parseHll(existing);
  } catch (e) {
    if (isTabletopError(e, 'InvalidArgument')) throw dataLoss(`Aggregate cell does not hold a valid state: ${e.message}`);
    throw e;
  }
}

function combine(aggregator: 'sum' | 'min' | 'max', a: bigint, b: bigint): bigint {
  switch (aggregator) {
    case 'sum':
      return addWrapping(a, b);
    case 'min':
      return a < b ? a : b;
    case 'max':
      return a > b ? a : b;
  }
}

/**
 * New cell value after AddToCell(input) onto `existing` (undefined: no cell at
 * that timestamp yet). Throws InvalidArgument for a wrong input, DataLoss when
 * `existing` is not a valid cell of the family.
 */
export function addToAggregate(type: ValueType, existing: Uint8Array | undefined, input: AggregateInput): Uint8Array {
  validateAggregateInput(type, input);
  const t = type as AggregateType;
  if (t.aggregator === 'hll') {
    const sketch = existing === undefined ? createHll(hllValueTypeOf(t)) : existingHll(existing);
    if (input.kind === 'int') sketch.addInt64(input.value);
    else sketch.addBytes(input.value);
    return sketch.serialize();
  }
  const v = (input as Extract<AggregateInput, { kind: 'int' }>).value;
  return encodeInt64(existing === undefined ? v : combine(t.aggregator, existingInt64(existing), v));
}

/**
 * New cell value after MergeToCell(state), or undefined when there is nothing
 * to write (an empty state onto an absent cell). An empty state returns
 * `existing` itself.
 */
export function mergeAggregate(type: ValueType, existing: Uint8Array | undefined, state: Uint8Array): Uint8Array | undefined {
  validateMergeInput(type, state);
  if (state.byteLength === 0) return existing;
  const t = type as AggregateType;
  if (t.aggregator === 'hll') {
    const incoming = parseHll(state);
    if (existing === undefined) return incoming.serialize();
    const base = existingHll(existing);
    base.merge(incoming);
    return base.serialize();
  }
  const v = decodeInt64(state);
  return encodeInt64(existing === undefined ? v : combine(t.aggregator, existingInt64(existing), v));
}

/** Estimated distinct count of a serialized HLL++ state. InvalidArgument when it is not one. */
export function hllEstimate(state: Uint8Array): number {
  return parseHll(state).estimate();
}

/**
 * The value an aggregate cell stands for: the int64 of sum/min/max cells,
 * the distinct-count estimate of HLL++ cells (Bigtable's "special state
 * conversion" to Int64). For tools, the UI and SQL.
 */
export function aggregateResult(type: ValueType, value: Uint8Array): bigint {
  const t = requireAggregate(type);
  if (t.aggregator === 'hll') return BigInt(existingHll(value).estimate());
  return existingInt64(value);
}
