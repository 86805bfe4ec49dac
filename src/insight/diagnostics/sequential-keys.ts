import { ADVICE } from '../advice.js';
import type { DiagnosticJson } from '../api-types.js';
import { rangeText } from '../key-range-json.js';
import {
  type DiagnosticContext,
  type DiagnosticRule,
  bucketsKeyRange,
  diagnostic,
  fmt,
  percent,
  rates,
  round,
  stepsRange,
  timeText,
} from './context.js';

/**
 * A short load into a small table fills a large part of the key axis per
 * column: with `n` active columns a diagonal's band is about 1/n of the axis,
 * so the band allowed is the larger of `sequentialBucketShare` and
 * BAND_COLUMNS / n, at most MAX_BAND_SHARE (an even load needs most buckets
 * for most of its writes, far beyond it).
 */
const BAND_COLUMNS = 1.5;
const MAX_BAND_SHARE = 0.25;

/**
 * A diagonal band: sequentially increasing (or decreasing) keys, such as a
 * leading timestamp. At least `sequentialColumns` steps each put
 * `sequentialConcentration` of their writes into at most
 * `sequentialBucketShare` of the buckets (see BAND_COLUMNS), and the write-weighted median
 * bucket of those steps moves one way in `sequentialMonotone` of the steps and
 * by `sequentialTravel` of the key axis overall.
 */
export const sequentialKeys: DiagnosticRule = (ctx) => {
  const t = ctx.thresholds;
  const writes = rates(ctx, 'write_ops');
  const active = writes.filter((row) => row.some((x) => x > 0)).length;
  const band = Math.min(MAX_BAND_SHARE, Math.max(t.sequentialBucketShare, BAND_COLUMNS / active));
  const hot = writes.flatMap((row, step) => concentrated(ctx, row, step, band) ?? []);
  if (hot.length < t.sequentialColumns) return [];
  let up = 0;
  let down = 0;
  for (let i = 1; i < hot.length; i++) {
    const d = hot[i]!.median - hot[i - 1]!.median;
    if (d > 1e-9) up++;
    else if (d < -1e-9) down++;
  }
  const steps = hot.length - 1;
  const first = hot[0]!;
  const last = hot[hot.length - 1]!;
  const travel = (last.median - first.median) / writes[0]!.length;
  if (Math.max(up, down) < t.sequentialMonotone * steps || Math.abs(travel) < t.sequentialTravel) return [];
  if ((travel > 0 ? up : down) < t.sequentialMonotone * steps) return [];
  return [describe(ctx, hot, travel > 0 ? up / steps : down / steps)];
};

/** One step whose writes sit in a few buckets: their span and the write-weighted median bucket. */
interface Concentrated {
  readonly step: number;
  readonly first: number;
  readonly last: number;
  readonly median: number;
  readonly writesPerSecond: number;
}

function concentrated(ctx: DiagnosticContext, row: Float64Array, step: number, band: number): Concentrated | undefined {
  const t = ctx.thresholds;
  const total = row.reduce((s, x) => s + x, 0);
  if (total <= 0) return undefined;
  const order = Array.from(row.keys()).sort((a, b) => row[b]! - row[a]!);
  const allowed = Math.max(1, Math.ceil(band * row.length));
  let taken = 0;
  let used = 0;
  while (taken < t.sequentialConcentration * total && used < order.length) taken += row[order[used++]!]!;
  if (used > allowed) return undefined;
  const top = order.slice(0, used);
  const [first, last] = [Math.min(...top), Math.max(...top)];
  // One band, not several spots far apart (salted timestamps draw parallel diagonals, one per salt).
  if (last - first + 1 > 2 * allowed) return undefined;
  // The band's range is all of its lit run, not just the buckets that carry most of it (writes spread evenly over
  // the rows they made leave a fifth of the band outside the top buckets).
  let lo = first;
  let hi = last;
  while (lo > 0 && row[lo - 1]! > 0) lo--;
  while (hi + 1 < row.length && row[hi + 1]! > 0) hi++;
  return { step, first: lo, last: hi, median: weightedMedian(row, total), writesPerSecond: total };
}

/** The bucket position (fractional) below which half of the row's weight lies. */
function weightedMedian(row: Float64Array, total: number): number {
  let seen = 0;
  for (let b = 0; b < row.length; b++) {
    const w = row[b]!;
    if (w > 0 && seen + w >= total / 2) return b + (total / 2 - seen) / w;
    seen += w;
  }
  return row.length;
}

function describe(ctx: DiagnosticContext, hot: readonly Concentrated[], oneWay: number): DiagnosticJson {
  const first = hot[0]!;
  const last = hot[hot.length - 1]!;
  const rising = last.median > first.median;
  const time = stepsRange(ctx, first.step, last.step);
  const minutes = Math.max(1e-9, (Date.parse(time.to) - Date.parse(time.from)) / 60_000);
  const slope = (last.median - first.median) / minutes;
  const firstRange = bucketsKeyRange(ctx, first.first, first.last);
  const lastRange = bucketsKeyRange(ctx, last.first, last.last);
  const keyRange = rising ? bucketsKeyRange(ctx, first.first, last.last) : bucketsKeyRange(ctx, last.first, first.last);
  const meanRate = hot.reduce((s, h) => s + h.writesPerSecond, 0) / hot.length;
  const message =
    `Sequential keys: writes moved steadily ${rising ? 'up' : 'down'} the key space, from ${rangeText(firstRange)} ` +
    `to ${rangeText(lastRange)}, ${timeText(time)} (${hot.length} columns, ${fmt(Math.abs(slope))} buckets/min, ` +
    `${fmt(meanRate)} writes/s): a diagonal band, the mark of keys that ${rising ? 'increase' : 'decrease'} with time, ` +
    `such as a leading timestamp. Each moment's writes all go to one tablet.`;
  return diagnostic(
    'sequential_keys',
    'warning',
    message,
    keyRange,
    time,
    {
      direction: rising ? 'increasing' : 'decreasing',
      columns: hot.length,
      oneWayShare: round(oneWay),
      slopeBucketsPerMinute: round(slope),
      firstRange: rangeText(firstRange),
      lastRange: rangeText(lastRange),
      writesPerSecond: round(meanRate),
      concentratedShare: percent(ctx.thresholds.sequentialConcentration),
    },
    ADVICE.sequential_keys,
  );
}
