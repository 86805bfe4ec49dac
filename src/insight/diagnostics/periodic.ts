import { ADVICE } from '../advice.js';
import { rangeText } from '../key-range-json.js';
import { type DiagnosticRule, bucketsKeyRange, diagnostic, fmt, rates, round, windowRange, timeText } from './context.js';

/** Ranges the axis is cut into for the per-range check (after the whole table). */
const RANGES = 10;

/**
 * Periodic activity ("alternating bands of dark and bright colors ... a
 * batch job"): the ops of the whole table, else of a tenth of the key axis,
 * correlate with themselves at some lag (≥ `periodicCorrelation`, the first
 * peak after the correlation turned negative) with at least
 * `periodicCycles` periods in the window.
 */
export const periodic: DiagnosticRule = (ctx) => {
  const ops = rates(ctx, 'read_ops', 'write_ops');
  const n = ops[0]?.length ?? 0;
  if (n === 0) return [];
  const cuts = [[0, n - 1] as const, ...tenths(n)];
  for (const [first, last] of cuts) {
    const series = ops.map((row) => row.slice(first, last + 1).reduce((s, x) => s + x, 0));
    const found = period(series, ctx.thresholds.periodicCorrelation, ctx.thresholds.periodicCycles);
    if (found === undefined) continue;
    const keyRange = bucketsKeyRange(ctx, first, last);
    const seconds = (found.lag * ctx.grid.stepMillis) / 1000;
    const time = windowRange(ctx);
    const where = first === 0 && last === n - 1 ? 'The table' : `Keys ${rangeText(keyRange)}`;
    const message =
      `Periodic activity: ${where} ${first === 0 && last === n - 1 ? 'is' : 'are'} busy about every ${duration(seconds)} ` +
      `(${fmt(series.length / found.lag)} periods, ${timeText(time)}; peaks of ${fmt(Math.max(...series))} ops/s, ` +
      `autocorrelation ${fmt(found.correlation)}): a job that runs on a schedule.`;
    return [
      diagnostic(
        'periodic',
        'info',
        message,
        keyRange,
        time,
        {
          periodSeconds: seconds,
          correlation: round(found.correlation),
          periods: round(series.length / found.lag),
          peakOpsPerSecond: round(Math.max(...series)),
        },
        ADVICE.periodic,
      ),
    ];
  }
  return [];
};

function tenths(n: number): (readonly [number, number])[] {
  if (n < RANGES) return [];
  return Array.from({ length: RANGES }, (_, i) => [Math.floor((i * n) / RANGES), Math.floor(((i + 1) * n) / RANGES) - 1] as const);
}

/** The lag of the first autocorrelation peak after it turned negative, if it reaches `min` with `cycles` periods in the series. */
export function period(series: readonly number[], min: number, cycles: number): { lag: number; correlation: number } | undefined {
  const m = series.reduce((s, x) => s + x, 0) / series.length;
  const d = series.map((x) => x - m);
  const variance = d.reduce((s, x) => s + x * x, 0);
  if (variance <= 0 || m <= 0) return undefined;
  const r = (lag: number): number => {
    let s = 0;
    for (let i = 0; i + lag < d.length; i++) s += d[i]! * d[i + lag]!;
    // Normalised per overlapping pair, so that long lags are not damped.
    return (s / (d.length - lag)) * (d.length / variance);
  };
  const maxLag = Math.floor(series.length / cycles);
  let lag = 1;
  while (lag <= maxLag && r(lag) >= 0) lag++;
  let best: { lag: number; correlation: number } | undefined;
  for (; lag <= maxLag; lag++) {
    const c = r(lag);
    if (best !== undefined && c < best.correlation) break;
    if (c >= min && (best === undefined || c > best.correlation)) best = { lag, correlation: c };
  }
  return best;
}

function duration(seconds: number): string {
  if (seconds < 120) return `${fmt(seconds)} s`;
  if (seconds < 7200) return `${fmt(seconds / 60)} min`;
  return `${fmt(seconds / 3600)} h`;
}
