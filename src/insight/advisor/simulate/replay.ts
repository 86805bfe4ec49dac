import { type ByteString, printable } from '../../../model/bytes.js';
import { balance, type TabletPlacement } from '../../../tablet/balancer.js';
import { RESERVOIR_SIZE } from '../../../tablet/load-meter.js';
import { chooseLoadSplit, HOT_ROW_SHARE } from '../../../tablet/load-split.js';
import { sizeSplitKey, sizeSplitStep } from '../../../tablet/size-split.js';
import type { SimulatedNode, SimulatedTablet, SimulationSide } from '../types.js';
import { lowerBound } from '../../../storage/lsm/sorted-entries.js';

/**
 * One side of the what-if: a table's keys and their ops per round, replayed
 * through the tablet manager's own decisions: a tablet past the split size
 * splits at its median key by bytes (size-split.ts), a tablet hot for long
 * enough splits where its sampled requests divide (load-split.ts, single-row
 * hotspots left alone), children stay on their parent's node, and after
 * each round the balancer (balancer.ts) moves a few tablets by their recent
 * load, with the server's defaults. The table starts as one tablet that
 * splits by size and is balanced by bytes before the first round, as a
 * table that grew to its size would be.
 */
/** Keys (sampled, possibly rewritten) with what each stands for and the ops on it in each round. */
export interface ReplayInput {
  /** Ascending, distinct. */
  readonly keys: readonly ByteString[];
  /** Stored bytes each key stands for. */
  readonly bytes: readonly number[];
  /** Reads on keys[i] in each round (reads are spread evenly over time). */
  readonly reads: readonly number[];
  /** writes[r][i]: the writes on keys[i] in round r. */
  readonly writes: readonly (readonly number[])[];
  /** The round in which keys[i] is first stored (its bytes count from then); -1: before the first round. */
  readonly born: readonly number[];
}

export interface ReplaySettings {
  readonly nodes: number;
  /** A tablet with more bytes splits at its median key. */
  readonly splitBytes: number;
  /** A tablet with more ops than this in a round is hot. */
  readonly hotOps: number;
  /** Rounds a tablet must have stayed hot before it splits by load (the load-split window). */
  readonly hotRounds: number;
  /** Tablet checks per round (each makes at most one split, as the tablet manager's does). */
  readonly checksPerRound: number;
  /** Rounds of load the balancer reads. */
  readonly loadWindowRounds: number;
  /** The figures are those of a typical moment of the last this many rounds (typicalMoment). */
  readonly measureRounds: number;
  /** No splits past this many tablets (bounded work). */
  readonly maxTablets: number;
}

interface SimTablet {
  readonly id: string;
  readonly start: ByteString;
  readonly end: ByteString | undefined;
  /** Its keys: keys[lo, hi). */
  readonly lo: number;
  readonly hi: number;
  node: number | undefined;
}

/** Figures of a side that are not part of SimulationSide. */
export interface ReplayResult {
  readonly side: SimulationSide;
  /** Share of the reported round's ops taken by the busiest single key. */
  readonly maxKeyShare: number;
}

