import type { ByteString } from '../model/bytes.js';
import type { KeyDistribution } from '../db/index.js';
import { shortestSeparator } from '../storage/sstable/separator.js';

/** Buckets a table's key space is cut into at most (Google's Key Visualizer: 1,000). */
export const MAX_BUCKETS = 1000;
/** Longest boundary key: a boundary set costs at most MAX_BUCKETS × this, whatever the key sizes. */
export const MAX_BOUNDARY_BYTES = 64;

/**
 * Contiguous key ranges of roughly equal row counts. Bucket i holds the keys
 * in [starts[i], starts[i + 1]) (the last one up to the end of the table);
 * starts[0] is always '' (the first bucket also takes keys below the first row).
 */
export interface BoundarySet {
  /** Versions the sets of one table; columns name the set they were recorded over. */
  readonly setId: number;
  readonly starts: readonly ByteString[];
  /** Rows and stored bytes in each bucket when the set was made (the size metrics). */
  readonly rows: readonly number[];
  readonly bytes: readonly number[];
  /** Rows and bytes are estimates (sampled distribution): "values per row are approximate". */
  readonly estimated: boolean;
}

/**
 * Cuts `dist` into buckets of ~`ceil(rows / maxBuckets)` rows: one bucket per
 * row for tables of at most `maxBuckets` rows (exact distributions). A cut
 * falls at a point once the bucket so far holds its share of rows; its
 * boundary is the shortest key between the previous row and the point's
 * (exact) or the point's key (sampled), capped at MAX_BOUNDARY_BYTES. Keys
 * that share their first MAX_BOUNDARY_BYTES bytes stay in one bucket.
 */
export function buildBoundaries(dist: KeyDistribution, setId: number, maxBuckets = MAX_BUCKETS): BoundarySet {
  const perBucket = Math.max(1, Math.ceil(dist.rows / maxBuckets));
  const starts: ByteString[] = [''];
  const rows: number[] = [];
  const bytes: number[] = [];
  let cutRows = 0;
  let cutBytes = 0;
  const { points } = dist;
  for (let i = 0; i < points.length; i++) {
    const p = points[i]!;
    if (p.rowsBefore - cutRows < perBucket || p.rowsBefore === 0) continue;
    const boundary = boundaryBefore(dist.exact && i > 0 ? points[i - 1]!.key : undefined, p.key);
    if (boundary <= starts[starts.length - 1]!) continue;
    starts.push(boundary);
    rows.push(p.rowsBefore - cutRows);
    bytes.push(p.bytesBefore - cutBytes);
    cutRows = p.rowsBefore;
    cutBytes = p.bytesBefore;
  }
  rows.push(Math.max(0, dist.rows - cutRows));
  bytes.push(Math.max(0, dist.bytes - cutBytes));
  return { setId, starts, rows, bytes, estimated: !dist.exact || dist.rowsEstimated };
}

/** A short key b with prev < b <= key (any b <= key without `prev`), at most MAX_BOUNDARY_BYTES long; '' when there is none that short. */
function boundaryBefore(prev: ByteString | undefined, key: ByteString): ByteString {
  let b = key;
  if (prev !== undefined && prev < key) {
    const s = shortestSeparator(prev, key);
    // s is in [prev, key): a boundary needs prev < b.
    if (s !== prev) b = s;
  }
  if (b.length > MAX_BOUNDARY_BYTES) b = b.slice(0, MAX_BOUNDARY_BYTES);
  return prev !== undefined && b <= prev ? '' : b;
}

/**
 * The bucket of `key`: `hint` (the bucket hit last) is tried first, so that
 * scans and sequential writes cost one or two compares; else a binary search.
 */
export function bucketOf(starts: readonly ByteString[], key: ByteString, hint: number): number {
  const n = starts.length;
  if (hint >= 0 && hint < n && starts[hint]! <= key && (hint + 1 === n || key < starts[hint + 1]!)) return hint;
  let lo = 0;
  let hi = n - 1;
  // Invariant: starts[lo] <= key (starts[0] is ''), and the answer is in [lo, hi].
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid]! <= key) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** What a recompute decision looks at (all cheap: row totals from the stores' stats, the tablet list). */
export interface RecomputeInput {
  /** The table's rows now, and when the current set was made. */
  readonly rows: number;
  readonly rowsAtSet: number;
  readonly exactAtSet: boolean;
  readonly tabletsChanged: boolean;
  readonly wroteSinceSet: boolean;
  readonly nowMillis: number;
  readonly setAtMillis: number;
}

/** Rows moved by this share (any change for exact sets) make a new set. */
const RECOMPUTE_ROW_CHANGE = 0.1;
/** A set older than this with writes since is remade. */
const RECOMPUTE_AFTER_MILLIS = 10 * 60_000;
/** Tables larger than this get a new set at most once per RATE_LIMIT_MILLIS. */
const LARGE_TABLE_ROWS = 100_000;
const RATE_LIMIT_MILLIS = 60_000;

/** Whether the table's boundary set should be made again (at a column close, on the recorder's timer). */
export function shouldRecompute(x: RecomputeInput): boolean {
  const age = x.nowMillis - x.setAtMillis;
  if (Math.max(x.rows, x.rowsAtSet) > LARGE_TABLE_ROWS && age < RATE_LIMIT_MILLIS) return false;
  if (x.tabletsChanged) return true;
  if (x.exactAtSet ? x.rows !== x.rowsAtSet : Math.abs(x.rows - x.rowsAtSet) >= RECOMPUTE_ROW_CHANGE * Math.max(1, x.rowsAtSet))
    return true;
  return x.wroteSinceSet && age >= RECOMPUTE_AFTER_MILLIS;
}
