import { invalidArgument } from '../../model/errors.js';
import { type Aggregator, BYTES_TYPE, type ValueType } from '../../model/value-type.js';
import type { PType } from './proto-types.js';

/**
 * A column family's `value_type` (admin Type) ↔ model ValueType. Unset or
 * `bytes_type` is a plain family; `aggregate_type` makes an aggregate family
 * (sum / min / max over int64, HyperLogLog++ over bytes or int64). Other types
 * are not column-family value types tabletop supports.
 */
export function valueTypeFromProto(t: PType | null | undefined): ValueType {
  if (t == null) return BYTES_TYPE;
  const kind = typeKind(t);
  if (kind === undefined || kind === 'bytesType') return BYTES_TYPE;
  if (kind !== 'aggregateType') {
    throw invalidArgument(
      `Column family value_type ${snake(kind)} is not supported: use aggregate_type (sum, min, max, hllpp_unique_count) or leave value_type unset`,
    );
  }
  const agg = t.aggregateType ?? {};
  const aggregator = aggregatorOf(agg);
  const inputKind = agg.inputType == null ? undefined : typeKind(agg.inputType);
  let input: 'int64' | 'bytes';
  if (inputKind === 'int64Type') input = 'int64';
  else if (inputKind === 'bytesType') input = 'bytes';
  else
    throw invalidArgument(`Aggregate value_type needs input_type int64_type or bytes_type${inputKind ? ` (got ${snake(inputKind)})` : ''}`);
  if (aggregator !== 'hll' && input !== 'int64') {
    throw invalidArgument(`Aggregate ${aggregator} needs input_type int64_type (got bytes_type)`);
  }
  return { kind: 'aggregate', aggregator, input };
}

function aggregatorOf(agg: NonNullable<PType['aggregateType']>): Aggregator {
  const a =
    agg.aggregator ??
    (agg.sum != null
      ? 'sum'
      : agg.min != null
        ? 'min'
        : agg.max != null
          ? 'max'
          : agg.hllppUniqueCount != null
            ? 'hllppUniqueCount'
            : undefined);
  switch (a) {
    case 'sum':
    case 'min':
    case 'max':
      return a;
    case 'hllppUniqueCount':
      return 'hll';
    default:
      throw invalidArgument('Aggregate value_type needs an aggregator: one of sum, min, max, hllpp_unique_count');
  }
}

/** The set member of a Type's `kind` oneof (the loader's virtual field, or the first set member). */
export function typeKind(t: PType): string | undefined {
  if (typeof t.kind === 'string') return t.kind;
  for (const [k, v] of Object.entries(t)) if (v != null && k !== 'kind') return k;
  return undefined;
}

/** A camelCase field name as the protos spell it (snake_case). */
export function snake(camel: string): string {
  return camel.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
}

const INT64_TYPE: PType = { int64Type: { encoding: { bigEndianBytes: {} } } };
const RAW_BYTES_TYPE: PType = { bytesType: { encoding: { raw: {} } } };

/** The `value_type` of a family in responses; plain families have none. */
export function valueTypeToProto(vt: ValueType): PType | undefined {
  if (vt.kind === 'bytes') return undefined;
  const input = vt.input === 'int64' ? INT64_TYPE : RAW_BYTES_TYPE;
  const state = vt.aggregator === 'hll' ? RAW_BYTES_TYPE : INT64_TYPE;
  const aggregator = vt.aggregator === 'hll' ? { hllppUniqueCount: {} } : { [vt.aggregator]: {} };
  return { aggregateType: { inputType: input, stateType: state, ...aggregator } };
}
