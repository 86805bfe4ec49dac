import type { FlushReason } from './engine-events.js';
import type { ByteString } from '../../model/bytes.js';
import type { Cell } from '../../model/cell.js';
import { decodeFragment, type Entry, entryOp } from './fragment.js';
import { RecordArena } from './record-arena.js';
import { RowCache } from './row-cache.js';
import { type EntrySnapshot, EntryIterator, SortedEntries } from './sorted-entries.js';
import type { StorageIterator } from '../iterator.js';

/** Bytes charged per memtable entry (one write to a row), on top of its key and fragment: key string, slots, index. */
export const ROW_OVERHEAD = 96;
/** Bytes charged per fragment on top of its content. */
export const FRAGMENT_OVERHEAD = 16;

/**
 * The fragments written to one row since the last flush. Fragments are only
 * ever appended; readers ignore entries above their snapshot sequence, so a
 * reader holding a MemRow is never disturbed by later writes.
 */
export class MemRow {
  readonly frags: Buffer[] = [];
  /** The last sequence number of each fragment (ascending: fragments arrive in sequence order). */
  readonly lastSeqs: number[] = [];
  /** The total bytes of `frags`. */
  bytes = 0;
  private decoded: Entry[] | undefined;
  private decodedFrags = 0;
  /** The row's cells after applying the first `cachedFrags` fragments onto what older sources hold. */
  private cache: RowCache | undefined;
  private cachedFrags = 0;

  constructor(readonly key: ByteString) {}

  /** Appends a fragment whose highest sequence number is `lastSeq`. */
  push(fragment: Buffer, lastSeq: number): void {
    this.frags.push(fragment);
    this.lastSeqs.push(lastSeq);
    this.bytes += fragment.byteLength;
  }

  /**
   * The row's cells as of `snapshotSeq`, kept up to date incrementally: a
   * row written many times (a counter, a hot row) is read in time
   * proportional to the new writes, not to all of them. `older` resolves what
   * older sources (flushed data) hold for the row; it is asked once and must
   * not change while this memtable lives (so no store-level drops may
   * apply). Returns undefined for a snapshot older than the cache. The
   * cache returned changes with later calls; what it hands out does not.
   */
  cacheAsOf(snapshotSeq: number, older: () => readonly Cell[]): RowCache | undefined {
    let k = this.frags.length;
    while (k > 0 && this.lastSeqs[k - 1]! > snapshotSeq) k--;
    if (k < this.cachedFrags) return undefined;
    const cache = (this.cache ??= new RowCache(older()));
    while (this.cachedFrags < k) {
      const entries = decodeFragment(this.frags[this.cachedFrags]!, 'memtable row');
      cache.apply(entries.map(entryOp));
      this.cachedFrags++;
    }
    return cache;
  }

  /** The row's cells as of `snapshotSeq` (see cacheAsOf), or undefined for a snapshot older than the cache. */
  cellsAsOf(snapshotSeq: number, older: () => readonly Cell[]): readonly Cell[] | undefined {
    return this.cacheAsOf(snapshotSeq, older)?.cells();
  }

  /** All entries of all fragments, decoded once and cached (appends extend the cache). */
  entries(): Entry[] {
    const d = (this.decoded ??= []);
    while (this.decodedFrags < this.frags.length) {
      decodeFragment(this.frags[this.decodedFrags]!, `memtable row`, d);
      this.decodedFrags++;
    }
    return d;
  }
}

/**
 * What the memtable holds for a row: its only fragment as it is (most rows
 * are written once between flushes, and a bare buffer costs a fraction of
 * the objects and collector work of a MemRow), or a MemRow once the row has
 * been written again.
 */
export type MemValue = Buffer | MemRow;

/** The row's fragments, oldest first. */
export function fragmentsOf(v: MemValue): readonly Buffer[] {
  return v instanceof MemRow ? v.frags : [v];
}

/** The total bytes of the row's fragments. */
export function fragmentBytes(v: MemValue): number {
  return v instanceof MemRow ? v.bytes : v.byteLength;
}

/** The row's fragment when it has exactly one. */
export function onlyFragment(v: MemValue): Buffer | undefined {
  if (!(v instanceof MemRow)) return v;
  return v.frags.length === 1 ? v.frags[0] : undefined;
}

/** Appends the row's decoded entries to `out`. */
export function collectEntries(v: MemValue, out: Entry[]): void {
  if (v instanceof MemRow) for (const e of v.entries()) out.push(e);
  else decodeFragment(v, 'memtable row', out);
}

/**
 * The rows of a memtable view within bounds [lower, upper): the storage
 * iterator contract (../iterator.ts), REQUIRES unchecked. `value` is the
 * row's only fragment (a view of its commit-log record) or a MemRow made
 * for the row; either stays valid after the cursor moves.
 */
