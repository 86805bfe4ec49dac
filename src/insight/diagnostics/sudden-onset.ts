import { ADVICE } from '../advice.js';
import { rangeText } from '../key-range-json.js';
import {
  type DiagnosticContext,
  type DiagnosticRule,
  bucketsKeyRange,
  diagnostic,
  fmt,
  median,
  narrowRun,
  rates,
  round,
  stepsRange,
  sumRange,
  timeText,
} from './context.js';

/**
 * Slices the key axis is cut into: an onset is judged per slice of ~5% of
 * the buckets, not per bucket, because new rows in a table of one bucket per
 * row each look like a bucket waking up; an even load then has every slice
 * near the median, none at 10 times it.
 */
const SLICES = 20;
/** The reported range: the fewest buckets of the slices that carry this share of their ops after the onset. */
const CARRY = 0.9;

/**
 * A sudden increase in a key range: a slice of the axis is quiet (below
 * `onsetQuietShare` of its level after the onset) for `onsetColumns` steps
 * while the rest of the table is not (at least `onsetMinOpsPerSecond`: a
 * table that starts all at once has no range onset), then busy (at least
 * `onsetFactor` times that step's median slice, and `onsetMinOpsPerSecond`)
 * for as many. Adjacent slices that start within a step of each other are one
 * range, trimmed to the buckets that carry the new load.
 */
export const suddenOnset: DiagnosticRule = (ctx) => {
  const ops = rates(ctx, 'read_ops', 'write_ops');
  if (ops.length < 2 * ctx.thresholds.onsetColumns) return [];
  const cuts = slices(ops[0]!.length);
  const series = ops.map((row) => cuts.map(([a, b]) => sumRange(row, a, b)));
  const ranges: { first: number; last: number; step: number }[] = [];
  cuts.forEach(([a, b], i) => {
    const step = onsetOf(ctx, series, i);
    if (step === undefined) return;
    const prev = ranges[ranges.length - 1];
    if (prev !== undefined && prev.last === a - 1 && Math.abs(prev.step - step) <= 1) {
      prev.last = b;
      prev.step = Math.min(prev.step, step);
    } else ranges.push({ first: a, last: b, step });
  });
  return ranges
    .map((r) => describe(ctx, ops, ...carried(ops, r.first, r.last, r.step), r.step))
    .sort((a, b) => Number(b.evidence.opsPerSecond) - Number(a.evidence.opsPerSecond))
    .slice(0, ctx.thresholds.maxPerKind);
};

/** [first, last] bucket runs of the slices. */
function slices(n: number): [number, number][] {
  const k = Math.min(n, SLICES);
  return Array.from({ length: k }, (_, i) => [Math.floor((i * n) / k), Math.floor(((i + 1) * n) / k) - 1]);
}

/** The first step at which slice `i` turns from quiet to busy while the rest of the table was already active, if it does. */
function onsetOf(ctx: DiagnosticContext, series: readonly number[][], i: number): number | undefined {
  const t = ctx.thresholds;
  const k = t.onsetColumns;
  const busy = (row: readonly number[]): boolean => row[i]! >= Math.max(t.onsetMinOpsPerSecond, t.onsetFactor * median(row));
  const restActive = (row: readonly number[]): boolean => row.reduce((s, x) => s + x, 0) - row[i]! >= t.onsetMinOpsPerSecond;
  for (let s = k; s + k <= series.length; s++) {
    const after = series.slice(s, s + k);
    if (!after.every(busy)) continue;
    const quiet = (t.onsetQuietShare * after.reduce((sum, row) => sum + row[i]!, 0)) / k;
    if (series.slice(s - k, s).every((row) => row[i]! < quiet && restActive(row))) return s;
  }
  return undefined;
}

/** The run of buckets in [first, last] that carries CARRY of the ops from `step` on (the smaller end dropped while it can). */
function carried(ops: readonly Float64Array[], first: number, last: number, step: number): [number, number] {
  const total = new Float64Array(last + 1);
  for (let s = step; s < ops.length; s++) for (let b = first; b <= last; b++) total[b]! += ops[s]![b]!;
  const [a, b] = narrowRun(total, first, last, CARRY * sumRange(total, first, last));
  return [a, b];
}

function describe(ctx: DiagnosticContext, ops: readonly Float64Array[], first: number, last: number, step: number) {
  const level = (rows: readonly Float64Array[]): number =>
    rows.length === 0 ? 0 : rows.reduce((s, row) => s + sumRange(row, first, last), 0) / rows.length;
  const keyRange = bucketsKeyRange(ctx, first, last);
  const time = stepsRange(ctx, step, ops.length - 1);
  const before = level(ops.slice(0, step));
  const rate = level(ops.slice(step));
  const message =
    `Sudden onset: keys ${rangeText(keyRange)} went from ${fmt(before)} to ${fmt(rate)} ops/s ` +
    `from ${timeText(time)}, far above the rest of the table.`;
  return diagnostic(
    'sudden_onset',
    'info',
    message,
    keyRange,
    time,
    { opsPerSecondBefore: round(before), opsPerSecond: round(rate), onset: time.from, buckets: last - first + 1 },
    ADVICE.sudden_onset,
  );
}
