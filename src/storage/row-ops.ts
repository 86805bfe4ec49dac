import { type Cell, NO_LABELS, cellSize, compareCells } from '../model/cell.js';
import type { ByteString } from '../model/bytes.js';
import { collectColumn } from '../model/gc.js';
import type { GcRule } from '../model/gc-rule.js';
import type { ColumnGc, ColumnRef, StoreOp } from './store.js';

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

/**
 * applyStoreOps plus the row's size afterwards (rowBytes), given its size
 * before: a single put (the common write, and every read-modify-write)
 * adjusts the size by the cell it adds or replaces instead of summing the
 * whole row, which for a row with many versions would cost a pass per write.
 */
export function applyStoreOpsSized(
  key: ByteString,
  cells: readonly Cell[],
  bytesBefore: number,
  ops: readonly StoreOp[],
): { cells: readonly Cell[]; bytes: number } {
  const op = ops[0];
  if (ops.length === 1 && op !== undefined && op.kind === 'put') {
    const c = putCell(op);
    const at = positionOf(cells, c);
    const replaced = at < cells.length && compareCells(cells[at]!, c) === 0 ? cells[at]! : undefined;
    const base = cells.length === 0 ? key.length : bytesBefore;
    return {
      cells: insertAt(cells, c, at, replaced !== undefined),
      bytes: base + cellSize(c) - (replaced === undefined ? 0 : cellSize(replaced)),
    };
  }
  const after = applyStoreOps(cells, ops);
  return { cells: after, bytes: after === cells ? bytesBefore : rowBytes(key, after) };
}

/** Bytes a row accounts for: its key plus its cells. */
export function rowBytes(key: ByteString, cells: readonly Cell[]): number {
  let n = key.length;
  for (const c of cells) n += cellSize(c);
  return n;
}

/** The newest cell of each listed column that has one, in storage order, each column once. */
export function newestOfColumns(cells: readonly Cell[], columns: readonly ColumnRef[]): Cell[] {
  const found = new Set<number>();
  for (const { family, qualifier } of columns) {
    // The newest version sorts first in its column: probe above any timestamp.
    const at = positionOf(cells, { family, qualifier, timestamp: Number.MAX_VALUE, value: EMPTY, labels: NO_LABELS });
    const c = cells[at];
    if (c !== undefined && c.family === family && c.qualifier === qualifier) found.add(at);
  }
  return [...found].sort((a, b) => a - b).map((at) => cells[at]!);
}

const EMPTY = new Uint8Array(0);

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
  const at = positionOf(cells, c);
  return insertAt(cells, c, at, at < cells.length && compareCells(cells[at]!, c) === 0);
}

/** The first index whose cell does not sort before `c`. */
function positionOf(cells: readonly Cell[], c: Cell): number {
  let lo = 0;
  let hi = cells.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareCells(cells[mid]!, c) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A copy of `cells` with `c` at `at`, replacing the cell there or inserted before it. */
function insertAt(cells: readonly Cell[], c: Cell, at: number, replace: boolean): readonly Cell[] {
  const out = cells.slice();
  if (replace) out[at] = c;
  else out.splice(at, 0, c);
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

/** The ColumnGc of a table's rules as of now (see GcRules): cells of families the rules lack go. */
export function columnGcOf(rules: ReadonlyMap<string, GcRule | undefined>): ColumnGc {
  return (family, cells, now) => (rules.has(family) ? collectColumn(rules.get(family), cells, now) : []);
}
