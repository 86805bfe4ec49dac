import { type ByteString, keySuccessor, printable } from '../../model/bytes.js';
import { ADVICE } from '../advice.js';
import type { DiagnosticJson, KeyRangeJson } from '../api-types.js';
import { keyRangeJson } from '../key-range-json.js';
import { rangeText } from '../key-range-json.js';
import {
  type DiagnosticContext,
  type DiagnosticRule,
  bucketCount,
  bucketsKeyRange,
  diagnostic,
  fmt,
  percent,
  rates,
  round,
  runs,
  stepsRange,
  narrowRun,
  sumRange,
  timeText,
} from './context.js';

/**
 * High read / write pressure (Google: "some key ranges in the table
 * experienced high read [write] pressure"): a contiguous range of at most
 * `hotRangeShare` of the buckets takes at least `hotOpsShare` of the table's
 * ops, at `hotMinOpsPerSecond` or more, in at least `hotColumns` steps.
 * Danger when a single row carries it.
 */
export const highWritePressure: DiagnosticRule = (ctx) => pressure(ctx, 'write');
export const highReadPressure: DiagnosticRule = (ctx) => pressure(ctx, 'read');

/**
 * A hot range takes at least this many times its share of the buckets: in
 * tables of a few rows, where one bucket is more than `hotRangeShare` of the
 * rows, an even load does not make each row "hot".
 */
const MIN_LIFT = 4;

/** A step's hot range [first, last] with its ops per second. */
interface HotStep {
  readonly step: number;
  readonly first: number;
  readonly last: number;
}

function pressure(ctx: DiagnosticContext, side: 'read' | 'write'): DiagnosticJson[] {
  const ops = rates(ctx, side === 'read' ? 'read_ops' : 'write_ops');
  const hot = ops.flatMap((row, step) => hotRange(ctx, row, step) ?? []);
  const cover = new Array<number>(bucketCount(ctx)).fill(0);
  for (const h of hot) for (let b = h.first; b <= h.last; b++) cover[b]!++;
  const ranges = runs(cover.length, (b) => cover[b]! >= ctx.thresholds.hotColumns);
  return ranges
    .map(([first, last]) =>
      describe(
        ctx,
        side,
        ops,
        first,
        last,
        hot.filter((h) => h.first <= last && h.last >= first),
      ),
    )
    .sort((a, b) => Number(b.evidence.opsPerSecond) - Number(a.evidence.opsPerSecond))
    .slice(0, ctx.thresholds.maxPerKind);
}

/** The hot range of one step, if any: the busiest window of the allowed width, trimmed to what keeps the share. */
function hotRange(ctx: DiagnosticContext, row: Float64Array, step: number): HotStep | undefined {
  const t = ctx.thresholds;
  const total = sumRange(row, 0, row.length - 1);
  if (total <= 0) return undefined;
  const width = Math.max(1, Math.floor(t.hotRangeShare * row.length));
  let best = 0;
  let window = 0;
  let bestSum = -1;
  for (let b = 0; b < row.length; b++) {
    window += row[b]! - (b >= width ? row[b - width]! : 0);
    if (b >= width - 1 && window > bestSum) [best, bestSum] = [b - width + 1, window];
  }
  const keep = t.hotOpsShare * total;
  const [first, last, sum] = narrowRun(row, best, Math.min(row.length - 1, best + width - 1), keep);
  const lift = sum / total / ((last - first + 1) / row.length);
  if (sum < keep || sum < t.hotMinOpsPerSecond || lift < MIN_LIFT) return undefined;
  return { step, first, last };
}

