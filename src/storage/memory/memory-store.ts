import type { ByteString } from '../../model/bytes.js';
import type { Cell, Row } from '../../model/cell.js';
import { TabletopError } from '../../model/errors.js';
import type { KeyRange } from '../../model/key-range.js';
import { applyStoreOpsSized, columnGcOf, newestOfColumns, rowBytes } from '../row-ops.js';
import type {
  ColumnGc,
  GcRules,
  ColumnRef,
  KeySample,
  MaybePromise,
  RowCursor,
  RowStore,
  RowWrite,
  ScanOptions,
  StoreOp,
  StoreStats,
} from '../store.js';
import { MemoryCursor } from './memory-cursor.js';
import { newRowTree, type RowTree, type StoredRow } from './row-tree.js';

/** Rows rewritten per slice by background work (GC, dropFamily) before yielding to the event loop. */
const REWRITE_SLICE_ROWS = 4096;

/**
 * The in-memory RowStore: a B+ tree from row key to an immutable row.
 *
 * Writes replace a row's value (copy-on-write of its cell array), so a row
 * object handed out is never modified. A scan works on a `clone()` of the
 * tree: cloning is O(1) (the root is marked shared) and later writes copy
 * only the nodes on their path, so the scan sees the tree as it was when it
 * opened. One clone is cached and shared by all scans opened until the next
 * write, so reads without intervening writes cost no copying at all.
 *
 * Everything is synchronous except long rewrites (collectGarbage, dropFamily
 * on big stores), which yield to the event loop between slices.
 */
export class MemoryRowStore implements RowStore {
  private tree: RowTree = newRowTree();
  /** The cached snapshot for scans; undefined once a write happened after it was taken. */
  private snapshot: RowTree | undefined;
  private bytes = 0;
  private closed = false;

  constructor(readonly id: string) {}

  /** A new store holding this store's rows in [start, end) (copy-on-write: O(log n) now, copies nodes as they change). */
  slice(id: string, start: ByteString, end: ByteString | undefined): MemoryRowStore {
    const out = new MemoryRowStore(id);
    const tree = this.tree.clone();
    const max = tree.maxKey();
    if (start !== '') tree.deleteRange('', start, false);
    if (end !== undefined && max !== undefined) tree.deleteRange(end, max, true);
    out.tree = tree;
    let bytes = 0;
    tree.forEachPair((_k, row) => {
      bytes += row.bytes;
    });
    out.bytes = bytes;
    return out;
  }

  /** A new store holding this store's rows and `other`'s (which lie after them). */
  concat(id: string, other: MemoryRowStore): MemoryRowStore {
    const out = new MemoryRowStore(id);
    const tree = this.tree.clone();
    other.tree.forEachPair((k, row) => {
      tree.set(k, row);
    });
    out.tree = tree;
    out.bytes = this.bytes + other.bytes;
    return out;
  }

  write(batch: readonly RowWrite[]): void {
    this.checkOpen();
    for (const w of batch) this.writeRow(w.key, w.ops);
  }

  get(key: ByteString): Row | undefined {
    this.checkOpen();
    return this.tree.get(key);
  }

  /** Writes are durable (as durable as this engine gets) at once: the same as get. */
  /** Writes are durable (as much as this store's are) when applied. */
  durableNow(): undefined {
    return undefined;
  }

  getForUpdate(key: ByteString, columns?: readonly ColumnRef[]): Row | undefined {
    const row = this.get(key);
    if (row === undefined || columns === undefined) return row;
    const cells = newestOfColumns(row.cells, columns);
    return cells.length > 0 ? { key, cells } : undefined;
  }

  scan(options: ScanOptions): RowCursor {
    this.checkOpen();
    this.snapshot ??= this.tree.clone();
    return new MemoryCursor(this.snapshot, options.range, options.reverse === true);
  }

  dropRange(range: KeyRange): void {
    this.checkOpen();
    if (range.start === '' && range.end === undefined) {
      this.tree = newRowTree();
      this.bytes = 0;
      this.snapshot = undefined;
      return;
    }
    const high = range.end ?? this.tree.maxKey();
    if (high === undefined) return;
    const includeHigh = range.end === undefined;
    let dropped = 0;
    this.tree.forRange(range.start, high, includeHigh, (_k, row) => {
      dropped += row.bytes;
    });
    if (this.tree.deleteRange(range.start, high, includeHigh) > 0) {
      this.bytes -= dropped;
      this.snapshot = undefined;
    }
  }

  dropFamily(family: string): MaybePromise<void> {
    this.checkOpen();
    return this.rewriteAll((row) => {
      const first = row.cells.findIndex((c) => c.family === family);
      if (first < 0) return row.cells;
      return row.cells.filter((c) => c.family !== family);
    });
  }

  collectGarbage(rules: GcRules, nowMicros: number): MaybePromise<void> {
    this.checkOpen();
    const gc = columnGcOf(rules.current());
    return this.rewriteAll((row) => collectRow(row.cells, gc, nowMicros));
  }

  /** Exact: bytes are the rows' logical bytes, kept up to date with every change. */
  stats(): StoreStats {
    return { bytes: this.bytes, logicalBytes: this.bytes, rows: this.tree.size, rowsEstimated: false, bytesEstimated: false };
  }

