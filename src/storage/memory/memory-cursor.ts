import type { ByteString } from '../../model/bytes.js';
import type { Row } from '../../model/cell.js';
import type { KeyRange } from '../../model/key-range.js';
import type { RowCursor } from '../store.js';
import type { RowTree, StoredRow } from './row-tree.js';

/**
 * A cursor over a snapshot (a clone) of a memory store's tree, forward or
 * reverse within `[range.start, range.end)`. Rows are produced one at a time
 * from the tree's own iterator: nothing is materialised.
 */
export class MemoryCursor implements RowCursor {
  private iter: Iterator<[ByteString, StoredRow]> | undefined;

  constructor(
    tree: RowTree,
    private readonly range: KeyRange,
    private readonly reverse: boolean,
  ) {
    const empty = range.end !== undefined && range.end <= range.start;
    if (empty) this.iter = undefined;
    else if (reverse) this.iter = tree.entriesReversed(range.end, undefined, true);
    else this.iter = tree.entries(range.start);
  }

  next(): Row | undefined {
    const it = this.iter;
    if (it === undefined) return undefined;
    const r = it.next();
    if (r.done === true) return this.finish();
    const [key, row] = r.value;
    if (this.reverse ? key < this.range.start : this.range.end !== undefined && key >= this.range.end) return this.finish();
    return row;
  }

  close(): void {
    this.iter = undefined;
  }

  private finish(): undefined {
    this.iter = undefined;
    return undefined;
  }
}
