import { ADVICE } from '../advice.js';
import { rangeText } from '../key-range-json.js';
import {
  type DiagnosticContext,
  type DiagnosticRule,
  bucketsKeyRange,
  diagnostic,
  fmt,
  median,
  rates,
  round,
  stepsRange,
  timeText,
} from './context.js';

/**
 * A sudden increase in a key range: quiet (below `onsetQuietShare` of its
 * level after the onset) for `onsetColumns` steps, then busy (at least
 * `onsetFactor` times that step's median bucket, and `onsetMinOpsPerSecond`)
 * for as many. Adjacent buckets that start within a step of each other are
 * one range. A load that starts everywhere at once is not a range's onset.
 */
export const suddenOnset: DiagnosticRule = (ctx) => {
  const ops = rates(ctx, 'read_ops', 'write_ops');
  if (ops.length < 2 * ctx.thresholds.onsetColumns) return [];
  const busy = ops.map((row) => busyLevel(ctx, row));
  const onsets = Array.from({ length: ops[0]!.length }, (_, b) => onsetOf(ctx, ops, busy, b));
  const ranges: { first: number; last: number; step: number }[] = [];
  onsets.forEach((step, b) => {
    if (step === undefined) return;
    const prev = ranges[ranges.length - 1];
    if (prev !== undefined && prev.last === b - 1 && Math.abs(prev.step - step) <= 1) {
      prev.last = b;
      prev.step = Math.min(prev.step, step);
    } else ranges.push({ first: b, last: b, step });
  });
  return ranges
    .map((r) => describe(ctx, ops, r.first, r.last, r.step))
    .sort((a, b) => Number(b.evidence.opsPerSecond) - Number(a.evidence.opsPerSecond))
    .slice(0, ctx.thresholds.maxPerKind);
};

function busyLevel(ctx: DiagnosticContext, row: Float64Array): number {
  const t = ctx.thresholds;
  return Math.max(t.onsetMinOpsPerSecond, t.onsetFactor * median(Array.from(row)));
}

/** The first step at which bucket `b` turns from quiet to busy, if it does. */
function onsetOf(ctx: DiagnosticContext, ops: Float64Array[], busy: number[], b: number): number | undefined {
  const k = ctx.thresholds.onsetColumns;
  for (let s = k; s + k <= ops.length; s++) {
    let after = 0;
    let ok = true;
    for (let i = s; ok && i < s + k; i++) {
      ok = ops[i]![b]! >= busy[i]!;
      after += ops[i]![b]!;
    }
    const quiet = (ctx.thresholds.onsetQuietShare * after) / k;
    for (let i = s - k; ok && i < s; i++) ok = ops[i]![b]! < quiet;
    if (ok) return s;
  }
  return undefined;
}

function describe(ctx: DiagnosticContext, ops: Float64Array[], first: number, last: number, step: number) {
  const after = ops.slice(step);
  const before = ops.slice(0, step);
  const level = (rows: Float64Array[]): number =>
    rows.length === 0 ? 0 : rows.reduce((s, row) => s + row.slice(first, last + 1).reduce((a, x) => a + x, 0), 0) / rows.length;
  const keyRange = bucketsKeyRange(ctx, first, last);
  const time = stepsRange(ctx, step, ops.length - 1);
  const rate = level(after);
  const message =
    `Sudden onset: keys ${rangeText(keyRange)} went from ${fmt(level(before))} to ${fmt(rate)} ops/s ` +
    `from ${timeText(time)}, far above the rest of the table.`;
  return diagnostic(
    'sudden_onset',
    'info',
    message,
    keyRange,
    time,
    {
      opsPerSecondBefore: round(level(before)),
      opsPerSecond: round(rate),
      onset: time.from,
      buckets: last - first + 1,
    },
    ADVICE.sudden_onset,
  );
}
