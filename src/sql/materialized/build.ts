import type { ByteString } from '../../model/bytes.js';
import { FULL_RANGE } from '../../model/key-range.js';
import type { RowMutation } from '../../model/mutation.js';
import type { TableName } from '../../model/names.js';
import type { Accumulator } from '../functions/index.js';
import { isEvalError } from '../values/errors.js';
import { fromStored, toStored } from './codec.js';
import { applyInPlace, contribution, groupViewKey, indexRow, project, viewCells } from './contributions.js';
import { BATCH, type GroupState, inPlaceResult, type LiveView, type MaintenanceContext, stateCell } from './live-view.js';
import { scan, scanValues, write } from './view-io.js';

/** Building a view from scratch: one scan of the source table into a generation's tables. */

export async function fillView(
  ctx: MaintenanceContext,
  v: LiveView,
  target: { readonly data: TableName; readonly state: TableName },
): Promise<void> {
  const state: RowMutation[] = [];
  const data: RowMutation[] = [];
  const flush = async (force: boolean): Promise<void> => {
    const full = state.length >= BATCH || data.length >= BATCH;
    if (force || state.length >= BATCH) await write(ctx.db, target.state, state.splice(0));
    if (force || data.length >= BATCH) await write(ctx.db, target.data, data.splice(0));
    if (full || force) await ctx.onBuildBatch?.(v.info.name.id);
  };
  const agg = v.def.analyzed.aggregate;
  const groups = new Map<ByteString, { state: GroupState; accs: (Accumulator | undefined)[]; failed?: unknown }>();
  for await (const row of scan(ctx.db, v.def.source, FULL_RANGE, v)) {
    const values = scanValues(v, row);
    if (agg === undefined) {
      const index = indexRow(v, row.key, values, ctx.leftOut);
      if (index === undefined) continue;
      data.push({ key: index.key, mutations: viewCells(v, index.values) });
      state.push({ key: 'r' + row.key, mutations: [stateCell(index.key)] });
    } else {
      const c = contribution(v, row.key, values, ctx.leftOut);
      if (c === undefined) continue;
      state.push({ key: 'r' + row.key, mutations: [stateCell(JSON.stringify(c))] });
      state.push({ key: 'g' + c.g + row.key, mutations: [stateCell(JSON.stringify(c.a))] });
      let group = groups.get(c.g);
      if (group === undefined) {
        group = {
          state: { k: [...c.k], n: 0, acc: v.def.inPlace.map((p) => (p ? { c: '0', v: '0' } : null)) },
          accs: agg.aggregates.map((a, i) => (v.def.inPlace[i] ? undefined : a.fn.create(a.type))),
        };
        groups.set(c.g, group);
      }
      group.state.n++;
      applyInPlace(v, group.state, c.a, 1n);
      try {
        if (group.failed === undefined) group.accs.forEach((acc, i) => acc?.add(c.a[i]!.map(fromStored)));
      } catch (e) {
        if (!isEvalError(e)) throw e;
        group.failed = e;
      }
    }
    await flush(false);
  }
  if (agg !== undefined) {
    for (const [g, group] of groups) {
      const keys = group.state.k.map(fromStored);
      const viewKey = groupViewKey(v, g, keys);
      try {
        if (group.failed !== undefined) throw group.failed;
        const results = agg.aggregates.map((a, i) =>
          v.def.inPlace[i] ? inPlaceResult(a.fn.name, group.state.acc[i]!) : group.accs[i]!.result(),
        );
        const cells = viewCells(v, project(v, keys, results));
        group.state.r = results.map((x, i) => (v.def.inPlace[i] ? null : toStored(x)));
        if (viewKey !== undefined) data.push({ key: viewKey, mutations: cells });
      } catch (e) {
        if (!isEvalError(e)) throw e;
        ctx.leftOut(v, 'group', viewKey ?? g, e);
      }
      state.push({ key: 's' + g, mutations: [stateCell(JSON.stringify(group.state))] });
      await flush(false);
    }
  }
  await flush(true);
}
