import type { ByteString } from '../../model/bytes.js';
import type { KeyIterator } from '../iterator.js';

/**
 * The order of a memtable's entries, built for bulk loads: an entry is a row
 * key appended to an array (a row written twice has two entries), and the
 * order of the entries, by key and then by arrival, is paid for in bulk.
 *
 * The newest entries form an unsorted tail. When it reaches TAIL_LIMIT or a
 * snapshot is taken, its entry numbers are sorted (by key, then by entry
 * number) into the newest immutable run. Runs are merged while the one below
 * is at most twice as large as the one above, the logarithmic method: there
 * are O(log n) runs, every entry is merged O(log n) times, and each run holds
 * a contiguous stretch of entry numbers, older runs lower ones. A snapshot is
 * the list of runs, so later appends never disturb it.
 *
 * Keys are compared as numbers where they can be: every run keeps, per
 * entry, five bytes of its key after the prefix all its keys share (its
 * "word"). A tail is sorted natively as words with positions, and merges
 * compare words, comparing the strings only on a tie. A load of 100,000
 * shuffled 100-byte rows through the Node client (`npx tsx bench/profile.ts
 * load --value 100`) went from 5.3-5.7 to 4.3-5.1 µs of server CPU per row
 * when sorts and merges stopped comparing strings; ordering was a fifth of
 * the server's time.
 *
 * (The previous design kept a Map from key to row and sorted unique keys.
 * The Map's insert and the flush's lookup per row are random accesses into a
 * table of hundreds of thousands of rows, ~0.5-0.7 µs each here, more than
 * sorting entry numbers with a comparator costs, ~0.3 µs per entry.
 * Point lookups build a Map when first needed; see Memtable.)
 */
const TAIL_LIMIT = 4096;

/** A sorted run: entry numbers by (key, entry number), with their keys alongside (merges read keys in order). */
export interface Run {
  readonly keys: readonly ByteString[];
  readonly entries: Int32Array;
  /**
   * Per entry, the WORD_KEY_BYTES bytes of its key after the first `shared`
   * (zero-padded) as a number: merges compare these and compare the keys
   * themselves only when they tie.
   */
  readonly words: Float64Array;
  /** How many leading bytes every key of the run shares (with every key of the runs it was merged from). */
  readonly shared: number;
}

export interface EntrySnapshot {
  /** Sorted runs, oldest first; each entry is in exactly one. */
  readonly runs: readonly Run[];
}

export class SortedEntries {
  /** Immutable sorted runs, oldest (largest) first. */
  private readonly runs: Run[] = [];
  /** Entries below this number are in a run; the rest form the tail. */
  private sealed = 0;
  private cached: EntrySnapshot | undefined;
  /** Entries whose key an earlier entry of the same run has (a key held by several runs counts once per run). */
  private repeats = 0;

  /** `keys` is the caller's array of entry keys; it only ever grows, by `appended`. */
  constructor(private readonly keys: readonly ByteString[]) {}

  /** Called after each key appended to `keys`. */
  appended(): void {
    this.cached = undefined;
    if (this.keys.length - this.sealed >= TAIL_LIMIT) this.seal();
  }

  /**
   * About how many distinct keys the entries have, never fewer: exact within
   * a run, but a key in several runs (or repeated in the tail) counts once
   * for each until they are merged.
   */
  get distinct(): number {
    return this.keys.length - this.repeats;
  }

  /** The entries as of now; unaffected by later appends. */
  snapshot(): EntrySnapshot {
    if (this.cached === undefined) {
      this.seal();
      this.cached = { runs: this.runs.slice() };
    }
    return this.cached;
  }

  /** The numbers of the entries at or after `from` whose key is `key`, ascending. */
  find(key: ByteString, from: number): number[] {
    const out: number[] = [];
    for (const run of this.runs) {
      for (let p = lowerBound(run.keys, key); run.keys[p] === key; p++) {
        const e = run.entries[p]!;
        if (e >= from) out.push(e);
      }
    }
    const keys = this.keys;
    for (let i = Math.max(from, this.sealed); i < keys.length; i++) if (keys[i] === key) out.push(i);
    return out;
  }

