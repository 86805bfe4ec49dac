import type { TableName } from '../../model/names.js';
import { notFound } from '../../model/errors.js';
import { type Column, type Counter, newColumn } from '../column.js';
import type { HistorySource } from '../history-source.js';
import type { BoundarySet } from '../key-buckets.js';
import { LatencySketch } from '../latency-sketch.js';
import { type TierSpec, tierSpecs } from '../tiers.js';

/**
 * Hand-made recordings for the query side's tests: boundary sets over given
 * keys, columns filled from per-bucket arrays, and an in-memory HistorySource
 * over them (no database, no server).
 */

export const TABLE: TableName = { project: 'p', instance: 'i', table: 't' };

/** A boundary set whose buckets start at '' and then at `starts` (so `starts.length + 1` buckets), `rowsPer` rows and 100 bytes per row each. */
export function boundarySet(setId: number, starts: readonly string[], rowsPer = 1, estimated = false): BoundarySet {
  const all = ['', ...starts];
  return {
    setId,
    starts: all,
    rows: all.map(() => rowsPer),
    bytes: all.map(() => rowsPer * 100),
    estimated,
  };
}

/** Keys `${prefix}${zero-padded i}` for i in [0, n). */
export function keys(prefix: string, n: number, width = 4): string[] {
  return Array.from({ length: n }, (_, i) => prefix + String(i).padStart(width, '0'));
}

export interface ColumnFill {
  readonly counters?: Partial<Record<Counter, readonly number[]>>;
  readonly maxRowBytes?: readonly number[];
  /** Per bucket, latencies (µs) of requests. */
  readonly latencies?: readonly (readonly number[] | undefined)[];
  readonly firstEdge?: { min: string; max: string };
  readonly lastEdge?: { min: string; max: string };
}

/** A column over `set` starting at `startMillis`, filled from per-bucket arrays. */
export function column(set: BoundarySet, startMillis: number, durationMillis: number, fill: ColumnFill): Column {
  const col = newColumn(startMillis, durationMillis, set.setId, set.starts.length);
  for (const [name, values] of Object.entries(fill.counters ?? {})) col.counters[name as Counter].set(values);
  if (fill.maxRowBytes) col.maxRowBytes.set(fill.maxRowBytes);
  fill.latencies?.forEach((ls, i) => {
    if (ls === undefined) return;
    const s = (col.latency[i] = new LatencySketch());
    for (const l of ls) s.add(l);
  });
  col.firstEdge = fill.firstEdge;
  col.lastEdge = fill.lastEdge;
  return col;
}

/** Per-bucket array of `n` zeros with `value` at the given buckets. */
export function at(n: number, value: number, ...buckets: number[]): number[] {
  const a = new Array<number>(n).fill(0);
  for (const b of buckets) a[b] = value;
  return a;
}

/** An in-memory HistorySource over arrays of columns per tier (any order) and boundary sets. */
export class MemoryHistory implements HistorySource {
  readonly tiers: readonly TierSpec[];
  readonly columnsByTier: Column[][];
  readonly sets = new Map<number, BoundarySet>();
  largest: { key: string; bytes: number }[] = [];
  hot: string[] = [];
  /** Real row keys for the key advisors (empty: the advisors read the boundaries). */
  samples: string[] = [];
  /** Recently written keys, oldest first. */
  written: string[] = [];

  constructor(
    public now: number,
    bucketMillis = 10_000,
    readonly table: TableName = TABLE,
  ) {
    this.tiers = tierSpecs(bucketMillis);
    this.columnsByTier = this.tiers.map(() => []);
  }

  addSet(set: BoundarySet): this {
    this.sets.set(set.setId, set);
    return this;
  }

  add(tier: number, ...cols: Column[]): this {
    this.columnsByTier[tier]!.push(...cols);
    return this;
  }

  nowMillis(): number {
    return this.now;
  }

  private check(table: TableName): void {
    if (table.table !== this.table.table) throw notFound(`table ${table.table} not found`);
  }

  columns(table: TableName, tier: number, fromMillis: number, toMillis: number): Promise<readonly Column[]> {
    this.check(table);
    const cols = this.columnsByTier[tier] ?? [];
    const hit = cols.filter((c) => c.startMillis < toMillis && c.startMillis + c.durationMillis > fromMillis);
    return Promise.resolve(hit.sort((a, b) => a.startMillis - b.startMillis));
  }

  boundarySet(table: TableName, setId: number): Promise<BoundarySet | undefined> {
    this.check(table);
    return Promise.resolve(this.sets.get(setId));
  }

  currentBoundaries(table: TableName): Promise<BoundarySet> {
    this.check(table);
    const newest = Math.max(...this.sets.keys());
    const set = this.sets.get(newest);
    if (set === undefined) throw new Error('MemoryHistory: no boundary set');
    return Promise.resolve(set);
  }

  largestRows(table: TableName): Promise<readonly { key: string; bytes: number }[]> {
    this.check(table);
    return Promise.resolve(this.largest);
  }

  keySamples(table: TableName): Promise<readonly string[]> {
    this.check(table);
    return Promise.resolve(this.samples);
  }

  writeOrder(table: TableName): Promise<readonly string[]> {
    this.check(table);
    return Promise.resolve(this.written);
  }

  hotRows(table: TableName): Promise<readonly string[]> {
    this.check(table);
    return Promise.resolve(this.hot);
  }
}
