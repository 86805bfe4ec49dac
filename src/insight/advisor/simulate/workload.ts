import { type ByteString, compareBytes } from '../../../model/bytes.js';
import { lowerBound } from '../../../storage/lsm/sorted-entries.js';
import type { TableSample, TrafficBucket } from '../types.js';
import type { ReplayInput } from './key-figures.js';
import { findTimestamp, splitSegments } from './key-text.js';

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
 * Time: reads are spread evenly over the rounds, and so are writes that came
 * in no particular order. When the recent writes (writeOrder) came in
 * ascending time (the timestamps in the keys) or ascending key order
 * (sequential keys, or the heatmap's sequential_keys diagnostic when
 * writeOrder is too short to tell), each moment's writes went to that moment's keys: the
 * writes are replayed in that order, a moment (the rows of one timestamp,
 * written in one burst) in one round, and each key joins the table when it
 * is first written (the table grows as it did). A timestamp-leading table
 * then writes each round at its end; rewritten by a transform (promote,
 * salt), the keys of one moment land all over the key space; and a time
 * series keyed entity first that a transform turns timestamp first shows
 * the hotspot it would get.
 */
export interface Workload extends ReplayInput {
  readonly readOps: number;
  readonly writeOps: number;
  /** The keys that stand for stored bytes (sampled keys). */
  readonly keysSampled: number;
  /** How the writes are spread over the rounds (see WriteTime). */
  readonly writeTime: WriteTime;
}

/** At most this many keys are replayed (the sample is thinned evenly past it). */
export const MAX_REPLAY_KEYS = 4000;
/** Recent writes this ascending (share of consecutive distinct pairs) are sequential. */
const SEQUENTIAL_SHARE = 0.8;
const MIN_WRITE_ORDER = 8;
/** Fewer distinct leading segments than this are constants, not moments. */
const MIN_MOMENTS = 4;
/** Keys replayed by their timestamps when this share of the written ones holds one. */
const TIMED_SHARE = 0.9;
/** Timestamps outside [2000, 2100) are numbers that only look like one. */
const PLAUSIBLE_MILLIS = [Date.UTC(2000, 0, 1), Date.UTC(2100, 0, 1)] as const;

/**
 * When writes happen in the replay: `even`ly over the rounds (no order was
 * seen), in `key order` (the recent writes came in ascending key order: the
 * keys that share a leading segment are one moment), or by the
 * `timestamps` in the keys (the recent writes came in ascending time, as a
 * time series keyed entity first writes: every entity's row of a time is
 * one moment).
 */
export type WriteTime = 'even' | 'key order' | 'timestamps';

export function buildWorkload(table: TableSample, rounds: number, delimiter: string): Workload {
  const { keys, bytes, keysSampled } = replayKeys(table);
  const reads = new Array<number>(keys.length).fill(0);
  const writes = new Array<number>(keys.length).fill(0);
  if (table.traffic !== undefined) spreadBuckets(table.traffic.buckets, keys, reads, writes);
  else for (const k of table.writeOrder) if (k !== '') writes[lowerBound(keys, k)]! += 1;
  const sequentialSeen = table.diagnostics.some((d) => d.kind === 'sequential_keys');
  const writeTime = writeTimeOf(table.writeOrder, keys, writes, sequentialSeen);
  const timeline: Timeline =
    writeTime === 'timestamps'
      ? timestampMoments(keys, writes)
      : writeTime === 'key order'
        ? leadingSegmentMoments(keys, writes, delimiter)
        : { moments: [], untimed: writes.map((_, i) => i) };
  return {
    keys,
    bytes,
    reads: reads.map((r) => r / rounds),
    ...inRounds(writes, timeline, rounds),
    readOps: reads.reduce((a, b) => a + b, 0),
    writeOps: writes.reduce((a, b) => a + b, 0),
    keysSampled,
    writeTime,
  };
}

/** The keys to replay (sampled, recently written, largest rows), and the stored bytes each stands for. */
function replayKeys(table: TableSample): { keys: ByteString[]; bytes: number[]; keysSampled: number } {
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
  return { keys, bytes: keys.map((k) => (carriers.has(k) ? perKey : 0)), keysSampled: carriers.size };
}

/**
 * The writes in rounds: timed ones in time order, a moment (written in one
 * burst) whole in the round where its writes begin, r/rounds of the way
 * through the timed writes, its keys stored from then on; untimed ones
 * evenly over the rounds.
 */
