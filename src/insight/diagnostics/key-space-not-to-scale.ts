import { type DiagnosticRule, diagnostic, fmt, wholeTable, windowRange } from './context.js';

/** Key space not to scale: a table of fewer rows than a boundary set's buckets gets one bucket per row. */
export const keySpaceNotToScale: DiagnosticRule = (ctx) => {
  const { set } = ctx.window;
  const rows = set.rows.reduce((s, r) => s + r, 0);
  const max = ctx.thresholds.maxBuckets;
  if (rows === 0 || rows >= max) return [];
  const message =
    `Key space not to scale: the table has ${fmt(rows)} rows, fewer than the ${fmt(max)} key buckets, so the row keys ` +
    `could not be spread evenly over them: each bucket is one row (${fmt(set.starts.length)} buckets), and the key axis ` +
    `shows rows, not equal shares of the table.`;
  return [diagnostic('key_space_not_to_scale', 'info', message, wholeTable(), windowRange(ctx), { rows, buckets: set.starts.length })];
};
