import { invalidArgument } from '../model/errors.js';
import type { TableName } from '../model/names.js';
import type { Column } from './column.js';
import type { HistorySource } from './history-source.js';
import type { BoundarySet } from './key-buckets.js';
import { rebinColumn, rebinLevels } from './rebin.js';
import { type TierSpec, retentionStart } from './tiers.js';

/**
 * What the heatmap and the diagnostics look at: one table's columns of one
 * tier over a time window, all re-binned onto the table's newest boundary set.
 */
export interface QueryWindow {
  readonly table: TableName;
  readonly fromMillis: number;
  readonly toMillis: number;
  readonly nowMillis: number;
  readonly tier: TierSpec;
  /** The target boundary set: the table's current one, or a newer one a column in the window names. */
  readonly set: BoundarySet;
  /** Ascending by start, each over `set`. */
  readonly columns: readonly Column[];
  /** Per column, rows and stored bytes per bucket of the set it was recorded over, moved onto `set`. */
  readonly levels: readonly Levels[];
}

export interface Levels {
  readonly rows: readonly number[];
  readonly bytes: readonly number[];
}

/** Throws InvalidArgument unless [fromMillis, toMillis) is a non-empty window of finite times. */
export function checkWindow(fromMillis: number, toMillis: number): void {
  if (!Number.isFinite(fromMillis) || !Number.isFinite(toMillis)) {
    throw invalidArgument(`the time window needs two valid times, got from=${fromMillis} to=${toMillis}`);
  }
  if (fromMillis >= toMillis) {
    throw invalidArgument(`the time window is empty: from (${iso(fromMillis)}) must be before to (${iso(toMillis)})`);
  }
}

/** The finest tier whose retention still covers `fromMillis` (the coarsest when none does). */
export function chooseTier(tiers: readonly TierSpec[], nowMillis: number, fromMillis: number): number {
  const i = tiers.findIndex((t) => retentionStart(t, nowMillis) <= fromMillis);
  return i === -1 ? tiers.length - 1 : i;
}

/** Loads and re-bins the table's columns over [fromMillis, toMillis). */
export async function loadWindow(source: HistorySource, table: TableName, fromMillis: number, toMillis: number): Promise<QueryWindow> {
  checkWindow(fromMillis, toMillis);
  const nowMillis = source.nowMillis();
  const tierIndex = chooseTier(source.tiers, nowMillis, fromMillis);
  const raw = await source.columns(table, tierIndex, fromMillis, toMillis);
  const sets = new Map<number, BoundarySet>();
  for (const c of raw) {
    if (sets.has(c.setId)) continue;
    const s = await source.boundarySet(table, c.setId);
    if (s !== undefined) sets.set(c.setId, s);
  }
  const known = raw.filter((c) => sets.has(c.setId));
  // The table's current set when it is newer than every column's: the set made after a load's last column is the
  // one that knows that column's rows (else the column stays a line on the last bucket).
  const current = await source.currentBoundaries(table);
  const newest = known.length > 0 ? sets.get(Math.max(...known.map((c) => c.setId)))! : current;
  const set = current.setId > newest.setId ? current : newest;
  const levelsOf = memo((id: number) => levelsOnto(sets.get(id)!, set));
  return {
    table,
    fromMillis,
    toMillis,
    nowMillis,
    tier: source.tiers[tierIndex]!,
    set,
    columns: known.map((c) => (c.setId === set.setId ? c : rebinColumn(c, sets.get(c.setId)!, set))),
    levels: known.map((c) => levelsOf(c.setId)),
  };
}

function levelsOnto(from: BoundarySet, onto: BoundarySet): Levels {
  if (from.setId === onto.setId) return { rows: onto.rows, bytes: onto.bytes };
  return { rows: rebinLevels(from.rows, from, onto), bytes: rebinLevels(from.bytes, from, onto) };
}

function memo<V>(f: (id: number) => V): (id: number) => V {
  const cache = new Map<number, V>();
  return (id) => {
    let v = cache.get(id);
    if (v === undefined) cache.set(id, (v = f(id)));
    return v;
  };
}

/** Seconds of a column that have passed by `nowMillis` (the open column counts only its elapsed part; at least 1 ms). */
export function elapsedSeconds(column: Column, nowMillis: number): number {
  return Math.max(1, Math.min(column.durationMillis, nowMillis - column.startMillis)) / 1000;
}

export function iso(millis: number): string {
  return new Date(millis).toISOString();
}
