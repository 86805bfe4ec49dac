/**
 * Value → colour index. Colours are relative, as in the Key Visualizer: the
 * ceiling is the 99th percentile of the positive values in view, so one
 * outlier does not leave everything else black; values at or above it are
 * white. `log` spreads LOG_DECADES decades below the ceiling over the ramp.
 * Brightness is a gamma: 1 is neutral, above 1 lifts the dim cells.
 */
import { RAMP_SIZE } from './colour-ramp.js';

export type ScaleMode = 'linear' | 'log';

export interface ColourScale {
  /** The value drawn white (and everything above it). 0: nothing in view is positive. */
  readonly ceiling: number;
  readonly mode: ScaleMode;
  /** Gamma, > 0; 1 is neutral. */
  readonly brightness: number;
}

export const LOG_DECADES = 3;

/** The p-th percentile (0..100, nearest rank) of the positive values; 0 when there are none. */
export function positivePercentile(values: readonly (readonly (number | null)[])[], p: number): number {
  const positive: number[] = [];
  for (const column of values) for (const v of column) if (v !== null && v > 0) positive.push(v);
  if (positive.length === 0) return 0;
  positive.sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * positive.length);
  return positive[Math.min(positive.length, Math.max(1, rank)) - 1]!;
}

/** The ramp entry for a value: 0 (black) for zero, negative or no ceiling; RAMP_SIZE - 1 at or above the ceiling. */
export function rampIndex(value: number, scale: ColourScale): number {
  if (!(value > 0) || !(scale.ceiling > 0)) return 0;
  let t = scale.mode === 'linear' ? value / scale.ceiling : 1 + Math.log10(value / scale.ceiling) / LOG_DECADES;
  t = Math.min(1, Math.max(0, t));
  t = t ** (1 / scale.brightness);
  // Any positive value gets at least the first step above black, so that activity is never invisible.
  return Math.max(1, Math.round(t * (RAMP_SIZE - 1)));
}
