import { BOOL, INT64, JSON_TYPE, STRING, SqlJson, SqlMap, SqlStruct, type SqlType, type SqlValue } from '../types.js';
import { coercible } from '../values/coerce.js';
import { compareValues, sqlEquals } from '../values/compare.js';
import { evalError } from '../values/errors.js';
import { type ScalarFunction, defineFunction, signatureText } from './registry.js';

/** Map, array and JSON functions, and the subscript operators `m[key]`, `a[OFFSET(i)]`. */

const mapType = (t: SqlType): Extract<SqlType, { kind: 'MAP' }> => t as Extract<SqlType, { kind: 'MAP' }>;
const arrayType = (t: SqlType): Extract<SqlType, { kind: 'ARRAY' }> => t as Extract<SqlType, { kind: 'ARRAY' }>;

/** The value at a key (binary search over the sorted entries), or NULL. */
export function mapGet(m: SqlMap, key: SqlValue): SqlValue {
  let lo = 0;
  let hi = m.entries.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = compareValues(m.entries[mid]![0], key);
    if (c === 0) return m.entries[mid]![1];
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return null;
}

/** `m[key]`: NULL when the key is absent. */
export const MAP_GET: ScalarFunction = {
  name: '$map_get',
  signatureText: 'MAP<K, V>[K]',
  strict: true,
  lazy: false,
  resolve: ([m, k]) => {
    if (m === undefined || k === undefined || m.type.kind !== 'MAP' || !coercible(k, m.type.key)) return undefined;
    return { result: m.type.value, args: [m.type, m.type.key] };
  },
  eval: ([m, k]) => mapGet(m as SqlMap, k!),
};

export const MAP_CONTAINS_KEY: ScalarFunction = {
  ...MAP_GET,
  name: 'MAP_CONTAINS_KEY',
  signatureText: 'MAP_CONTAINS_KEY(MAP<K, V>, K)',
  resolve: (args) => {
    const r = MAP_GET.resolve(args);
    return r === undefined ? undefined : { ...r, result: BOOL };
  },
  eval: ([m, k]) => mapGet(m as SqlMap, k!) !== null || (m as SqlMap).entries.some(([x]) => sqlEquals(x, k!) === true),
};

export const MAP_KEYS = defineFunction({
  name: 'MAP_KEYS',
  signatures: [{ params: ['MAP'], result: (a) => ({ kind: 'ARRAY', element: mapType(a[0]!).key }) }],
  eval: ([m]) => (m as SqlMap).entries.map(([k]) => k),
});

export const MAP_VALUES = defineFunction({
  name: 'MAP_VALUES',
  signatures: [{ params: ['MAP'], result: (a) => ({ kind: 'ARRAY', element: mapType(a[0]!).value }) }],
  eval: ([m]) => (m as SqlMap).entries.map(([, v]) => v),
});

export const MAP_ENTRIES = defineFunction({
  name: 'MAP_ENTRIES',
  signatures: [
    {
      params: ['MAP'],
      result: (a) => ({
        kind: 'ARRAY',
        element: {
          kind: 'STRUCT',
          fields: [
            { name: 'key', type: mapType(a[0]!).key },
            { name: 'value', type: mapType(a[0]!).value },
          ],
        },
      }),
    },
  ],
  eval: ([m]) => (m as SqlMap).entries.map(([k, v]) => new SqlStruct([k, v])),
});

export const ARRAY_LENGTH = defineFunction({
  name: 'ARRAY_LENGTH',
  signatures: [{ params: ['ARRAY<T>'], result: INT64 }],
  eval: ([a]) => BigInt((a as readonly SqlValue[]).length),
});

export const ARRAY_INCLUDES = defineFunction({
  name: 'ARRAY_INCLUDES',
  signatures: [{ params: ['ARRAY<T>', 'T'], result: BOOL }],
  eval: ([a, x]) => (a as readonly SqlValue[]).some((e) => sqlEquals(e, x!) === true),
});

export const ARRAY_REVERSE = defineFunction({
  name: 'ARRAY_REVERSE',
  signatures: [{ params: ['ARRAY<T>'], result: (a) => a[0]! }],
  eval: ([a]) => [...(a as readonly SqlValue[])].reverse(),
});

export const ARRAY_TO_STRING = defineFunction({
  name: 'ARRAY_TO_STRING',
  signatures: [
    { params: [{ kind: 'ARRAY', element: STRING }, STRING, STRING], optionalFrom: 2, result: STRING },
    {
      params: [{ kind: 'ARRAY', element: { kind: 'BYTES' } }, { kind: 'BYTES' }, { kind: 'BYTES' }],
      optionalFrom: 2,
      result: { kind: 'BYTES' },
    },
  ],
  eval: ([a, sep, nullText]) => {
    const items = (a as readonly SqlValue[]).filter((e) => e !== null || nullText !== undefined).map((e) => (e === null ? nullText! : e));
    if (typeof sep === 'string') return (items as string[]).join(sep);
    const parts: Uint8Array[] = [];
    items.forEach((e, i) => {
      if (i > 0) parts.push(sep as Uint8Array);
      parts.push(e as Uint8Array);
    });
    return new Uint8Array(Buffer.concat(parts));
  },
});

