import { SqlDate, SqlJson, SqlMap, SqlStruct, SqlTimestamp, type SqlValue } from '../types.js';

/**
 * GoogleSQL's ordering and equality of values of one type (the analyzer coerces both sides to a common type first).
 *  - Ordering (ORDER BY, MIN/MAX): NULL first, then for floats NaN, then -inf ... +inf; -0 equals +0; strings by code
 *    point; bytes unsigned; arrays element by element, a shorter prefix first.
 *  - Equality (`=`): NULL on either side gives NULL (three-valued); NaN equals nothing, not even NaN.
 *  - Grouping (GROUP BY, DISTINCT, COUNT(DISTINCT)): NULLs group together and so do NaNs (groupKey).
 */
export function compareValues(a: SqlValue, b: SqlValue): number {
  if (a === null || b === null) return a === null ? (b === null ? 0 : -1) : 1;
  if (typeof a === 'bigint' || typeof a === 'number') {
    if (typeof b !== 'bigint' && typeof b !== 'number') return typeRank(a) - typeRank(b);
    return compareNumbers(a, b);
  }
  if (typeof a === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (typeof a === 'string') return typeof b === 'string' ? compareStrings(a, b) : typeRank(a) - typeRank(b);
  if (a instanceof Uint8Array) return b instanceof Uint8Array ? Buffer.compare(a, b) : typeRank(a) - typeRank(b);
  if (a instanceof SqlTimestamp) return b instanceof SqlTimestamp ? cmp(a.micros, b.micros) : typeRank(a) - typeRank(b);
  if (a instanceof SqlDate) return b instanceof SqlDate ? cmp(a.days, b.days) : typeRank(a) - typeRank(b);
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const c = compareValues(a[i] as SqlValue, b[i] as SqlValue);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  if (a instanceof SqlStruct && b instanceof SqlStruct) return compareValues(a.values, b.values);
  return compareStrings(groupKey(a), groupKey(b));
}

/** `a = b` with GoogleSQL's NULL and NaN rules. */
export function sqlEquals(a: SqlValue, b: SqlValue): boolean | null {
  if (a === null || b === null) return null;
  if (typeof a === 'number' && Number.isNaN(a)) return false;
  if (typeof b === 'number' && Number.isNaN(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    let sawNull = false;
    for (let i = 0; i < a.length; i++) {
      const e = sqlEquals(a[i] as SqlValue, b[i] as SqlValue);
      if (e === false) return false;
      if (e === null) sawNull = true;
    }
    return sawNull ? null : true;
  }
  if (a instanceof SqlStruct && b instanceof SqlStruct) return sqlEquals(a.values, b.values);
  return compareValues(a, b) === 0;
}

/** A string that is equal for values GROUP BY puts together (same type assumed): NULLs together, NaNs together, -0 with +0. */
export function groupKey(v: SqlValue): string {
  if (v === null) return 'N';
  switch (typeof v) {
    case 'bigint':
      return `i${v}`;
    case 'number':
      return Number.isNaN(v) ? 'fNaN' : `f${v === 0 ? 0 : v}`;
    case 'boolean':
      return v ? 'T' : 'F';
    case 'string':
      return `s${v}`;
  }
  if (v instanceof Uint8Array) return `b${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('latin1')}`;
  if (v instanceof SqlTimestamp) return `t${v.micros}`;
  if (v instanceof SqlDate) return `d${v.days}`;
  if (v instanceof SqlJson) return `j${v.text}`;
  if (v instanceof SqlStruct) return `{${v.values.map(groupKey).join(',')}}`;
  if (v instanceof SqlMap) return `m[${v.entries.map(([k, x]) => `${groupKey(k)}:${groupKey(x)}`).join(',')}]`;
  return `[${(v as readonly SqlValue[]).map(groupKey).join(',')}]`;
}

function compareNumbers(a: bigint | number, b: bigint | number): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return cmp(a, b);
  const x = Number(a);
  const y = Number(b);
  const xn = Number.isNaN(x);
  const yn = Number.isNaN(y);
  if (xn || yn) return xn && yn ? 0 : xn ? -1 : 1;
  if (x === y && typeof a !== typeof b) {
    // A float equal to an integer's rounded value: compare exactly.
    const fi = typeof a === 'number' ? a : (b as number);
    if (Number.isFinite(fi) && Number.isInteger(fi)) return cmp(BigInt(a), BigInt(b));
  }
  return x < y ? -1 : x > y ? 1 : 0;
}

function cmp<T extends number | bigint>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** By Unicode code point (UTF-16 code units order surrogates wrongly against U+E000..U+FFFF). */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      const xs = x >= 0xd800 && x <= 0xdfff;
      const ys = y >= 0xd800 && y <= 0xdfff;
      if (xs === ys) return x - y;
      return xs ? 1 : -1;
    }
  }
  return a.length - b.length;
}

function typeRank(v: SqlValue): number {
  if (typeof v === 'boolean') return 1;
  if (typeof v === 'bigint' || typeof v === 'number') return 2;
  if (typeof v === 'string') return 3;
  if (v instanceof Uint8Array) return 4;
  return 5;
}

/** A sort key of rows: a slot, its direction and where its NULLs go. */
export interface RowOrderKey {
  readonly index: number;
  readonly descending: boolean;
  readonly nullsFirst: boolean;
}

/** Compares rows by sort keys (ORDER BY of a query, of an aggregate's input). */
export function rowComparator(order: readonly RowOrderKey[]): (a: readonly SqlValue[], b: readonly SqlValue[]) => number {
  return (a, b) => {
    for (const o of order) {
      const x = a[o.index] ?? null;
      const y = b[o.index] ?? null;
      if (x === null || y === null) {
        if (x === y) continue;
        return (x === null) === o.nullsFirst ? -1 : 1;
      }
      const c = compareValues(x, y);
      if (c !== 0) return o.descending ? -c : c;
    }
    return 0;
  };
}
