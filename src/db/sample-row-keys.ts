import type { ByteString } from '../model/bytes.js';
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
