import { type ByteString, keySuccessor, printable } from '../../../model/bytes.js';
import { keyRangeJson } from '../../key-range-json.js';
import type { Finding } from '../types.js';
import { type Rule, type RuleContext, finding, sizeText } from './context.js';

/**
 * Rows over `largeRowBytes` (warning) or `largeRowDangerBytes` (danger: the
 * limit is 256 MB and a write past it fails), from the largest rows known,
 * the row profiles and the heatmap's large_rows; cells over `largeCellBytes`
 * from the row profiles. One finding for rows, one for cells.
 */
export const largeRow: Rule = (ctx) => [...rows(ctx), ...cells(ctx)];

function rows(ctx: RuleContext): Finding[] {
  const { t } = ctx;
  const sizes = new Map<ByteString, number>();
  const note = (key: ByteString, bytes: number): void => void sizes.set(key, Math.max(bytes, sizes.get(key) ?? 0));
  for (const r of ctx.table.largestRows) note(r.key, r.bytes);
  for (const r of ctx.table.rowProfiles) note(r.key, r.bytes);
  for (const d of ctx.table.diagnostics) {
    if (d.kind === 'large_rows' && typeof d.evidence.rowBytes === 'number' && d.evidence.key !== undefined) {
      note(Buffer.from(d.keyRange.start, 'base64').toString('latin1'), d.evidence.rowBytes);
    }
  }
  const large = [...sizes].filter(([, b]) => b > t.largeRowBytes).sort((a, b) => b[1] - a[1]);
  if (large.length === 0) return [];
  const [key, bytes] = large[0]!;
  const danger = bytes >= t.largeRowDangerBytes;
  const k = printable(key);
  return [
    finding(
      ctx,
      'large-row',
      danger ? 'danger' : 'warning',
      `${large.length === 1 ? 'A row is' : `${large.length} rows are`} very large: \`${k}\` holds ${sizeText(bytes)}` +
        `${danger ? ', close to the 256 MB a row may hold: the next writes to it will fail' : ' (keep rows far below 100 MB)'}. ` +
        `A row is read whole into one node's memory and never split, so large rows make reads slow and memory-hungry and pin their load on one tablet.`,
      {
        key: k,
        rowBytes: bytes,
        rowsOver: large.length,
        threshold: danger ? t.largeRowDangerBytes : t.largeRowBytes,
        limitBytes: 256 * 1024 * 1024,
        examples: large.slice(0, 3).map(([x]) => printable(x)),
      },
      `Split the row by time or by a sub-key, so that each row holds a bounded slice: \`${k}\` → \`${k}#2026-11\` (one row per ` +
        `month) or \`${k}#<item id>\`, read back with the prefix \`${k}#\`; and let a GC policy drop old cells.`,
      { keyRange: keyRangeJson(key, keySuccessor(key)) },
    ),
  ];
}

function cells(ctx: RuleContext): Finding[] {
  const { t } = ctx;
  const big = ctx.table.rowProfiles.flatMap((r) =>
    r.families.filter((f) => f.maxCellBytes > t.largeCellBytes).map((f) => ({ key: r.key, family: f.family, bytes: f.maxCellBytes })),
  );
  if (big.length === 0) return [];
  const top = big.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  const k = printable(top.key);
  return [
    finding(
      ctx,
      'large-row',
      'warning',
      `Cells are very large: row \`${k}\` holds a ${sizeText(top.bytes)} cell in \`${top.family}\` (${big.length} cell` +
        `${big.length === 1 ? '' : 's'} over ${sizeText(t.largeCellBytes)} in the rows sampled). Bigtable is built for cells of ` +
        `a few MB at most; large values slow every read of their row and the node that serves it.`,
      { key: k, family: top.family, cellBytes: top.bytes, cellsOver: big.length, threshold: t.largeCellBytes },
      `Store large values in object storage and keep their address in the cell (\`${k}\` / \`${top.family}:blob\` = \`gs://bucket/${k}\`), ` +
        `or chunk them over rows \`${k}#chunk0000\`, \`${k}#chunk0001\`, ….`,
      { keyRange: keyRangeJson(top.key, keySuccessor(top.key)) },
    ),
  ];
}