  /** The store's size bounds any of its rows (reading a row in memory is cheap when it does not suffice). */
  rowBytesBound(): number {
    return this.bytes;
  }

  sampleKeys(bytesPerPiece: number): readonly KeySample[] {
    this.checkOpen();
    if (!(bytesPerPiece > 0)) throw new TabletopError('InvalidArgument', `bytesPerPiece must be positive, got ${bytesPerPiece}`);
    const samples: KeySample[] = [];
    let offset = 0;
    let lastSample = 0;
    this.tree.forEachPair((key, row) => {
      if (offset - lastSample >= bytesPerPiece) {
        samples.push({ key, offsetBytes: offset });
        lastSample = offset;
      }
      offset += row.bytes;
    });
    return samples;
  }

  close(): void {
    this.closed = true;
    this.snapshot = undefined;
  }

  /** Reopens a closed store (the memory engine keeps the data until deleteStore). */
  reopen(): void {
    this.closed = false;
  }

  /** Drops all data (deleteStore). */
  destroy(): void {
    this.tree = newRowTree();
    this.bytes = 0;
    this.close();
  }

  private checkOpen(): void {
    if (this.closed) throw new TabletopError('Unavailable', `store ${this.id} is closed`);
  }

  private writeRow(key: ByteString, ops: readonly StoreOp[]): void {
    const old = this.tree.get(key);
    const { cells, bytes } = applyStoreOpsSized(
      key,
      old?.cells ?? NO_CELLS,
      old?.bytes ?? 0,
      ops.some(pinsBuffer) ? ops.map(ownValue) : ops,
    );
    if (old !== undefined && cells === old.cells) return;
    this.snapshot = undefined;
    if (cells.length === 0) {
      if (old !== undefined) {
        this.tree.delete(key);
        this.bytes -= old.bytes;
      }
      return;
    }
    const row: StoredRow = { key, cells, bytes };
    this.tree.set(key, row);
    this.bytes += row.bytes - (old?.bytes ?? 0);
  }

  /**
   * Rewrites every row through `transform` (which returns the row's cells
   * itself when nothing changes), in slices so that big stores do not block
   * the event loop. Synchronous when the store is small.
   */
  private rewriteAll(transform: (row: StoredRow) => readonly Cell[]): MaybePromise<void> {
    let from = this.tree.minKey();
    from = this.rewriteSlice(transform, from);
    if (from === undefined) return;
    return (async () => {
      while (from !== undefined) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.closed) return;
        from = this.rewriteSlice(transform, from);
      }
    })();
  }

  /** Rewrites up to REWRITE_SLICE_ROWS rows from `from`; returns where to continue. */
  private rewriteSlice(transform: (row: StoredRow) => readonly Cell[], from: ByteString | undefined): ByteString | undefined {
    const high = this.tree.maxKey();
    if (from === undefined || high === undefined) return undefined;
    let changed = false;
    const result = this.tree.editRange<ByteString>(from, high, true, (key, row, counter) => {
      if (counter >= REWRITE_SLICE_ROWS) return { break: key };
      const cells = transform(row);
      if (cells === row.cells) return;
      changed = true;
      if (cells.length === 0) {
        this.bytes -= row.bytes;
        return { delete: true };
      }
      const next: StoredRow = { key, cells, bytes: rowBytes(key, cells) };
      this.bytes += next.bytes - row.bytes;
      return { value: next };
    });
    if (changed) this.snapshot = undefined;
    return typeof result === 'string' ? result : undefined;
  }
}

const NO_CELLS: readonly Cell[] = Object.freeze([]);

/**
 * A put's value is kept for as long as the cell lives. When the value is a
 * small view into a much larger buffer (e.g. a decoded request message),
 * keeping it would pin the whole buffer, so such values are copied once.
 * Views into Node's 8 KiB Buffer pool are kept as they are.
 */
const PIN_SLACK_BYTES = 16 * 1024;

function pinsBuffer(op: StoreOp): boolean {
  return op.kind === 'put' && op.value.buffer.byteLength - op.value.byteLength > PIN_SLACK_BYTES;
}

function ownValue(op: StoreOp): StoreOp {
  return op.kind === 'put' && pinsBuffer(op) ? { ...op, value: Buffer.from(op.value) } : op;
}

/** The row's cells after asking `gc` about each column; the same array when nothing is collected. */
function collectRow(cells: readonly Cell[], gc: ColumnGc, nowMicros: number): readonly Cell[] {
  let out: Cell[] | undefined;
  let i = 0;
  while (i < cells.length) {
    const first = cells[i]!;
    let j = i + 1;
    while (j < cells.length && cells[j]!.family === first.family && cells[j]!.qualifier === first.qualifier) j++;
    const column = i === 0 && j === cells.length ? cells : cells.slice(i, j);
    const kept = gc(first.family, column, nowMicros);
    if (kept.length !== column.length && out === undefined) out = cells.slice(0, i);
    if (out !== undefined) for (const c of kept) out.push(c);
    i = j;
  }
  return out ?? cells;
}
