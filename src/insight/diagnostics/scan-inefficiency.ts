import { ADVICE } from '../advice.js';
import { rangeText } from '../key-range-json.js';
import { type DiagnosticRule, bucketsKeyRange, diagnostic, fmt, round, runs, sumRange, timeText, totals, windowRange } from './context.js';

/**
 * Scans that read far more rows than they return ("sparse reads where
 * Bigtable scans significantly more rows or cells than it returns"): runs of
 * buckets each reading at least `scanRatio` rows per row returned, with at
 * least `scanMinRowsRead` rows read in the run over the window.
 */
export const scanInefficiency: DiagnosticRule = (ctx) => {
  const t = ctx.thresholds;
  const read = totals(ctx, 'rows_read');
  const returned = totals(ctx, 'rows_returned');
  const time = windowRange(ctx);
  return runs(read.length, (b) => read[b]! > 0 && read[b]! >= t.scanRatio * returned[b]!)
    .map(([first, last]) => ({ first, last, read: sumRange(read, first, last), returned: sumRange(returned, first, last) }))
    .filter((r) => r.read >= t.scanMinRowsRead)
    .sort((a, b) => b.read - a.read)
    .slice(0, t.maxPerKind)
    .map((r) => {
      const keyRange = bucketsKeyRange(ctx, r.first, r.last);
      const ratio = r.returned > 0 ? r.read / r.returned : Infinity;
      const message =
        `Scan inefficiency: reads of keys ${rangeText(keyRange)} saw ${fmt(r.read)} rows and returned ${fmt(r.returned)} ` +
        `(${r.returned > 0 ? `${fmt(ratio)} read per row returned` : 'none returned'}), ${timeText(time)}: ` +
        `filters or cells awaiting garbage collection make them scan far more than they return.`;
      return diagnostic(
        'scan_inefficiency',
        'warning',
        message,
        keyRange,
        time,
        {
          rowsRead: r.read,
          rowsReturned: r.returned,
          ratio: r.returned > 0 ? round(ratio) : 'all filtered out',
        },
        ADVICE.scan_inefficiency,
      );
    });
};
