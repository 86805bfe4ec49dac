import { describe, expect, it } from 'vitest';
import type { SimulationSide } from '../../insight/advisor/types.js';
import { busiestTablets, nodeBars, sharedCeiling, shareY, shorten, tabletCeiling } from './load-bars.js';

function side(shares: number[], tabletShares: number[] = []): SimulationSide {
  return {
    nodes: shares.map((share, node) => ({ node, share, tablets: 1, bytes: 0, ops: Math.round(share * 1000) })),
    tablets: tabletShares.map((share, i) => ({
      startText: `k${i}`,
      endText: i === tabletShares.length - 1 ? null : `k${i + 1}`,
      bytes: 0,
      readOps: 0,
      writeOps: Math.round(share * 1000),
      share,
      node: i % Math.max(1, shares.length),
    })),
    maxNodeShare: Math.max(0, ...shares),
    maxTabletShare: Math.max(0, ...tabletShares),
  };
}

describe('the what-if bars', () => {
  it('share one scale: the busier side up to the next 10%, never above 100% or below 10%', () => {
    expect(sharedCeiling(side([0.97, 0.03]), side([0.52, 0.48]))).toBe(1);
    expect(sharedCeiling(side([0.26, 0.24, 0.25, 0.25]), side([0.3, 0.2, 0.25, 0.25]))).toBeCloseTo(0.3);
    expect(sharedCeiling(side([0.5, 0.5]), side([0.5, 0.5]))).toBeCloseTo(0.5);
    expect(sharedCeiling(side([0.01]), side([0.02]))).toBeCloseTo(0.1);
  });

  it('draw each node a bar in node order, height in proportion to its share, on the shared baseline', () => {
    const box = { width: 400, height: 240, top: 20, bottom: 20 };
    const bars = nodeBars(side([0.75, 0.25]), box, 1);
    expect(bars.map((b) => b.node)).toEqual([0, 1]);
    expect(bars[0]!.h).toBeCloseTo(150);
    expect(bars[1]!.h).toBeCloseTo(50);
    for (const b of bars) expect(b.y + b.h).toBeCloseTo(220);
    expect(bars[0]!.x).toBeCloseTo(20);
    expect(bars[0]!.w).toBeCloseTo(160);
    expect(bars[1]!.x).toBeCloseTo(220);
    expect(shareY(0.5, box, 1)).toBeCloseTo(120);
    expect(shareY(0.5, box, 0.5)).toBeCloseTo(20);
  });

  it('pick the busiest tablets, largest first, ties in key order', () => {
    const s = side([1], [0.1, 0.4, 0.1, 0.4]);
    expect(busiestTablets(s, 3).map((t) => t.startText)).toEqual(['k1', 'k3', 'k0']);
  });

  it('scale the tablets of both sides alike, and shorten long key ranges in the middle', () => {
    expect(tabletCeiling(side([1], [0.95, 0.05]), side([1], [0.3, 0.3, 0.4]))).toBe(1);
    expect(tabletCeiling(side([1], [0.25, 0.25, 0.5]), side([1], [0.1, 0.9]))).toBeCloseTo(0.9);
    expect(tabletCeiling(side([1], [0.15, 0.85]), side([1], [0.35, 0.65]))).toBeCloseTo(0.9);
    expect(shorten('abcdefghij', 10)).toBe('abcdefghij');
    expect(shorten('abcdefghijk', 5)).toBe('ab…jk');
    expect(shorten('sensor123#2023 … (end of table)', 12)).toHaveLength(12);
  });
});
