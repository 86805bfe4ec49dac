import { type ByteString, fromBytes } from '../../model/bytes.js';
import { invalidArgument } from '../../model/errors.js';
import type { AggregateInput, Mutation } from '../../model/mutation.js';

/**
 * The `google.bigtable.v2.Value` fields of AddToCell and MergeToCell, reduced
 * to what tabletop accepts. Both the object converter (mutation.ts) and the
 * wire decoder (mutate-decoder.ts) produce this shape and share the rules
 * below, so that the two paths cannot drift apart.
 *
 * Rules (per the Data API's comments on AddToCell / MergeToCell):
 *  - column_qualifier must be `raw_value` (tabletop also takes `bytes_value`);
 *  - timestamp must be `raw_timestamp_micros`;
 *  - AddToCell input: `int_value` for int64 families, `raw_value`/`bytes_value` for bytes input;
 *  - MergeToCell input: a state: `raw_value`/`bytes_value`, or `int_value` (an int64 state,
 *    stored as 8 bytes big-endian);
 *  - an input that is absent or has no kind is NULL: "allowed, but has no effect", so the
 *    mutation is dropped (see `aggregateMutation`).
 */
export type WireValue =
  | { readonly kind: 'null' }
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array }
  | { readonly kind: 'timestamp'; readonly micros: number }
  | { readonly kind: 'int'; readonly value: bigint }
  /** A Value kind tabletop does not accept here; `field` is its proto name. */
  | { readonly kind: 'other'; readonly field: string };

export const NULL_VALUE: WireValue = Object.freeze({ kind: 'null' });

function qualifierOf(v: WireValue, op: string): ByteString {
  if (v.kind === 'bytes') return fromBytes(v.bytes);
  throw invalidArgument(`${op}.column_qualifier must be a Value with raw_value set${describe(v)}`);
}

function timestampOf(v: WireValue, op: string): number {
  if (v.kind === 'timestamp') return v.micros;
  throw invalidArgument(`${op}.timestamp must be a Value with raw_timestamp_micros set${describe(v)}`);
}

function describe(v: WireValue): string {
  return v.kind === 'other'
    ? ` (got ${v.field})`
    : v.kind === 'null'
      ? ' (it is unset)'
      : ` (got ${v.kind === 'int' ? 'int_value' : v.kind === 'bytes' ? 'raw_value' : 'raw_timestamp_micros'})`;
}

/**
 * The model mutation for an AddToCell / MergeToCell, or undefined when its
 * input is NULL (the mutation has no effect).
 */
export function aggregateMutation(
  op: 'addToCell' | 'mergeToCell',
  family: string,
  qualifier: WireValue,
  timestamp: WireValue,
  input: WireValue,
): Mutation | undefined {
  const name = op === 'addToCell' ? 'AddToCell' : 'MergeToCell';
  const q = qualifierOf(qualifier, name);
  const ts = timestampOf(timestamp, name);
  if (input.kind === 'null') return undefined;
  if (op === 'addToCell') {
    let agg: AggregateInput;
    if (input.kind === 'int') agg = { kind: 'int', value: input.value };
    else if (input.kind === 'bytes') agg = { kind: 'bytes', value: input.bytes };
    else throw invalidArgument(`AddToCell.input must be an int_value or raw_value${describe(input)}`);
    return { kind: 'addToCell', family, qualifier: q, timestamp: ts, input: agg };
  }
  let state: Uint8Array;
  if (input.kind === 'bytes') state = input.bytes;
  else if (input.kind === 'int') state = int64Bytes(input.value);
  else throw invalidArgument(`MergeToCell.input must be a raw_value or int_value${describe(input)}`);
  return { kind: 'mergeToCell', family, qualifier: q, timestamp: ts, input: state };
}

/** 8-byte big-endian two's complement. */
export function int64Bytes(v: bigint): Uint8Array {
  const b = Buffer.allocUnsafe(8);
  b.writeBigInt64BE(v);
  return b;
}
