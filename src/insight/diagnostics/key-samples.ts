import type { ByteString } from '../../model/bytes.js';
import type { DiagnosticContext } from './context.js';

/**
 * Keys the advisors look at: real row keys from the last key distribution
 * (else the bucket boundaries, which are separators cut short: `…56.3`
 * between `…56.233Z#…` and `…56.300Z#…` read as an unpadded number), the
 * largest rows, the keys an edge bucket saw; sorted and without duplicates
 * or ''.
 */
export function sampleKeys(ctx: DiagnosticContext): ByteString[] {
  const keys = new Set<ByteString>(ctx.keySamples.length > 0 ? ctx.keySamples : ctx.window.set.starts);
  for (const r of ctx.largestRows) keys.add(r.key);
  for (const c of ctx.window.columns) {
    for (const span of [c.firstEdge, c.lastEdge]) if (span !== undefined) keys.add(span.min).add(span.max);
  }
  keys.delete('');
  return [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
