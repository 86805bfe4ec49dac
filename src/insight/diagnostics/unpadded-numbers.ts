import { printable } from '../../model/bytes.js';
import { outOfOrderPairs } from '../key-shape.js';
import { ADVICE } from '../advice.js';
import { keyRangeJson } from '../key-range-json.js';
import { type DiagnosticRule, diagnostic, windowRange } from './context.js';
import { sampleKeys } from './key-samples.js';

/** Out-of-order neighbours needed: one alone is often a salt prefix (`15#` before `2#`), where order does not matter. */
const MIN_PAIRS = 2;

/**
 * Unpadded numbers: two neighbouring keys first differ in a run of digits,
 * neither with a leading zero, and the longer (larger) number sorts first:
 * byte order breaks numeric order (`item9` after `item10`).
 */
export const unpaddedNumbers: DiagnosticRule = (ctx) => {
  const keys = sampleKeys(ctx);
  const pairs = outOfOrderPairs(keys);
  if (pairs.length < MIN_PAIRS) return [];
  const [a, b] = pairs[0]!;
  const message =
    `Unpadded numbers: keys hold numbers of different lengths without zero padding, so byte order is not numeric ` +
    `order: "${printable(a)}" sorts before "${printable(b)}" (${pairs.length} such neighbours among ${keys.length} keys sampled).`;
  return [
    diagnostic(
      'unpadded_numbers',
      'info',
      message,
      keyRangeJson(a, b + '\x00'),
      windowRange(ctx),
      {
        example: [printable(a), printable(b)],
        pairs: pairs.length,
        keysSampled: keys.length,
      },
      ADVICE.unpadded_numbers,
    ),
  ];
};

export { outOfOrder } from '../key-shape.js';
