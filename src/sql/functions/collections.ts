import { BOOL, INT64, JSON_TYPE, STRING, SqlJson, SqlMap, SqlStruct, type SqlType, type SqlValue } from '../types.js';
import { coercible } from '../values/coerce.js';
import { compareValues, groupKey, sqlEquals } from '../values/compare.js';
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

/** `m[KEY(key)]`: an error when the key is absent (`m[SAFE_KEY(key)]` and `m[key]` give NULL). */
export const MAP_KEY: ScalarFunction = {
  ...MAP_GET,
  name: '$map_key',
  signatureText: 'MAP<K, V>[KEY(K)]',
  eval: ([m, k]) => {
    const map = m as SqlMap;
    const v = mapGet(map, k!);
    if (v === null && !map.entries.some(([x]) => sqlEquals(x, k!) === true)) throw evalError('Key not found in map');
    return v;
  },
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

export function jsonAt(text: string, path: string): unknown {
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

export const jsonText = (v: SqlValue): string => (v instanceof SqlJson ? v.text : (v as string));

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
  MAP_KEY,
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

const elementOf = (a: readonly SqlType[]): SqlType => arrayType(a[0]!).element;

function endElement(name: string, last: boolean): ScalarFunction {
  return defineFunction({
    name,
    signatures: [{ params: ['ARRAY<T>'], result: elementOf }],
    eval: ([a]) => {
      const arr = a as readonly SqlValue[];
      if (arr.length === 0) throw evalError(`${name} cannot get the ${last ? 'last' : 'first'} element of an empty array`);
      return arr[last ? arr.length - 1 : 0]!;
    },
  });
}
export const ARRAY_FIRST = endElement('ARRAY_FIRST', false);
export const ARRAY_LAST = endElement('ARRAY_LAST', true);

export const ARRAY_LAST_N = defineFunction({
  name: 'ARRAY_LAST_N',
  signatures: [{ params: ['ARRAY<T>', INT64], result: (a) => a[0]! }],
  eval: ([a, n]) => {
    const arr = a as readonly SqlValue[];
    const k = n as bigint;
    if (k < 0n) throw evalError(`ARRAY_LAST_N: the number of elements must not be negative (${k})`);
    return k >= BigInt(arr.length) ? arr : arr.slice(arr.length - Number(k));
  },
});

/** ARRAY_SLICE(a, start, end): the elements from offset start to offset end, both included; negative offsets count from the end. */
export const ARRAY_SLICE = defineFunction({
  name: 'ARRAY_SLICE',
  signatures: [{ params: ['ARRAY<T>', INT64, INT64], result: (a) => a[0]! }],
  eval: ([a, s, e]) => {
    const arr = a as readonly SqlValue[];
    const n = BigInt(arr.length);
    const at = (x: bigint): bigint => (x < 0n ? n + x : x);
    const start = at(s as bigint);
    const end = at(e as bigint);
    if (arr.length === 0 || start > end || start >= n || end < 0n) return [];
    return arr.slice(Number(start < 0n ? 0n : start), Number((end >= n ? n - 1n : end) + 1n));
  },
});

function includesSome(name: string, all: boolean): ScalarFunction {
  return defineFunction({
    name,
    signatures: [{ params: ['ARRAY<T>', 'ARRAY<T>'], result: BOOL }],
    eval: ([a, b]) => {
      const arr = a as readonly SqlValue[];
      const has = (x: SqlValue): boolean => arr.some((e) => sqlEquals(e, x) === true);
      const wanted = b as readonly SqlValue[];
      return all ? wanted.every(has) : wanted.some(has);
    },
  });
}
export const ARRAY_INCLUDES_ANY = includesSome('ARRAY_INCLUDES_ANY', false);
export const ARRAY_INCLUDES_ALL = includesSome('ARRAY_INCLUDES_ALL', true);

/** ARRAY_IS_DISTINCT: no two elements equal (two NULLs count as equal). */
export const ARRAY_IS_DISTINCT = defineFunction({
  name: 'ARRAY_IS_DISTINCT',
  signatures: [{ params: ['ARRAY<T>'], result: BOOL }],
  eval: ([a]) => {
    const arr = a as readonly SqlValue[];
    return new Set(arr.map(groupKey)).size === arr.length;
  },
});

/** ARRAY_OFFSET(a, value [, FIRST | LAST]): the 0-based offset of the first (last) equal element, or NULL. */
export const ARRAY_OFFSET = defineFunction({
  name: 'ARRAY_OFFSET',
  signatures: [{ params: ['ARRAY<T>', 'T', STRING], optionalFrom: 2, result: INT64 }],
  eval: ([a, x, mode]) => {
    const arr = a as readonly SqlValue[];
    const m = ((mode as string | undefined) ?? 'FIRST').toUpperCase();
    if (m !== 'FIRST' && m !== 'LAST') throw evalError(`ARRAY_OFFSET: the find mode must be FIRST or LAST, not ${m}`);
    const i = m === 'FIRST' ? arr.findIndex((e) => sqlEquals(e, x!) === true) : arr.findLastIndex((e) => sqlEquals(e, x!) === true);
    return i < 0 ? null : BigInt(i);
  },
});

export const ARRAY_OFFSETS = defineFunction({
  name: 'ARRAY_OFFSETS',
  signatures: [{ params: ['ARRAY<T>', 'T'], result: { kind: 'ARRAY', element: INT64 } }],
  eval: ([a, x]) => (a as readonly SqlValue[]).flatMap((e, i) => (sqlEquals(e, x!) === true ? [BigInt(i)] : [])),
});

export const MORE_COLLECTION_FUNCTIONS: readonly ScalarFunction[] = [
  ARRAY_CONCAT,
  GENERATE_ARRAY,
  ARRAY_FIRST,
  ARRAY_LAST,
  ARRAY_LAST_N,
  ARRAY_SLICE,
  ARRAY_INCLUDES_ANY,
  ARRAY_INCLUDES_ALL,
  ARRAY_IS_DISTINCT,
  ARRAY_OFFSET,
  ARRAY_OFFSETS,
];
