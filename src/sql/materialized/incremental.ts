import { type ByteString, prefixSuccessor } from '../../model/bytes.js';
import type { Mutation, RowMutation } from '../../model/mutation.js';
import type { SqlValue } from '../types.js';
import { isEvalError } from '../values/errors.js';
import { fromStored, toStored } from './codec.js';
import { applyInPlace, contribution, groupViewKey, indexRow, project, viewCells } from './contributions.js';
import {
  addMember,
  type Contribution,
  type GroupDelta,
  type GroupState,
  inPlaceResult,
  type LiveView,
  type MaintenanceContext,
  stateCell,
} from './live-view.js';
import { cells, scan, sourceRows, write } from './view-io.js';

/** Incremental maintenance: a batch of dirty source rows moved between groups (or index rows). */

/**
 * Brings a batch of dirty source rows up to date: one read of the rows, one of what they contributed, one write
 * of the bookkeeping; then each group they left or joined once (one read of their states, one write of the
 * states and one of the view's rows).
 */
export async function applyKeys(ctx: MaintenanceContext, v: LiveView, keys: ByteString[]): Promise<void> {
  keys.sort();
  const rows = await sourceRows(ctx.db, v, keys);
  const prevs = await cells(
    ctx.db,
    v.state,
    keys.map((k) => 'r' + k),
  );
  if (v.def.kind === 'index') return applyIndexKeys(ctx, v, keys, rows, prevs);
  const entries: RowMutation[] = [];
  const deltas = new Map<ByteString, GroupDelta>();
  const delta = (c: Contribution): GroupDelta => {
    let d = deltas.get(c.g);
    if (d === undefined) deltas.set(c.g, (d = { k: c.k, removed: [], added: [] }));
    return d;
  };
  for (const key of keys) {
    const row = rows.get(key);
    const next = row === undefined ? undefined : contribution(v, key, row, ctx.leftOut);
    const prevText = prevs.get('r' + key);
    const nextText = next === undefined ? undefined : JSON.stringify(next);
    if (prevText === nextText) continue;
    const prev = prevText === undefined ? undefined : (JSON.parse(prevText) as Contribution);
    // A member that stays in its group has its arguments overwritten (one entry per row key in the batch).
    if (prev !== undefined && prev.g !== next?.g) entries.push({ key: 'g' + prev.g + key, mutations: [{ kind: 'deleteFromRow' }] });
    if (prev !== undefined) delta(prev).removed.push(prev.a);
    if (next !== undefined) {
      entries.push({ key: 'g' + next.g + key, mutations: [stateCell(JSON.stringify(next.a))] });
      entries.push({ key: 'r' + key, mutations: [stateCell(nextText!)] });
      delta(next).added.push(next.a);
    } else entries.push({ key: 'r' + key, mutations: [{ kind: 'deleteFromRow' }] });
  }
  if (entries.length === 0) return;
  await write(ctx.db, v.state, entries);
  await updateGroups(ctx, v, deltas);
}

export async function applyIndexKeys(
  ctx: MaintenanceContext,
  v: LiveView,
  keys: readonly ByteString[],
  rows: ReadonlyMap<ByteString, SqlValue[]>,
  prevs: ReadonlyMap<ByteString, string>,
): Promise<void> {
  const data: RowMutation[] = [];
  const state: RowMutation[] = [];
  for (const key of keys) {
    const row = rows.get(key);
    const next = row === undefined ? undefined : indexRow(v, key, row, ctx.leftOut);
    const prev = prevs.get('r' + key);
    // View keys end with the source row's key: no two source rows share one.
    if (prev !== undefined && prev !== next?.key) data.push({ key: prev, mutations: [{ kind: 'deleteFromRow' }] });
    if (next !== undefined) data.push({ key: next.key, mutations: viewCells(v, next.values) });
    if (next !== undefined && next.key !== prev) state.push({ key: 'r' + key, mutations: [stateCell(next.key)] });
    else if (next === undefined && prev !== undefined) state.push({ key: 'r' + key, mutations: [{ kind: 'deleteFromRow' }] });
  }
  await write(ctx.db, v.data, data);
  await write(ctx.db, v.state, state);
}

