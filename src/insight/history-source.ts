import type { TableName } from '../model/names.js';
import type { Column } from './column.js';
import type { BoundarySet } from './key-buckets.js';
import type { TierSpec } from './tiers.js';

/**
 * What the heatmap and the diagnostics read (part of Insight, which keeps
 * the recording): one table's columns per tier and the boundary sets they
 * were recorded over. The query side (heatmap-query.ts, diagnostics/) is pure
 * functions over this, testable with columns made by hand.
 */
/** At most this many row keys are kept per table for the key advisors (HistorySource.keySamples). */
export const MAX_KEY_SAMPLES = 1000;

export interface HistorySource {
  /** 10 s / 1 min / 1 h with the default bucket length (tiers.ts tierSpecs). */
  readonly tiers: readonly TierSpec[];
  nowMillis(): number;
  /**
   * The table's columns of `tier` that overlap [fromMillis, toMillis), ascending by start: the closed ones from the
   * history, and for the finest tier the open column too (live). Throws NotFound for a table that does not exist.
   * (Insight also returns the open column of a coarser tier: the minute and hour in progress.) Open columns are
   * the recorder's own objects, still taking adds: read them, never change them.
   */
  columns(table: TableName, tier: number, fromMillis: number, toMillis: number): Promise<readonly Column[]>;
  /** The boundary set `setId` of the table (every set a returned column names can be found). */
  boundarySet(table: TableName, setId: number): Promise<BoundarySet | undefined>;
  /** The table's newest boundary set (the open column's, or the next one). */
  currentBoundaries(table: TableName): Promise<BoundarySet>;
  /** The largest rows of the table the last key distribution found (exact on small tables), largest first. */
  largestRows(table: TableName): Promise<readonly { readonly key: string; readonly bytes: number }[]>;
  /**
   * Row keys the last key distribution saw (at most MAX_KEY_SAMPLES, spread evenly), ascending: real keys for the
   * key advisors, where boundaries are separators cut short. Empty until a distribution was taken.
   */
  keySamples(table: TableName): Promise<readonly string[]>;
  /**
   * Recently written row keys in the order they were written, oldest first (the first key of a write batch, at
   * most one per 50 ms, the newest 256: write-order.ts). Empty until the table was written to since the server
   * started.
   */
  writeOrder(table: TableName): Promise<readonly string[]>;
  /** Keys the tablet manager sees as single-row hotspots now (TabletInfo.singleRowHotspot). */
  hotRows(table: TableName): Promise<readonly string[]>;
}
