import { FLOAT64 } from '../types.js';
import type { Accumulator, AggregateFunction } from './aggregates.js';
import { resolveSignatures, signatureText } from './registry.js';

/**
 * The statistical aggregates: STDDEV(_SAMP, _POP), VAR_SAMP, VAR_POP, VARIANCE over FLOAT64 (INT64 coerces),
 * and CORR, COVAR_SAMP, COVAR_POP over pairs. Rows with a NULL input are skipped; a sample statistic of fewer
 * than two rows (a population one of none) is NULL; an infinite or NaN input makes the result NaN. Welford's
 * one-pass updates keep the sums stable.
 */

/** Running moments of pairs (x, y): count, means, sums of squared deviations and the co-moment. */
class Moments {
  n = 0;
  meanX = 0;
  meanY = 0;
  m2X = 0;
  m2Y = 0;
  co = 0;
  nonFinite = false;

  add(x: number, y: number): void {
    if (!Number.isFinite(x) || !Number.isFinite(y)) this.nonFinite = true;
    this.n++;
    const dx = x - this.meanX;
    this.meanX += dx / this.n;
    const dy = y - this.meanY;
    this.meanY += dy / this.n;
    this.m2X += dx * (x - this.meanX);
    this.m2Y += dy * (y - this.meanY);
    this.co += dx * (y - this.meanY);
  }
}

function statistic(name: string, pairs: boolean, value: (m: Moments) => number | null): AggregateFunction {
  const sigs = [{ params: pairs ? [FLOAT64, FLOAT64] : [FLOAT64], result: FLOAT64 }];
  return {
    name,
    signatureText: signatureText(name, sigs),
    resolve: (args) => resolveSignatures(sigs, args),
    create: (): Accumulator => {
      const m = new Moments();
      return {
        add: ([x, y]) => {
          if (x === null || x === undefined || (pairs && (y === null || y === undefined))) return;
          m.add(x as number, pairs ? (y as number) : (x as number));
        },
        result: () => {
          const v = value(m);
          return v === null ? null : m.nonFinite ? NaN : v;
        },
      };
    },
  };
}

const sampleVariance = (m: Moments): number | null => (m.n < 2 ? null : m.m2X / (m.n - 1));
const populationVariance = (m: Moments): number | null => (m.n < 1 ? null : m.m2X / m.n);
const root = (v: number | null): number | null => (v === null ? null : Math.sqrt(v));

export const STATISTICAL_AGGREGATES: readonly AggregateFunction[] = [
  statistic('VAR_SAMP', false, sampleVariance),
  statistic('VARIANCE', false, sampleVariance),
  statistic('VAR_POP', false, populationVariance),
  statistic('STDDEV_SAMP', false, (m) => root(sampleVariance(m))),
  statistic('STDDEV', false, (m) => root(sampleVariance(m))),
  statistic('STDDEV_POP', false, (m) => root(populationVariance(m))),
  statistic('COVAR_SAMP', true, (m) => (m.n < 2 ? null : m.co / (m.n - 1))),
  statistic('COVAR_POP', true, (m) => (m.n < 1 ? null : m.co / m.n)),
  statistic('CORR', true, (m) => (m.n < 2 ? null : m.co / Math.sqrt(m.m2X * m.m2Y))),
];