  /** Sorts the tail into a run of its own, then merges runs to keep their sizes falling geometrically. */
  private seal(): void {
    const end = this.keys.length;
    if (end === this.sealed) return;
    const keys = this.keys;
    const run = sortRun(keys, this.sealed, end);
    this.sealed = end;
    const runKeys = run.keys;
    for (let i = 1; i < runKeys.length; i++) if (runKeys[i] === runKeys[i - 1]) this.repeats++;
    const runs = this.runs;
    runs.push(run);
    while (runs.length >= 2 && runs[runs.length - 2]!.keys.length <= 2 * runs[runs.length - 1]!.keys.length) {
      const top = runs.pop()!;
      runs[runs.length - 1] = this.merge(runs[runs.length - 1]!, top);
    }
  }

  /** Merges two runs, `a` holding the older entries: among equal keys, a's come first. */
  private merge(a: Run, b: Run): Run {
    // Words compare only keys that share the same prefix: take them after the prefix both runs share.
    const shared = commonPrefix(a.keys[0]!, b.keys[0]!, Math.min(a.shared, b.shared));
    a = reword(a, shared);
    b = reword(b, shared);
    const ak = a.keys;
    const bk = b.keys;
    const aw = a.words;
    const bw = b.words;
    const ae = a.entries;
    const be = b.entries;
    const an = ak.length;
    const bn = bk.length;
    const n = an + bn;
    const keys = new Array<ByteString>(n);
    const entries = new Int32Array(n);
    const words = new Float64Array(n);
    let i = 0;
    let j = 0;
    let k = 0;
    // Repeats within a and within b were counted when they were made; a key of b that a also has
    // adds one more, counted at the first of its entries in b (a's entries for it come just before).
    while (i < an && j < bn) {
      const x = aw[i]!;
      const y = bw[j]!;
      if (y < x || (y === x && bk[j]! < ak[i]!)) {
        const key = bk[j]!;
        if (k > 0 && words[k - 1] === y && keys[k - 1] === key && (j === 0 || bk[j - 1] !== key)) this.repeats++;
        keys[k] = key;
        words[k] = y;
        entries[k++] = be[j++]!;
      } else {
        keys[k] = ak[i]!;
        words[k] = x;
        entries[k++] = ae[i++]!;
      }
    }
    while (i < an) {
      keys[k] = ak[i]!;
      words[k] = aw[i]!;
      entries[k++] = ae[i++]!;
    }
    while (j < bn) {
      const key = bk[j]!;
      if (k > 0 && keys[k - 1] === key && (j === 0 || bk[j - 1] !== key)) this.repeats++;
      keys[k] = key;
      words[k] = bw[j]!;
      entries[k++] = be[j++]!;
    }
    return { keys, entries, words, shared: a.shared };
  }
}

/** Entry numbers [from, to) ordered by their key and then by number. */
function compareEntries(keys: readonly ByteString[]): (a: number, b: number) => number {
  return (a, b) => {
    const x = keys[a]!;
    const y = keys[b]!;
    return x < y ? -1 : x > y ? 1 : a - b;
  };
}

/** Bits of a sort word that hold an entry's position in its tail (TAIL_LIMIT entries at most). */
const POSITION_BITS = 12;
/** Key bytes in a sort word: with the position, 52 bits, exact in a double. */
const WORD_KEY_BYTES = 5;

/** The key bytes of a word (see Run.words) of `k` after its first `shared` bytes. */
function keyWord(k: ByteString, shared: number): number {
  const stop = Math.min(k.length, shared + WORD_KEY_BYTES);
  let w = 0;
  let b = shared;
  for (; b < stop; b++) w = w * 256 + k.charCodeAt(b);
  for (; b < shared + WORD_KEY_BYTES; b++) w *= 256;
  return w;
}

