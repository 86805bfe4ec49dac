/**
 * Placing tablets on serving nodes, as Cloud Bigtable's balancer does:
 * spread stored bytes evenly, but let load override size, so that a very hot
 * tablet may end up alone on its node; while nodes hold too little data for
 * bytes to matter, even out tablet counts (so that new nodes get tablets).
 * Pure: given tablets (with their size, load and current node) it returns the
 * moves to make.
 */
export interface TabletPlacement {
  readonly id: string;
  readonly bytes: number;
  /** Serving time per second (µs/s) over the recent window. */
  readonly load: number;
  /** Current node, or undefined for a new tablet. */
  readonly node: number | undefined;
}

export interface Move {
  readonly id: string;
  readonly from: number | undefined;
  readonly to: number;
  readonly reason: string;
}

export interface BalanceOptions {
  readonly nodes: number;
  /** At most this many moves of existing tablets per round (new tablets are always placed). */
  readonly maxMoves?: number;
  /** Load below this (µs/s per node on average) is noise: balance by size only. */
  readonly minLoad?: number;
  /** Stored bytes below this per node on average are too few to matter: balance tablet counts. */
  readonly minBytes?: number;
  /** Tolerated imbalance, as a fraction of the average (0.25 = a node may hold 25% above average). */
  readonly tolerance?: number;
}

export function balance(tablets: readonly TabletPlacement[], opts: BalanceOptions): Move[] {
  const n = Math.max(1, opts.nodes);
  const tolerance = opts.tolerance ?? 0.25;
  const minLoad = opts.minLoad ?? 20_000;
  const minBytes = opts.minBytes ?? 1024 * 1024;
  const maxMoves = opts.maxMoves ?? 2;
  const node = new Map<string, number>();
  const load = new Array<number>(n).fill(0);
  const bytes = new Array<number>(n).fill(0);
  const count = new Array<number>(n).fill(0);
  const moves: Move[] = [];
  const place = (t: TabletPlacement, to: number, from: number | undefined, reason: string, record: boolean): void => {
    if (from !== undefined && from < n) {
      load[from] = load[from]! - t.load;
      bytes[from] = bytes[from]! - t.bytes;
      count[from] = count[from]! - 1;
    }
    node.set(t.id, to);
    load[to] = load[to]! + t.load;
    bytes[to] = bytes[to]! + t.bytes;
    count[to] = count[to]! + 1;
    if (record) moves.push({ id: t.id, from, to, reason });
  };
  const argmin = (a: number[]): number => a.reduce((best, v, i) => (v < a[best]! ? i : best), 0);
  const argmax = (a: number[]): number => a.reduce((best, v, i) => (v > a[best]! ? i : best), 0);

  const fresh: TabletPlacement[] = [];
  for (const t of tablets) {
    if (t.node !== undefined && t.node < n) place(t, t.node, undefined, '', false);
    else fresh.push(t);
  }
  // New tablets (and tablets of nodes that no longer exist) go where there is least load, then least data, then fewest tablets.
  for (const t of fresh) {
    let to = 0;
    for (let i = 1; i < n; i++) {
      if (load[i]! < load[to]! || (load[i] === load[to] && (bytes[i]! < bytes[to]! || (bytes[i] === bytes[to] && count[i]! < count[to]!))))
        to = i;
    }
    place(t, to, t.node, t.node === undefined ? 'new tablet' : `node ${t.node} is gone`, true);
  }

  const totalLoad = load.reduce((a, b) => a + b, 0);
  const totalBytes = bytes.reduce((a, b) => a + b, 0);
  const mode: 'load' | 'stored bytes' | 'tablet count' =
    totalLoad / n >= minLoad ? 'load' : totalBytes / n >= minBytes ? 'stored bytes' : 'tablet count';
  const measure = mode === 'load' ? load : mode === 'stored bytes' ? bytes : count;
  const weight = (t: TabletPlacement): number => (mode === 'load' ? t.load : mode === 'stored bytes' ? t.bytes : 1);
  const avg = (mode === 'load' ? totalLoad : mode === 'stored bytes' ? totalBytes : tablets.length) / n;
  for (let round = 0; round < maxMoves; round++) {
    if (avg <= 0) break;
    const hi = argmax(measure);
    const lo = argmin(measure);
    const gap = measure[hi]! - measure[lo]!;
    // Tablet counts are even when no node has two more than another; bytes and load within the tolerance.
    const even = mode === 'tablet count' ? gap <= 1 : measure[hi]! <= avg * (1 + tolerance);
    if (even || count[hi]! <= 1) break;
    // The tablet on the busiest node whose move narrows the gap the most.
    let pick: TabletPlacement | undefined;
    let pickAfter = gap;
    for (const t of tablets) {
      if (node.get(t.id) !== hi) continue;
      const w = weight(t);
      if (w <= 0) continue;
      const after = Math.max(measure[hi]! - w, measure[lo]! + w) - Math.min(measure[hi]! - w, measure[lo]! + w);
      if (after < pickAfter) {
        pick = t;
        pickAfter = after;
      }
    }
    if (pick === undefined) break;
    place(
      pick,
      lo,
      hi,
      `balance ${mode}: node ${hi} has ${Math.round((measure[hi]! / avg) * 100)}% of the average, node ${lo} ${Math.round((measure[lo]! / avg) * 100)}%`,
      true,
    );
  }
  return moves;
}
