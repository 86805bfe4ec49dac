import { type ByteString, printable } from '../../../model/bytes.js';
import { LIMITS } from '../../../model/limits.js';
import { KEY_DELIMITERS } from '../../key-hierarchy.js';
import { type Rule, finding, median, round, sizeText } from './context.js';

/** Characters of a long key shown in messages. */
const SHOWN = 60;

/**
 * Long keys: a danger near the 4 KiB limit (the next, longer key is
 * refused), a warning from `keyWarningBytes` (every key is held in every
 * index, sent with every request), an info when keys are far longer than
 * needed: a long median, or a long prefix every key repeats.
 */
export const longKey: Rule = (ctx) => {
  const { t, table } = ctx;
  const all = [
    ...new Set([...table.keys, ...table.writeOrder, ...table.largestRows.map((r) => r.key), ...table.rowProfiles.map((r) => r.key)]),
  ];
  if (all.length === 0) return [];
  const longest = all.reduce((a, b) => (b.length > a.length ? b : a));
  const mid = median(all.map((k) => k.length));
  const shared = commonPrefix(ctx.shape.keys);
  const evidence = {
    longestKeyBytes: longest.length,
    medianKeyBytes: round(mid),
    limitBytes: LIMITS.maxRowKeyBytes,
    keysSampled: all.length,
    example: shown(longest),
  };
  if (longest.length >= t.keyWarningBytes) {
    const danger = longest.length >= t.keyDangerBytes;
    const message =
      `Keys are long: the longest sampled is ${sizeText(longest.length)} (\`${shown(longest)}\`), the median ${round(mid)} bytes` +
      `${danger ? `, close to Bigtable's 4 KiB limit: a slightly longer key will be refused` : ''}. Every key is stored with ` +
      `every cell and in every index and sent with every request, so long keys cost memory, disk and network throughout.`;
    return [
      finding(
        ctx,
        'long-key',
        danger ? 'danger' : 'warning',
        message,
        { ...evidence, threshold: danger ? t.keyDangerBytes : t.keyWarningBytes },
        `Keep keys to the fields you read by and move the rest into columns; replace a long part by a short id or hash: ` +
          `\`${shown(longest)}\` → \`${shortened(longest, ctx.shape.delimiter)}\`.`,
      ),
    ];
  }
  const repeats = shared.length >= t.keyCommonPrefixBytes && ctx.shape.keys.length >= t.minKeys;
  if (mid < t.keyInfoMedianBytes && !repeats) return [];
  const example = ctx.shape.keys[0] ?? longest;
  const message = repeats
    ? `Every sampled key repeats the same ${shared.length}-byte prefix (\`${shown(shared)}\`): it distinguishes nothing, yet it is ` +
      `stored with every cell and sent with every request. Probably longer than needed.`
    : `Keys are longer than usual (median ${round(mid)} bytes, e.g. \`${shown(example)}\`): they are stored with every cell and ` +
      `sent with every request. Probably longer than needed; fine if every part is read by.`;
  return [
    finding(
      ctx,
      'long-key',
      'info',
      message,
      {
        ...evidence,
        ...(repeats ? { sharedPrefixBytes: shared.length } : {}),
        threshold: repeats ? t.keyCommonPrefixBytes : t.keyInfoMedianBytes,
      },
      repeats
        ? `Drop the shared prefix (the table already says what it is): \`${shown(example)}\` → \`${shown(example.slice(shared.length))}\`.`
        : `Shorten the longest parts to ids or short codes: \`${shown(example)}\` → \`${shortened(example, ctx.shape.delimiter)}\`.`,
    ),
  ];
};

/** Printable, cut to SHOWN characters with the length said. */
function shown(key: ByteString): string {
  const p = printable(key);
  return p.length <= SHOWN ? p : `${p.slice(0, SHOWN)}…(${key.length} bytes)`;
}

/** The key with its longest segment replaced by a short hash placeholder. */
function shortened(key: ByteString, delimiter: string): string {
  const s = key.split(delimiter);
  let longest = 0;
  s.forEach((seg, i) => (seg.length > s[longest]!.length ? (longest = i) : undefined));
  const parts = s.map((seg, i) => (i === longest ? '{hash64 of it}' : printable(seg.length > 20 ? seg.slice(0, 20) + '…' : seg)));
  return parts.join(delimiter);
}

/** The prefix all keys share, up to its last delimiter (`rows/00` of `rows/001`, `rows/010` is `rows/`). */
function commonPrefix(keys: readonly ByteString[]): ByteString {
  if (keys.length === 0) return '';
  // Keys are sorted: the first and last share what all share.
  const [a, b] = [keys[0]!, keys[keys.length - 1]!];
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  while (i > 0 && !KEY_DELIMITERS.includes(a[i - 1]!)) i--;
  return a.slice(0, i);
}