function arrayAt(name: string, ordinal: boolean, safe: boolean): ScalarFunction {
  return {
    name,
    signatureText: signatureText(name, [{ params: ['ARRAY<T>', INT64], result: INT64 }]),
    strict: true,
    lazy: false,
    resolve: ([a, i]) => {
      if (a === undefined || i === undefined || a.type.kind !== 'ARRAY' || !coercible(i, INT64)) return undefined;
      return { result: arrayType(a.type).element, args: [a.type, INT64] };
    },
    eval: ([a, i]) => {
      const arr = a as readonly SqlValue[];
      const idx = Number(i as bigint) - (ordinal ? 1 : 0);
      if (idx < 0 || idx >= arr.length) {
        if (safe) return null;
        throw evalError(`Array index ${String(i)} is out of bounds (${ordinal ? 'ORDINAL' : 'OFFSET'}, array of ${arr.length})`);
      }
      return arr[idx]!;
    },
  };
}
export const OFFSET = arrayAt('$offset', false, false);
export const ORDINAL = arrayAt('$ordinal', true, false);
export const SAFE_OFFSET = arrayAt('$safe_offset', false, true);
export const SAFE_ORDINAL = arrayAt('$safe_ordinal', true, true);

/** A JSONPath of the `$.a.b[0]` / `$['a']` forms. */
function jsonPath(path: string): (string | number)[] {
  if (!path.startsWith('$')) throw evalError(`JSONPath must start with '$': ${path}`);
  const out: (string | number)[] = [];
  const re = /\.([A-Za-z_][A-Za-z0-9_]*)|\.?"([^"]*)"|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\]/y;
  re.lastIndex = 1;
  while (re.lastIndex < path.length) {
    const m = re.exec(path);
    if (m === null) throw evalError(`Invalid JSONPath: ${path}`);
    if (m[3] !== undefined) out.push(Number(m[3]));
    else out.push((m[1] ?? m[2] ?? m[4] ?? m[5])!);
  }
  return out;
}

function jsonAt(text: string, path: string): unknown {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  for (const step of jsonPath(path)) {
    if (v === null || typeof v !== 'object') return undefined;
    v =
      typeof step === 'number'
        ? Array.isArray(v)
          ? v[step]
          : undefined
        : Array.isArray(v)
          ? undefined
          : (v as Record<string, unknown>)[step];
    if (v === undefined) return undefined;
  }
  return v;
}

const jsonText = (v: SqlValue): string => (v instanceof SqlJson ? v.text : (v as string));

export const JSON_VALUE = defineFunction({
  name: 'JSON_VALUE',
  signatures: [
    { params: [STRING, STRING], optionalFrom: 1, result: STRING },
    { params: [JSON_TYPE, STRING], optionalFrom: 1, result: STRING },
  ],
  eval: ([j, p]) => {
    const v = jsonAt(jsonText(j!), (p as string | undefined) ?? '$');
    if (v === undefined || v === null || typeof v === 'object') return null;
    return typeof v === 'string' ? v : JSON.stringify(v);
  },
});

export const JSON_QUERY = defineFunction({
  name: 'JSON_QUERY',
  signatures: [
    { params: [STRING, STRING], result: STRING },
    { params: [JSON_TYPE, STRING], result: JSON_TYPE },
  ],
  eval: ([j, p]) => {
    const v = jsonAt(jsonText(j!), p as string);
    if (v === undefined) return null;
    return j instanceof SqlJson ? new SqlJson(JSON.stringify(v)) : JSON.stringify(v);
  },
});

export const COLLECTION_FUNCTIONS: readonly ScalarFunction[] = [
  MAP_GET,
  MAP_CONTAINS_KEY,
  MAP_KEYS,
  MAP_VALUES,
  MAP_ENTRIES,
  ARRAY_LENGTH,
  ARRAY_INCLUDES,
  ARRAY_REVERSE,
  ARRAY_TO_STRING,
  OFFSET,
  ORDINAL,
  SAFE_OFFSET,
  SAFE_ORDINAL,
  JSON_VALUE,
  JSON_QUERY,
];

export const ARRAY_CONCAT = defineFunction({
  name: 'ARRAY_CONCAT',
  signatures: [{ params: ['ARRAY<T>'], repeated: true, result: (a) => a[0]! }],
  eval: (arrays) => (arrays as (readonly SqlValue[])[]).flat(),
});

export const GENERATE_ARRAY = defineFunction({
  name: 'GENERATE_ARRAY',
  signatures: [
    { params: [INT64, INT64, INT64], optionalFrom: 2, result: { kind: 'ARRAY', element: INT64 } },
    {
      params: [{ kind: 'FLOAT64' }, { kind: 'FLOAT64' }, { kind: 'FLOAT64' }],
      optionalFrom: 2,
      result: { kind: 'ARRAY', element: { kind: 'FLOAT64' } },
    },
  ],
  eval: ([a, b, s]) => {
    const out: SqlValue[] = [];
    if (typeof a === 'bigint') {
      const step = (s as bigint | undefined) ?? 1n;
      if (step === 0n) throw evalError('GENERATE_ARRAY: step must not be 0');
      for (let x = a; step > 0n ? x <= (b as bigint) : x >= (b as bigint); x += step) {
        out.push(x);
        if (out.length > 1_000_000) throw evalError('GENERATE_ARRAY: too many elements');
      }
      return out;
    }
    const step = (s as number | undefined) ?? 1;
    if (step === 0 || Number.isNaN(step)) throw evalError('GENERATE_ARRAY: step must not be 0 or NaN');
    for (let x = a as number; step > 0 ? x <= (b as number) : x >= (b as number); x += step) {
      out.push(x);
      if (out.length > 1_000_000) throw evalError('GENERATE_ARRAY: too many elements');
    }
    return out;
  },
});

export const MORE_COLLECTION_FUNCTIONS: readonly ScalarFunction[] = [ARRAY_CONCAT, GENERATE_ARRAY];
