import type { ByteString } from '../../model/bytes.js';
import type { Row } from '../../model/cell.js';
import type { KeyRange } from '../../model/key-range.js';
import type { SSTableIterator } from '../sstable/index.js';
import type { RowCursor } from '../store.js';
import { decodeFragment, decodePutsOnly, type Entry, NO_DROPS, resolveEntries, type StoreDrops } from './fragment.js';
import { collectEntries, type MemCursor, type MemView, onlyFragment } from './memtable.js';
import type { TableFile } from './table-file.js';

/**
 * One input of a merged scan (a memtable or an SSTable), positioned on a
 * row key. Contract: `valid` tells whether `key` is defined; `collect`
 * appends the current row's entries; `advance` moves to the next key in
 * scan direction; `close` is mandatory.
 *
 * Not a storage iterator (../iterator.ts) but the merge's adapter over one:
 * the scan's direction is fixed when it opens, so it only ever advances;
 * and a row is handed over as what the merge needs of it (its only
 * fragment, its decoded entries, where it is for DataLoss messages) rather
 * than as a value whose type depends on the input. Each source is
 * positioned once with first() or last() on an iterator opened with the
 * scan's range as its bounds, then stepped with next() or prev().
 */
interface RowSource {
  readonly valid: boolean;
  readonly key: ByteString;
  /** Where the current row is, for DataLoss messages. */
  readonly where: string;
  /** The current row's only fragment, when it has exactly one. */
  single(): Buffer | undefined;
  collect(out: Entry[]): void;
  advance(): void;
  close(): void;
}

class MemSource implements RowSource {
  valid = false;
  key = '';
  readonly where = 'memtable row';
  private readonly cursor: MemCursor;

  constructor(
    view: MemView,
    range: KeyRange,
    private readonly reverse: boolean,
  ) {
    this.cursor = view.cursor(range.start, range.end);
    if (reverse) this.cursor.last();
    else this.cursor.first();
    this.land();
  }

  single(): Buffer | undefined {
    return onlyFragment(this.cursor.value);
  }

  collect(out: Entry[]): void {
    collectEntries(this.cursor.value, out);
  }

  advance(): void {
    if (this.reverse) this.cursor.prev();
    else this.cursor.next();
    this.land();
  }

  private land(): void {
    this.valid = this.cursor.valid;
    if (this.valid) this.key = this.cursor.key;
  }

  close(): void {
    this.cursor.close();
    this.valid = false;
  }
}

class FileSource implements RowSource {
  private readonly it: SSTableIterator;

  constructor(
    private readonly file: TableFile,
    range: KeyRange,
    private readonly reverse: boolean,
  ) {
    this.it = file.reader.newIterator({ lower: range.start, ...(range.end !== undefined ? { upper: range.end } : {}) });
    if (reverse) this.it.last();
    else this.it.first();
  }

  get valid(): boolean {
    return this.it.valid;
  }

  get key(): ByteString {
    return this.it.key;
  }

  get where(): string {
    return this.file.where;
  }

  single(): Buffer {
    return this.it.value;
  }

  collect(out: Entry[]): void {
    decodeFragment(this.it.value, this.file.where, out);
  }

  advance(): void {
    if (this.reverse) this.it.prev();
    else this.it.next();
  }

  close(): void {
    this.it.close();
  }
}

/**
 * A scan over a store as of one sequence number: memtables and SSTables
 * merged by row key, each row's entries resolved into its visible cells.
 * Rows are produced one at a time; nothing is materialised. Holds a
 * reference on every file it reads until closed.
 */
export class MergeCursor implements RowCursor {
  private readonly sources: RowSource[] = [];
  private readonly entries: Entry[] = [];
  private closed = false;

  constructor(
    mems: readonly MemView[],
    private readonly files: readonly TableFile[],
    range: KeyRange,
    private readonly reverse: boolean,
    private readonly snapshotSeq: number,
    private readonly drops: StoreDrops,
  ) {
    try {
      for (const m of mems) this.sources.push(new MemSource(m, range, reverse));
      for (const f of files) this.sources.push(new FileSource(f, range, reverse));
    } catch (e) {
      this.close();
      throw e;
    }
  }

  next(): Row | undefined {
    if (this.closed) return undefined;
    const { sources, entries, reverse } = this;
    for (;;) {
      let best: ByteString | undefined;
      for (const s of sources) {
        if (s.valid && (best === undefined || (reverse ? s.key > best : s.key < best))) best = s.key;
      }
      if (best === undefined) {
        this.close();
        return undefined;
      }
      let only: RowSource | undefined;
      let count = 0;
      for (const s of sources) {
        if (s.valid && s.key === best) {
          only = s;
          count++;
        }
      }
      if (count === 1 && this.drops === NO_DROPS) {
        const frag = only!.single();
        const fast = frag === undefined ? undefined : decodePutsOnly(frag, this.snapshotSeq, only!.where);
        if (fast !== undefined) {
          only!.advance();
          if (fast.length > 0) return { key: best, cells: fast };
          continue;
        }
      }
      entries.length = 0;
      for (const s of sources) {
        if (s.valid && s.key === best) {
          s.collect(entries);
          s.advance();
        }
      }
      const cells = resolveEntries(best, entries, this.snapshotSeq, this.drops);
      if (cells.length > 0) return { key: best, cells };
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.sources) s.close();
    for (const f of this.files) f.unref();
  }
}
