import type { ByteString } from '../model/bytes.js';
import { invalidArgument } from '../model/errors.js';
import type { TableName } from '../model/names.js';
import { type HeatmapBucketJson, type HeatmapJson, type HeatmapRequest, METRIC_UNITS, METRICS, type Metric } from './api-types.js';
import { type Column, addInto, newColumn } from './column.js';
import type { HistorySource } from './history-source.js';
import type { BoundarySet } from './key-buckets.js';
import { keyHierarchy } from './key-hierarchy.js';
import { bucketsRange } from './key-range-json.js';
import { type Levels, type QueryWindow, elapsedSeconds, iso, loadWindow } from './query-window.js';

/** Columns a heatmap has at most: beyond, adjacent columns are summed. */
export const MAX_HEATMAP_COLUMNS = 720;

/** Throws InvalidArgument naming the allowed values unless `metric` is one. */
export function checkMetric(metric: string): asserts metric is Metric {
  if (!(METRICS as readonly string[]).includes(metric)) {
    throw invalidArgument(`unknown metric '${metric}': use one of ${METRICS.join(', ')}`);
  }
}

/**
 * The heatmap of `request.metric` over the table's key buckets and the time
 * window: the finest tier that still holds `from`, at most
 * MAX_HEATMAP_COLUMNS columns, every column over the newest boundary set in
 * the window, the buckets of the key range asked for.
 */
export async function heatmap(source: HistorySource, table: TableName, request: HeatmapRequest): Promise<HeatmapJson> {
  checkMetric(request.metric);
  const w = await loadWindow(source, table, request.fromMillis, request.toMillis);
  const selected = bucketsInRange(w.set, request.startKey, request.endKey);
  const grid = timeGrid(w);
  const groups = groupColumns(w, grid);
  const values = groups.map((g) => (g === undefined ? selected.map(() => null) : metricValues(request.metric, g, selected)));
  return {
    table: table.table,
    metric: request.metric,
    unit: METRIC_UNITS[request.metric],
    resolutionSeconds: grid.stepMillis / 1000,
    from: iso(w.fromMillis),
    to: iso(w.toMillis),
    times: groups.map((_, i) => iso(grid.firstMillis + i * grid.stepMillis)),
    buckets: selected.map((b) => bucketJson(w.set, b)),
    values,
    hierarchy: keyHierarchy(selected.map((b) => representativeKey(w, b))),
    approximate: w.set.estimated,
    live: w.toMillis >= w.nowMillis - w.tier.millis,
  };
}

/** The indexes of the buckets of `set` that overlap [startKey, endKey) (empty or undefined ends are open). */
export function bucketsInRange(set: BoundarySet, startKey?: ByteString, endKey?: ByteString): number[] {
  const out: number[] = [];
  const n = set.starts.length;
  for (let i = 0; i < n; i++) {
    const next = set.starts[i + 1];
    if (startKey !== undefined && next !== undefined && next <= startKey) continue;
    if (endKey !== undefined && endKey !== '' && set.starts[i]! >= endKey) break;
    out.push(i);
  }
  return out;
}

/** The heatmap's time axis: columns of the tier, `factor` of them summed into each step. */
export interface TimeGrid {
  readonly firstMillis: number;
  readonly stepMillis: number;
  readonly steps: number;
}

export function timeGrid(w: Pick<QueryWindow, 'fromMillis' | 'toMillis' | 'tier'>, maxColumns = MAX_HEATMAP_COLUMNS): TimeGrid {
  const ms = w.tier.millis;
  const firstMillis = Math.floor(w.fromMillis / ms) * ms;
  const columns = Math.max(1, Math.ceil((w.toMillis - firstMillis) / ms));
  const factor = Math.ceil(columns / maxColumns);
  return { firstMillis, stepMillis: factor * ms, steps: Math.ceil(columns / factor) };
}

/** One step of the heatmap: the sum of the columns that fall in it, with their elapsed seconds and the newest levels. */
export interface ColumnGroup {
  readonly sum: Column;
  seconds: number;
  levels: Levels;
}

/** The window's columns summed per step; undefined for a step without any recorded column. */
export function groupColumns(w: QueryWindow, grid: TimeGrid): (ColumnGroup | undefined)[] {
  const groups = new Array<ColumnGroup | undefined>(grid.steps).fill(undefined);
  w.columns.forEach((c, k) => {
    const step = Math.floor((c.startMillis - grid.firstMillis) / grid.stepMillis);
    if (step < 0 || step >= grid.steps) return;
    const g = (groups[step] ??= { sum: newColumn(c.startMillis, grid.stepMillis, c.setId, c.buckets), seconds: 0, levels: w.levels[k]! });
    addInto(g.sum, c);
    g.seconds += elapsedSeconds(c, w.nowMillis);
    g.levels = w.levels[k]!;
  });
  return groups;
}

/** The metric's value per selected bucket: per-second rates for counts, ms for latency, levels for sizes. */
export function metricValues(metric: Metric, g: ColumnGroup, buckets: readonly number[]): number[] {
  const c = g.sum.counters;
  const rate = (a: Float64Array) => (b: number) => a[b]! / g.seconds;
  const latency = (q: number | 'max') => (b: number) => {
    const s = g.sum.latency[b];
    return s === undefined ? 0 : (q === 'max' ? s.max : s.quantile(q)) / 1000;
  };
  const per: Record<Metric, (b: number) => number> = {
    ops: (b) => (c.read_ops[b]! + c.write_ops[b]!) / g.seconds,
    read_ops: rate(c.read_ops),
    write_ops: rate(c.write_ops),
    read_bytes: rate(c.read_bytes),
    write_bytes: rate(c.write_bytes),
    rows_read: rate(c.rows_read),
    rows_returned: rate(c.rows_returned),
    cells_returned: rate(c.cells_returned),
    scan_ratio: (b) => scanRatio(c.rows_read[b]!, c.rows_returned[b]!),
    serving_micros: rate(c.serving_micros),
    latency_p50: latency(0.5),
    latency_p99: latency(0.99),
    latency_max: latency('max'),
    max_row_bytes: (b) => g.sum.maxRowBytes[b]!,
    stored_bytes: (b) => g.levels.bytes[b]!,
    rows: (b) => g.levels.rows[b]!,
  };
  return buckets.map(per[metric]);
}

/** Rows read per row returned; rows read when nothing was returned (api-types: ∞ shown as rows_read). */
export function scanRatio(rowsRead: number, rowsReturned: number): number {
  return rowsReturned > 0 ? rowsRead / rowsReturned : rowsRead;
}

function bucketJson(set: BoundarySet, b: number): HeatmapBucketJson {
  return { ...bucketsRange(set, b, b), rows: set.rows[b] ?? 0, bytes: set.bytes[b] ?? 0 };
}

/** The first key of bucket `b`: its start, or for a first bucket starting at '' the lowest key a column saw there. */
function representativeKey(w: QueryWindow, b: number): ByteString | undefined {
  const start = w.set.starts[b]!;
  if (start !== '') return start;
  const seen = w.columns.map((c) => c.firstEdge?.min).filter((k) => k !== undefined);
  return seen.length === 0 ? undefined : seen.reduce((a, k) => (k < a ? k : a));
}
