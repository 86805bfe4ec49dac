/** Summaries of one figure over several runs. */

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly n: number;
}

/** Median, min and max of the finite values; undefined when there are none. */
export function spread(values: readonly number[]): Spread | undefined {
  const xs = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const n = xs.length;
  if (n === 0) return undefined;
  const mid = Math.floor(n / 2);
  const median = n % 2 === 1 ? (xs[mid] as number) : ((xs[mid - 1] as number) + (xs[mid] as number)) / 2;
  return { median, min: xs[0] as number, max: xs[n - 1] as number, n };
}

/** a / b, or undefined when either is missing or b is zero. */
export function ratio(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return undefined;
  return a / b;
}
