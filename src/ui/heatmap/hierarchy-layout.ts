/**
 * The key hierarchy along the key axis: each span (a key prefix covering
 * buckets from..to) becomes a bracket in its depth's lane, positioned against
 * the heatmap's rows. Labels only where the bracket is tall enough to hold one.
 */
import type { HierarchySpanJson } from '../../insight/api-types.js';

export interface AxisBracket {
  readonly depth: number;
  readonly text: string;
  readonly top: number;
  readonly bottom: number;
  readonly labelled: boolean;
  /** The spans' bucket range, for the tooltip. */
  readonly from: number;
  readonly to: number;
}

export interface HierarchyLayoutOptions {
  readonly maxDepth: number;
  /** A bracket shorter than this (px) is drawn without its label. */
  readonly minLabelPx: number;
  /** Brackets shorter than this (px) are left out. */
  readonly minBracketPx: number;
}

export const DEFAULT_HIERARCHY_LAYOUT: HierarchyLayoutOptions = { maxDepth: 3, minLabelPx: 14, minBracketPx: 3 };

export function layoutHierarchy(
  spans: readonly HierarchySpanJson[],
  bucketCount: number,
  height: number,
  opts: HierarchyLayoutOptions = DEFAULT_HIERARCHY_LAYOUT,
): AxisBracket[] {
  if (bucketCount === 0) return [];
  const rowPx = height / bucketCount;
  const out: AxisBracket[] = [];
  for (const s of spans) {
    if (s.depth < 1 || s.depth > opts.maxDepth) continue;
    const from = Math.max(0, s.from);
    const to = Math.min(bucketCount - 1, s.to);
    if (to < from) continue;
    const top = from * rowPx;
    const bottom = (to + 1) * rowPx;
    if (bottom - top < opts.minBracketPx) continue;
    out.push({ depth: s.depth, text: s.text, top, bottom, labelled: bottom - top >= opts.minLabelPx, from, to });
  }
  return out.sort((a, b) => a.depth - b.depth || a.top - b.top);
}

/** How many depth lanes the axis needs. */
export function laneCount(brackets: readonly AxisBracket[]): number {
  return brackets.reduce((m, b) => Math.max(m, b.depth), 0);
}
