import { printable } from '../../../model/bytes.js';
import { datePathAt } from '../../key-shape.js';
import {
  type Rule,
  diagnosticsOf,
  finding,
  identifierAfter,
  keysOfKind,
  percent,
  moveSegment,
  rewrite,
  round,
  samples,
  saltExample,
  transform,
  writesGrow,
} from './context.js';

const TIME_KINDS = ['timestamp', 'reversed-timestamp'] as const;

/**
 * Keys that start (where they start to differ) with a timestamp: ISO, a
 * compact date, a date over segments (`2023/05/01/...`), an epoch in
 * s/ms/µs/ns, a time-ordered UUID, or MAX - t.
 * Every write lands at one end of the table. A warning from the keys alone,
 * a danger when the writes confirm it (the write order or the heatmap's
 * sequential_keys). One entity's rows (`sensor123#<ts>`) do not count: the
 * timestamp follows an identifier there, the good design. This rule owns the
 * cause: sequential-key stays silent for timestamp-leading keys.
 */
export const timestampLeadingKey: Rule = (ctx) => {
  const { shape, t } = ctx;
  if (shape.keys.length < t.minKeys || shape.entityPrefixed) return [];
  const [found, kind] = TIME_KINDS.map((k) => [keysOfKind(shape, shape.lead, k), k] as const).sort(
    (a, b) => b[0].keys.length - a[0].keys.length,
  )[0]!;
  // A date over segments (`2023/05/01/sensor1`): the identifier is looked for after it.
  const spans = shape.segments.map((s) => datePathAt(s, shape.lead));
  const paths = shape.keys.filter((_, i) => spans[i]! > 0);
  if (paths.length > found.keys.length) {
    found.keys.splice(0, found.keys.length, ...paths);
    found.detail = 'date path (year, month, day)';
  }
  const span = Math.max(1, ...spans);
  const share = found.keys.length / shape.keys.length;
  if (share < t.leadingShare) return [];
  const grow = writesGrow(ctx);
  const diagnostic = diagnosticsOf(ctx, 'sequential_keys')[0];
  const confirmed = grow !== undefined || diagnostic !== undefined;
  const example = found.keys[0]!;
  const segment = shape.lead + 1;
  const where = kind === 'reversed-timestamp' ? 'the start' : 'the end';
  const confirmation =
    grow !== undefined
      ? ` The writes confirm it: ${percent(grow.share)} of the last ${grow.writes} writes were the ${grow.direction === 'increasing' ? 'largest' : 'smallest'} key so far.`
      : diagnostic !== undefined
        ? ' The heatmap confirms it: writes move along the key space in a diagonal band (sequential keys).'
        : ' No write traffic confirms it yet.';
  const message =
    `Keys start with a timestamp (${found.detail} in segment ${segment}, ${percent(share)} of the ${shape.keys.length} keys ` +
    `sampled, e.g. \`${printable(example)}\`). Time only moves one way, so every new row sorts at ${where} of the table: ` +
    `all writes go to one tablet on one node while the others idle, and adding nodes does not help.${confirmation}`;
  const id = identifierAfter(shape, shape.lead + span - 1, TIME_KINDS);
  let suggestion: string;
  let simulate: string;
  if (id !== undefined) {
    suggestion =
      `Lead with the identifier you query by and put the timestamp after it (field promotion): ${rewrite(example, moveSegment(example, shape.delimiter, id, shape.lead))}. ` +
      `Each entity's rows stay together in time order, and writes from many entities spread over the table.`;
    simulate = transform(shape, `promote:${id + 1}`);
  } else {
    suggestion =
      `Nothing but time identifies these rows: prefix a small hash (salting) so that writes spread over N ranges, ` +
      `${rewrite(example, saltExample(example, shape.delimiter, 8))} (prefix \`hash(key) % 8\`), and read the 8 prefixes in parallel.`;
    simulate = 'salt:8';
  }
  return [
    finding(
      ctx,
      'timestamp-leading-key',
      confirmed ? 'danger' : 'warning',
      message,
      {
        keysSampled: shape.keys.length,
        share: round(share),
        threshold: t.leadingShare,
        segment,
        timestamp: found.detail,
        examples: samples(found.keys),
        ...(grow === undefined ? {} : { writesAtEnd: grow.share, writesSampled: grow.writes }),
        ...(diagnostic === undefined ? {} : { heatmap: 'sequential_keys' }),
      },
      suggestion,
      { simulate },
    ),
  ];
};
