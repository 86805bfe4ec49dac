import { FLOAT64, INT64, type SqlType, type SqlValue, SqlStruct } from '../types.js';
import { checkedInt64 } from '../values/cast.js';
import { compareValues, groupKey, rowComparator } from '../values/compare.js';
import { evalError } from '../values/errors.js';
import type { Accumulator, AggregateFunction } from './aggregates.js';
import { isEquatable, isOrderable } from './operators.js';
import { type Signature, resolveSignatures, signatureText } from './registry.js';

/**
 * ARRAY_CONCAT_AGG, the approximate aggregates (computed exactly: an exact answer is a valid approximation),
 * and `withModifiers`: IGNORE NULLS, ORDER BY and LIMIT inside ARRAY_AGG, STRING_AGG and ARRAY_CONCAT_AGG.
 */

function define(
  name: string,
  signatures: readonly Signature[],
  create: (t: SqlType) => Accumulator,
  check?: (args: readonly SqlType[]) => boolean,
): AggregateFunction {
  return {
    name,
    signatureText: signatureText(name, signatures),
    resolve: (args) => {
      const r = resolveSignatures(signatures, args);
      return r !== undefined && (check === undefined || check(r.args)) ? r : undefined;
    },
    create,
  };
}

/** A positive INT64 count argument (APPROX_QUANTILES' number of quantiles, APPROX_TOP_COUNT's n). */
function positive(name: string, v: SqlValue | undefined): number {
  if (typeof v !== 'bigint' || v <= 0n) throw evalError(`${name}: the number argument must be a positive INT64, not ${String(v)}`);
  if (v > 100000n) throw evalError(`${name}: the number argument must be at most 100000`);
  return Number(v);
}

export const ARRAY_CONCAT_AGG = define('ARRAY_CONCAT_AGG', [{ params: ['ARRAY<T>'], result: (a) => a[0]! }], () => {
  const items: SqlValue[] = [];
  let seen = false;
  return {
    add: ([a]) => {
      if (a === null || a === undefined) return;
      seen = true;
      items.push(...(a as readonly SqlValue[]));
    },
    result: () => (seen ? items : null),
  };
});

export const APPROX_COUNT_DISTINCT = define(
  'APPROX_COUNT_DISTINCT',
  [{ params: ['ANY'], result: INT64 }],
  () => {
    const seen = new Set<string>();
    return { add: ([v]) => void (v === null ? 0 : seen.add(groupKey(v!))), result: () => BigInt(seen.size) };
  },
  (a) => isEquatable(a[0]!),
);

/**
 * APPROX_QUANTILES(x, n [IGNORE | RESPECT NULLS]): n + 1 boundaries, the i-th at rank floor(i·(count−1)/n) of
 * the sorted values (NULLs first when respected; ignored by default).
 */
export const approxQuantiles = (respectNulls: boolean): AggregateFunction =>
  define(
    'APPROX_QUANTILES',
    [{ params: ['T', INT64], result: (_a, t) => ({ kind: 'ARRAY', element: t! }) }],
    () => {
      const values: SqlValue[] = [];
      let n = 0;
      return {
        add: ([v, k]) => {
          n = positive('APPROX_QUANTILES', k);
          if (v !== null || respectNulls) values.push(v!);
        },
        result: () => {
          if (values.length === 0) return null;
          const sorted = [...values].sort((x, y) => (x === null ? (y === null ? 0 : -1) : y === null ? 1 : compareValues(x, y)));
          const last = BigInt(sorted.length - 1);
          return Array.from({ length: n + 1 }, (_x, i) => sorted[Number((BigInt(i) * last) / BigInt(n))]!);
        },
      };
    },
    (a) => isOrderable(a[0]!),
  );

