import { printable } from '../../../model/bytes.js';
import { splitKey } from '../../key-shape.js';
import {
  type Rule,
  diagnosticsOf,
  finding,
  identifierAfter,
  keysOfKind,
  percent,
  rewrite,
  round,
  saltExample,
  samples,
  trafficTotals,
  transform,
} from './context.js';

/**
 * Hashed or random keys (long hex, base64, random UUIDs) where the keys start
 * to differ: writes spread well, but no range read can find related rows
 * together. A warning only when the traffic shows range reads (rows returned
 * per read op of `rangeReadRows` or more, or the heatmap's scan_inefficiency);
 * nothing when the reads recorded are point reads (the right design for
 * them); an info, unsure, when no reads were recorded, recording is off, or
 * the key buckets hold about one row each (a small table: a scan then enters
 * one bucket per row, one read op per row returned, like point reads).
 */
export const hashedKey: Rule = (ctx) => {
  const { shape, t } = ctx;
  if (shape.keys.length < t.minKeys) return [];
  const found = keysOfKind(shape, shape.lead, 'hashed');
  const share = found.keys.length / shape.keys.length;
  if (share < t.leadingShare) return [];
  const traffic = ctx.table.traffic === undefined ? undefined : trafficTotals(ctx.table.traffic);
  const scans = diagnosticsOf(ctx, 'scan_inefficiency').length > 0;
  const perRead = traffic !== undefined && traffic.readOps >= t.minReadOps ? traffic.rowsReturned / traffic.readOps : undefined;
  // A read op is a bucket a read entered: in buckets of one row (small tables) a scan and a point read both return
  // one row per op, and only buckets of several rows tell them apart.
  const telling = traffic !== undefined && traffic.rowsPerBucket >= t.rangeReadRows;
  const ranges = scans || (telling && perRead !== undefined && perRead >= t.rangeReadRows);
  if (!ranges && telling && perRead !== undefined && perRead <= t.pointReadRows) return [];
  const example = found.keys[0]!;
  const segment = shape.lead + 1;
  const seen =
    `Keys start with a random-looking ${found.detail} (segment ${segment}, ${percent(share)} of the ${shape.keys.length} keys ` +
    `sampled, e.g. \`${printable(example)}\`): rows that belong together are scattered over the whole table.`;
  const why = ranges
    ? ` The reads are range reads (${perRead === undefined ? 'the heatmap sees scans' : `${round(perRead)} rows returned per read`}): each one has to ` +
      `scan far and wide, or you read many single rows instead, because hashing destroyed the order they would need.`
    : perRead !== undefined && telling
      ? ` The reads return ${round(perRead)} rows each: if they are prefix or range reads, a key that keeps related rows together serves them better; if they are point reads, this design is fine.`
      : perRead !== undefined
        ? ` Not sure it hurts: the table is too small for the recording to tell range reads from point reads (about ${round(traffic!.rowsPerBucket)} row per key bucket); hashed keys are the right choice when every read is by exact key, and hurt when reads want ranges.`
        : ` Not sure it hurts: no reads were recorded, and hashed keys are the right choice when every read is by exact key; they hurt when reads want ranges.`;
  const id = identifierAfter(shape, shape.lead, ['hashed']);
  const rest = splitKey(example, shape.delimiter);
  const natural = id !== undefined ? rest.slice(id).join(shape.delimiter) : undefined;
  const suggestion =
    natural !== undefined
      ? `Lead with the natural key you read ranges of and keep at most a small salt for spread: ${rewrite(example, saltExample(natural, shape.delimiter, 8))} ` +
        `(prefix \`hash(${printable(rest[id!] ?? '')}) % 8\`) instead of the full hash.`
      : `Key the rows by what you read ranges of (an entity id, then time) and keep the random id last if you need it: ` +
        `\`customer#00042#2023-05-01#${printable(example)}\` instead of \`${printable(example)}\`.`;
  return [
    finding(
      ctx,
      'hashed-key',
      ranges ? 'warning' : 'info',
      seen + why,
      {
        keysSampled: shape.keys.length,
        share: round(share),
        segment,
        kind: found.detail,
        examples: samples(found.keys),
        ...(traffic === undefined ? { traffic: 'not recorded' } : { readOps: traffic.readOps, rowsReturned: traffic.rowsReturned }),
        ...(perRead === undefined ? {} : { rowsPerRead: round(perRead), rangeReadRows: t.rangeReadRows }),
        ...(scans ? { heatmap: 'scan_inefficiency' } : {}),
      },
      suggestion,
      id !== undefined ? { simulate: transform(shape, `promote:${id + 1}`) } : {},
    ),
  ];
};
