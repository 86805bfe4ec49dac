import type { ByteString } from '../model/bytes.js';
import type { TabletMap } from '../tablet/tablet-map.js';
import type { KeyDistribution } from './access.js';
import { seenRowBytes } from './usage.js';

/** Largest rows a distribution names. */
const LARGEST_ROWS = 10;

/**
 * Where a table's rows lie (for the recorder's key buckets), read from the
 * stores directly: records no usage. When the stores count at most
 * `exactUpToRows` rows, every row is a point (one scan of each tablet, row
 * bytes as reads count them); else each tablet gives its start and the
 * store's byte-offset samples (`sampleKeys(bytesPerPiece)`), whose rows and
 * bytes before are estimated from the offset's share of the tablet.
 */
export async function keyDistribution(
  map: TabletMap,
  opts: { readonly exactUpToRows: number; readonly bytesPerPiece: number },
): Promise<KeyDistribution> {
  const tablets = map.tablets;
  const stats = tablets.map((t) => t.store.stats());
  const rows = stats.reduce((n, s) => n + s.rows, 0);
  const points: { key: ByteString; rowsBefore: number; bytesBefore: number }[] = [];
  if (rows <= opts.exactUpToRows) {
    const largest: { key: ByteString; bytes: number }[] = [];
    let n = 0;
    let bytes = 0;
    for (const tablet of tablets) {
      const cursor = tablet.store.scan({ range: tablet.range });
      try {
        for (;;) {
          let row = cursor.next();
          if (row instanceof Promise) row = await row;
          if (row === undefined) break;
          const size = seenRowBytes(row.key, row.cells);
          points.push({ key: row.key, rowsBefore: n, bytesBefore: bytes });
          n++;
          bytes += size;
          keepLargest(largest, row.key, size);
        }
      } finally {
        cursor.close();
      }
    }
    return { exact: true, rows: n, rowsEstimated: false, bytes, points, largestRows: largest };
  }
  let rowsBefore = 0;
  let bytesBefore = 0;
  for (let i = 0; i < tablets.length; i++) {
    const tablet = tablets[i]!;
    const s = stats[i]!;
    points.push({ key: tablet.range.start, rowsBefore, bytesBefore });
    let samples = tablet.store.sampleKeys(opts.bytesPerPiece);
    if (samples instanceof Promise) samples = await samples;
    for (const sample of samples) {
      const share = s.bytes > 0 ? Math.min(1, sample.offsetBytes / s.bytes) : 0;
      points.push({ key: sample.key, rowsBefore: rowsBefore + share * s.rows, bytesBefore: bytesBefore + share * s.bytes });
    }
    rowsBefore += s.rows;
    bytesBefore += s.bytes;
  }
  return { exact: false, rows, rowsEstimated: stats.some((s) => s.rowsEstimated), bytes: bytesBefore, points, largestRows: [] };
}

/** Keeps `list` the LARGEST_ROWS largest rows seen, largest first. */
function keepLargest(list: { key: ByteString; bytes: number }[], key: ByteString, bytes: number): void {
  if (list.length === LARGEST_ROWS && bytes <= list[LARGEST_ROWS - 1]!.bytes) return;
  let i = list.length;
  while (i > 0 && list[i - 1]!.bytes < bytes) i--;
  list.splice(i, 0, { key, bytes });
  if (list.length > LARGEST_ROWS) list.pop();
}
