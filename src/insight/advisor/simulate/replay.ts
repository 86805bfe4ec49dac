import { type ByteString, printable } from '../../../model/bytes.js';
import { lowerBound } from '../../../storage/lsm/sorted-entries.js';
import { balance } from '../../../tablet/balancer.js';
import { RESERVOIR_SIZE } from '../../../tablet/load-meter.js';
import { chooseLoadSplit, HOT_ROW_SHARE } from '../../../tablet/load-split.js';
import { sizeSplitKey, sizeSplitStep } from '../../../tablet/size-split.js';
import type { SimulatedNode, SimulatedTablet, SimulationSide } from '../types.js';
import { KeyFigures, type ReplayInput } from './key-figures.js';

export type { ReplayInput };

/**
 * One side of the what-if: a table's keys and their ops per round, replayed
 * through the tablet manager's own decisions: a tablet past the split size
 * splits at its median key by bytes (size-split.ts), a tablet hot for long
 * enough splits where its sampled requests divide (load-split.ts, single-row
 * hotspots left alone), children stay on their parent's node, and after
 * each round the balancer (balancer.ts) moves a few tablets by their recent
 * load, with the server's defaults. The table starts as the tablets its
 * stored keys make (split by size, balanced by bytes); keys a replayed write
 * stores first join it in that round.
 */
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

export interface ReplayResult {
  readonly side: SimulationSide;
  /** Share of the reported round's ops taken by the busiest single key. */
  readonly maxKeyShare: number;
}

