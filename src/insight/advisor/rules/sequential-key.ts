import { printable } from '../../../model/bytes.js';
import { classifySegment } from '../../key-shape.js';
import {
  type Rule,
  classesAt,
  diagnosticsOf,
  finding,
  identifierAfter,
  moveSegment,
  percent,
  rewrite,
  round,
  saltExample,
  samples,
  transform,
  writesGrow,
} from './context.js';

/**
 * Monotonically increasing (or decreasing) ids where the keys start to
 * differ (`order#000123`, `000124`, ...): each write a new largest key, so
 * all writes land on the last tablet. Needs the write order (`writesGrow`)
 * or the heatmap's sequential_keys diagnostic; a warning, a danger when both
 * agree. Keys whose leading segment is a timestamp are timestamp-leading-key's
 * (one cause, one finding). Writes that grow in a later field (`sensor019#t1`,
 * `sensor019#t2`, ...: a load in key order) say nothing, diagonal or not. The
 * heatmap's diagonal alone, over keys that do not look like counters, is an
 * info: a bulk load in key order draws one too.
 */
export const sequentialKey: Rule = (ctx) => {
  const { shape, t } = ctx;
  if (shape.entityPrefixed) return [];
  const leading = classesAt(shape, shape.lead);
  const timed = leading.filter((c) => c.kind === 'timestamp' || c.kind === 'reversed-timestamp').length;
  if (leading.length > 0 && timed >= t.leadingShare * leading.length) return [];
  const growth = writesGrow(ctx);
  // Writes that grow in a field after the leading one: rows loaded in key order (sensor by sensor), not a counter.
  if (growth !== undefined && growth.frontShare < t.sequentialShare) return [];
  const grow = growth;
  const diagnostic = diagnosticsOf(ctx, 'sequential_keys')[0];
  if ((grow === undefined && diagnostic === undefined) || shape.keys.length === 0) return [];
  const numeric = leading.filter((c) => c.kind === 'decimal' || c.kind === 'padded').length >= t.leadingShare * leading.length;
  const unsure = grow === undefined && !numeric;
  const written = ctx.table.writeOrder;
  const example = grow !== undefined ? written[written.length - 1]! : (shape.keys[shape.keys.length - 1] ?? '');
  const segment = shape.lead + 1;
  const seen =
    grow !== undefined
      ? `${percent(grow.share)} of the last ${grow.writes} writes were the ${grow.direction === 'increasing' ? 'largest' : 'smallest'} key so far (latest \`${printable(example)}\`)`
      : `the heatmap shows writes moving along the key space in a diagonal band (${String(diagnostic!.evidence.firstRange ?? '')} to ${String(diagnostic!.evidence.lastRange ?? '')})`;
  const message = unsure
    ? `Writes may follow the key order: ${seen}, but the keys do not look like counters (segment ${segment} is not a number), ` +
      `so this may be a one-off load in key order rather than the key design. If new rows always get larger keys, all writes ` +
      `land on the last tablet and one node takes them all.`
    : `Keys grow with every write: ${seen}. Segment ${segment} looks like an increasing id, so each new row sorts after all the ` +
      `others and every write lands on the last tablet, served by one node, however many nodes the cluster has.`;
  const id = identifierAfter(shape, shape.lead, ['decimal', 'padded', 'timestamp', 'reversed-timestamp']);
  const suggestion =
    id !== undefined
      ? `Lead with a field that differs between writers (field promotion): ${rewrite(example, moveSegment(example, shape.delimiter, id))}.`
      : `Do not lead with a counter: prefix a small hash of the id (salting), ${rewrite(example, saltExample(example, shape.delimiter, 8))} ` +
        `(prefix \`hash(id) % 8\`), or use a random or reversed id (\`${reversedDigits(example, shape.delimiter, shape.lead)}\`) ` +
        `where reads are by exact key.`;
  return [
    finding(
      ctx,
      'sequential-key',
      unsure ? 'info' : grow !== undefined && diagnostic !== undefined ? 'danger' : 'warning',
      message,
      {
        segment,
        keysSampled: shape.keys.length,
        examples: samples(shape.keys.slice(-3)),
        ...(grow === undefined
          ? {}
          : { direction: grow.direction, writesAtEnd: grow.share, writesSampled: grow.writes, threshold: t.sequentialShare }),
        ...(diagnostic === undefined
          ? {}
          : { heatmap: 'sequential_keys', writesPerSecond: round(Number(diagnostic.evidence.writesPerSecond ?? 0)) }),
      },
      suggestion,
      { simulate: id !== undefined ? transform(shape, `promote:${id + 1}`) : 'salt:8' },
    ),
  ];
};

/** The key with the digits of its segment `position` reversed (`order#000123` → `order#321000`), printable. */
function reversedDigits(key: string, delimiter: string, position: number): string {
  const s = key.split(delimiter);
  const seg = s[position];
  if (seg === undefined || !['decimal', 'padded'].includes(classifySegment(seg).kind)) return printable(key);
  s[position] = [...seg].reverse().join('');
  return printable(s.join(delimiter));
}
