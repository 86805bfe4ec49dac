/**
 * The value type of a column family. Plain families hold raw bytes;
 * aggregate families hold one aggregated value per cell that AddToCell and
 * MergeToCell fold into (admin `Type.Aggregate`).
 *  - sum/min/max over int64: stored as 8-byte big-endian two's complement;
 *  - hll: a HyperLogLog++ sketch (see model/aggregate/hll.ts for the state format),
 *    its input type is bytes (or int64, hashed as ZetaSketch does: 8 bytes little-endian).
 */
export type Aggregator = 'sum' | 'min' | 'max' | 'hll';

export type ValueType =
  { readonly kind: 'bytes' } | { readonly kind: 'aggregate'; readonly aggregator: Aggregator; readonly input: 'int64' | 'bytes' };

export const BYTES_TYPE: ValueType = Object.freeze({ kind: 'bytes' });
