import type { ByteString } from '../model/bytes.js';
import { COUNTERS, type Column, type KeySpan, newColumn } from './column.js';
import { type BoundarySet, bucketOf } from './key-buckets.js';
import { LatencySketch } from './latency-sketch.js';

/**
 * Moving a column's figures onto another boundary set, by key-range overlap.
 *
 * Rows are assumed to spread evenly over a bucket's key range, measured by
 * `keyFraction`. The edge buckets (0 and the last) are open-ended: their
 * figures spread over the keys the column recorded there (`firstEdge`,
 * `lastEdge`) instead of to the end of the key space, which is what turns a
 * sequential load into a rising diagonal rather than a bright top row.
 */

/** Bytes after the common prefix that `keyFraction` reads: 6 bytes = 48 bits, exact in a double. */
const FRACTION_BYTES = 6;

/**
 * Where `key` lies within [lo, hi) as a number in [0, 1]: the keys are read,
 * after the prefix lo and hi share (which every key between them shares too),
 * as base-256 fractions of their next FRACTION_BYTES bytes (missing bytes
 * count 0), and `key` is interpolated linearly between lo and hi. `hi`
 * undefined is the end of the key space (all bytes 0xff). Keys that differ
 * only beyond those bytes get the same position: a simple, monotone measure,
 * exact enough for spreading counts.
 */
export function keyFraction(key: ByteString, lo: ByteString, hi: ByteString | undefined): number {
  if (key <= lo) return 0;
  if (hi !== undefined && key >= hi) return 1;
  const p = hi === undefined ? 0 : commonPrefixLength(lo, hi);
  const a = fractionAt(lo, p);
  const b = hi === undefined ? 1 : fractionAt(hi, p);
  const k = fractionAt(key, p);
  return b > a ? Math.min(1, Math.max(0, (k - a) / (b - a))) : 0;
}

function commonPrefixLength(a: ByteString, b: ByteString): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** The bytes of `s` from `offset` as a base-256 fraction in [0, 1). */
function fractionAt(s: ByteString, offset: number): number {
  let f = 0;
  let scale = 1 / 256;
  for (let i = 0; i < FRACTION_BYTES; i++, scale /= 256) {
    const c = offset + i < s.length ? s.charCodeAt(offset + i) : 0;
    f += c * scale;
  }
  return f;
}

/** The key range a source bucket's figures spread over: [lo, hi), or [lo, hi] when `inclusive` (an edge span of touched keys). */
interface SourceRange {
  readonly lo: ByteString;
  readonly hi: ByteString | undefined;
  readonly inclusive: boolean;
}

/** One share of a source bucket landing in a target bucket, with the part of the key range that landed there. */
export interface Share {
  readonly target: number;
  readonly weight: number;
  readonly lo: ByteString;
  readonly hi: ByteString | undefined;
}

/** The range of source bucket `i`: its boundaries, or for an edge bucket the span of keys the column touched there. */
function sourceRange(from: BoundarySet, i: number, first: KeySpan | undefined, last: KeySpan | undefined): SourceRange {
  const n = from.starts.length;
  const span = widen(i === 0 ? first : undefined, i === n - 1 ? last : undefined);
  if (span !== undefined) return { lo: span.min, hi: span.max, inclusive: true };
  return { lo: from.starts[i]!, hi: i + 1 < n ? from.starts[i + 1] : undefined, inclusive: false };
}

function widen(a: KeySpan | undefined, b: KeySpan | undefined): KeySpan | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return { min: a.min < b.min ? a.min : b.min, max: a.max > b.max ? a.max : b.max };
}

/**
 * How source bucket `i` of `from` splits over the buckets of `onto`: weights
 * sum to 1. A bucket's range spreads by key space: differences of keyFraction
 * at the target boundaries inside it (they telescope). An edge bucket's span
 * of touched keys (a sequential load's new rows) spreads by the rows the
 * target set holds there instead: the targets inside the span by their rows,
 * the one or two it partly covers by their rows times the part covered. For
 * keys like decimal counters, whose bytes crowd into a tenth of each byte's
 * values, key space put almost a whole column of a sequential load into the
 * one bucket that spans a digit carry. Targets the range only touches at a
 * point get no share, except a range that is a single key.
 */
