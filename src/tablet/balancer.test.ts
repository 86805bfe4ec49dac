import { describe, expect, it } from 'vitest';
import { balance, type TabletPlacement } from './balancer.js';

function apply(tablets: TabletPlacement[], nodes: number, rounds = 20): TabletPlacement[] {
  let current = tablets;
  for (let r = 0; r < rounds; r++) {
    const moves = balance(current, { nodes });
    if (moves.length === 0) break;
    const to = new Map(moves.map((m) => [m.id, m.to]));
    current = current.map((t) => ({ ...t, node: to.get(t.id) ?? t.node }));
  }
  return current;
}

const perNode = (ts: TabletPlacement[], nodes: number, f: (t: TabletPlacement) => number): number[] => {
  const out = new Array<number>(nodes).fill(0);
  for (const t of ts) out[t.node!] = out[t.node!]! + f(t);
  return out;
};

describe('balance', () => {
  it('places new tablets and evens out stored bytes when load is negligible', () => {
    const tablets = Array.from({ length: 12 }, (_, i) => ({ id: `t${i}`, bytes: 100, load: 0, node: i < 9 ? 0 : undefined }));
    const placed = apply(tablets, 3);
    // Every node within the tolerance (25%) of the average of 400 bytes.
    for (const b of perNode(placed, 3, (t) => t.bytes)) expect(Math.abs(b - 400)).toBeLessThanOrEqual(100);
  });

  it('lets load override size, and gives a very hot tablet a node of its own', () => {
    const tablets: TabletPlacement[] = [
      { id: 'hot', bytes: 10, load: 900_000, node: 0 },
      ...Array.from({ length: 8 }, (_, i) => ({ id: `cold${i}`, bytes: 1000, load: 50_000, node: 0 })),
    ];
    const placed = apply(tablets, 3);
    const hotNode = placed.find((t) => t.id === 'hot')!.node;
    expect(placed.filter((t) => t.node === hotNode)).toHaveLength(1);
    const loads = perNode(placed, 3, (t) => t.load);
    expect(Math.max(...loads)).toBe(900_000);
  });

  it('does nothing when placement is already even', () => {
    const tablets = Array.from({ length: 6 }, (_, i) => ({ id: `t${i}`, bytes: 100, load: 100_000, node: i % 3 }));
    expect(balance(tablets, { nodes: 3 })).toEqual([]);
  });

  it('spreads new empty tablets over the nodes, and evens out tablet counts while nodes hold too little data to matter', () => {
    const fresh = Array.from({ length: 9 }, (_, i) => ({ id: `t${i}`, bytes: 0, load: 0, node: undefined }));
    const placed = fresh.map((t) => ({ ...t, node: balance(fresh, { nodes: 3, maxMoves: 0 }).find((m) => m.id === t.id)!.to }));
    expect(perNode(placed, 3, () => 1)).toEqual([3, 3, 3]);
    // Scaled from 3 to 5 nodes: tablets move onto the new ones, with the measure named.
    const moves = balance(placed, { nodes: 5, maxMoves: Infinity });
    expect(moves.every((m) => m.reason.startsWith('balance tablet count: '))).toBe(true);
    const after = placed.map((t) => ({ ...t, node: moves.filter((m) => m.id === t.id).pop()?.to ?? t.node }));
    expect(Math.max(...perNode(after, 5, () => 1))).toBe(2);
    expect(Math.min(...perNode(after, 5, () => 1))).toBe(1);
  });

  it('moves the tablets of nodes that no longer exist (a cluster scaled down), saying why', () => {
    const tablets = Array.from({ length: 6 }, (_, i) => ({ id: `t${i}`, bytes: 2 << 20, load: 0, node: i }));
    const moves = balance(tablets, { nodes: 3, maxMoves: 0 });
    expect(moves.map((m) => [m.id, m.from, m.reason])).toEqual([
      ['t3', 3, 'node 3 is gone'],
      ['t4', 4, 'node 4 is gone'],
      ['t5', 5, 'node 5 is gone'],
    ]);
    expect(new Set(moves.map((m) => m.to))).toEqual(new Set([0, 1, 2]));
  });
});
