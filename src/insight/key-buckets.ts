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

/** Bytes after the boundaries' shared prefix that a BucketIndex word holds (48 bits: exact in a double). */
const WORD_BYTES = 6;
/** Slots of a BucketIndex's direct table (a Uint16Array: 8 KiB). */
const SLOTS = 4096;

/**
 * bucketOf for keys in any order, at a few nanoseconds a key. A bulk load's
 * keys come shuffled, and a binary search over 1,000 boundaries costs
 * ~110 ns a key here, almost all of it in ten unpredictable branches. The
 * boundaries share a prefix P (often long: `user000…`); each keeps as a
 * number ("word") the WORD_BYTES bytes after P, zero-padded. A key's word
 * orders it against every boundary whose word differs (smaller: the key is
 * after it), and strings are compared only against boundaries with the same
 * word. A table of SLOTS slots over the span of the words gives, for the
 * slot a word falls in, the last boundary below the slot, so that a lookup
 * walks only the few boundaries inside one slot. A key that does not start
 * with P is before every boundary but the first ('') or after them all.
 * With TableRecorder skipping the hint for shuffled writes,
 * `npx vitest bench bench/micro/recorder.bench.ts` records a shuffled bulk
 * load over 1,000 buckets at ~80 ns a row instead of ~135.
 */
export class BucketIndex {
  private readonly prefix: ByteString;
  private readonly words: Float64Array;
  private readonly low: number;
  private readonly scale: number;
  /** Per slot, the last boundary (0: none) whose word is below the slot's start. */
  private readonly slots: Uint16Array;

  constructor(readonly starts: readonly ByteString[]) {
    const n = starts.length;
    let prefix = starts[1] ?? '';
    for (let i = 2; i < n && prefix !== ''; i++) {
      const s = starts[i]!;
      let k = 0;
      while (k < prefix.length && k < s.length && prefix.charCodeAt(k) === s.charCodeAt(k)) k++;
      prefix = prefix.slice(0, k);
    }
    this.prefix = prefix;
    this.words = new Float64Array(n);
    for (let i = 1; i < n; i++) this.words[i] = wordAt(starts[i]!, prefix.length);
    this.low = n > 1 ? this.words[1]! : 0;
    const span = (n > 1 ? this.words[n - 1]! : 0) - this.low + 1;
    this.scale = SLOTS / span;
    this.slots = new Uint16Array(SLOTS);
    let i = 0;
    for (let slot = 0; slot < SLOTS; slot++) {
      const from = this.low + slot / this.scale;
      while (i + 1 < n && this.words[i + 1]! < from) i++;
      this.slots[slot] = i;
    }
  }

  /** The bucket of `key`; `hint` (the bucket hit last) is tried first, as in bucketOf. */
  of(key: ByteString, hint: number): number {
    const starts = this.starts;
    const n = starts.length;
    if (hint >= 0 && hint < n && starts[hint]! <= key && (hint + 1 === n || key < starts[hint + 1]!)) return hint;
    if (n === 1) return 0;
    const p = this.prefix;
    if (!key.startsWith(p)) return key < p ? 0 : n - 1;
    const w = wordAt(key, p.length);
    const words = this.words;
    const slot = Math.floor((w - this.low) * this.scale);
    // The last boundary whose word is below the key's (0: none), from the slot's start.
    let i = slot < 0 ? 0 : this.slots[slot >= SLOTS ? SLOTS - 1 : slot]!;
    // (Rounding at a slot's edge could start past a boundary of the key's own word: step back.)
    while (i > 0 && words[i]! >= w) i--;
    while (i + 1 < n && words[i + 1]! < w) i++;
    // Boundaries with the key's own word: compare the strings.
    while (i + 1 < n && words[i + 1] === w && starts[i + 1]! <= key) i++;
    return i;
  }
}

/** The WORD_BYTES bytes of `s` from `at`, zero-padded, as a number. */
function wordAt(s: ByteString, at: number): number {
  let w = 0;
  for (let i = 0; i < WORD_BYTES; i++) w = w * 256 + (at + i < s.length ? s.charCodeAt(at + i) : 0);
  return w;
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