export function bucketShares(from: BoundarySet, i: number, onto: BoundarySet, first?: KeySpan, last?: KeySpan): Share[] {
  const r = sourceRange(from, i, first, last);
  const t = onto.starts;
  const j0 = bucketOf(t, r.lo, -1);
  const j1 = r.hi === undefined ? t.length - 1 : r.inclusive ? bucketOf(t, r.hi, j0) : lastBucketBelow(t, r.hi, j0);
  if (j0 === j1) return [{ target: j0, weight: 1, lo: r.lo, hi: r.hi }];
  const byRows: number[] = [];
  let rows = 0;
  for (let j = j0; r.inclusive && j <= j1; j++) {
    const n = onto.rows[j] ?? 0;
    let covered = 1;
    if (j === j0) covered -= keyFraction(r.lo, t[j]!, t[j + 1]);
    if (j === j1 && r.hi !== undefined) {
      covered -= 1 - keyFraction(r.hi, t[j]!, t[j + 1]);
      // An inclusive end is a key the column touched: at least that row is in the bucket.
      if (r.inclusive) covered = Math.max(covered, 1 / Math.max(1, n));
    }
    byRows.push(n * Math.max(0, covered));
    rows += byRows[byRows.length - 1]!;
  }
  const shares: Share[] = [];
  let prev = 0;
  for (let j = j0; j <= j1; j++) {
    const lo = j === j0 ? r.lo : t[j]!;
    const hi = j === j1 ? r.hi : t[j + 1];
    let weight: number;
    if (rows > 0) weight = byRows[j - j0]! / rows;
    else {
      const upTo = j === j1 ? 1 : keyFraction(hi!, r.lo, r.hi);
      weight = upTo - prev;
      prev = upTo;
    }
    if (weight > 0) shares.push({ target: j, weight, lo, hi });
  }
  return shares;
}

/** The last bucket whose start is below `hi` (at least `floor`): the last one a half-open range ending at `hi` overlaps. */
function lastBucketBelow(starts: readonly ByteString[], hi: ByteString, floor: number): number {
  const j = bucketOf(starts, hi, floor);
  return starts[j] === hi && j > floor ? j - 1 : j;
}

/**
 * `column`'s figures (recorded over `from`) moved onto `onto`: counters split
 * by key overlap (totals conserved), largest-row sizes and latency sketches go
 * to every bucket they overlap (max / merge), the edge spans become the keys
 * that landed in the new edge buckets. A column already over `onto` comes back
 * as a copy. It never changes `column`.
 */
export function rebinColumn(column: Column, from: BoundarySet, onto: BoundarySet): Column {
  if (column.buckets !== from.starts.length || column.setId !== from.setId) {
    throw new RangeError(`column of set ${column.setId} (${column.buckets} buckets) is not over set ${from.setId}`);
  }
  const out = newColumn(column.startMillis, column.durationMillis, onto.setId, onto.starts.length);
  const lastTarget = onto.starts.length - 1;
  for (let i = 0; i < column.buckets; i++) {
    if (!touched(column, i)) continue;
    for (const s of bucketShares(from, i, onto, column.firstEdge, column.lastEdge)) {
      for (const c of COUNTERS) out.counters[c][s.target]! += column.counters[c][i]! * s.weight;
      if (column.maxRowBytes[i]! > out.maxRowBytes[s.target]!) out.maxRowBytes[s.target] = column.maxRowBytes[i]!;
      const sketch = column.latency[i];
      if (sketch !== undefined) (out.latency[s.target] ??= new LatencySketch()).merge(sketch);
      if (s.target === 0) out.firstEdge = widen(out.firstEdge, spanOf(s));
      if (s.target === lastTarget) out.lastEdge = widen(out.lastEdge, spanOf(s));
    }
  }
  return out;
}

/** Whether bucket `i` recorded anything (untouched buckets are skipped: no edge span needed for them). */
function touched(column: Column, i: number): boolean {
  if (column.maxRowBytes[i]! > 0 || column.latency[i] !== undefined) return true;
  return COUNTERS.some((c) => column.counters[c][i]! !== 0);
}

/** The keys a share covers, as an edge span (its upper end may be the next bucket's start: close enough for spreading). */
function spanOf(s: Share): KeySpan | undefined {
  return s.hi === undefined ? undefined : { min: s.lo, max: s.hi };
}

/** Per-bucket levels of `from` (rows, stored bytes) moved onto `onto` by key overlap (totals conserved, no edge spans). */
export function rebinLevels(levels: readonly number[], from: BoundarySet, onto: BoundarySet): number[] {
  const out = new Array<number>(onto.starts.length).fill(0);
  for (let i = 0; i < levels.length; i++) {
    if (levels[i] === 0) continue;
    for (const s of bucketShares(from, i, onto)) out[s.target]! += levels[i]! * s.weight;
  }
  return out;
}
