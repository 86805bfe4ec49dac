import { type ByteString, fromBytes, fromUtf8, toBytes } from '../../model/bytes.js';
import type { Mutation } from '../../model/mutation.js';
import { evaluate } from '../bound/evaluate.js';
import { BYTES, type SqlValue } from '../types.js';
import { isEvalError } from '../values/errors.js';
import { cellBytes, fromStored, keyOf, keyPart, toStored } from './codec.js';
import { type Contribution, DATA_FAMILY, ENV, type GroupState, type LeftOut, type LiveView, setCell } from './live-view.js';

/** What a source row contributes to a view, and the view rows made of it: pure functions of the view. */

/** Whether the row passes WHERE (a row whose expressions fail to evaluate is left out of the view). */
export function passes(v: LiveView, row: SqlValue[]): boolean {
  const where = v.def.analyzed.where;
  return where === undefined || evaluate(where, row, ENV) === true;
}

export function contribution(v: LiveView, key: ByteString, row: SqlValue[], leftOut: LeftOut): Contribution | undefined {
  const agg = v.def.analyzed.aggregate!;
  try {
    if (!passes(v, row)) return undefined;
    const keys = agg.groups.map((g) => evaluate(g, row, ENV));
    const args = agg.aggregates.map((a) => a.args.map((x) => toStored(evaluate(x, row, ENV))));
    return { g: keyOf(keys, v.groupTypes), k: keys.map(toStored), a: args };
  } catch (e) {
    if (isEvalError(e)) return leftOut(v, 'source row', key, e);
    throw e;
  }
}

/** An index view's row for a source row: its key and cells, or undefined when the row is not in the view. */
export function indexRow(
  v: LiveView,
  key: ByteString,
  row: SqlValue[],
  leftOut: LeftOut,
): { key: ByteString; values: SqlValue[] } | undefined {
  const q = v.def.analyzed;
  try {
    if (!passes(v, row)) return undefined;
    const values = q.projection.slice(0, q.columns.length).map((p) => evaluate(p, row, ENV));
    const keyValues = v.def.resultIndex.slice(0, v.def.keyColumns).map((i) => values[i]!);
    const keyTypes = v.def.columns.slice(0, v.def.keyColumns).map((c) => c.type);
    return { key: keyOf(keyValues, keyTypes) + keyPart(new Uint8Array(toBytes(key)), BYTES), values };
  } catch (e) {
    if (isEvalError(e)) return leftOut(v, 'source row', key, e);
    throw e;
  }
}

export function applyInPlace(v: LiveView, state: GroupState, args: Contribution['a'], sign: bigint): void {
  const agg = v.def.analyzed.aggregate!;
  agg.aggregates.forEach((a, i) => {
    const s = state.acc[i];
    if (s === null || s === undefined) return;
    const x = args[i]?.[0] === undefined ? undefined : fromStored(args[i]![0]!);
    if (a.fn.name !== '$count_star' && (x === null || x === undefined)) return;
    s.c = (BigInt(s.c) + sign).toString();
    if (a.fn.name === 'SUM') s.v = (BigInt(s.v) + sign * (x as bigint)).toString();
    else if (a.fn.name === 'BIT_XOR') s.v = BigInt.asIntN(64, BigInt(s.v) ^ (x as bigint)).toString();
  });
}

/** The result columns of a group: the query's projection over `[group keys..., aggregate results...]`. */
export function project(v: LiveView, keys: readonly SqlValue[], results: readonly SqlValue[]): SqlValue[] {
  const q = v.def.analyzed;
  const row = [...keys, ...results];
  return q.projection.slice(0, q.columns.length).map((p) => evaluate(p, row, ENV));
}

/** A group's row key in `data`: its raw `_key` (none when NULL or empty), else its encoding. */
export function groupViewKey(v: LiveView, g: ByteString, keys: readonly SqlValue[]): ByteString | undefined {
  if (!v.def.rawKey) return g;
  const k = keys[0] ?? null;
  if (k === null) return undefined;
  const raw = typeof k === 'string' ? fromUtf8(k) : fromBytes(k as Uint8Array);
  return raw === '' ? undefined : raw;
}

/** A view row's mutations: clear the row, then one cell per non-NULL column (the raw key has none). */
export function viewCells(v: LiveView, values: readonly SqlValue[]): Mutation[] {
  const out: Mutation[] = [{ kind: 'deleteFromRow' }];
  v.def.columns.forEach((c, j) => {
    if (j === 0 && v.def.rawKey) return;
    const bytes = cellBytes(values[v.def.resultIndex[j]!]!, c.type);
    if (bytes !== undefined) out.push(setCell(DATA_FAMILY, fromUtf8(c.name), bytes));
  });
  return out;
}