export function replay(input: ReplayInput, s: ReplaySettings): ReplayResult {
  const { keys, bytes, reads, writes, born } = input;
  const rounds = writes.length;
  const prefix = (values: readonly number[]): Float64Array => {
    const p = new Float64Array(values.length + 1);
    values.forEach((v, i) => (p[i + 1] = p[i]! + v));
    return p;
  };
  // Stored bytes before the first round (index 0) and in each round r (index r + 1).
  const bytesSum = Array.from({ length: rounds + 1 }, (_, r) => prefix(bytes.map((b, i) => (born[i]! < r ? b : 0))));
  const opsSum = writes.map((w) => prefix(w.map((x, i) => x + reads[i]!)));
  /** A tablet's stored bytes in round r (undefined: before the first). */
  const bytesOf = (t: SimTablet, r: number | undefined): number => {
    const sum = bytesSum[r === undefined ? 0 : r + 1]!;
    return sum[t.hi]! - sum[t.lo]!;
  };
  const opsOf = (t: SimTablet, r: number): number => opsSum[r]![t.hi]! - opsSum[r]![t.lo]!;

  let nextId = 0;
  let tablets: SimTablet[] = [{ id: String(nextId++), start: '', end: undefined, lo: 0, hi: keys.length, node: undefined }];
  const hotSince = new Map<string, number>();

  const split = (index: number, at: ByteString): void => {
    const t = tablets[index]!;
    const k = lowerBound(keys, at);
    const left: SimTablet = { id: String(nextId++), start: t.start, end: at, lo: t.lo, hi: k, node: t.node };
    const right: SimTablet = { id: String(nextId++), start: at, end: t.end, lo: k, hi: t.hi, node: t.node };
    tablets = [...tablets.slice(0, index), left, right, ...tablets.slice(index + 1)];
    hotSince.delete(t.id);
  };

  /** The keys a store samples every `step` bytes (the memory store's sampleKeys). */
  const byteSamples = (t: SimTablet, r: number | undefined, step: number): { key: ByteString }[] => {
    const out: { key: ByteString }[] = [];
    const sum = bytesSum[r === undefined ? 0 : r + 1]!;
    let offset = 0;
    let last = 0;
    for (let i = t.lo; i < t.hi; i++) {
      const b = sum[i + 1]! - sum[i]!;
      if (b === 0) continue;
      if (offset - last >= step) {
        out.push({ key: keys[i]! });
        last = offset;
      }
      offset += b;
    }
    return out;
  };

  /** The requests a tablet's reservoir would hold after round r: its keys in proportion to their ops. */
  const requestSamples = (t: SimTablet, r: number): ByteString[] => {
    const total = opsOf(t, r);
    const out: ByteString[] = [];
    let i = t.lo;
    for (let j = 0; j < RESERVOIR_SIZE; j++) {
      const at = opsSum[r]![t.lo]! + ((j + 0.5) * total) / RESERVOIR_SIZE;
      while (i < t.hi - 1 && opsSum[r]![i + 1]! <= at) i++;
      out.push(keys[i]!);
    }
    return out;
  };

  /** One check of every tablet, as the tablet manager's checkTable: true when it split one (look again next check). */
  const check = (r: number | undefined): boolean => {
    if (tablets.length >= s.maxTablets) return false;
    for (let index = 0; index < tablets.length; index++) {
      const t = tablets[index]!;
      const step = sizeSplitStep(bytesOf(t, r), s.splitBytes);
      if (step !== undefined) {
        const at = sizeSplitKey(byteSamples(t, r, step), t);
        if (at !== undefined) {
          split(index, at);
          return true;
        }
      }
      if (r === undefined) continue;
      if (!(opsOf(t, r) > s.hotOps)) {
        hotSince.delete(t.id);
        continue;
      }
      const since = hotSince.get(t.id) ?? r;
      hotSince.set(t.id, since);
      if (r - since < s.hotRounds) continue;
      const decision = chooseLoadSplit(requestSamples(t, r), t, HOT_ROW_SHARE);
      if (decision.kind === 'split' && (t.end === undefined || decision.at < t.end)) {
        split(index, decision.at);
        return true;
      }
    }
    return false;
  };

  const rebalance = (r: number | undefined, maxMoves: number | undefined): void => {
    const placements: TabletPlacement[] = tablets.map((t) => {
      let load = 0;
      if (r !== undefined) for (let q = Math.max(0, r - s.loadWindowRounds + 1); q <= r; q++) load += opsOf(t, q);
      return { id: t.id, bytes: bytesOf(t, r), load, node: t.node };
    });
    const byId = new Map(tablets.map((t) => [t.id, t]));
    // Any load at all counts, and any bytes: the simulated table is small by design.
    for (const m of balance(placements, { nodes: s.nodes, maxMoves, minLoad: Number.MIN_VALUE, minBytes: Number.MIN_VALUE })) {
      byId.get(m.id)!.node = m.to;
    }
  };

  rebalance(undefined, 0);
  while (check(undefined));
  rebalance(undefined, Number.POSITIVE_INFINITY);
  const moments: { r: number; layout: SimTablet[]; busiest: number; ops: number }[] = [];
  for (let r = 0; r < rounds; r++) {
    // Round r's ops are served by the tablets as they are; then the manager reacts to them.
    if (r >= rounds - s.measureRounds) {
      const layout = tablets.map((t) => ({ ...t }));
      moments.push({ r, layout, busiest: sideOf(layout, r).maxNodeShare, ops: opsSum[r]![keys.length]! });
    }
    for (let c = 0; c < s.checksPerRound && check(r); c++);
    rebalance(r, undefined);
  }
  const typical = typicalMoment(moments);
  const side = typical === undefined ? sideOf(tablets, -1) : sideOf(typical.layout, typical.r);
  return { side, maxKeyShare: typical === undefined ? 0 : maxKeyShare(typical.r) };

  function sideOf(final: readonly SimTablet[], r: number): SimulationSide {
    const total = r < 0 ? 0 : opsOf({ id: '', start: '', end: undefined, lo: 0, hi: keys.length, node: 0 }, r);
    const share = (ops: number): number => (total > 0 ? ops / total : 0);
    const sum = (values: readonly number[], t: SimTablet): number => {
      let v = 0;
      for (let i = t.lo; i < t.hi; i++) v += values[i]!;
      return v;
    };
    // Ops are round r's, scaled to the whole replayed window; bytes are the whole table's (every key stored).
    const tabletsOut: SimulatedTablet[] = final.map((t) => {
      const readOps = r < 0 ? 0 : sum(reads, t) * rounds;
      const writeOps = r < 0 ? 0 : sum(writes[r]!, t) * rounds;
      return {
        startText: printable(t.start),
        endText: t.end === undefined ? null : printable(t.end),
        bytes: Math.round(bytesOf(t, rounds - 1)),
        readOps: Math.round(readOps),
        writeOps: Math.round(writeOps),
        share: share(r < 0 ? 0 : opsOf(t, r)),
        node: t.node ?? 0,
      };
    });
    const nodes: SimulatedNode[] = Array.from({ length: s.nodes }, (_, node) => {
      const on = final.filter((t) => (t.node ?? 0) === node);
      const ops = on.reduce((a, t) => a + (r < 0 ? 0 : opsOf(t, r)), 0);
      return {
        node,
        tablets: on.length,
        bytes: Math.round(on.reduce((a, t) => a + bytesOf(t, rounds - 1), 0)),
        ops: Math.round(ops * rounds),
        share: share(ops),
      };
    });
    return {
      tablets: tabletsOut,
      nodes,
      maxTabletShare: Math.max(0, ...tabletsOut.map((t) => t.share)),
      maxNodeShare: Math.max(0, ...nodes.map((n) => n.share)),
    };
  }

  function maxKeyShare(r: number): number {
    const total = opsSum[r]![keys.length]!;
    if (!(total > 0)) return 0;
    let top = 0;
    for (let i = 0; i < keys.length; i++) top = Math.max(top, opsSum[r]![i + 1]! - opsSum[r]![i]!);
    return top / total;
  }
}

/**
 * The round a typical op of the last rounds met: the rounds ordered by their
 * busiest node's share, the one at the median of their ops (so that a burst
 * of writes weighs by its size, and rounds without ops not at all); the last
 * round when none had any.
 */
function typicalMoment<M extends { readonly busiest: number; readonly ops: number }>(moments: readonly M[]): M | undefined {
  const total = moments.reduce((a, m) => a + m.ops, 0);
  if (!(total > 0)) return moments[moments.length - 1];
  let seen = 0;
  for (const m of [...moments].sort((a, b) => a.busiest - b.busiest)) {
    seen += m.ops;
    if (seen >= total / 2) return m;
  }
  return moments[moments.length - 1];
}