function inRounds(writes: readonly number[], timeline: Timeline, rounds: number): { writes: number[][]; born: number[] } {
  const perRound = Array.from({ length: rounds }, () => new Array<number>(writes.length).fill(0));
  const born = new Array<number>(writes.length).fill(-1);
  const timed = timeline.moments.reduce((a, m) => a + m.reduce((b, i) => b + writes[i]!, 0), 0);
  let done = 0;
  for (const moment of timeline.moments) {
    const r = Math.min(rounds - 1, Math.floor((done / timed) * rounds + 1e-9));
    for (const i of moment) {
      born[i] = r;
      perRound[r]![i] = writes[i]!;
      done += writes[i]!;
    }
  }
  for (const round of perRound) for (const i of timeline.untimed) round[i] = writes[i]! / rounds;
  return { writes: perRound, born };
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
 * `timestamps` when nearly every written key holds a plausible timestamp and
 * the recent writes came in ascending time, else `key order` when they came
 * in ascending key order (or, too few recent writes being known, when the
 * heatmap saw a sequential load), else `even`.
 */
function writeTimeOf(
  order: readonly ByteString[],
  keys: readonly ByteString[],
  writes: readonly number[],
  sequentialSeen: boolean,
): WriteTime {
  if (order.length < MIN_WRITE_ORDER && sequentialSeen) return 'key order';
  const written = keys.filter((_, i) => writes[i]! > 0);
  const timed = written.filter((k) => timeOf(k) !== undefined);
  if (written.length > 0 && timed.length >= TIMED_SHARE * written.length) {
    // Rows of one moment share a time: equal times count as ascending here.
    const times = order.map(timeOf).filter((t) => t !== undefined);
    if (new Set(times).size > 1 && isAscending(times, true)) return 'timestamps';
  }
  return isAscending(order) ? 'key order' : 'even';
}

/** The key's timestamp (ms), if it holds one between 2000 and 2100. */
function timeOf(key: ByteString): number | undefined {
  const t = findTimestamp(key)?.millis;
  return t !== undefined && t >= PLAUSIBLE_MILLIS[0] && t < PLAUSIBLE_MILLIS[1] ? t : undefined;
}

interface Timeline {
  /** Indices of written keys, a moment each, in time order. */
  readonly moments: readonly (readonly number[])[];
  /** Written keys without a time: written evenly over the rounds. */
  readonly untimed: readonly number[];
}

/** The written keys grouped by their timestamp, oldest first. */
function timestampMoments(keys: readonly ByteString[], writes: readonly number[]): Timeline {
  const byTime = new Map<number, number[]>();
  const untimed: number[] = [];
  keys.forEach((key, i) => {
    if (!(writes[i]! > 0)) return;
    const t = timeOf(key);
    if (t === undefined) untimed.push(i);
    else {
      const moment = byTime.get(t);
      if (moment === undefined) byTime.set(t, [i]);
      else moment.push(i);
    }
  });
  return { moments: [...byTime.entries()].sort((a, b) => a[0] - b[0]).map(([, is]) => is), untimed };
}

/**
 * The written keys in runs that share their leading segment (one moment of a
 * timestamp-leading table: every sensor's row of that time), or one key a
 * moment when there are fewer than MIN_MOMENTS runs (the leading segment is a
 * constant such as `events`, not a moment).
 */
function leadingSegmentMoments(keys: readonly ByteString[], writes: readonly number[], delimiter: string): Timeline {
  const runs: number[][] = [];
  let lead: string | undefined;
  keys.forEach((key, i) => {
    if (!(writes[i]! > 0)) return;
    const first = splitSegments(key, delimiter)[0]!;
    if (first === lead) runs[runs.length - 1]!.push(i);
    else runs.push([i]);
    lead = first;
  });
  return { moments: runs.length >= MIN_MOMENTS ? runs : runs.flat().map((i) => [i]), untimed: [] };
}

/** Most consecutive values go up (equal ones do not count unless `equalIsUp`). */
function isAscending<T extends string | number>(order: readonly T[], equalIsUp = false): boolean {
  if (order.length < MIN_WRITE_ORDER) return false;
  let up = 0;
  let pairs = 0;
  for (let i = 1; i < order.length; i++) {
    if (order[i] === order[i - 1] && !equalIsUp) continue;
    pairs++;
    if (order[i]! >= order[i - 1]!) up++;
  }
  return pairs >= MIN_WRITE_ORDER - 1 && up >= SEQUENTIAL_SHARE * pairs;
}

/** At most `n` of the items, evenly spread (all of them when there are few enough). */
function spread<T>(items: readonly T[], n: number): T[] {
  if (items.length <= n) return [...items];
  const m = Math.max(1, n);
  return Array.from({ length: m }, (_, i) => items[Math.floor((i * items.length) / m)]!);
}
