import { BOOL, JSON_TYPE, STRING, SqlDate, SqlJson, SqlMap, SqlStruct, SqlTimestamp, type SqlType, type SqlValue } from '../types.js';
import { formatFloat } from '../values/cast.js';
import { formatDate, formatTimestamp } from '../values/time.js';
import { JSON_QUERY, JSON_VALUE, jsonAt, jsonText } from './collections.js';
import { type ScalarFunction, defineFunction } from './registry.js';

/**
 * The JSON functions of GoogleSQL for Bigtable over JSON-formatted STRINGs: the legacy extractors
 * (JSON_EXTRACT, JSON_EXTRACT_SCALAR: JSON_QUERY and JSON_VALUE under their old names, paths in either
 * escaping), JSON_QUERY_ARRAY and TO_JSON_STRING.
 */

export const JSON_EXTRACT: ScalarFunction = {
  ...JSON_QUERY,
  name: 'JSON_EXTRACT',
  signatureText: JSON_QUERY.signatureText.replaceAll('JSON_QUERY', 'JSON_EXTRACT'),
};
export const JSON_EXTRACT_SCALAR: ScalarFunction = {
  ...JSON_VALUE,
  name: 'JSON_EXTRACT_SCALAR',
  signatureText: JSON_VALUE.signatureText.replaceAll('JSON_VALUE', 'JSON_EXTRACT_SCALAR'),
};

/** JSON_QUERY_ARRAY(json [, path]): the array at the path as JSON-formatted elements; NULL if not an array. */
export const JSON_QUERY_ARRAY = defineFunction({
  name: 'JSON_QUERY_ARRAY',
  signatures: [
    { params: [STRING, STRING], optionalFrom: 1, result: { kind: 'ARRAY', element: STRING } },
    { params: [JSON_TYPE, STRING], optionalFrom: 1, result: { kind: 'ARRAY', element: JSON_TYPE } },
  ],
  eval: ([j, p]) => {
    const v = jsonAt(jsonText(j!), (p as string | undefined) ?? '$');
    if (!Array.isArray(v)) return null;
    return v.map((e) => (j instanceof SqlJson ? new SqlJson(JSON.stringify(e)) : JSON.stringify(e)));
  },
});

const MAX_SAFE = 9007199254740992n;

function timestampJson(ts: SqlTimestamp): string {
  return formatTimestamp(ts).replace(' ', 'T').replace(/\+00$/, 'Z');
}

/** A value as JSON text, by its type (struct field names, INT64 beyond ±2^53 as strings, BYTES as base64). */
export function toJson(v: SqlValue, t: SqlType, indent: string, depth: number): string {
  if (v === null) return 'null';
  const nl = indent === '' ? '' : '\n' + indent.repeat(depth + 1);
  const close = indent === '' ? '' : '\n' + indent.repeat(depth);
  const colon = indent === '' ? ':' : ': ';
  switch (t.kind) {
    case 'INT64':
      return (v as bigint) > MAX_SAFE || (v as bigint) < -MAX_SAFE ? `"${String(v)}"` : String(v);
    case 'FLOAT64':
    case 'FLOAT32': {
      const f = v as number;
      if (Number.isNaN(f)) return '"NaN"';
      if (!Number.isFinite(f)) return f > 0 ? '"Infinity"' : '"-Infinity"';
      return formatFloat(f);
    }
    case 'BOOL':
      return v ? 'true' : 'false';
    case 'STRING':
      return JSON.stringify(v);
    case 'BYTES':
      return JSON.stringify(Buffer.from(v as Uint8Array).toString('base64'));
    case 'DATE':
      return JSON.stringify(formatDate(v as SqlDate));
    case 'TIMESTAMP':
      return JSON.stringify(timestampJson(v as SqlTimestamp));
    case 'JSON':
      return (v as SqlJson).text;
    case 'ARRAY': {
      const items = (v as readonly SqlValue[]).map((e) => toJson(e, t.element, indent, depth + 1));
      return items.length === 0 ? '[]' : `[${nl}${items.join(',' + nl)}${close}]`;
    }
    case 'STRUCT': {
      const items = (v as SqlStruct).values.map(
        (e, i) => `${JSON.stringify(t.fields[i]?.name ?? '')}${colon}${toJson(e, t.fields[i]!.type, indent, depth + 1)}`,
      );
      return items.length === 0 ? '{}' : `{${nl}${items.join(',' + nl)}${close}}`;
    }
    case 'MAP': {
      // An object keyed by the key's text (STRING keys as they are, BYTES keys as base64, others as JSON text).
      const items = (v as SqlMap).entries.map(([k, x]) => {
        const key = typeof k === 'string' ? k : k instanceof Uint8Array ? Buffer.from(k).toString('base64') : toJson(k, t.key, '', 0);
        return `${JSON.stringify(key)}${colon}${toJson(x, t.value, indent, depth + 1)}`;
      });
      return items.length === 0 ? '{}' : `{${nl}${items.join(',' + nl)}${close}}`;
    }
  }
}

/** TO_JSON_STRING(value [, pretty_print]) for an argument of type `t` (the analyzer makes one per type). */
export function toJsonString(t: SqlType): ScalarFunction {
  return defineFunction({
    name: 'TO_JSON_STRING',
    signatures: [{ params: [t, BOOL], optionalFrom: 1, result: STRING }],
    strict: false,
    eval: ([v, pretty]) => toJson(v ?? null, t, pretty === true ? '  ' : '', 0),
  });
}

/** The registry's entry: it resolves any argument; the analyzer binds calls to toJsonString(type). */
export const TO_JSON_STRING = defineFunction({
  name: 'TO_JSON_STRING',
  signatures: [{ params: ['ANY', BOOL], optionalFrom: 1, result: STRING }],
  strict: false,
  eval: () => {
    throw new Error('TO_JSON_STRING is bound per argument type');
  },
});

export const JSON_FUNCTIONS: readonly ScalarFunction[] = [JSON_EXTRACT, JSON_EXTRACT_SCALAR, JSON_QUERY_ARRAY, TO_JSON_STRING];
