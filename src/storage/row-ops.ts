import { type Cell, NO_LABELS, cellSize, compareCells } from '../model/cell.js';
import type { ByteString } from '../model/bytes.js';
import type { StoreOp } from './store.js';

/**
 * Applying resolved row operations (StoreOp) to the cells of one row.
 * Pure functions shared by the engines (memory rows, memtables) and by the
 * database layer when it needs to know what a write will produce.
 *
 * Cells are in storage order (family, qualifier, timestamp descending) with
 * no two cells at the same (family, qualifier, timestamp). A put at an
 * existing coordinate replaces that cell.
 */

/** The row's cells after `ops`, in order. Returns `cells` itself when nothing changed. */
export function applyStoreOps(cells: readonly Cell[], ops: readonly StoreOp[]): readonly Cell[] {
  let current = cells;
  let i = 0;
  while (i < ops.length) {
    const op = ops[i]!;
    if (op.kind === 'put') {
      // Runs of puts are merged in one pass.
      let j = i + 1;
      while (j < ops.length && ops[j]!.kind === 'put') j++;
      current = mergePuts(current, ops, i, j);
      i = j;
    } else {
      current = applyDelete(current, op);
      i++;
    }
  }
  return current;
}

/** Bytes a row accounts for: its key plus its cells. */
export function rowBytes(key: ByteString, cells: readonly Cell[]): number {
  let n = key.length;
  for (const c of cells) n += cellSize(c);
  return n;
}

function putCell(op: Extract<StoreOp, { kind: 'put' }>): Cell {
  return { family: op.family, qualifier: op.qualifier, timestamp: op.timestamp, value: op.value, labels: NO_LABELS };
}

function mergePuts(cells: readonly Cell[], ops: readonly StoreOp[], from: number, to: number): readonly Cell[] {
  if (to - from === 1) return insertCell(cells, putCell(ops[from] as Extract<StoreOp, { kind: 'put' }>));
  const puts: Cell[] = [];
  for (let k = from; k < to; k++) puts.push(putCell(ops[k] as Extract<StoreOp, { kind: 'put' }>));
  // Stable sort, then keep the last put of each coordinate (later ops win).
  puts.sort(compareCells);
  const unique: Cell[] = [];
  for (const c of puts) {
    const last = unique[unique.length - 1];
    if (last !== undefined && compareCells(last, c) === 0) unique[unique.length - 1] = c;
    else unique.push(c);
  }
  const out: Cell[] = [];
  let a = 0;
  let b = 0;
  while (a < cells.length && b < unique.length) {
    const d = compareCells(cells[a]!, unique[b]!);
    if (d < 0) out.push(cells[a++]!);
    else if (d > 0) out.push(unique[b++]!);
    else {
      out.push(unique[b++]!);
      a++;
    }
  }
  while (a < cells.length) out.push(cells[a++]!);
  while (b < unique.length) out.push(unique[b++]!);
  return out;
}

/** Inserts (or replaces) one cell, copying the array. */
function insertCell(cells: readonly Cell[], c: Cell): readonly Cell[] {
  let lo = 0;
  let hi = cells.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareCells(cells[mid]!, c) < 0) lo = mid + 1;
    else hi = mid;
  }
  const out = cells.slice();
  if (lo < cells.length && compareCells(cells[lo]!, c) === 0) out[lo] = c;
  else out.splice(lo, 0, c);
  return out;
}

function applyDelete(cells: readonly Cell[], op: Exclude<StoreOp, { kind: 'put' }>): readonly Cell[] {
  switch (op.kind) {
    case 'deleteRow':
      return cells.length === 0 ? cells : [];
    case 'deleteFamily':
      return removeWhere(cells, (c) => c.family === op.family);
    case 'deleteColumn': {
      const { family, qualifier, start, end } = op;
      return removeWhere(
        cells,
        (c) => c.family === family && c.qualifier === qualifier && c.timestamp >= start && (end === undefined || c.timestamp < end),
      );
    }
  }
}

function removeWhere(cells: readonly Cell[], drop: (c: Cell) => boolean): readonly Cell[] {
  let first = -1;
  for (let i = 0; i < cells.length; i++) {
    if (drop(cells[i]!)) {
      first = i;
      break;
    }
  }
  if (first < 0) return cells;
  const out = cells.slice(0, first);
  for (let i = first + 1; i < cells.length; i++) if (!drop(cells[i]!)) out.push(cells[i]!);
  return out;
}
