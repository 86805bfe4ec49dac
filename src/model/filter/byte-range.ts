import { type ByteString, toBytes } from '../bytes.js';
import type { ByteBound } from './ast.js';

/**
 * Ranges over bytes, as used by column_range_filter (qualifiers) and
 * value_range_filter (values). An unbounded start is the empty string,
 * inclusive; an unbounded end is "infinity", exclusive (data.proto).
 */

/** True when no byte string lies in the range (start after end, or equal with an open side). */
export function isEmptyByteRange(start: ByteBound, end: ByteBound): boolean {
  if (end.kind === 'unbounded') return false;
  const from = start.kind === 'unbounded' ? '' : start.value;
  const startOpen = start.kind === 'open';
  if (end.kind === 'closed' && !startOpen) return from > end.value;
  return from >= end.value;
}

/** Membership test for qualifiers (byte strings). */
export function qualifierInRange(start: ByteBound, end: ByteBound): (q: ByteString) => boolean {
  const s = start.kind === 'unbounded' ? undefined : start.value;
  const e = end.kind === 'unbounded' ? undefined : end.value;
  const sOpen = start.kind === 'open';
  const eOpen = end.kind === 'open';
  return (q) => {
    if (s !== undefined && (sOpen ? q <= s : q < s)) return false;
    if (e !== undefined && (eOpen ? q >= e : q > e)) return false;
    return true;
  };
}

/** Membership test for cell values (raw bytes). */
export function valueInRange(start: ByteBound, end: ByteBound): (v: Uint8Array) => boolean {
  const s = start.kind === 'unbounded' ? undefined : toBytes(start.value);
  const e = end.kind === 'unbounded' ? undefined : toBytes(end.value);
  const sOpen = start.kind === 'open';
  const eOpen = end.kind === 'open';
  return (v) => {
    if (s !== undefined) {
      const c = Buffer.compare(v, s);
      if (sOpen ? c <= 0 : c < 0) return false;
    }
    if (e !== undefined) {
      const c = Buffer.compare(v, e);
      if (eOpen ? c >= 0 : c > 0) return false;
    }
    return true;
  };
}
