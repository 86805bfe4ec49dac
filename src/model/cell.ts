import type { ByteString } from './bytes.js';

/**
 * A timestamped cell version. Timestamps are microseconds since the epoch,
 * held as JavaScript numbers (exact up to 2^53, i.e. the year 2255).
 * `labels` is empty for stored cells; the apply-label filter sets it on output.
 */
export interface Cell {
  readonly family: string;
  readonly qualifier: ByteString;
  readonly timestamp: number;
  readonly value: Uint8Array;
  readonly labels: readonly string[];
}

/** A row: its key and its cells, ordered by family, qualifier, then timestamp descending. */
export interface Row {
  readonly key: ByteString;
  readonly cells: readonly Cell[];
}

export const NO_LABELS: readonly string[] = Object.freeze([]);

export function cell(
  family: string,
  qualifier: ByteString,
  timestamp: number,
  value: Uint8Array,
  labels: readonly string[] = NO_LABELS,
): Cell {
  return { family, qualifier, timestamp, value, labels };
}

/**
 * Storage order of cells within a row: family name, qualifier (bytes),
 * timestamp descending. (Output order puts families in creation order; see
 * db/row-assembly.)
 */
export function compareCells(a: Cell, b: Cell): number {
  if (a.family !== b.family) return a.family < b.family ? -1 : 1;
  if (a.qualifier !== b.qualifier) return a.qualifier < b.qualifier ? -1 : 1;
  return b.timestamp - a.timestamp;
}

/** Approximate bytes a cell occupies, for size accounting and limits. */
export function cellSize(c: Cell): number {
  return c.family.length + c.qualifier.length + c.value.byteLength + 8;
}
