import { type ByteString, compareBytes } from '../../../model/bytes.js';
import { lowerBound } from '../../../storage/lsm/sorted-entries.js';
import type { TableSample, TrafficBucket } from '../types.js';
import type { ReplayInput } from './replay.js';
import { splitSegments } from './key-text.js';

/**
 * A table's sample as a workload to replay: distinct real keys, each standing
 * for a share of the table's stored bytes and carrying a share of the
 * recorded ops in each round (time step) of the replay.
 *
 * The keys are the sampled keys (evenly spread over the table, so each stands
 * for storedBytes / count bytes: a uniform sample of the rows stays one after
 * any one-to-one rewriting of the keys), plus the recently written and the
 * largest rows' keys (which carry traffic, no bytes of their own). Each key
 * bucket's recorded reads and writes are spread evenly over the keys inside
 * it (a bucket without one gives its ops to the nearest key below it).
 *
 * Time: reads, and writes that come in no particular key order, are spread
 * evenly over the rounds. When the recent writes came in ascending key order
 * (writeOrder: timestamp-leading or sequential keys), each moment's writes
 * went to the newest keys, so the writes are cut into rounds in key order:
 * round r writes the r-th slice of the written keys, and appends them to the
 * table (which grows at its end, as such a table does). The keys that share
 * their leading segment (a timestamp's rows of every sensor) are one moment,
 * written in one burst in one round. Rewritten by a transform (promote,
 * salt), the keys of one moment then land all over the key space.
 */
export interface Workload extends ReplayInput {
  readonly readOps: number;
  readonly writeOps: number;
  /** The keys that stand for stored bytes (sampled keys). */
  readonly keysSampled: number;
  /** Writes came in ascending key order (writeOrder) and are replayed so. */
  readonly sequentialWrites: boolean;
}

/** At most this many keys are replayed (the sample is thinned evenly past it). */
export const MAX_REPLAY_KEYS = 4000;
/** Recent writes this ascending (share of consecutive distinct pairs) are sequential. */
const SEQUENTIAL_SHARE = 0.8;
const MIN_WRITE_ORDER = 8;
/** Fewer distinct leading segments than this are constants, not moments. */
const MIN_MOMENTS = 4;

export function buildWorkload(table: TableSample, rounds: number, delimiter: string): Workload {
  const sampled = spread(
    [...new Set(table.keys)].filter((k) => k !== '').sort(compareBytes),
    MAX_REPLAY_KEYS - table.writeOrder.length - table.largestRows.length,
  );
  const keySet = new Set(sampled);
  for (const k of table.writeOrder) if (k !== '') keySet.add(k);
  for (const r of table.largestRows) if (r.key !== '') keySet.add(r.key);
  const keys = [...keySet].sort(compareBytes);
  const carriers = sampled.length > 0 ? new Set(sampled) : keySet;
  const perKey = carriers.size > 0 ? table.storedBytes / carriers.size : 0;
  const bytes = keys.map((k) => (carriers.has(k) ? perKey : 0));

  const reads = new Array<number>(keys.length).fill(0);
  const writes = new Array<number>(keys.length).fill(0);
  if (table.traffic !== undefined) spreadBuckets(table.traffic.buckets, keys, reads, writes);
  else for (const k of table.writeOrder) if (k !== '') writes[lowerBound(keys, k)]! += 1;

  const sequentialWrites = isAscending(table.writeOrder);
  const perRoundWrites = Array.from({ length: rounds }, () => new Array<number>(keys.length).fill(0));
  const writeOps = writes.reduce((a, b) => a + b, 0);
  const born = new Array<number>(keys.length).fill(-1);
  if (sequentialWrites && writeOps > 0) {
    // The writes in key order: a moment (the keys that share a leading segment, written in one burst) lands
    // whole in the round where its writes begin, r/rounds of the way through all the writes.
    const perRound = writeOps / rounds;
    let done = 0;
    for (const [lo, hi] of moments(keys, delimiter)) {
      const r = Math.min(rounds - 1, Math.floor(done / perRound + 1e-9));
      for (let i = lo; i < hi; i++) {
        if (writes[i]! <= 0) continue;
        born[i] = r;
        perRoundWrites[r]![i] = writes[i]!;
        done += writes[i]!;
      }
    }
  } else {
    for (const round of perRoundWrites) writes.forEach((w, i) => (round[i] = w / rounds));
  }
  return {
    keys,
    bytes,
    reads: reads.map((r) => r / rounds),
    writes: perRoundWrites,
    born,
    readOps: reads.reduce((a, b) => a + b, 0),
    writeOps,
    keysSampled: carriers.size,
    sequentialWrites,
  };
}

/** Each bucket's ops spread evenly over the keys inside it, or given to the nearest key below it. */
function spreadBuckets(buckets: readonly TrafficBucket[], keys: readonly ByteString[], reads: number[], writes: number[]): void {
  if (keys.length === 0) return;
  for (const b of buckets) {
    const from = lowerBound(keys, b.start);
    const to = b.end === undefined ? keys.length : lowerBound(keys, b.end);
    if (to > from) {
      for (let i = from; i < to; i++) {
        reads[i]! += b.readOps / (to - from);
        writes[i]! += b.writeOps / (to - from);
      }
    } else {
      const i = Math.max(0, from - 1);
      reads[i]! += b.readOps;
      writes[i]! += b.writeOps;
    }
  }
}

/**
 * The keys cut into the runs [lo, hi) that share their leading segment (one
 * moment of a timestamp-leading table: every sensor's row of that time), or
 * into single keys when there are fewer than MIN_MOMENTS runs (the leading
 * segment is a constant such as `events`, not a moment).
 */
function moments(keys: readonly ByteString[], delimiter: string): [number, number][] {
  const runs: [number, number][] = [];
  let lead: string | undefined;
  keys.forEach((key, i) => {
    const first = splitSegments(key, delimiter)[0]!;
    if (first === lead) runs[runs.length - 1]![1] = i + 1;
    else runs.push([i, i + 1]);
    lead = first;
  });
  return runs.length >= MIN_MOMENTS ? runs : keys.map((_, i) => [i, i + 1]);
}

/** Most consecutive distinct recent writes go up in key order. */
function isAscending(order: readonly ByteString[]): boolean {
  if (order.length < MIN_WRITE_ORDER) return false;
  let up = 0;
  let pairs = 0;
  for (let i = 1; i < order.length; i++) {
    if (order[i] === order[i - 1]) continue;
    pairs++;
    if (order[i]! > order[i - 1]!) up++;
  }
  return pairs >= MIN_WRITE_ORDER - 1 && up >= SEQUENTIAL_SHARE * pairs;
}

/** At most `n` of the items, evenly spread (all of them when there are few enough). */
function spread<T>(items: readonly T[], n: number): T[] {
  if (items.length <= n) return [...items];
  const m = Math.max(1, n);
  return Array.from({ length: m }, (_, i) => items[Math.floor((i * items.length) / m)]!);
}
