/**
 * The what-if picture's geometry: per-node bars of the share of ops, before
 * and after on one scale (so that the eye compares heights honestly), and
 * the busiest tablets of a side. Pure: the SVG draws what these return.
 */
import type { SimulatedTablet, SimulationSide } from '../../insight/advisor/types.js';

export interface ChartBox {
  readonly width: number;
  readonly height: number;
  /** Room under the bars for the node labels, above them for the values. */
  readonly bottom: number;
  readonly top: number;
}

export interface NodeBar {
  readonly node: number;
  readonly share: number;
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

/** The top of a scale for these shares: the largest, up to the next 10% (at least 10%, at most 100%). */
export function shareCeiling(shares: readonly number[]): number {
  const max = Math.max(0, ...shares);
  return Math.min(1, Math.max(0.1, Math.ceil(max * 10 - 1e-9) / 10));
}

/** The top of both node charts' scale: the busier side's busiest node, up to the next 10%. */
export function sharedCeiling(before: SimulationSide, after: SimulationSide): number {
  return shareCeiling([before.maxNodeShare, after.maxNodeShare, ...before.nodes.map((n) => n.share), ...after.nodes.map((n) => n.share)]);
}

/** The top of both tablet charts' scale: the busier side's busiest tablet, up to the next 10%. */
export function tabletCeiling(before: SimulationSide, after: SimulationSide): number {
  return shareCeiling([
    before.maxTabletShare,
    after.maxTabletShare,
    ...before.tablets.map((t) => t.share),
    ...after.tablets.map((t) => t.share),
  ]);
}

/** One bar per node in node order, heights as share / ceiling of the plot's height, a fifth of each slot as gap. */
export function nodeBars(side: SimulationSide, box: ChartBox, ceiling: number): NodeBar[] {
  const nodes = [...side.nodes].sort((a, b) => a.node - b.node);
  const slot = nodes.length === 0 ? 0 : box.width / nodes.length;
  const gap = slot * 0.2;
  const plot = box.height - box.top - box.bottom;
  return nodes.map((n, i) => {
    const h = (Math.min(n.share, ceiling) / ceiling) * plot;
    return { node: n.node, share: n.share, x: i * slot + gap / 2, y: box.top + plot - h, w: slot - gap, h };
  });
}

/** The y of a share on the plot (for the even-share line and the scale's ticks). */
export function shareY(share: number, box: ChartBox, ceiling: number): number {
  const plot = box.height - box.top - box.bottom;
  return box.top + plot - (Math.min(share, ceiling) / ceiling) * plot;
}

/** The `n` tablets with the largest share of ops, largest first (ties in key order, as the side lists them). */
export function busiestTablets(side: SimulationSide, n: number): SimulatedTablet[] {
  return side.tablets
    .map((t, i) => ({ t, i }))
    .sort((a, b) => b.t.share - a.t.share || a.i - b.i)
    .slice(0, n)
    .map((x) => x.t);
}

/** A label cut to `max` characters with an ellipsis in the middle (both ends of a key range matter). */
export function shorten(s: string, max: number): string {
  if (s.length <= max) return s;
  const head = Math.ceil((max - 1) / 2);
  return `${s.slice(0, head)}…${s.slice(s.length - (max - 1 - head))}`;
}
