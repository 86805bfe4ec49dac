import { fromBytes } from '../../model/bytes.js';
import { invalidArgument } from '../../model/errors.js';
import type { Mutation, ReadModifyWriteRule } from '../../model/mutation.js';
import { NULL_VALUE, type WireValue, aggregateMutation } from './aggregate-value.js';
import { int64ToBigInt, int64ToNumber } from './int64.js';
import type { PMutation, PReadModifyWriteRule, PValue } from './proto-types.js';

/**
 * Mutation objects (from the loader) → model mutations. The hot paths
 * (MutateRow, MutateRows) decode the wire directly (mutate-decoder.ts); this
 * path serves CheckAndMutateRow. Both follow the same rules and are tested
 * against each other.
 */

const EMPTY = Buffer.alloc(0);

/** Copies bytes out of the request buffer so that stored values never pin a whole request in memory. */
export function copyBytes(b: Uint8Array | null | undefined): Uint8Array {
  if (b == null || b.length === 0) return EMPTY;
  return Buffer.from(b);
}

/** Converts a list of mutations; NULL-input aggregate mutations (no effect) are dropped. */
export function mutationsFromProto(list: readonly PMutation[] | null | undefined): Mutation[] {
  const out: Mutation[] = [];
  for (const m of list ?? []) {
    const converted = mutationFromProto(m);
    if (converted !== undefined) out.push(converted);
  }
  return out;
}

/** One mutation, or undefined for an aggregate mutation with a NULL input. */
export function mutationFromProto(m: PMutation): Mutation | undefined {
  const kind = m.mutation ?? firstSet(m, ['setCell', 'deleteFromColumn', 'deleteFromFamily', 'deleteFromRow', 'addToCell', 'mergeToCell']);
  switch (kind) {
    case 'setCell': {
      const s = m.setCell ?? {};
      return {
        kind: 'setCell',
        family: s.familyName ?? '',
        qualifier: fromBytes(s.columnQualifier ?? EMPTY),
        timestamp: int64ToNumber(s.timestampMicros, 'SetCell.timestamp_micros'),
        value: copyBytes(s.value),
      };
    }
    case 'deleteFromColumn': {
      const d = m.deleteFromColumn ?? {};
      const start = int64ToNumber(d.timeRange?.startTimestampMicros, 'DeleteFromColumn.time_range.start_timestamp_micros');
      const end = int64ToNumber(d.timeRange?.endTimestampMicros, 'DeleteFromColumn.time_range.end_timestamp_micros');
      return {
        kind: 'deleteFromColumn',
        family: d.familyName ?? '',
        qualifier: fromBytes(d.columnQualifier ?? EMPTY),
        start,
        end: end === 0 ? undefined : end,
      };
    }
    case 'deleteFromFamily':
      return { kind: 'deleteFromFamily', family: m.deleteFromFamily?.familyName ?? '' };
    case 'deleteFromRow':
      return { kind: 'deleteFromRow' };
    case 'addToCell':
    case 'mergeToCell': {
      const a = (kind === 'addToCell' ? m.addToCell : m.mergeToCell) ?? {};
      return aggregateMutation(kind, a.familyName ?? '', wireValue(a.columnQualifier), wireValue(a.timestamp), wireValue(a.input));
    }
    default:
      throw invalidArgument(
        'Mutation has no mutation set: exactly one of set_cell, add_to_cell, merge_to_cell, delete_from_column, delete_from_family, delete_from_row must be set',
      );
  }
}

/** A Value object reduced to what aggregate mutations accept. */
export function wireValue(v: PValue | null | undefined): WireValue {
  if (v == null) return NULL_VALUE;
  const kind = v.kind ?? firstSet(v, VALUE_KINDS);
  switch (kind) {
    case undefined:
      return NULL_VALUE;
    case 'rawValue':
      return { kind: 'bytes', bytes: copyBytes(v.rawValue) };
    case 'bytesValue':
      return { kind: 'bytes', bytes: copyBytes(v.bytesValue) };
    case 'rawTimestampMicros':
      return { kind: 'timestamp', micros: int64ToNumber(v.rawTimestampMicros, 'Value.raw_timestamp_micros') };
    case 'intValue':
      return { kind: 'int', value: int64ToBigInt(v.intValue, 'Value.int_value') };
    default:
      return { kind: 'other', field: snake(kind) };
  }
}

/** ReadModifyWriteRule → model rule. */
export function readModifyWriteRuleFromProto(r: PReadModifyWriteRule): ReadModifyWriteRule {
  const kind = r.rule ?? firstSet(r, ['appendValue', 'incrementAmount']);
  const family = r.familyName ?? '';
  const qualifier = fromBytes(r.columnQualifier ?? EMPTY);
  if (kind === 'appendValue') return { kind: 'append', family, qualifier, value: copyBytes(r.appendValue) };
  if (kind === 'incrementAmount')
    return { kind: 'increment', family, qualifier, amount: int64ToBigInt(r.incrementAmount, 'ReadModifyWriteRule.increment_amount') };
  throw invalidArgument('ReadModifyWriteRule has no rule set: one of append_value or increment_amount must be set');
}

/** The members of google.bigtable.v2.Value's `kind` oneof. */
export const VALUE_KINDS = [
  'rawValue',
  'rawTimestampMicros',
  'bytesValue',
  'stringValue',
  'intValue',
  'boolValue',
  'floatValue',
  'timestampValue',
  'dateValue',
  'arrayValue',
] as const;

/** For objects built without the loader's virtual oneof field: the first member that is set. */
export function firstSet(o: object, members: readonly string[]): string | undefined {
  const rec = o as Record<string, unknown>;
  for (const m of members) if (rec[m] != null) return m;
  return undefined;
}

function snake(camel: string): string {
  return camel.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
}