/** How many leading bytes `x` and `y` share, at most `limit`. */
function commonPrefix(x: ByteString, y: ByteString, limit: number): number {
  const n = Math.min(limit, x.length, y.length);
  let i = 0;
  while (i < n && x.charCodeAt(i) === y.charCodeAt(i)) i++;
  return i;
}

/** `run` with its words taken after `shared` bytes (fewer than it shares). */
function reword(run: Run, shared: number): Run {
  if (run.shared === shared) return run;
  const words = new Float64Array(run.keys.length);
  for (let i = 0; i < words.length; i++) words[i] = keyWord(run.keys[i]!, shared);
  return { keys: run.keys, entries: run.entries, words, shared };
}

/**
 * The entries [from, to) as a run: sorted by key, then by number. Comparing
 * strings through a comparator costs ~25 ns a call and a sort makes about
 * log2(n) calls per entry; instead each entry gets a number made of its word
 * (five bytes of its key after the prefix all the tail's keys share) and its
 * position, and the numbers are sorted natively, with no callback. Only keys
 * whose words tie are then ordered by comparing them whole, in their small
 * groups. A key shorter than the window is padded with zeros, which sorts it
 * before its extensions, as byte order does.
 */
function sortRun(keys: readonly ByteString[], from: number, to: number): Run {
  const n = to - from;
  const first = keys[from]!;
  let shared = first.length;
  for (let i = from + 1; i < to && shared > 0; i++) shared = commonPrefix(first, keys[i]!, shared);
  const entries = new Int32Array(n);
  const runKeys = new Array<ByteString>(n);
  const words = new Float64Array(n);
  if (n > 1 << POSITION_BITS) {
    for (let i = 0; i < n; i++) entries[i] = from + i;
    entries.sort(compareEntries(keys));
    for (let i = 0; i < n; i++) {
      runKeys[i] = keys[entries[i]!]!;
      words[i] = keyWord(runKeys[i]!, shared);
    }
    return { keys: runKeys, entries, words, shared };
  }
  const scale = 1 << POSITION_BITS;
  for (let i = 0; i < n; i++) words[i] = keyWord(keys[from + i]!, shared) * scale + i;
  words.sort();
  let groupStart = 0;
  let groupWord = -1;
  for (let i = 0; i < n; i++) {
    const word = Math.floor(words[i]! / scale);
    if (word !== groupWord) {
      if (i - groupStart > 1) orderTies(keys, entries, groupStart, i);
      groupStart = i;
      groupWord = word;
    }
    entries[i] = from + (words[i]! - word * scale);
    words[i] = word;
  }
  if (n - groupStart > 1) orderTies(keys, entries, groupStart, n);
  for (let i = 0; i < n; i++) runKeys[i] = keys[entries[i]!]!;
  return { keys: runKeys, entries, words, shared };
}

/** Orders entries[start, end), whose keys share their sort word's bytes (they are in entry order), by whole key. */
function orderTies(keys: readonly ByteString[], entries: Int32Array, start: number, end: number): void {
  const k0 = keys[entries[start]!]!;
  let same = true;
  for (let i = start + 1; i < end && same; i++) same = keys[entries[i]!] === k0;
  if (!same) entries.subarray(start, end).sort(compareEntries(keys));
}

/** First index whose key is >= `key`, in a sorted array of keys. */
export function lowerBound(keys: readonly ByteString[], key: ByteString): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A snapshot's distinct keys within [lower, upper), in both directions: the
 * storage iterator contract (../iterator.ts) for keys, a merge of the
 * snapshot's runs. At each key, `group` holds the first `count` entry
 * numbers of the key, ascending (arrival order); the array is reused, so it
 * is valid only until the next positioning call. REQUIRES are not checked.
 *
 * For each run it keeps `lo`, the run's first position whose key is >= the
 * current key, and `hi`, its first position past the current key's entries:
 * stepping forward starts from `hi`, stepping back from `lo`, so a change of
 * direction costs nothing. Entry numbers come out ascending without sorting:
 * runs are oldest first and each holds a contiguous stretch of numbers.
 */
