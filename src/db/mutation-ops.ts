import { addToAggregate, mergeAggregate } from '../model/aggregate/index.js';
import type { Cell } from '../model/cell.js';
import { type Mutation, SERVER_TIME } from '../model/mutation.js';
import { applyStoreOps } from '../storage/row-ops.js';
import type { StoreOp } from '../storage/store.js';
import type { Schema } from './schema.js';

/** True when the mutations need the row's current cells (aggregates fold into them). */
export function needsCurrentRow(mutations: readonly Mutation[]): boolean {
  for (const m of mutations) if (m.kind === 'addToCell' || m.kind === 'mergeToCell') return true;
  return false;
}

/**
 * Resolves validated mutations into store operations:
 *  - SetCell at SERVER_TIME (-1) gets `nowMicros` (already truncated to ms);
 *  - AddToCell / MergeToCell fold into the cell at their (family, qualifier,
 *    timestamp) and become a put of the folded value.
 * `current` (the row's visible cells, storage order) is needed only when
 * `needsCurrentRow(mutations)`; earlier mutations of the list are applied to
 * it as we go, so two AddToCells on one cell both count.
 */
export function storeOpsFor(
  schema: Schema,
  mutations: readonly Mutation[],
  nowMicros: number,
  current: readonly Cell[] | undefined,
): StoreOp[] {
  // The bulk-load case, one SetCell: an array of exactly one (a push into [] allocates room for 17).
  const only = mutations.length === 1 ? mutations[0]! : undefined;
  if (only?.kind === 'setCell')
    return [
      {
        kind: 'put',
        family: only.family,
        qualifier: only.qualifier,
        timestamp: only.timestamp === SERVER_TIME ? nowMicros : only.timestamp,
        value: only.value,
      },
    ];
  const ops: StoreOp[] = [];
  let working = current;
  for (const m of mutations) {
    let op: StoreOp;
    switch (m.kind) {
      case 'setCell':
        op = {
          kind: 'put',
          family: m.family,
          qualifier: m.qualifier,
          timestamp: m.timestamp === SERVER_TIME ? nowMicros : m.timestamp,
          value: m.value,
        };
        break;
      case 'deleteFromColumn':
        op = { kind: 'deleteColumn', family: m.family, qualifier: m.qualifier, start: m.start, end: m.end };
        break;
      case 'deleteFromFamily':
        op = { kind: 'deleteFamily', family: m.family };
        break;
      case 'deleteFromRow':
        op = { kind: 'deleteRow' };
        break;
      case 'addToCell':
      case 'mergeToCell': {
        if (working === undefined) throw new Error('storeOpsFor: aggregate mutations need the current row');
        const family = schema.family(m.family);
        if (family === undefined) throw new Error(`storeOpsFor: family ${m.family} was not validated`);
        const existing = findCell(working, m.family, m.qualifier, m.timestamp)?.value;
        const value =
          m.kind === 'addToCell'
            ? addToAggregate(family.valueType, existing, m.input)
            : mergeAggregate(family.valueType, existing, m.input);
        if (value === undefined || value === existing) continue;
        op = { kind: 'put', family: m.family, qualifier: m.qualifier, timestamp: m.timestamp, value };
        break;
      }
    }
    ops.push(op);
    if (working !== undefined) working = applyStoreOps(working, [op]);
  }
  return ops;
}

/** The cell at exactly (family, qualifier, timestamp) in storage-ordered cells. */
export function findCell(cells: readonly Cell[], family: string, qualifier: string, timestamp: number): Cell | undefined {
  for (const c of cells) if (c.family === family && c.qualifier === qualifier && c.timestamp === timestamp) return c;
  return undefined;
}

/** The newest cell of a column in storage-ordered cells (versions are newest first). */
export function latestCell(cells: readonly Cell[], family: string, qualifier: string): Cell | undefined {
  for (const c of cells) if (c.family === family && c.qualifier === qualifier) return c;
  return undefined;
}