function describe(
  ctx: DiagnosticContext,
  side: 'read' | 'write',
  ops: Float64Array[],
  first: number,
  last: number,
  steps: readonly HotStep[],
): DiagnosticJson {
  const hotSteps = steps.map((h) => h.step);
  const inRange = hotSteps.reduce((s, k) => s + sumRange(ops[k]!, first, last), 0) / hotSteps.length;
  const table = hotSteps.reduce((s, k) => s + sumRange(ops[k]!, 0, ops[k]!.length - 1), 0) / hotSteps.length;
  const serving = hotSteps.reduce((s, k) => s + servingRate(ctx, k, first, last), 0) / hotSteps.length;
  const time = stepsRange(ctx, Math.min(...hotSteps), Math.max(...hotSteps));
  const row = singleRow(ctx, first, last, hotSteps);
  const key = row?.key;
  const keyRange: KeyRangeJson = key === undefined ? bucketsKeyRange(ctx, first, last) : keyRangeJson(key, keySuccessor(key));
  const what = side === 'read' ? 'reads' : 'writes';
  const where =
    row === undefined
      ? `Keys ${rangeText(keyRange)}`
      : key === undefined
        ? `A single row (the only one in keys ${rangeText(keyRange)})`
        : `The single row "${printable(key)}"`;
  const message =
    `High ${side} pressure: some key ranges in the table experienced high ${side} pressure. ` +
    `${where} took ${percent(inRange / table)} of the table's ${what} (${fmt(inRange)} ops/s) in ` +
    `${hotSteps.length} of ${ctx.steps.length} columns, ${timeText(time)}.`;
  const evidence = {
    share: round(inRange / table),
    opsPerSecond: round(inRange),
    tableOpsPerSecond: round(table),
    columns: hotSteps.length,
    buckets: last - first + 1,
    servingMicrosPerSecond: round(serving),
    pressureIndex: round((100 * serving) / ctx.thresholds.nodeMicrosPerSecond),
    singleRow: row !== undefined,
    ...(key === undefined ? {} : { key: printable(key) }),
  };
  const kind = side === 'read' ? 'high_read_pressure' : 'high_write_pressure';
  return diagnostic(
    kind,
    row === undefined ? 'warning' : 'danger',
    message,
    keyRange,
    time,
    evidence,
    ADVICE[row === undefined ? kind : 'hot_row'],
  );
}

function servingRate(ctx: DiagnosticContext, step: number, first: number, last: number): number {
  const g = ctx.steps[step];
  return g === undefined ? 0 : sumRange(g.sum.counters.serving_micros, first, last) / g.seconds;
}

/**
 * The row that carries a hot range, when one does: a hot row the tablet
 * manager names inside it, else the one key an edge bucket saw, else a
 * bucket that holds one row (its key unknown: a boundary is the shortest key
 * above the row before, not always the row's own).
 */
function singleRow(ctx: DiagnosticContext, first: number, last: number, steps: readonly number[]): { key?: ByteString } | undefined {
  const { set } = ctx.window;
  const lo = set.starts[first]!;
  const hi = set.starts[last + 1];
  const named = ctx.hotRows.find((k) => k >= lo && (hi === undefined || k < hi));
  if (named !== undefined) return { key: named };
  if (first !== last) return undefined;
  const edge = edgeKey(ctx, first, steps);
  if (edge !== undefined) return { key: edge };
  return set.rows[first] === 1 && !set.estimated ? {} : undefined;
}

/**
 * The single key edge bucket `b` (0 or the last) saw: the one key of at
 * least half of the hot steps' edge spans, inside all of them (a column
 * re-binned from a coarser set may carry a wider span).
 */
function edgeKey(ctx: DiagnosticContext, b: number, steps: readonly number[]): ByteString | undefined {
  const n = bucketCount(ctx);
  if (b !== 0 && b !== n - 1) return undefined;
  const spans = steps.map((k) => {
    const sum = ctx.steps[k]?.sum;
    return b === 0 ? sum?.firstEdge : sum?.lastEdge;
  });
  const points = spans.filter((s) => s !== undefined && s.min === s.max).map((s) => s!.min);
  const key = points.sort()[points.length >> 1];
  if (key === undefined || points.filter((p) => p === key).length * 2 < spans.length) return undefined;
  return spans.every((s) => s !== undefined && s.min <= key && key <= s.max) ? key : undefined;
}
