import { keySuccessor, printable } from '../../model/bytes.js';
import { ADVICE } from '../advice.js';
import type { DiagnosticJson } from '../api-types.js';
import { keyRangeJson, rangeText } from '../key-range-json.js';
import { type DiagnosticContext, type DiagnosticRule, bucketsKeyRange, diagnostic, fmt, runs, sumRange, windowRange } from './context.js';

const GOOGLE =
  'Large rows: some of the rows in the table contain more than 256 MB of data or some key ranges contain an average of more than 200 MB of data per row.';

/**
 * Large rows (Google's message, above): rows over `largeRowBytes` (the
 * largest rows the key distribution found, and the largest a read saw per
 * bucket), and runs of buckets averaging over `largeAverageRowBytes` per row.
 */
export const largeRows: DiagnosticRule = (ctx) => [...bigRows(ctx), ...heavyRanges(ctx)].slice(0, ctx.thresholds.maxPerKind * 2);

function bigRows(ctx: DiagnosticContext): DiagnosticJson[] {
  const limit = ctx.thresholds.largeRowBytes;
  const time = windowRange(ctx);
  const named = ctx.largestRows.filter((r) => r.bytes > limit).slice(0, ctx.thresholds.maxPerKind);
  const out = named.map((r) =>
    diagnostic(
      'large_rows',
      'warning',
      `${GOOGLE} The row "${printable(r.key)}" holds ${fmt(r.bytes / 1e6)} MB.`,
      keyRangeJson(r.key, keySuccessor(r.key)),
      time,
      { rowBytes: r.bytes, limitBytes: limit, key: printable(r.key) },
      ADVICE.large_rows,
    ),
  );
  if (out.length > 0) return out;
  // No row named: the largest row a read saw, per bucket.
  const seen = maxSeen(ctx);
  return runs(seen.length, (b) => seen[b]! > limit)
    .slice(0, ctx.thresholds.maxPerKind)
    .map(([first, last]) => {
      const keyRange = bucketsKeyRange(ctx, first, last);
      const biggest = Math.max(...seen.slice(first, last + 1));
      return diagnostic(
        'large_rows',
        'warning',
        `${GOOGLE} Reads of keys ${rangeText(keyRange)} saw a row of ${fmt(biggest / 1e6)} MB.`,
        keyRange,
        time,
        { rowBytes: biggest, limitBytes: limit },
        ADVICE.large_rows,
      );
    });
}

function maxSeen(ctx: DiagnosticContext): Float64Array {
  const out = new Float64Array(ctx.window.set.starts.length);
  for (const g of ctx.steps) g?.sum.maxRowBytes.forEach((x, b) => (out[b] = Math.max(out[b]!, x)));
  return out;
}

function heavyRanges(ctx: DiagnosticContext): DiagnosticJson[] {
  const { rows, bytes } = ctx.window.set;
  const limit = ctx.thresholds.largeAverageRowBytes;
  return runs(rows.length, (b) => rows[b]! > 0 && bytes[b]! / rows[b]! > limit)
    .slice(0, ctx.thresholds.maxPerKind)
    .map(([first, last]) => {
      const keyRange = bucketsKeyRange(ctx, first, last);
      const r = sumRange(rows, first, last);
      const average = sumRange(bytes, first, last) / r;
      return diagnostic(
        'large_rows',
        'warning',
        `${GOOGLE} Keys ${rangeText(keyRange)} average ${fmt(average / 1e6)} MB per row over ${fmt(r)} rows.`,
        keyRange,
        windowRange(ctx),
        { averageRowBytes: Math.round(average), rows: r, limitBytes: limit },
        ADVICE.large_rows,
      );
    });
}
