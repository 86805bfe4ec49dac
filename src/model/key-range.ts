import { type ByteString, keySuccessor } from './bytes.js';
import { invalidArgument } from './errors.js';

/**
 * A half-open range of row keys `[start, end)`: `start` is inclusive ('' is the
 * beginning of the table) and `end` exclusive, `undefined` meaning unbounded.
 * Every row range of the API (open, closed or unbounded at either end) is
 * normalised to this form, so the read path only ever sees one shape.
 */
export interface KeyRange {
  readonly start: ByteString;
  readonly end: ByteString | undefined;
}

/** One end of an API row range. */
export type RangeBound =
  | { readonly kind: 'unbounded' }
  | { readonly kind: 'closed'; readonly key: ByteString }
  | { readonly kind: 'open'; readonly key: ByteString };

/** A row range as the API states it. */
export interface RowRange {
  readonly start: RangeBound;
  readonly end: RangeBound;
}

/** A set of rows as the API states it: keys plus ranges. Both empty means every row. */
export interface RowSet {
  readonly keys: readonly ByteString[];
  readonly ranges: readonly RowRange[];
}

export const FULL_RANGE: KeyRange = Object.freeze({ start: '', end: undefined });

export function rangeOf(r: RowRange): KeyRange {
  const start = r.start.kind === 'unbounded' ? '' : r.start.kind === 'closed' ? r.start.key : keySuccessor(r.start.key);
  const end = r.end.kind === 'unbounded' ? undefined : r.end.kind === 'open' ? r.end.key : keySuccessor(r.end.key);
  return { start, end };
}

export function pointRange(key: ByteString): KeyRange {
  return { start: key, end: keySuccessor(key) };
}

export function isEmptyRange(r: KeyRange): boolean {
  return r.end !== undefined && r.end <= r.start;
}

/** The intersection of two ranges (possibly empty). */
export function intersectRanges(a: KeyRange, b: KeyRange): KeyRange {
  const start = a.start > b.start ? a.start : b.start;
  const end = a.end === undefined ? b.end : b.end === undefined ? a.end : a.end < b.end ? a.end : b.end;
  return { start, end };
}

/**
 * Normalises a row set to sorted, disjoint, non-adjacent key ranges.
 * An empty row set (no keys, no ranges) is the whole table. A range whose
 * start lies after its end is rejected, as Cloud Bigtable does.
 */
export function normalizeRowSet(set: RowSet): KeyRange[] {
  return finish(normalizeSteps(set));
}

/**
 * normalizeRowSet for very large row sets (a ReadRows may carry a million
 * ranges): the same result, computed in steps with `pause()` awaited every
 * few thousand ranges, so that the caller can let other work run. Only the
 * sort is one block (linear on a set that arrives sorted, as clients send them).
 */
export async function normalizeRowSetInSteps(set: RowSet, pause: () => Promise<void> | undefined): Promise<KeyRange[]> {
  const steps = normalizeSteps(set);
  for (;;) {
    const r = steps.next();
    if (r.done === true) return r.value;
    const p = pause();
    if (p !== undefined) await p;
  }
}

/** Ranges between two steps of normalizeSteps and mergeSteps. */
const STEP = 8192;

function* normalizeSteps(set: RowSet): Generator<undefined, KeyRange[], undefined> {
  if (set.keys.length === 0 && set.ranges.length === 0) return [FULL_RANGE];
  const ranges: KeyRange[] = [];
  let n = 0;
  for (const k of set.keys) {
    ranges.push(pointRange(k));
    if (++n % STEP === 0) yield;
  }
  for (const r of set.ranges) {
    const kr = rangeOf(r);
    if (kr.end !== undefined && kr.end < kr.start) {
      throw invalidArgument('Invalid row range: start key must not be after the end key');
    }
    if (!isEmptyRange(kr)) ranges.push(kr);
    if (++n % STEP === 0) yield;
  }
  return yield* mergeSteps(ranges);
}

/** Sorts and merges overlapping or touching ranges; drops empty ones. */
export function mergeRanges(input: readonly KeyRange[]): KeyRange[] {
  return finish(mergeSteps(input.filter((r) => !isEmptyRange(r))));
}

/** Sorts `ranges` (none empty; the array is sorted in place) and merges overlapping or touching ones. */
function* mergeSteps(ranges: KeyRange[]): Generator<undefined, KeyRange[], undefined> {
  const sorted = ranges.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  if (sorted.length > STEP) yield;
  const out: KeyRange[] = [];
  let n = 0;
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && (last.end === undefined || r.start <= last.end)) {
      if (last.end !== undefined && (r.end === undefined || r.end > last.end)) {
        out[out.length - 1] = { start: last.start, end: r.end };
      }
    } else {
      out.push(r);
    }
    if (++n % STEP === 0) yield;
  }
  return out;
}

/** Runs steps to their end at once. */
function finish<T>(steps: Generator<undefined, T, undefined>): T {
  for (;;) {
    const r = steps.next();
    if (r.done === true) return r.value;
  }
}
