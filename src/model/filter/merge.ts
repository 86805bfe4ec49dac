import type { Cell } from '../cell.js';

/**
 * Merges sorted runs of cells into one sorted run, keeping duplicates.
 * Stable: among cells that compare equal, earlier runs come first, and each
 * run keeps its own order. Returns the only run itself when there is one.
 */
export function mergeSortedRuns(runs: readonly (readonly Cell[])[], compare: (a: Cell, b: Cell) => number): readonly Cell[] {
  if (runs.length === 0) return EMPTY_RUN;
  let merged = runs[0]!;
  for (let r = 1; r < runs.length; r++) merged = mergeTwo(merged, runs[r]!, compare);
  return merged;
}

const EMPTY_RUN: readonly Cell[] = Object.freeze([]);

function mergeTwo(a: readonly Cell[], b: readonly Cell[], compare: (x: Cell, y: Cell) => number): readonly Cell[] {
  if (b.length === 0) return a;
  if (a.length === 0) return b;
  const out: Cell[] = new Array<Cell>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) {
    // `<= 0` keeps a's cell first on ties: stability.
    if (compare(a[i]!, b[j]!) <= 0) out[k++] = a[i++]!;
    else out[k++] = b[j++]!;
  }
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}
