import type { ByteString } from '../../model/bytes.js';
import { type Cell, NO_LABELS } from '../../model/cell.js';
import type { ColumnRef, StoreOp } from '../store.js';

/** One column's versions, oldest first, so that a newer version is an append. */
interface Column {
  readonly family: string;
  readonly qualifier: ByteString;
  readonly versions: Cell[];
}

/**
 * A row's cells kept column by column and changed in place: the cells of a
 * row written many times between flushes (a counter, a hot row), for
 * MemRow's incremental cache. Applying a write costs what the write touches:
 * a newer version of a column is appended, a put at the newest timestamp
 * replaces it. A flat array copied on every write cost O(versions) per
 * write, and the garbage of those copies dominated read-modify-write on a
 * hot row.
 *
 * Nothing handed out is ever changed: `cells()` builds a fresh array (kept
 * until the next change), and `newest` returns cells, which are immutable.
 * The result of applying ops is exactly that of `applyStoreOps`.
 */
export class RowCache {
  /** Columns in storage order (family, then qualifier); none is empty. */
  private readonly columns: Column[] = [];
  private flat: readonly Cell[] | undefined;

  /** A cache holding `cells` (storage order: family, qualifier, timestamp descending). */
  constructor(cells: readonly Cell[]) {
    let column: Column | undefined;
    for (let i = cells.length - 1; i >= 0; i--) {
      const c = cells[i]!;
      if (column === undefined || column.family !== c.family || column.qualifier !== c.qualifier) {
        column = { family: c.family, qualifier: c.qualifier, versions: [] };
        this.columns.push(column);
      }
      column.versions.push(c);
    }
    this.columns.reverse();
    this.flat = cells;
  }

  /** Applies ops in order, with applyStoreOps' semantics (a put at an existing coordinate replaces the cell). */
  apply(ops: readonly StoreOp[]): void {
    for (const op of ops) {
      switch (op.kind) {
        case 'put':
          this.put({ family: op.family, qualifier: op.qualifier, timestamp: op.timestamp, value: op.value, labels: NO_LABELS });
          break;
        case 'deleteColumn': {
          const at = this.find(op.family, op.qualifier);
          if (at < 0) break;
          const { versions } = this.columns[at]!;
          const { start, end } = op;
          const kept = versions.filter((c) => c.timestamp < start || (end !== undefined && c.timestamp >= end));
          if (kept.length === versions.length) break;
          if (kept.length === 0) this.columns.splice(at, 1);
          else this.columns[at] = { family: op.family, qualifier: op.qualifier, versions: kept };
          this.flat = undefined;
          break;
        }
        case 'deleteFamily': {
          const before = this.columns.length;
          let w = 0;
          for (const col of this.columns) if (col.family !== op.family) this.columns[w++] = col;
          this.columns.length = w;
          if (w !== before) this.flat = undefined;
          break;
        }
        case 'deleteRow':
          if (this.columns.length > 0) {
            this.columns.length = 0;
            this.flat = undefined;
          }
          break;
      }
    }
  }

  /** The row's cells in storage order. */
  cells(): readonly Cell[] {
    if (this.flat !== undefined) return this.flat;
    const out: Cell[] = [];
    for (const { versions } of this.columns) for (let i = versions.length - 1; i >= 0; i--) out.push(versions[i]!);
    this.flat = out;
    return out;
  }

  /** The newest cell of each listed column that has one, in storage order, each column once. */
  newest(columns: readonly ColumnRef[]): Cell[] {
    const found = new Set<number>();
    for (const { family, qualifier } of columns) {
      const at = this.find(family, qualifier);
      if (at >= 0) found.add(at);
    }
    return [...found]
      .sort((a, b) => a - b)
      .map((at) => {
        const { versions } = this.columns[at]!;
        return versions[versions.length - 1]!;
      });
  }

  private put(c: Cell): void {
    this.flat = undefined;
    let at = this.find(c.family, c.qualifier);
    if (at < 0) {
      this.columns.splice(-at - 1, 0, { family: c.family, qualifier: c.qualifier, versions: [c] });
      return;
    }
    const { versions } = this.columns[at]!;
    const last = versions[versions.length - 1]!;
    if (c.timestamp > last.timestamp) {
      versions.push(c);
      return;
    }
    // Binary search: the first version not older than c.
    let lo = 0;
    let hi = versions.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (versions[mid]!.timestamp < c.timestamp) lo = mid + 1;
      else hi = mid;
    }
    at = lo;
    if (versions[at]!.timestamp === c.timestamp) versions[at] = c;
    else versions.splice(at, 0, c);
  }

  /** The index of the column, or -(insertion point) - 1 when it has no versions. */
  private find(family: string, qualifier: ByteString): number {
    let lo = 0;
    let hi = this.columns.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const col = this.columns[mid]!;
      const before = col.family !== family ? col.family < family : col.qualifier < qualifier;
      if (before) lo = mid + 1;
      else hi = mid;
    }
    const col = this.columns[lo];
    return col !== undefined && col.family === family && col.qualifier === qualifier ? lo : -lo - 1;
  }
}
