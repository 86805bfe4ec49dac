import { printable } from '../../../model/bytes.js';
import { splitKey } from '../../key-shape.js';
import { type Rule, diagnosticsOf, finding, round, trafficTotals } from './context.js';

/**
 * Reads that scan far more rows than they return (a filter does the
 * selecting): the heatmap's scan_inefficiency when it found a range (its
 * figures and key range), else the recorded traffic over the whole table,
 * with the same thresholds (`scanMinRowsRead`, `scanRatio`). A warning.
 */
export const filterScan: Rule = (ctx) => {
  const { t } = ctx;
  const diagnostic = diagnosticsOf(ctx, 'scan_inefficiency')[0];
  let read: number;
  let returned: number;
  if (diagnostic !== undefined) {
    [read, returned] = [Number(diagnostic.evidence.rowsRead ?? 0), Number(diagnostic.evidence.rowsReturned ?? 0)];
  } else {
    if (ctx.table.traffic === undefined) return [];
    const totals = trafficTotals(ctx.table.traffic);
    [read, returned] = [totals.rowsRead, totals.rowsReturned];
    if (read < t.scanMinRowsRead || read < t.scanRatio * returned) return [];
  }
  const start = diagnostic === undefined ? '' : Buffer.from(diagnostic.keyRange.start, 'base64').toString('latin1');
  const example = ctx.shape.keys.find((k) => k >= start) ?? ctx.shape.keys[0] ?? 'key';
  const s = splitKey(example, ctx.shape.delimiter);
  const after = s.length > 1 ? [s[0], '{what you filter on}', ...s.slice(1)] : ['{what you filter on}', s[0]];
  const ratio = returned > 0 ? read / returned : Infinity;
  const where =
    diagnostic === undefined
      ? 'the table'
      : `keys ${diagnostic.keyRange.startText === '' ? '(start)' : diagnostic.keyRange.startText} to ${diagnostic.keyRange.endText ?? '(end)'}`;
  return [
    finding(
      ctx,
      'filter-scan',
      'warning',
      `Reads of ${where} scanned ${round(read)} rows and returned ${round(returned)} (${returned > 0 ? `${round(ratio)} read per row returned` : 'none returned'}): ` +
        `a filter picks the rows after they are read, so each read costs what it scans, not what it returns, and its latency grows with the table.`,
      {
        rowsRead: read,
        rowsReturned: returned,
        ratio: returned > 0 ? round(ratio) : 'all filtered out',
        threshold: t.scanRatio,
        minRowsRead: t.scanMinRowsRead,
        ...(diagnostic === undefined ? { source: 'recorded traffic' } : { source: 'heatmap scan_inefficiency' }),
      },
      `Put what you filter on into the row key and read a prefix or a range instead of filtering: ` +
        `\`${printable(example)}\` → \`${printable(after.join(ctx.shape.delimiter))}\`, then read the prefix ` +
        `\`${printable(after.slice(0, 2).join(ctx.shape.delimiter))}${ctx.shape.delimiter}\`. If old versions inflate the scan, set a GC policy.`,
      diagnostic === undefined ? {} : { keyRange: diagnostic.keyRange },
    ),
  ];
};
