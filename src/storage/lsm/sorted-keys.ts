import type { ByteString } from '../../model/bytes.js';

/**
 * An insert-only sorted set of keys, built for memtables: an insert is an
 * array push, and order is paid for in bulk, where the engine's sort is
 * fastest.
 *
 * New keys go to an unsorted `tail`. When it fills (TAIL_LIMIT) or a
 * snapshot is taken, it is sorted (Array.prototype.sort without a
 * comparator: V8 compares the strings natively, and for byte strings, code
 * units 0-255, that is byte order) and becomes the newest immutable sorted
 * run. Runs are merged while the one below is at most twice as large as the
 * one above, the logarithmic method: sizes fall by more than half from the
 * oldest run up, so there are O(log n) runs and every key is merged
 * O(log n) times. A snapshot is the list of runs, so later inserts never
 * disturb it.
 *
 * (A B-tree costs ~1-2 µs per insert of a random key in V8 because of the
 * comparator calls on every level; keeping a small sorted delta with binary
 * insertion and merging it through levels of fanout 8 cost ~1.2 µs per key
 * in a bulk load; this costs about half of that. Point lookups go through a
 * Map instead.)
 */
const TAIL_LIMIT = 4096;

export interface KeySnapshot {
  /** Sorted runs; a key is in exactly one of them. */
  readonly runs: readonly (readonly ByteString[])[];
}

export class SortedKeys {
  /** Immutable sorted runs, oldest (largest) first. */
  private runs: ByteString[][] = [];
  private tail: ByteString[] = [];
  private cached: KeySnapshot | undefined;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Adds a key that is not in the set yet. */
  insert(key: ByteString): void {
    this.tail.push(key);
    this.count++;
    this.cached = undefined;
    if (this.tail.length >= TAIL_LIMIT) this.seal();
  }

  /** The keys as of now; unaffected by later inserts. */
  snapshot(): KeySnapshot {
    if (this.cached === undefined) {
      this.seal();
      this.cached = { runs: this.runs.slice() };
    }
    return this.cached;
  }

  /** Sorts the tail into a run of its own, then merges runs to keep their sizes falling geometrically. */
  private seal(): void {
    if (this.tail.length === 0) return;
    const run = this.tail;
    this.tail = [];
    run.sort();
    const runs = this.runs;
    runs.push(run);
    while (runs.length >= 2 && runs[runs.length - 2]!.length <= 2 * runs[runs.length - 1]!.length) {
      const top = runs.pop()!;
      runs[runs.length - 1] = merge(runs[runs.length - 1]!, top);
    }
  }
}

function merge(a: readonly ByteString[], b: readonly ByteString[]): ByteString[] {
  const out = new Array<ByteString>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = a[i]! < b[j]! ? a[i++]! : b[j++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

/** First index whose key is >= `key`. */
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
 * Iterates a snapshot in key order (or reverse) within [start, end): a merge
 * of its runs, each positioned by binary search.
 */
export class KeySnapshotIterator {
  private readonly pos: number[];

  constructor(
    private readonly snap: KeySnapshot,
    private readonly start: ByteString,
    private readonly end: ByteString | undefined,
    private readonly reverse: boolean,
  ) {
    this.pos = snap.runs.map((run) =>
      reverse ? (end === undefined ? run.length : lowerBound(run, end)) - 1 : lowerBound(run, start),
    );
  }

  /** The next key, or undefined at the end of the range. */
  next(): ByteString | undefined {
    const { runs } = this.snap;
    let best = -1;
    let key: ByteString | undefined;
    for (let r = 0; r < runs.length; r++) {
      const k = runs[r]![this.pos[r]!];
      if (k === undefined) continue;
      if (key === undefined || (this.reverse ? k > key : k < key)) {
        key = k;
        best = r;
      }
    }
    if (key === undefined) return undefined;
    this.pos[best] = this.pos[best]! + (this.reverse ? -1 : 1);
    if (this.reverse) return key < this.start ? undefined : key;
    return this.end !== undefined && key >= this.end ? undefined : key;
  }
}
