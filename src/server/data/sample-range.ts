import { type RowKeySample, restrictSamples as restrictToKeyRange } from '../../db/sample-row-keys.js';
import { type RowRange, rangeOf } from '../../model/key-range.js';

export type Sample = RowKeySample;

/**
 * SampleRowKeys with a row_range: the table's samples (ascending, ending with
 * the empty key at the total size) restricted to the range. Offsets count from
 * the last sample at or before the range start; the last sample returned is the
 * range's end key (the empty key when the range is unbounded), as the API
 * promises.
 */
export function restrictSamples(samples: readonly Sample[], range: RowRange): Sample[] {
  return restrictToKeyRange(samples, rangeOf(range), range.end.kind === 'unbounded' ? '' : range.end.key);
}