export class EntryIterator implements KeyIterator {
  valid = false;
  key: ByteString = '';
  /** The current key's entry numbers, ascending: the first `count` (the array is reused, never shrunk: no allocation per key). */
  readonly group: number[] = [];
  count = 0;
  private readonly lo: number[];
  private readonly hi: number[];

  constructor(
    private readonly snap: EntrySnapshot,
    private readonly lower: ByteString,
    private readonly upper: ByteString | undefined,
  ) {
    this.lo = snap.runs.map(() => 0);
    this.hi = snap.runs.map(() => 0);
  }

  first(): void {
    this.seekGE(this.lower);
  }

  last(): void {
    if (this.upper !== undefined) return this.seekLT(this.upper);
    const { runs } = this.snap;
    for (let r = 0; r < runs.length; r++) this.lo[r] = runs[r]!.keys.length;
    this.settleBackward();
  }

  seekGE(key: ByteString): void {
    const target = key < this.lower ? this.lower : key;
    const { runs } = this.snap;
    for (let r = 0; r < runs.length; r++) this.lo[r] = lowerBound(runs[r]!.keys, target);
    this.settleForward(this.lo);
  }

  seekLT(key: ByteString): void {
    const target = this.upper !== undefined && key > this.upper ? this.upper : key;
    const { runs } = this.snap;
    for (let r = 0; r < runs.length; r++) this.lo[r] = lowerBound(runs[r]!.keys, target);
    this.settleBackward();
  }

  /** REQUIRES: valid. */
  next(): void {
    this.settleForward(this.hi);
  }

  /** REQUIRES: valid. */
  prev(): void {
    this.settleBackward();
  }

  close(): void {
    this.invalidate();
  }

  private invalidate(): void {
    this.valid = false;
    this.count = 0;
  }

  /** Lands on the smallest key at or after every run's position in `from` (`lo`, or `hi` to step past the current key). */
  private settleForward(from: number[]): void {
    const { runs } = this.snap;
    const lo = this.lo;
    let key: ByteString | undefined;
    for (let r = 0; r < runs.length; r++) {
      const p = from[r]!;
      lo[r] = p;
      const k = runs[r]!.keys[p];
      if (k !== undefined && (key === undefined || k < key)) key = k;
    }
    if (key === undefined || (this.upper !== undefined && key >= this.upper)) return this.invalidate();
    this.land(key);
  }

  /** Lands on the largest key before every run's `lo`, moving each `lo` back to that key's first entry. */
  private settleBackward(): void {
    const { runs } = this.snap;
    const lo = this.lo;
    let key: ByteString | undefined;
    for (let r = 0; r < runs.length; r++) {
      const p = lo[r]!;
      if (p === 0) continue;
      const k = runs[r]!.keys[p - 1]!;
      if (key === undefined || k > key) key = k;
    }
    if (key === undefined || key < this.lower) return this.invalidate();
    for (let r = 0; r < runs.length; r++) {
      const keys = runs[r]!.keys;
      let p = lo[r]!;
      while (p > 0 && keys[p - 1] === key) p--;
      lo[r] = p;
    }
    this.land(key);
  }

  /** Makes `key`, whose first entry in each run is at `lo`, the current key. */
  private land(key: ByteString): void {
    const { runs } = this.snap;
    const { lo, hi, group } = this;
    let count = 0;
    for (let r = 0; r < runs.length; r++) {
      const run = runs[r]!;
      let p = lo[r]!;
      while (run.keys[p] === key) group[count++] = run.entries[p++]!;
      hi[r] = p;
    }
    this.count = count;
    this.key = key;
    this.valid = true;
  }
}
