import type { ByteString } from '../../model/bytes.js';
import type { DiagnosticJson, DiagnosticKind, KeyRangeJson, Severity } from '../api-types.js';
import type { Counter } from '../column.js';
import { type ColumnGroup, type TimeGrid, groupColumns, timeGrid } from '../heatmap-query.js';
import { bucketsRange, keyRangeJson } from '../key-range-json.js';
import { type QueryWindow, iso } from '../query-window.js';
import type { DiagnosticThresholds } from './thresholds.js';

/**
 * What every diagnostic reads: the window's columns on the heatmap's time
 * grid (re-binned onto the newest boundary set, at most 720 steps), and what
 * the recording knows of rows now.
 */
export interface DiagnosticContext {
  readonly window: QueryWindow;
  readonly grid: TimeGrid;
  /** One per step of the grid; undefined where nothing was recorded. */
  readonly steps: readonly (ColumnGroup | undefined)[];
  readonly thresholds: DiagnosticThresholds;
  readonly largestRows: readonly { readonly key: ByteString; readonly bytes: number }[];
  readonly hotRows: readonly ByteString[];
  /** Real row keys (HistorySource.keySamples); empty when none were taken. */
  readonly keySamples: readonly ByteString[];
}

/** A diagnostic rule: what it finds in the context, the largest first. */
export type DiagnosticRule = (ctx: DiagnosticContext) => DiagnosticJson[];

export function diagnosticContext(
  window: QueryWindow,
  thresholds: DiagnosticThresholds,
  largestRows: DiagnosticContext['largestRows'],
  hotRows: readonly ByteString[],
  keySamples: readonly ByteString[] = [],
): DiagnosticContext {
  const grid = timeGrid(window);
  return { window, grid, steps: groupColumns(window, grid), thresholds, largestRows, hotRows, keySamples };
}

export function bucketCount(ctx: DiagnosticContext): number {
  return ctx.window.set.starts.length;
}

/** Per step, per bucket, the per-second rate of the sum of `counters` (zeros for a step without recording). */
export function rates(ctx: DiagnosticContext, ...counters: Counter[]): Float64Array[] {
  const n = bucketCount(ctx);
  return ctx.steps.map((g) => {
    const out = new Float64Array(n);
    if (g === undefined) return out;
    for (const c of counters) {
      const a = g.sum.counters[c];
      for (let b = 0; b < n; b++) out[b]! += a[b]! / g.seconds;
    }
    return out;
  });
}

/** Per bucket, the window's total of `counter`. */
export function totals(ctx: DiagnosticContext, counter: Counter): Float64Array {
  const out = new Float64Array(bucketCount(ctx));
  for (const g of ctx.steps) {
    if (g === undefined) continue;
    const a = g.sum.counters[counter];
    for (let b = 0; b < out.length; b++) out[b]! += a[b]!;
  }
  return out;
}

/** The whole window. */
export function windowRange(ctx: DiagnosticContext): DiagnosticJson['timeRange'] {
  return { from: iso(ctx.window.fromMillis), to: iso(ctx.window.toMillis) };
}

/** Steps first..last (inclusive) of the grid as a time range. */
export function stepsRange(ctx: DiagnosticContext, first: number, last: number): DiagnosticJson['timeRange'] {
  const { firstMillis, stepMillis } = ctx.grid;
  const from = Math.max(ctx.window.fromMillis, firstMillis + first * stepMillis);
  const to = Math.min(ctx.window.toMillis, firstMillis + (last + 1) * stepMillis);
  return { from: iso(from), to: iso(to) };
}

export function bucketsKeyRange(ctx: DiagnosticContext, first: number, last: number): KeyRangeJson {
  return bucketsRange(ctx.window.set, first, last);
}

export function wholeTable(): KeyRangeJson {
  return keyRangeJson('', undefined);
}

/** A diagnostic with its fields in order. */
export function diagnostic(
  kind: DiagnosticKind,
  severity: Severity,
  message: string,
  keyRange: KeyRangeJson,
  timeRange: DiagnosticJson['timeRange'],
  evidence: DiagnosticJson['evidence'],
  advice?: string,
): DiagnosticJson {
  return advice === undefined
    ? { kind, severity, message, keyRange, timeRange, evidence }
    : { kind, severity, message, keyRange, timeRange, evidence, advice };
}

/** Maximal runs [first, last] of consecutive indexes where `test` holds. */
export function runs(n: number, test: (i: number) => boolean): [number, number][] {
  const out: [number, number][] = [];
  let start = -1;
  for (let i = 0; i <= n; i++) {
    const on = i < n && test(i);
    if (on && start < 0) start = i;
    if (!on && start >= 0) {
      out.push([start, i - 1]);
      start = -1;
    }
  }
  return out;
}

/** Sum of a[first..last]. */
export function sumRange(a: ArrayLike<number>, first: number, last: number): number {
  let s = 0;
  for (let i = first; i <= last; i++) s += a[i]!;
  return s;
}

/**
 * Narrows [first, last] by dropping the smaller end while what remains still
 * sums to `keep`: the fewest buckets that carry a load. Returns the run and its sum.
 */
export function narrowRun(values: ArrayLike<number>, first: number, last: number, keep: number): [number, number, number] {
  let sum = sumRange(values, first, last);
  while (first < last && sum - Math.min(values[first]!, values[last]!) >= keep) {
    if (values[first]! <= values[last]!) sum -= values[first++]!;
    else sum -= values[last--]!;
  }
  return [first, last, sum];
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Rounds a figure for messages and evidence: 3 significant digits, whole numbers from 100 up. */
export function round(x: number): number {
  if (!Number.isFinite(x)) return x;
  if (Math.abs(x) >= 100) return Math.round(x);
  return Number(x.toPrecision(3));
}

/** A figure for a message: grouped thousands (1,234), 3 significant digits below 100. */
export function fmt(x: number): string {
  return round(x).toLocaleString('en-US');
}

export function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

/** "08:01:10 to 08:16:10 UTC" (dates shown when the window spans days). */
export function timeText(range: DiagnosticJson['timeRange']): string {
  const sameDay = range.from.slice(0, 10) === range.to.slice(0, 10);
  const t = (s: string): string => (sameDay ? s.slice(11, 19) : `${s.slice(0, 10)} ${s.slice(11, 19)}`);
  return `${t(range.from)} to ${t(range.to)} UTC`;
}
