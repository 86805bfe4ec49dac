import { printable } from '../../../model/bytes.js';
import { differingNumber, digitRun, isDigit, outOfOrderPairs } from '../../key-shape.js';
import { type Rule, finding, rewrite, transform } from './context.js';

/**
 * Numbers of varying width without zero padding, so that byte order is not
 * numeric order (`item10` sorts before `item9`): at least `unpaddedPairs`
 * neighbours out of order among the sampled keys. The same test as the
 * heatmap's unpadded_numbers (key-shape.ts outOfOrder). A salt prefix
 * (`15#` before `2#`: a numeric first segment, each value on several keys) is left out: its
 * order does not matter. An info: it hurts only reads that want numeric
 * order (range scans over the numbers), which the keys cannot tell.
 */
export const unpaddedNumber: Rule = (ctx) => {
  const { shape, t } = ctx;
  const leadValues = new Set(shape.segments.map((s) => s[0]));
  const saltLike =
    shape.segments.every((s) => s.length > 1) &&
    [...leadValues].every((v) => /^\d+$/.test(v ?? '')) &&
    leadValues.size <= shape.keys.length / 2;
  const pairs = outOfOrderPairs(shape.keys).filter(([a, b]) => !(saltLike && segmentOf(a, b, shape.delimiter) === 0));
  if (pairs.length < t.unpaddedPairs) return [];
  const [a, b] = pairs[0]!;
  const { offset } = differingNumber(a, b);
  const position = segmentOf(a, b, shape.delimiter);
  const widest = Math.max(...shape.keys.map((k) => widestRun(k.split(shape.delimiter)[position] ?? '')));
  const width = Math.max(t.padWidth, widest + 2);
  const small = b.slice(0, offset) + digitRun(b, offset).padStart(width, '0') + b.slice(offset + digitRun(b, offset).length);
  const delimited = shape.segments.some((s) => s.length > 1);
  const message =
    `Numbers in the keys have different widths without zero padding, so byte order is not numeric order: ` +
    `\`${printable(a)}\` sorts before \`${printable(b)}\` (${pairs.length} such neighbours among ${shape.keys.length} keys sampled). ` +
    `Bigtable only knows byte order: a range scan over these numbers comes back out of numeric order, and a range ` +
    `like 9 to 10 is empty. Not sure it matters: it does only if you read ranges in numeric order.`;
  return [
    finding(
      ctx,
      'unpadded-number',
      'info',
      message,
      {
        example: [printable(a), printable(b)],
        pairs: pairs.length,
        threshold: t.unpaddedPairs,
        keysSampled: shape.keys.length,
        segment: position + 1,
        widestNumber: widest,
      },
      `Zero-pad the numbers to one width with room to grow: ${rewrite(b, small)} (width ${width}).`,
      { simulate: delimited ? transform(shape, `pad:${position + 1}:${width}`) : `pad:${width}` },
    ),
  ];
};

/** The segment (0-based) where a and b first differ. */
function segmentOf(a: string, b: string, delimiter: string): number {
  const { offset } = differingNumber(a, b);
  return a.slice(0, offset).split(delimiter).length - 1;
}

/** The longest digit run of `s`. */
function widestRun(s: string): number {
  let most = 0;
  for (let i = 0; i < s.length; i++) {
    if (!isDigit(s, i) || (i > 0 && isDigit(s, i - 1))) continue;
    most = Math.max(most, digitRun(s, i).length);
  }
  return most;
}
