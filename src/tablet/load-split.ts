import type { ByteString } from '../model/bytes.js';

/**
 * Choosing where to split a tablet by load, from the keys requests touched
 * (a reservoir sample): the candidate that best balances the samples left
 * and right of it, as TiKV's load-base-split does. When one key takes most of
 * the samples, no split can divide the load: that is a single-row hotspot,
 * reported as such instead of split.
 */
export type LoadSplitDecision =
  | { readonly kind: 'split'; readonly at: ByteString; readonly balance: number }
  | { readonly kind: 'single-row-hotspot'; readonly key: ByteString; readonly share: number }
  | { readonly kind: 'none'; readonly reason: string };

/** Fewer samples than this say too little to act on. */
export const MIN_SAMPLES = 20;
/** A key with at least this share of the samples is a single-row hotspot (the default of config.hotRowShare). */
export const HOT_ROW_SHARE = 0.5;
/** Splits that leave more than this share on one side are not worth it. */
export const MAX_SIDE_SHARE = 0.8;

export function chooseLoadSplit(
  samples: readonly ByteString[],
  range: { readonly start: ByteString },
  hotRowShare = HOT_ROW_SHARE,
): LoadSplitDecision {
  if (samples.length < MIN_SAMPLES) return { kind: 'none', reason: `only ${samples.length} sampled requests` };
  const sorted = [...samples].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // The most frequent key.
  let topKey = sorted[0]!;
  let topCount = 0;
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j < sorted.length && sorted[j] === sorted[i]) j++;
    if (j - i > topCount) {
      topCount = j - i;
      topKey = sorted[i]!;
    }
    i = j;
  }
  const share = topCount / sorted.length;
  if (share >= hotRowShare) return { kind: 'single-row-hotspot', key: topKey, share };
  // Candidates: each distinct sampled key; left = samples below it.
  let best: { at: ByteString; worst: number } | undefined;
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i] === sorted[i - 1]) continue;
    const at = sorted[i]!;
    if (at <= range.start) continue;
    const worst = Math.max(i, sorted.length - i) / sorted.length;
    if (best === undefined || worst < best.worst) best = { at, worst };
  }
  if (best === undefined || best.worst > MAX_SIDE_SHARE) return { kind: 'none', reason: 'no key divides the load' };
  return { kind: 'split', at: best.at, balance: 1 - best.worst };
}
