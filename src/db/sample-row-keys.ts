import type { ByteString } from '../model/bytes.js';
import type { KeyRange } from '../model/key-range.js';
import type { MaybePromise } from '../storage/store.js';
import type { TabletMap } from '../tablet/tablet-map.js';
import { andThen, forEachInOrder } from './maybe.js';

export interface RowKeySample {
  readonly key: ByteString;
  /** Approximate bytes of all rows that sort before `key`. */
  readonly offsetBytes: number;
}

/**
 * SampleRowKeys as Cloud Bigtable answers it: ascending keys with the
 * cumulative size of the table before each, including every tablet boundary
 * (so an empty table created with splits returns its split keys) plus samples
 * every ~`pieceBytes` inside big tablets, and last the empty key, standing for
 * the end of the table, at the table's total size.
 */
export function sampleRowKeys(tablets: TabletMap, pieceBytes: number): MaybePromise<RowKeySample[]> {
  const out: RowKeySample[] = [];
  let base = 0;
  const done = forEachInOrder(tablets.tablets, (tablet) =>
    andThen(tablet.store.sampleKeys(pieceBytes), (samples) => {
      for (const s of samples) out.push({ key: s.key, offsetBytes: base + s.offsetBytes });
      base += tablet.store.stats().bytes;
      if (tablet.range.end !== undefined) out.push({ key: tablet.range.end, offsetBytes: base });
    }),
  );
  return andThen(done, () => {
    out.push({ key: '', offsetBytes: base });
    return out;
  });
}

/**
 * The samples of one key range: those strictly inside it, offsets counted from the last sample at or before
 * its start, then `endKey` (the range's end as the caller names it; "" for an unbounded end) at the range's
 * size. The samples are a table's (ascending, ending with "" at the total size).
 */
export function restrictSamples(samples: readonly RowKeySample[], range: KeyRange, endKey: ByteString): RowKeySample[] {
  const { start, end } = range;
  const total = samples.length > 0 ? samples[samples.length - 1]!.offsetBytes : 0;
  let base = 0;
  const out: RowKeySample[] = [];
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
  out.push({ key: endKey, offsetBytes: Math.max(0, endOffset - base) });
  return out;
}

/**
 * The samples of a table seen through sorted, disjoint key ranges (an authorized view's): each range's samples
 * (restrictSamples) one after the other, offsets running on across them, so that the last sample is the total
 * size of the rows the ranges hold; no ranges, no samples.
 */
export function samplesWithin(samples: readonly RowKeySample[], ranges: readonly KeyRange[]): RowKeySample[] {
  const out: RowKeySample[] = [];
  let carried = 0;
  for (const range of ranges) {
    const part = restrictSamples(samples, range, range.end ?? '');
    for (const s of part) out.push({ key: s.key, offsetBytes: carried + s.offsetBytes });
    carried += part[part.length - 1]!.offsetBytes;
  }
  return out;
}
