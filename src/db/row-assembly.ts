import type { Cell } from '../model/cell.js';
import type { GcRule } from '../model/gc-rule.js';
import { collectColumn } from '../model/gc.js';
import type { Schema } from './schema.js';

/**
 * Turns a stored row's cells (storage order: family name, qualifier,
 * timestamp descending) into what a reader may see:
 *  - cells of families no longer in the schema are dropped (a dropped
 *    family's data may still be on its way out of storage);
 *  - read-time GC: each column keeps what its family's GC rule keeps at `now`;
 *  - with `order: 'output'`, families are put in creation order.
 * Returns the input array itself when nothing changes, which is the common
 * case (one family, no GC rule) and costs no allocation.
 */
export function visibleCells(cells: readonly Cell[], schema: Schema, nowMicros: number, order: 'output' | 'storage'): readonly Cell[] {
  const n = cells.length;
  if (n === 0) return cells;
  const firstFamily = cells[0]!.family;
  if (cells[n - 1]!.family === firstFamily) {
    // One family: nothing to reorder.
    if (schema.order(firstFamily) === undefined) return [];
    return collectFamily(cells, schema.gcRule(firstFamily), nowMicros);
  }

  const runs: { order: number; cells: readonly Cell[] }[] = [];
  let changed = false;
  let i = 0;
  while (i < n) {
    const family = cells[i]!.family;
    let j = i + 1;
    while (j < n && cells[j]!.family === family) j++;
    const familyOrder = schema.order(family);
    if (familyOrder === undefined) {
      changed = true;
    } else {
      const run = cells.slice(i, j);
      const kept = collectFamily(run, schema.gcRule(family), nowMicros);
      if (kept !== run) changed = true;
      if (kept.length > 0) runs.push({ order: familyOrder, cells: kept });
    }
    i = j;
  }
  if (order === 'output') {
    for (let k = 1; k < runs.length; k++) {
      if (runs[k - 1]!.order > runs[k]!.order) {
        runs.sort((a, b) => a.order - b.order);
        changed = true;
        break;
      }
    }
  }
  if (!changed) return cells;
  const out: Cell[] = [];
  for (const r of runs) for (const c of r.cells) out.push(c);
  return out;
}

/** The cells of one family (qualifier ascending, timestamp descending) after GC; the same array when nothing is collected. */
function collectFamily(cells: readonly Cell[], rule: GcRule | undefined, nowMicros: number): readonly Cell[] {
  if (rule === undefined) return cells;
  let out: Cell[] | undefined;
  const n = cells.length;
  let i = 0;
  while (i < n) {
    const qualifier = cells[i]!.qualifier;
    let j = i + 1;
    while (j < n && cells[j]!.qualifier === qualifier) j++;
    const column = i === 0 && j === n ? cells : cells.slice(i, j);
    const kept = collectColumn(rule, column, nowMicros);
    if (kept.length !== column.length && out === undefined) out = cells.slice(0, i);
    if (out !== undefined) for (const c of kept) out.push(c);
    i = j;
  }
  return out ?? cells;
}
