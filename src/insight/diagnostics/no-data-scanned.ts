import { COUNTERS } from '../column.js';
import { type DiagnosticRule, diagnostic, timeText, wholeTable, windowRange } from './context.js';

/** No data scanned: no rows in the table and no traffic in the window. */
export const noDataScanned: DiagnosticRule = (ctx) => {
  const rows = ctx.window.set.rows.reduce((s, r) => s + r, 0);
  const busy = ctx.steps.some((g) => g !== undefined && COUNTERS.some((c) => g.sum.counters[c].some((x) => x !== 0)));
  if (rows > 0 || busy) return [];
  const time = windowRange(ctx);
  const message =
    `No data scanned: did not find any performance data for the table, ${timeText(time)}. ` +
    `This normally appears if the table does not contain any data.`;
  return [diagnostic('no_data_scanned', 'info', message, wholeTable(), time, { rows, columns: ctx.window.columns.length })];
};
