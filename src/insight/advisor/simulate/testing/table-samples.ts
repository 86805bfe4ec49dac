import type { ByteString } from '../../../../model/bytes.js';
import type { TableSample, TrafficBucket } from '../../types.js';

/**
 * Hand-made TableSamples for the simulation's tests: keys, the recent write
 * order, and recorded traffic per key bucket.
 */
export function tableSample(opts: {
  readonly keys: readonly ByteString[];
  readonly writeOrder?: readonly ByteString[];
  readonly buckets?: readonly TrafficBucket[] | undefined;
  readonly storedBytes?: number;
}): TableSample {
  const keys = [...opts.keys].sort();
  return {
    name: { project: 'p', instance: 'i', table: 't' },
    families: [],
    rows: keys.length,
    rowsEstimated: false,
    storedBytes: opts.storedBytes ?? keys.length * 1024,
    keys,
    writeOrder: opts.writeOrder ?? [],
    largestRows: [],
    rowProfiles: [],
    traffic: opts.buckets === undefined ? undefined : { fromMillis: 0, toMillis: 180_000, buckets: opts.buckets },
    diagnostics: [],
    tablets: [],
  };
}

/**
 * `count` key buckets over sorted keys (each starting at a key; the first at ''), with the ops each bucket
 * gets from `ops(bucketIndex)`.
 */
export function bucketsOver(
  keys: readonly ByteString[],
  count: number,
  ops: (bucket: number) => { readonly readOps?: number; readonly writeOps?: number },
): TrafficBucket[] {
  const sorted = [...keys].sort();
  return Array.from({ length: count }, (_, b) => {
    const from = Math.floor((b * sorted.length) / count);
    const to = Math.floor(((b + 1) * sorted.length) / count);
    const { readOps = 0, writeOps = 0 } = ops(b);
    return {
      start: b === 0 ? '' : sorted[from]!,
      end: b === count - 1 ? undefined : sorted[to]!,
      rows: to - from,
      readOps,
      writeOps,
      rowsRead: readOps,
      rowsReturned: readOps,
      readBytes: readOps * 100,
      writeBytes: writeOps * 100,
    };
  });
}

/** `2023-05-01T12:00:00Z` plus `seconds`, without milliseconds. */
export function isoAt(seconds: number): string {
  return new Date(Date.UTC(2023, 4, 1, 12) + seconds * 1000).toISOString().replace('.000Z', 'Z');
}

/** A sensor table keyed timestamp first (`{time}#sensorNN`): `sensors` sensors reporting every 10 s, `times` times. */
export function timestampLeading(sensors: number, times: number): ByteString[] {
  const keys: ByteString[] = [];
  for (let t = 0; t < times; t++) for (let s = 0; s < sensors; s++) keys.push(`${isoAt(t * 10)}#sensor${String(s).padStart(2, '0')}`);
  return keys;
}
