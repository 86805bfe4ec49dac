import type { ByteString } from '../../model/bytes.js';
import type { Cell } from '../../model/cell.js';
import { decodeFragment, type Entry, entryOp } from './fragment.js';
import { RecordArena } from './record-arena.js';
import { RowCache } from './row-cache.js';
import { type KeySnapshot, KeySnapshotIterator, SortedKeys } from './sorted-keys.js';

/** Bytes charged per row and per fragment on top of their content (tree slot, objects). */
export const ROW_OVERHEAD = 96;
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

/** The highest sequence number in a fragment. */
function lastSeqOf(fragment: Buffer): number {
  let seq = 0;
  for (const e of decodeFragment(fragment, 'memtable row')) if (e.seq > seq) seq = e.seq;
  return seq;
}

/** Walks a memtable view in key order (or reverse) within [start, end). */
export class MemCursor {
  key: ByteString = '';
  value: MemValue | undefined;
  private readonly it: KeySnapshotIterator;

  constructor(
    keys: KeySnapshot,
    private readonly table: Memtable,
    start: ByteString,
    end: ByteString | undefined,
    reverse: boolean,
  ) {
    this.it = new KeySnapshotIterator(keys, start, end, reverse);
  }

  /** Moves to the next row; false at the end (then `value` is undefined). */
  next(): boolean {
    const key = this.it.next();
    if (key === undefined) {
      this.value = undefined;
      return false;
    }
    this.key = key;
    this.value = this.table.get(key);
    return true;
  }
}

/** A frozen view of a memtable's rows for one scan or flush. */
export class MemView {
  constructor(
    private readonly keys: KeySnapshot,
    private readonly table: Memtable,
  ) {}

  /** A cursor over the rows with keys in [start, end), before its first row. */
  cursor(start: ByteString, end: ByteString | undefined, reverse: boolean): MemCursor {
    return new MemCursor(this.keys, this.table, start, end, reverse);
  }

  /** Every row in key order. */
  all(): MemCursor {
    return this.cursor('', undefined, false);
  }
}

/**
 * A memtable: the fragments written to each row since the last flush. Point
 * lookups go through a Map; order comes from an insert-only sorted key set
 * (sorted-keys.ts), so a write costs a hash insert and, for a new row, an
 * array push. Rows are only ever added, never removed. Fragments are spans
 * of the commit-log records they were written in (no copies): a row written
 * once is held as the index of its span in a typed array, not as a Buffer of
 * its own, so a bulk load leaves no object per row for the collector beyond
 * its key; the Buffer view is made when the row is read or flushed.
 */
export class Memtable {
  /** A MemRow, or for a row written once the index of its fragment's span (see span). */
  private readonly rows = new Map<ByteString, number | MemRow>();
  private readonly keys = new SortedKeys();
  /** Where the commit-log records written to this memtable are allocated (they live as long as it does). */
  readonly arena = new RecordArena();
  /** Buffers holding fragments (commit-log payloads), referred to by spans. */
  private readonly records: Buffer[] = [];
  /** Per span: record index, start, end (records are commit-log payloads, under the 256 MiB message limit). */
  private spans = new Int32Array(3 * 1024);
  private spanCount = 0;
  /** Approximate memory held: fragment bytes plus per-row overhead. */
  bytes = 0;
  /** Lowest and highest sequence number held (0 when empty). */
  minSeq = 0;
  maxSeq = 0;

  get size(): number {
    return this.rows.size;
  }

  get empty(): boolean {
    return this.rows.size === 0;
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
    const prev = this.rows.get(key);
    if (prev === undefined) {
      let s = this.spans;
      const at = 3 * this.spanCount;
      if (at + 3 > s.length) {
        s = new Int32Array(2 * s.length);
        s.set(this.spans);
        this.spans = s;
      }
      s[at] = record;
      s[at + 1] = start;
      s[at + 2] = end;
      this.rows.set(key, this.spanCount++);
      this.keys.insert(key);
      this.bytes += ROW_OVERHEAD + key.length;
    } else {
      const fragment = this.records[record]!.subarray(start, end);
      if (prev instanceof MemRow) {
        prev.frags.push(fragment);
        prev.lastSeqs.push(lastSeq);
        prev.bytes += fragment.byteLength;
      } else {
        const first = this.span(prev);
        const row = new MemRow(key);
        row.frags.push(first, fragment);
        row.lastSeqs.push(lastSeqOf(first), lastSeq);
        row.bytes = first.byteLength + fragment.byteLength;
        this.rows.set(key, row);
      }
    }
    this.bytes += FRAGMENT_OVERHEAD + end - start;
    if (this.minSeq === 0 || firstSeq < this.minSeq) this.minSeq = firstSeq;
    if (lastSeq > this.maxSeq) this.maxSeq = lastSeq;
  }

  private span(i: number): Buffer {
    const s = this.spans;
    return this.records[s[3 * i]!]!.subarray(s[3 * i + 1]!, s[3 * i + 2]!);
  }

  get(key: ByteString): MemValue | undefined {
    const v = this.rows.get(key);
    return typeof v === 'number' ? this.span(v) : v;
  }

  /** A frozen view of the rows for iteration. */
  view(): MemView {
    return new MemView(this.keys.snapshot(), this);
  }
}
