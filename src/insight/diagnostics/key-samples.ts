import type { ByteString } from '../../model/bytes.js';
import type { DiagnosticContext } from './context.js';

/**
 * Keys the advisors look at: the bucket boundaries (one per row on small
 * tables, shortened separators on big ones), the largest rows, the keys an
 * edge bucket saw; sorted and without duplicates or ''.
 */
export function sampleKeys(ctx: DiagnosticContext): ByteString[] {
  const keys = new Set<ByteString>(ctx.window.set.starts);
  for (const r of ctx.largestRows) keys.add(r.key);
  for (const c of ctx.window.columns) {
    for (const span of [c.firstEdge, c.lastEdge]) if (span !== undefined) keys.add(span.min).add(span.max);
  }
  keys.delete('');
  return [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
