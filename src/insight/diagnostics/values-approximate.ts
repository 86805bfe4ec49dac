import { type DiagnosticRule, diagnostic, wholeTable, windowRange } from './context.js';

/** Values per row are approximate: the boundary set's rows and bytes are estimates from sampled keys. */
export const valuesApproximate: DiagnosticRule = (ctx) => {
  if (!ctx.window.set.estimated) return [];
  const message =
    'Values per row are approximate: rows and stored bytes per key bucket are estimated from a sample of the keys ' +
    '(the table is large or stored on disk), so per-row figures may be off where data grows or changes fast.';
  return [diagnostic('values_approximate', 'info', message, wholeTable(), windowRange(ctx), { buckets: ctx.window.set.starts.length })];
};
