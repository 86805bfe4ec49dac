import { printable } from '../../../model/bytes.js';
import { lowerBound } from '../../../storage/lsm/sorted-entries.js';
import { splitKey } from '../../key-shape.js';
import { type Rule, finding, identifierAfter, moveSegment, percent, rewrite, round, saltExample, transform } from './context.js';

/**
 * A leading segment with few distinct values (at most
 * `lowCardinalityValues` among `lowCardinalityMinKeys` keys or more, e.g.
 * `eu#`, `us#` or `prod#`, `test#`) of which one carries most of the
 * recorded ops (`dominantShare`, and 1.5 times the even share): that
 * value's range takes the load. An info, a warning from
 * `dominantWarningShare`. Salt prefixes with even traffic do not fire (the
 * traffic decides); without traffic the rule says nothing.
 */
export const lowCardinalityPrefix: Rule = (ctx) => {
  const { shape, t } = ctx;
  const traffic = ctx.table.traffic;
  if (traffic === undefined || shape.keys.length < t.lowCardinalityMinKeys) return [];
  if (!shape.segments.some((s) => s.length > 1)) return [];
  const values = [...new Set(shape.segments.map((s) => s[0]!))];
  if (values.length < 2 || values.length > t.lowCardinalityValues) return [];
  const ops = new Map<string, number>();
  let total = 0;
  for (const b of traffic.buckets) {
    const key = shape.keys[lowerBound(shape.keys, b.start)];
    if (key === undefined) continue;
    const value = splitKey(key, shape.delimiter)[0]!;
    const n = b.readOps + b.writeOps;
    ops.set(value, (ops.get(value) ?? 0) + n);
    total += n;
  }
  if (total < t.minTrafficOps) return [];
  const [top, topOps] = [...ops].sort((a, b) => b[1] - a[1])[0]!;
  const share = topOps / total;
  if (share < Math.max(t.dominantShare, 1.5 / values.length)) return [];
  const example = shape.keys.find((k) => splitKey(k, shape.delimiter)[0] === top)!;
  const id = identifierAfter(shape, 0, ['timestamp', 'reversed-timestamp']);
  const suggestion =
    id !== undefined
      ? `Lead with a field of many values and move the category after it (field promotion): ${rewrite(example, moveSegment(example, shape.delimiter, id))}; ` +
        `or, to keep the \`${printable(top)}\` rows together, salt within it: \`${printable(top)}${shape.delimiter}{hash % 8}${shape.delimiter}…\`.`
      : `Salt the keys so the busy value's rows spread: ${rewrite(example, saltExample(example, shape.delimiter, 8))} (prefix \`hash(key) % 8\`).`;
  return [
    finding(
      ctx,
      'low-cardinality-prefix',
      share >= t.dominantWarningShare ? 'warning' : 'info',
      `The keys' first segment has only ${values.length} values (${values
        .slice(0, 5)
        .map((v) => `\`${printable(v)}\``)
        .join(', ')}), and ` +
        `\`${printable(top)}\` takes ${percent(share)} of the ${round(total)} ops recorded. The first segment decides where rows sit: ` +
        `the busy value's range takes the load while the others idle, and it grows with every row of it.` +
        (share < t.dominantWarningShare ? ' Not sure it hurts: the range still splits as it grows.' : ''),
      {
        distinctValues: values.length,
        values: values.slice(0, 10).map(printable),
        busiest: printable(top),
        share: round(share),
        ops: total,
        threshold: share >= t.dominantWarningShare ? t.dominantWarningShare : t.dominantShare,
      },
      suggestion,
      { simulate: id !== undefined ? transform(shape, `promote:${id + 1}`) : 'salt:8' },
    ),
  ];
};