/** APPROX_TOP_COUNT's and APPROX_TOP_SUM's result: ARRAY<STRUCT<value T, name W>>. */
function topType(value: SqlType, name: string, total: SqlType): SqlType {
  return {
    kind: 'ARRAY',
    element: {
      kind: 'STRUCT',
      fields: [
        { name: 'value', type: value },
        { name, type: total },
      ],
    },
  };
}

/**
 * The accumulator of APPROX_TOP_COUNT and APPROX_TOP_SUM: per distinct value the total of its weights (rows
 * whose weight is NULL are skipped); the result is the `n` largest totals, ties in first-seen order.
 */
function topAccumulator(name: string, weightOf: (args: readonly SqlValue[]) => SqlValue, nAt: number): Accumulator {
  const totals = new Map<string, { value: SqlValue; total: SqlValue; order: number }>();
  let n = 0;
  return {
    add: (args) => {
      n = positive(name, args[nAt]);
      const w = weightOf(args);
      if (w === null) return;
      const v = args[0]!;
      const key = groupKey(v);
      const e = totals.get(key);
      if (e === undefined) totals.set(key, { value: v, total: w, order: totals.size });
      else e.total = typeof w === 'bigint' ? checkedInt64((e.total as bigint) + w) : (e.total as number) + (w as number);
    },
    result: () => {
      if (totals.size === 0) return null;
      const list = [...totals.values()].sort((x, y) => compareValues(y.total!, x.total!) || x.order - y.order);
      return list.slice(0, n).map((e) => new SqlStruct([e.value, e.total]));
    },
  };
}

/** APPROX_TOP_COUNT(x, n): the n most frequent values with their counts, most frequent first. */
export const APPROX_TOP_COUNT = define(
  'APPROX_TOP_COUNT',
  [{ params: ['ANY', INT64], result: (a) => topType(a[0]!, 'count', INT64) }],
  () => topAccumulator('APPROX_TOP_COUNT', () => 1n, 1),
  (a) => isEquatable(a[0]!),
);

/** APPROX_TOP_SUM(x, weight, n): the n values with the largest sums of weight (NULL weights are skipped). */
export const APPROX_TOP_SUM = define(
  'APPROX_TOP_SUM',
  [INT64, FLOAT64].map((w): Signature => ({ params: ['ANY', w, INT64], result: (a) => topType(a[0]!, 'sum', a[1]!) })),
  () => topAccumulator('APPROX_TOP_SUM', (args) => args[1] ?? null, 2),
  (a) => isEquatable(a[0]!),
);

export const MORE_AGGREGATES: readonly AggregateFunction[] = [
  ARRAY_CONCAT_AGG,
  APPROX_COUNT_DISTINCT,
  approxQuantiles(false),
  APPROX_TOP_COUNT,
  APPROX_TOP_SUM,
];

/** What an aggregate call writes inside its parentheses besides the arguments. */
export interface AggregateModifiers {
  readonly ignoreNulls: boolean;
  /** Sort keys: their values come after the function's own arguments. */
  readonly order: readonly { readonly descending: boolean; readonly nullsFirst: boolean }[];
  readonly limit: number | undefined;
}

/**
 * An aggregate with IGNORE NULLS / ORDER BY / LIMIT: the call's arguments are the function's `arity` ones,
 * then the sort keys. Rows are buffered, sorted (stably), cut to the limit, then fed to the function.
 */
export function withModifiers(fn: AggregateFunction, arity: number, m: AggregateModifiers): AggregateFunction {
  return {
    ...fn,
    create: (t) => {
      const rows: (readonly SqlValue[])[] = [];
      return {
        add: (args) => {
          if (m.ignoreNulls && args[0] === null) return;
          rows.push(args);
        },
        result: () => {
          if (m.order.length > 0) rows.sort(rowComparator(m.order.map((o, k) => ({ ...o, index: arity + k }))));
          const inner = fn.create(t);
          for (const r of m.limit === undefined ? rows : rows.slice(0, m.limit)) inner.add(r.slice(0, arity));
          return inner.result();
        },
      };
    },
  };
}
