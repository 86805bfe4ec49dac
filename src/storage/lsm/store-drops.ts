import type { RangeDrop } from '../manifest/manifest-state.js';
import type { StoreDrops } from './fragment.js';

/** A store's dropped families and key ranges (from the manifest), for visibility checks. */
export class DropSet implements StoreDrops {
  constructor(
    private families: Readonly<Record<string, number>>,
    private ranges: readonly RangeDrop[],
  ) {}

  get empty(): boolean {
    return this.ranges.length === 0 && Object.keys(this.families).length === 0;
  }

  /** Highest sequence of any drop (0 when none). */
  get maxSeq(): number {
    let m = 0;
    for (const r of this.ranges) m = Math.max(m, r.seq);
    for (const s of Object.values(this.families)) m = Math.max(m, s);
    return m;
  }

  /** An unchanging copy holding only the drops up to `snapshotSeq`, for a read as of that sequence. */
  frozen(snapshotSeq: number): DropSet {
    const families: Record<string, number> = {};
    for (const [f, seq] of Object.entries(this.families)) if (seq <= snapshotSeq) families[f] = seq;
    return new DropSet(
      families,
      this.ranges.filter((r) => r.seq <= snapshotSeq),
    );
  }

  update(families: Readonly<Record<string, number>>, ranges: readonly RangeDrop[]): void {
    this.families = families;
    this.ranges = ranges;
  }

  familyDropSeq(family: string): number {
    return this.families[family] ?? 0;
  }

  rangeDropSeq(key: string): number {
    let seq = 0;
    for (const r of this.ranges) {
      if (r.seq > seq && key >= r.start && (r.end === null || key < r.end)) seq = r.seq;
    }
    return seq;
  }
}
