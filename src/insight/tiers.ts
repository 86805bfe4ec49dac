import { type Column, addInto, newColumn } from './column.js';

/** A resolution of history: columns of `millis`, kept for `keep` of them. */
export interface TierSpec {
  readonly name: string;
  readonly millis: number;
  readonly keep: number;
}

/** 10 s for an hour, 1 min for a day, 1 h for 14 days (with the default 10 s `bucketMillis`: tiers are ×6 and ×360 of it). */
export function tierSpecs(bucketMillis: number): readonly TierSpec[] {
  return [
    { name: 'fine', millis: bucketMillis, keep: 360 },
    { name: 'medium', millis: bucketMillis * 6, keep: 1440 },
    { name: 'coarse', millis: bucketMillis * 360, keep: 336 },
  ];
}

/** Columns of `spec` that start before this are out of its retention at `nowMillis`. */
export function retentionStart(spec: TierSpec, nowMillis: number): number {
  return Math.floor(nowMillis / spec.millis) * spec.millis - spec.keep * spec.millis;
}

/** A column that closed in a tier (index into tierSpecs). */
export interface ClosedColumn {
  readonly tier: number;
  readonly column: Column;
}

/**
 * Rolls one table's closed finest columns up into the coarser tiers: each
 * finest column is added into the open column of the tier above, which
 * closes (and is added into the next) once its time has passed. A coarser
 * column covers one boundary set: a finest column over a newer set is first
 * re-binned onto it by `rebin` (the heatmap query's re-binning), else the
 * open one is re-binned onto the newer set.
 */
export class TierRollup {
  /** The open column of each tier above the finest (index 0 unused). */
  private readonly open: (Column | undefined)[];

  constructor(
    private readonly specs: readonly TierSpec[],
    /** `column`'s figures (its time span) over the boundary set of `onto`. */
    private readonly rebin: (column: Column, onto: Column) => Column = sameSetOnly,
  ) {
    this.open = specs.map(() => undefined);
  }

  /** Takes a closed finest column; returns it and whatever closed in the coarser tiers before it, finest first. */
  add(column: Column): ClosedColumn[] {
    const closed = this.advance(column.startMillis);
    closed.unshift({ tier: 0, column });
    this.fold(1, column);
    return closed;
  }

  /** Closes the coarser columns whose time has ended by `nowMillis` (on the recorder's timer, also without traffic). */
  advance(nowMillis: number): ClosedColumn[] {
    const closed: ClosedColumn[] = [];
    for (let tier = 1; tier < this.specs.length; tier++) {
      const col = this.open[tier];
      if (col === undefined || nowMillis < col.startMillis + col.durationMillis) continue;
      this.open[tier] = undefined;
      closed.push({ tier, column: col });
      this.fold(tier + 1, col);
    }
    return closed;
  }

  /** The open coarser columns (live), tier ascending. */
  openColumns(): ClosedColumn[] {
    const out: ClosedColumn[] = [];
    for (let tier = 1; tier < this.specs.length; tier++) {
      const col = this.open[tier];
      if (col !== undefined) out.push({ tier, column: col });
    }
    return out;
  }

  /** Closes every open coarser column whether or not its time is over (at shutdown): the history keeps them. */
  drain(): ClosedColumn[] {
    const out = this.openColumns();
    this.open.fill(undefined);
    return out;
  }

  private fold(tier: number, column: Column): void {
    if (tier >= this.specs.length) return;
    const spec = this.specs[tier]!;
    let open = this.open[tier];
    if (open !== undefined && open.setId !== column.setId) {
      // The newer set wins: the open column moves onto it when the incoming one is newer.
      if (column.setId > open.setId) open = this.open[tier] = this.rebin(open, column);
      else column = this.rebin(column, open);
    }
    if (open === undefined) {
      const start = Math.floor(column.startMillis / spec.millis) * spec.millis;
      open = this.open[tier] = newColumn(start, spec.millis, column.setId, column.buckets);
    }
    addInto(open, column);
  }
}

export function sameSetOnly(column: Column, onto: Column): Column {
  throw new RangeError(`no re-binning: column of set ${column.setId} onto set ${onto.setId}`);
}