export class MemCursor implements StorageIterator<MemValue> {
  valid = false;
  key: ByteString = '';
  private current: MemValue | undefined;
  private readonly it: EntryIterator;

  constructor(
    snap: EntrySnapshot,
    private readonly table: Memtable,
    lower: ByteString,
    upper: ByteString | undefined,
  ) {
    this.it = new EntryIterator(snap, lower, upper);
  }

  /** The current row's fragments. REQUIRES: valid. */
  get value(): MemValue {
    return this.current!;
  }

  first(): void {
    this.it.first();
    this.land();
  }

  last(): void {
    this.it.last();
    this.land();
  }

  seekGE(key: ByteString): void {
    this.it.seekGE(key);
    this.land();
  }

  seekLT(key: ByteString): void {
    this.it.seekLT(key);
    this.land();
  }

  next(): void {
    this.it.next();
    this.land();
  }

  prev(): void {
    this.it.prev();
    this.land();
  }

  close(): void {
    this.it.close();
    this.land();
  }

  private land(): void {
    const it = this.it;
    this.valid = it.valid;
    if (!it.valid) {
      this.current = undefined;
      return;
    }
    this.key = it.key;
    this.current = this.table.valueOf(it.key, it.group, it.count);
  }
}

/** A frozen view of a memtable's rows for one scan or flush. */
export class MemView {
  constructor(
    private readonly snap: EntrySnapshot,
    private readonly table: Memtable,
  ) {}

  /** A cursor over the rows with keys in [lower, upper) (unpositioned). */
  cursor(lower: ByteString = '', upper?: ByteString): MemCursor {
    return new MemCursor(this.snap, this.table, lower, upper);
  }

  /**
   * Each sorted run's keys with the approximate bytes before each position
   * (`before[p]`; `before[keys.length]` is the run's total), counted as the
   * memtable counts its size: per entry its fragment and FRAGMENT_OVERHEAD,
   * per row of the run its key and ROW_OVERHEAD. A key's offset in the
   * memtable is the sum over runs of `before[lowerBound(keys, key)]`: no
   * merge of the runs and no row values made (key sampling over a large
   * memtable costs a pass over typed arrays).
   */
  sizedRuns(): SizedRun[] {
    return this.snap.runs.map((run) => {
      const keys = run.keys;
      const before = new Float64Array(keys.length + 1);
      let n = 0;
      for (let p = 0; p < keys.length; p++) {
        before[p] = n;
        const key = keys[p]!;
        if (p === 0 || keys[p - 1] !== key) n += ROW_OVERHEAD + key.length;
        n += FRAGMENT_OVERHEAD + this.table.spanLength(run.entries[p]!);
      }
      before[keys.length] = n;
      return { keys, before };
    });
  }
}

/** A sorted run of a memtable's keys with the bytes before each (MemView.sizedRuns). */
export interface SizedRun {
  readonly keys: readonly ByteString[];
  readonly before: Float64Array;
}

/**
 * A memtable: the fragments written to each row since the last flush, as
 * entries in arrival order (a row written twice has two), never removed.
 * Order comes from SortedEntries (sorted-entries.ts), so a write costs array
 * appends and, amortised, its share of sorting: no hash insert, and a flush
 * walks the sorted entries without a lookup per row. Point lookups go
 * through a Map from key to row, which each lookup brings up to date by at
 * most `indexChunk` entries (~5 ms of work), finding the rest in the sorted
 * runs and the tail; a memtable that is only written and flushed (a bulk
 * load) never builds it.
 *
 * Fragments are spans of the commit-log records they were written in (no
 * copies), held as (record, start, end) in a typed array, so a bulk load
 * leaves no object per row for the collector beyond its key; the Buffer
 * view is made when the row is read or flushed.
 */
export class Memtable {
  /** Each entry's row key. */
  private readonly keys: ByteString[] = [];
  private readonly sorted = new SortedEntries(this.keys);
  /** Per entry: record index, start, end (records are commit-log payloads, under the 256 MiB message limit). */
  private spans = new Int32Array(3 * 1024);
  /** Per entry: the highest sequence number of its fragment. */
  private lastSeqs = new Float64Array(1024);
  /** Point-lookup index over the first `indexed` entries: a MemRow, or for a row with one entry its entry number. */
  private index: Map<ByteString, number | MemRow> | undefined;
  private indexed = 0;

  /** `indexChunk`: how many entries a lookup adds to the index at most (tests make it small). */
  constructor(private readonly indexChunk = 16_384) {}
  /** Where the commit-log records written to this memtable are allocated (they live as long as it does). */
  readonly arena = new RecordArena();
  /** Buffers holding fragments (commit-log payloads), referred to by spans. */
  private readonly records: Buffer[] = [];
  /** Approximate memory held: fragment bytes plus per-entry overhead. */
  bytes = 0;
  /** Keys and fragments alone (no overhead): the uncompressed bytes written to this memtable. */
  logicalBytes = 0;
  /** Lowest and highest sequence number held (0 when empty). */
  minSeq = 0;
  maxSeq = 0;
  /** Why it was set aside for a flush (reported with the flush). */
  flushReason: FlushReason = 'requested';

