import type { ByteString } from '../../model/bytes.js';
import { type RowRange, rangeOf } from '../../model/key-range.js';

export interface Sample {
  readonly key: ByteString;
  readonly offsetBytes: number;
}

/**
 * SampleRowKeys with a row_range: the table's samples (ascending, ending with
 * the empty key at the total size) restricted to the range. Offsets count from
 * the last sample at or before the range start; the last sample returned is the
 * range's end key (the empty key when the range is unbounded), as the API
 * promises.
 */
export function restrictSamples(samples: readonly Sample[], range: RowRange): Sample[] {
  const { start, end } = rangeOf(range);
  const total = samples.length > 0 ? samples[samples.length - 1]!.offsetBytes : 0;
  let base = 0;
  const out: Sample[] = [];
  let endOffset = total;
  for (const s of samples) {
    if (s.key === '') continue;
    if (s.key <= start) {
      base = s.offsetBytes;
      continue;
    }
    if (end !== undefined && s.key >= end) {
      endOffset = s.offsetBytes;
      break;
    }
    out.push({ key: s.key, offsetBytes: s.offsetBytes - base });
  }
  out.push({ key: range.end.kind === 'unbounded' ? '' : range.end.key, offsetBytes: Math.max(0, endOffset - base) });
  return out;
}