/** Takes the members that left each group out and puts those that joined in, then writes its state and view row. */
export async function updateGroups(ctx: MaintenanceContext, v: LiveView, deltas: ReadonlyMap<ByteString, GroupDelta>): Promise<void> {
  const groups = [...deltas.keys()].sort();
  const texts = await cells(
    ctx.db,
    v.state,
    groups.map((g) => 's' + g),
  );
  const stateOut: RowMutation[] = [];
  const dataOut: RowMutation[] = [];
  for (const g of groups) {
    const d = deltas.get(g)!;
    const text = texts.get('s' + g);
    const state: GroupState =
      text === undefined
        ? { k: [...d.k], n: 0, acc: v.def.inPlace.map((p) => (p ? { c: '0', v: '0' } : null)) }
        : (JSON.parse(text) as GroupState);
    for (const a of d.removed) {
      state.n--;
      applyInPlace(v, state, a, -1n);
    }
    for (const a of d.added) {
      state.n++;
      applyInPlace(v, state, a, 1n);
    }
    const keyValues = state.k.map(fromStored);
    const viewKey = groupViewKey(v, g, keyValues);
    if (state.n <= 0) {
      stateOut.push({ key: 's' + g, mutations: [{ kind: 'deleteFromRow' }] });
      if (viewKey !== undefined) dataOut.push({ key: viewKey, mutations: [{ kind: 'deleteFromRow' }] });
      continue;
    }
    let cells: Mutation[] | undefined;
    try {
      const results = await groupResults(ctx, v, g, d, state);
      cells = viewCells(v, project(v, keyValues, results));
      state.r = results.map((x, i) => (v.def.inPlace[i] ? null : toStored(x)));
    } catch (e) {
      if (!isEvalError(e)) throw e;
      // An aggregate overflowed: the group has no row (its members stay, and it comes back once it fits).
      ctx.leftOut(v, 'group', viewKey ?? g, e);
      delete state.r;
    }
    stateOut.push({ key: 's' + g, mutations: [stateCell(JSON.stringify(state))] });
    if (viewKey !== undefined) dataOut.push({ key: viewKey, mutations: cells ?? [{ kind: 'deleteFromRow' }] });
  }
  await write(ctx.db, v.state, stateOut);
  await write(ctx.db, v.data, dataOut);
}

/** A group's aggregate results after a batch: in place, folded into its last results, or from its members. */
export async function groupResults(
  ctx: MaintenanceContext,
  v: LiveView,
  g: ByteString,
  d: GroupDelta,
  state: GroupState,
): Promise<SqlValue[]> {
  const agg = v.def.analyzed.aggregate!;
  const results: SqlValue[] = agg.aggregates.map((a, i) => (v.def.inPlace[i] ? inPlaceResult(a.fn.name, state.acc[i]!) : null));
  const last = state.r;
  if (d.removed.length === 0 && last !== undefined && v.def.inPlace.every((p, i) => p || v.def.mergeable[i])) {
    // The group only gained members: they fold into its last results, no member need be read.
    agg.aggregates.forEach((a, i) => {
      if (v.def.inPlace[i]) return;
      const acc = a.fn.create(a.type);
      acc.add([fromStored(last[i] ?? null)]);
      for (const added of d.added) acc.add(added[i]!.map(fromStored));
      results[i] = acc.result();
    });
  } else if (v.def.inPlace.some((p) => !p)) {
    const accs = agg.aggregates.map((a, i) => (v.def.inPlace[i] ? undefined : a.fn.create(a.type)));
    const prefix = 'g' + g;
    for await (const member of scan(ctx.db, v.state, { start: prefix, end: prefixSuccessor(prefix) })) addMember(accs, member);
    accs.forEach((acc, i) => {
      if (acc !== undefined) results[i] = acc.result();
    });
  }
  return results;
}
