import { type ByteString, printable } from '../../model/bytes.js';
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
  const pairs: [ByteString, ByteString][] = [];
  for (let i = 1; i < keys.length; i++) if (outOfOrder(keys[i - 1]!, keys[i]!)) pairs.push([keys[i - 1]!, keys[i]!]);
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

/** Whether a < b in bytes while the numbers where they first differ say otherwise. */
export function outOfOrder(a: ByteString, b: ByteString): boolean {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  // Back up to the start of the digit run the difference falls in.
  while (i > 0 && isDigit(a, i - 1)) i--;
  const na = digitRun(a, i);
  const nb = digitRun(b, i);
  if (na === '' || nb === '' || na[0] === '0' || nb[0] === '0') return false;
  return na.length > nb.length;
}

function isDigit(s: ByteString, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 0x30 && c <= 0x39;
}

function digitRun(s: ByteString, from: number): string {
  let j = from;
  while (j < s.length && isDigit(s, j)) j++;
  return s.slice(from, j);
}
