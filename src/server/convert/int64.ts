import { invalidArgument } from '../../model/errors.js';
import type { Int64, PDuration, PTimestamp } from './proto-types.js';

/**
 * int64 fields. The loader hands them over as decimal strings so that no
 * precision is lost silently; tabletop holds timestamps and counts as JS
 * numbers, exact up to 2^53 - 1, and rejects anything beyond with
 * InvalidArgument rather than rounding it.
 */

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** An int64 field as an exact JS number; unset is 0. `field` names the field in errors. */
export function int64ToNumber(v: Int64 | null | undefined, field: string): number {
  if (v === undefined || v === null) return 0;
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isSafeInteger(n)) {
    throw invalidArgument(`${field} = ${String(v)} is out of the range tabletop supports (integers of magnitude at most 2^53-1)`);
  }
  return n;
}

/** An int64 field as a bigint (full int64 range); unset is 0n. */
export function int64ToBigInt(v: Int64 | null | undefined, field: string): bigint {
  if (v === undefined || v === null) return 0n;
  let b: bigint;
  try {
    b = BigInt(v);
  } catch {
    throw invalidArgument(`${field} = ${String(v)} is not an int64`);
  }
  if (b < INT64_MIN || b > INT64_MAX) throw invalidArgument(`${field} = ${String(v)} is not an int64`);
  return b;
}

const MICROS_PER_SECOND = 1_000_000;

/** A google.protobuf.Duration in microseconds; sub-microsecond parts are rejected. */
export function durationToMicros(d: PDuration, field: string): number {
  const seconds = int64ToNumber(d.seconds, `${field}.seconds`);
  const nanos = d.nanos ?? 0;
  if (!Number.isInteger(nanos) || nanos <= -1e9 || nanos >= 1e9) throw invalidArgument(`${field}.nanos = ${nanos} is out of range`);
  if ((seconds > 0 && nanos < 0) || (seconds < 0 && nanos > 0)) throw invalidArgument(`${field}: seconds and nanos have different signs`);
  if (nanos % 1000 !== 0) throw invalidArgument(`${field} must be a whole number of microseconds`);
  const micros = seconds * MICROS_PER_SECOND + nanos / 1000;
  if (!Number.isSafeInteger(micros)) throw invalidArgument(`${field} is too large`);
  return micros;
}

/** Microseconds as a google.protobuf.Duration. */
export function microsToDuration(micros: number): PDuration {
  const seconds = Math.trunc(micros / MICROS_PER_SECOND);
  const nanos = (micros - seconds * MICROS_PER_SECOND) * 1000;
  return nanos === 0 ? { seconds: String(seconds) } : { seconds: String(seconds), nanos };
}

/** Milliseconds since the epoch as a google.protobuf.Timestamp. */
export function millisToTimestamp(millis: number): PTimestamp {
  const seconds = Math.floor(millis / 1000);
  const nanos = Math.round((millis - seconds * 1000) * 1_000_000);
  return nanos === 0 ? { seconds: String(seconds) } : { seconds: String(seconds), nanos };
}