  /** The number of rows: exact once indexed; otherwise an estimate that may count a row written several times more than once. */
  get size(): number {
    return this.index !== undefined && this.indexed === this.keys.length ? this.index.size : this.sorted.distinct;
  }

  get empty(): boolean {
    return this.keys.length === 0;
  }

  /** Adds a row fragment whose entries have sequence numbers in [firstSeq, lastSeq]. */
  add(key: ByteString, fragment: Buffer, firstSeq: number, lastSeq: number): void {
    this.addSpan(key, this.addRecord(fragment), 0, fragment.byteLength, firstSeq, lastSeq);
  }

  /** Registers a buffer whose spans addSpan adds as fragments; returns its handle. */
  addRecord(buf: Buffer): number {
    return this.records.push(buf) - 1;
  }

  /** Adds the fragment `records[record][start, end)` of a row; its entries have sequence numbers in [firstSeq, lastSeq]. */
  addSpan(key: ByteString, record: number, start: number, end: number, firstSeq: number, lastSeq: number): void {
    const i = this.keys.length;
    let s = this.spans;
    if (3 * i + 3 > s.length) {
      s = new Int32Array(2 * s.length);
      s.set(this.spans);
      this.spans = s;
      const seqs = new Float64Array(2 * this.lastSeqs.length);
      seqs.set(this.lastSeqs);
      this.lastSeqs = seqs;
    }
    s[3 * i] = record;
    s[3 * i + 1] = start;
    s[3 * i + 2] = end;
    this.lastSeqs[i] = lastSeq;
    this.keys.push(key);
    this.sorted.appended();
    this.bytes += ROW_OVERHEAD + FRAGMENT_OVERHEAD + key.length + end - start;
    this.logicalBytes += key.length + end - start;
    if (this.minSeq === 0 || firstSeq < this.minSeq) this.minSeq = firstSeq;
    if (lastSeq > this.maxSeq) this.maxSeq = lastSeq;
  }

  /** The byte length of entry `i`'s fragment. */
  spanLength(i: number): number {
    return this.spans[3 * i + 2]! - this.spans[3 * i + 1]!;
  }

  /** Entry `i`'s fragment. */
  private span(i: number): Buffer {
    const s = this.spans;
    return this.records[s[3 * i]!]!.subarray(s[3 * i + 1]!, s[3 * i + 2]!);
  }

  get(key: ByteString): MemValue | undefined {
    const index = (this.index ??= new Map());
    const keys = this.keys;
    // A bounded share of the catching up per lookup: the first lookup into a memtable of many
    // rows would otherwise stall the caller (~0.3 s for 270,000 entries here).
    const stop = Math.min(keys.length, this.indexed + this.indexChunk);
    while (this.indexed < stop) {
      const i = this.indexed++;
      const k = keys[i]!;
      const prev = index.get(k);
      if (prev === undefined) index.set(k, i);
      else if (prev instanceof MemRow) prev.push(this.span(i), this.lastSeqs[i]!);
      else index.set(k, this.rowOf(k, [prev, i]));
    }
    const v = index.get(key);
    const indexed = typeof v === 'number' ? this.span(v) : v;
    if (this.indexed === keys.length) return indexed;
    // Entries not indexed yet are found in the sorted runs and the tail.
    const later = this.sorted.find(key, this.indexed);
    if (later.length === 0) return indexed;
    if (v === undefined) return this.valueOf(key, later);
    const row = new MemRow(key);
    if (v instanceof MemRow) for (let n = 0; n < v.frags.length; n++) row.push(v.frags[n]!, v.lastSeqs[n]!);
    else row.push(this.span(v), this.lastSeqs[v]!);
    for (const i of later) row.push(this.span(i), this.lastSeqs[i]!);
    return row;
  }

  /** A row's value from its first `count` entries (ascending), for a cursor: its only fragment, or a MemRow. */
  valueOf(key: ByteString, entries: readonly number[], count = entries.length): MemValue {
    return count === 1 ? this.span(entries[0]!) : this.rowOf(key, entries, count);
  }

  private rowOf(key: ByteString, entries: readonly number[], count = entries.length): MemRow {
    const row = new MemRow(key);
    for (let n = 0; n < count; n++) {
      const i = entries[n]!;
      row.push(this.span(i), this.lastSeqs[i]!);
    }
    return row;
  }

  /** A frozen view of the rows for iteration. */
  view(): MemView {
    return new MemView(this.sorted.snapshot(), this);
  }
}