export function replay(input: ReplayInput, s: ReplaySettings): ReplayResult {
  const figures = new KeyFigures(input);
  const manager = new SimulatedManager(figures, s);
  manager.rebalance(undefined, 0);
  while (manager.check(undefined));
  manager.rebalance(undefined, Number.POSITIVE_INFINITY);
  const moments: Moment[] = [];
  for (let r = 0; r < figures.rounds; r++) {
    // Round r's ops are served by the tablets as they are; then the manager reacts to them.
    if (r >= figures.rounds - s.measureRounds) {
      const layout = manager.layout();
      const ops = figures.ops(0, figures.keys.length, r);
      moments.push({ r, layout, busiest: sideOf(figures, layout, r, s.nodes).maxNodeShare, ops });
    }
    for (let c = 0; c < s.checksPerRound && manager.check(r); c++);
    manager.rebalance(r, undefined);
  }
  const typical = typicalMoment(moments);
  if (typical === undefined) return { side: sideOf(figures, manager.layout(), undefined, s.nodes), maxKeyShare: 0 };
  return { side: sideOf(figures, typical.layout, typical.r, s.nodes), maxKeyShare: figures.maxKeyShare(typical.r) };
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

interface Moment {
  readonly r: number;
  readonly layout: readonly SimTablet[];
  readonly busiest: number;
  readonly ops: number;
}

/** The tablet manager's splits and placement over simulated tablets (a round r, or undefined: before the first). */
class SimulatedManager {
  private tablets: SimTablet[];
  private nextId = 0;
  /** Since which round each tablet has been hot. */
  private readonly hotSince = new Map<string, number>();

  constructor(
    private readonly figures: KeyFigures,
    private readonly s: ReplaySettings,
  ) {
    this.tablets = [{ id: this.newId(), start: '', end: undefined, lo: 0, hi: figures.keys.length, node: undefined }];
  }

  /** A copy of the tablets as they are. */
  layout(): SimTablet[] {
    return this.tablets.map((t) => ({ ...t }));
  }

  /** One check of every tablet, as the tablet manager's checkTable: true when it split one (look again next check). */
  check(r: number | undefined): boolean {
    if (this.tablets.length >= this.s.maxTablets) return false;
    for (let index = 0; index < this.tablets.length; index++) {
      const at = this.sizeSplitAt(this.tablets[index]!, r) ?? (r === undefined ? undefined : this.loadSplitAt(this.tablets[index]!, r));
      if (at !== undefined) {
        this.split(index, at);
        return true;
      }
    }
    return false;
  }

  /** The balancer's moves, by the tablets' load over the last rounds (any load counts, and any bytes: the table is small by design). */
  rebalance(r: number | undefined, maxMoves: number | undefined): void {
    const { figures, s } = this;
    const placements = this.tablets.map((t) => {
      let load = 0;
      if (r !== undefined) for (let q = Math.max(0, r - s.loadWindowRounds + 1); q <= r; q++) load += figures.ops(t.lo, t.hi, q);
      return { id: t.id, bytes: figures.bytes(t.lo, t.hi, r), load, node: t.node };
    });
    const byId = new Map(this.tablets.map((t) => [t.id, t]));
    for (const m of balance(placements, { nodes: s.nodes, maxMoves, minLoad: Number.MIN_VALUE, minBytes: Number.MIN_VALUE })) {
      byId.get(m.id)!.node = m.to;
    }
  }

  private sizeSplitAt(t: SimTablet, r: number | undefined): ByteString | undefined {
    const step = sizeSplitStep(this.figures.bytes(t.lo, t.hi, r), this.s.splitBytes);
    return step === undefined ? undefined : sizeSplitKey(this.figures.byteSamples(t.lo, t.hi, r, step), t);
  }

  /** Where a tablet hot since `hotRounds` rounds splits by load, if its sampled requests divide. */
  private loadSplitAt(t: SimTablet, r: number): ByteString | undefined {
    if (!(this.figures.ops(t.lo, t.hi, r) > this.s.hotOps)) {
      this.hotSince.delete(t.id);
      return undefined;
    }
    const since = this.hotSince.get(t.id) ?? r;
    this.hotSince.set(t.id, since);
    if (r - since < this.s.hotRounds) return undefined;
    const decision = chooseLoadSplit(this.figures.requestSamples(t.lo, t.hi, r, RESERVOIR_SIZE), t, HOT_ROW_SHARE);
    return decision.kind === 'split' && (t.end === undefined || decision.at < t.end) ? decision.at : undefined;
  }

  /** The children stay on their parent's node. */
  private split(index: number, at: ByteString): void {
    const t = this.tablets[index]!;
    const k = lowerBound(this.figures.keys, at);
    this.tablets.splice(
      index,
      1,
      { id: this.newId(), start: t.start, end: at, lo: t.lo, hi: k, node: t.node },
      { id: this.newId(), start: at, end: t.end, lo: k, hi: t.hi, node: t.node },
    );
    this.hotSince.delete(t.id);
  }

  private newId(): string {
    return String(this.nextId++);
  }
}

/** A layout's figures in round r: ops are round r's, scaled to the whole replayed window; bytes the whole table's. */
function sideOf(figures: KeyFigures, layout: readonly SimTablet[], r: number | undefined, nodeCount: number): SimulationSide {
  const last = figures.rounds - 1;
  const ops = (t: SimTablet): number => (r === undefined ? 0 : figures.ops(t.lo, t.hi, r));
  const total = r === undefined ? 0 : figures.ops(0, figures.keys.length, r);
  const share = (n: number): number => (total > 0 ? n / total : 0);
  const tablets: SimulatedTablet[] = layout.map((t) => ({
    startText: printable(t.start),
    endText: t.end === undefined ? null : printable(t.end),
    bytes: Math.round(figures.bytes(t.lo, t.hi, last)),
    readOps: Math.round(r === undefined ? 0 : figures.reads(t.lo, t.hi) * figures.rounds),
    writeOps: Math.round(r === undefined ? 0 : figures.writes(t.lo, t.hi, r) * figures.rounds),
    share: share(ops(t)),
    node: t.node ?? 0,
  }));
  const nodes: SimulatedNode[] = Array.from({ length: nodeCount }, (_, node) => {
    const on = layout.filter((t) => (t.node ?? 0) === node);
    const sum = (f: (t: SimTablet) => number): number => on.reduce((a, t) => a + f(t), 0);
    return {
      node,
      tablets: on.length,
      bytes: Math.round(sum((t) => figures.bytes(t.lo, t.hi, last))),
      ops: Math.round(sum(ops) * figures.rounds),
      share: share(sum(ops)),
    };
  });
  return {
    tablets,
    nodes,
    maxTabletShare: Math.max(0, ...tablets.map((t) => t.share)),
    maxNodeShare: Math.max(0, ...nodes.map((n) => n.share)),
  };
}

/**
 * The round a typical op of the last rounds met: the rounds ordered by their
 * busiest node's share, the one at the median of their ops (so that a burst
 * of writes weighs by its size, and rounds without ops not at all); the last
 * round when none had any.
 */
function typicalMoment(moments: readonly Moment[]): Moment | undefined {
  const total = moments.reduce((a, m) => a + m.ops, 0);
  if (!(total > 0)) return moments[moments.length - 1];
  let seen = 0;
  for (const m of [...moments].sort((a, b) => a.busiest - b.busiest)) {
    seen += m.ops;
    if (seen >= total / 2) return m;
  }
  return moments[moments.length - 1];
}
