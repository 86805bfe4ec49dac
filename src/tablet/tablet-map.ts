import type { ByteString } from '../model/bytes.js';
import { dataLoss } from '../model/errors.js';
import type { KeyRange } from '../model/key-range.js';
import type { MaybePromise, RowStore } from '../storage/store.js';
import type { Tablet, TabletRecord } from './tablet.js';

/**
 * The tablets of one table, in key order, covering the whole key space:
 * the first starts at '' and the last is unbounded; each ends where the
 * next begins. Immutable: splitting or merging builds a new map, so a
 * reader that captured a map keeps a consistent list of tablets.
 */
export class TabletMap {
  private constructor(readonly tablets: readonly Tablet[]) {}

  /**
   * Opens the stores of the tablets described by `records` (which must
   * cover the key space in order, as `recordsForSplits` builds them).
   */
  static open(records: readonly TabletRecord[], openStore: (id: string) => MaybePromise<RowStore>): MaybePromise<TabletMap> {
    checkCoverage(records);
    const stores = records.map((r) => openStore(r.id));
    const build = (opened: readonly RowStore[]): TabletMap =>
      new TabletMap(records.map((r, i) => ({ id: r.id, range: { start: r.start, end: r.end }, store: opened[i]! })));
    if (stores.some((s) => s instanceof Promise)) return Promise.all(stores).then(build);
    return build(stores as RowStore[]);
  }

  /** Records for a new table cut at `splits` (ascending, unique, non-empty keys). */
  static recordsForSplits(splits: readonly ByteString[], idOf: (index: number) => string): TabletRecord[] {
    const records: TabletRecord[] = [];
    let start = '';
    splits.forEach((split, i) => {
      records.push({ id: idOf(i), start, end: split });
      start = split;
    });
    records.push({ id: idOf(splits.length), start, end: undefined });
    return records;
  }

  get size(): number {
    return this.tablets.length;
  }

  /** A new map with the tablets from index `from` to `to` (inclusive) replaced by `replacements`, which must cover the same keys. */
  replace(from: number, to: number, replacements: readonly Tablet[]): TabletMap {
    const tablets = [...this.tablets.slice(0, from), ...replacements, ...this.tablets.slice(to + 1)];
    checkCoverage(tablets.map((t) => ({ id: t.id, start: t.range.start, end: t.range.end })));
    return new TabletMap(tablets);
  }

  /** Index of the tablet with this id, or -1. */
  indexOfId(id: string): number {
    return this.tablets.findIndex((t) => t.id === id);
  }

  records(): TabletRecord[] {
    return this.tablets.map((t) => ({ id: t.id, start: t.range.start, end: t.range.end }));
  }

  /** The tablet holding `key`. */
  locate(key: ByteString): Tablet {
    return this.tablets[this.indexOf(key)]!;
  }

  /** The tablets that intersect `range`, in key order. */
  overlapping(range: KeyRange): readonly Tablet[] {
    if (range.end !== undefined && range.end <= range.start) return [];
    const first = this.indexOf(range.start);
    if (range.end === undefined) return first === 0 ? this.tablets : this.tablets.slice(first);
    let last = this.indexOf(range.end);
    // range.end is exclusive: a tablet that starts exactly there is not touched.
    if (last > first && this.tablets[last]!.range.start === range.end) last--;
    return first === 0 && last === this.tablets.length - 1 ? this.tablets : this.tablets.slice(first, last + 1);
  }

  /** Index of the tablet whose range contains `key` (binary search on start keys). */
  private indexOf(key: ByteString): number {
    let lo = 0;
    let hi = this.tablets.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.tablets[mid]!.range.start <= key) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

function checkCoverage(records: readonly TabletRecord[]): void {
  const fail = (why: string): never => {
    throw dataLoss(`Invalid tablet list: ${why}`);
  };
  if (records.length === 0) fail('no tablets');
  if (records[0]!.start !== '') fail('the first tablet must start at the empty key');
  if (records[records.length - 1]!.end !== undefined) fail('the last tablet must be unbounded');
  for (let i = 1; i < records.length; i++) {
    const prev = records[i - 1]!;
    const cur = records[i]!;
    if (prev.end !== cur.start) fail(`tablet ${prev.id} ends where tablet ${cur.id} does not start`);
    if (!(cur.start > prev.start)) fail(`tablet ${cur.id} does not start after tablet ${prev.id}`);
  }
}
