import { fromBytes, printable } from '../../model/bytes.js';
import { invalidArgument } from '../../model/errors.js';
import { type InstanceName, instanceNameString } from '../../model/names.js';
import type { SqlEngine } from '../../sql/engine.js';
import { SqlDate, SqlJson, SqlMap, SqlStruct, SqlTimestamp, type SqlType, type SqlValue, typeText } from '../../sql/types.js';

/**
 * `POST /api/v1/projects/{p}/instances/{i}/sql` (the JSON API; `tabletop sql`
 * and the web UI's query box):
 *   request  { query, params?: { name: { type: "INT64" | "ARRAY<STRING>" | ..., value } } }
 *   response { columns: [{ name, type }], rows: [[value, ...]], truncated, stats: { rowsScanned, rowsReturned, elapsedMillis } }
 * Values in JSON: INT64 as a decimal string (exact), FLOAT as a number (NaN
 * and ±Infinity as strings), BYTES as { base64, printable }, TIMESTAMP as
 * RFC 3339 with microseconds, DATE as YYYY-MM-DD, ARRAY as an array, STRUCT
 * as an object by field name (a nameless field by its position), MAP as an
 * array of [key, value], JSON as its text, NULL as null.
 * Parameters take the same forms, and BYTES also a plain string (its UTF-8).
 * At most `maxRows` rows are returned (then `truncated` is true). `elapsedMillis`:
 * the server's time from the request's parsing to the last row (prepare, run,
 * conversion), to 0.1 ms.
 */

export interface SqlRequestJson {
  readonly query?: unknown;
  readonly params?: unknown;
}

export interface SqlResponseJson {
  readonly columns: { name: string; type: string }[];
  readonly rows: unknown[][];
  readonly truncated: boolean;
  readonly stats: { rowsScanned: number; rowsReturned: number; elapsedMillis: number };
}

export const SQL_MAX_ROWS = 10_000;

export async function sqlRoute(
  engine: SqlEngine,
  instance: InstanceName,
  body: SqlRequestJson,
  maxRows = SQL_MAX_ROWS,
  /** Aborts when the client has gone (the query stops reading). */
  signal?: AbortSignal,
): Promise<SqlResponseJson> {
  const began = performance.now();
  if (typeof body.query !== 'string' || body.query.trim() === '') throw invalidArgument('Give the query as "query" (a string)');
  const { types, values } = paramsFromJson(body.params);
  const name = instanceNameString(instance);
  const prepared = await engine.prepare(name, body.query, types);
  const abort = new AbortController();
  signal?.addEventListener('abort', () => abort.abort(), { once: true });
  const run = engine.execute(name, prepared.token, { params: values, signal: abort.signal });
  const rows: unknown[][] = [];
  let truncated = false;
  for await (const row of run.rows) {
    if (rows.length === maxRows) {
      truncated = true;
      break;
    }
    rows.push(row.map((v, i) => sqlValueToJson(v, prepared.columns[i]!.type)));
  }
  abort.abort();
  const stats = run.stats();
  return {
    columns: prepared.columns.map((c) => ({ name: c.name, type: typeText(c.type) })),
    rows,
    truncated,
    stats: {
      rowsScanned: stats.rowsScanned,
      rowsReturned: truncated ? rows.length : stats.rowsReturned,
      elapsedMillis: Math.round((performance.now() - began) * 10) / 10,
    },
  };
}

function paramsFromJson(params: unknown): { types: Map<string, SqlType>; values: Map<string, SqlValue> } {
  const types = new Map<string, SqlType>();
  const values = new Map<string, SqlValue>();
  if (params === undefined || params === null) return { types, values };
  if (typeof params !== 'object' || Array.isArray(params)) throw invalidArgument('"params" must be an object: { name: { type, value } }');
  for (const [name, p] of Object.entries(params as Record<string, unknown>)) {
    const { type, value } = (p ?? {}) as { type?: unknown; value?: unknown };
    if (typeof type !== 'string') throw invalidArgument(`params.${name}: give its "type" (e.g. "INT64", "ARRAY<STRING>")`);
    const t = paramType(type, name);
    types.set(name, t);
    values.set(name, sqlValueFromJson(value, t, `params.${name}`));
  }
  return { types, values };
}

const SCALARS = new Set(['INT64', 'FLOAT32', 'FLOAT64', 'BOOL', 'STRING', 'BYTES', 'TIMESTAMP', 'DATE']);

/** A parameter's type from its text: a scalar type or ARRAY<scalar>. */
export function paramType(text: string, name: string): SqlType {
  const t = text.trim().toUpperCase();
  const array = /^ARRAY\s*<\s*(\w+)\s*>$/.exec(t);
  const scalar = array ? array[1]! : t;
  if (!SCALARS.has(scalar)) {
    throw invalidArgument(`params.${name}: type "${text}" is not one of ${[...SCALARS].join(', ')} or ARRAY<...> of one`);
  }
  const s = { kind: scalar } as SqlType;
  return array ? { kind: 'ARRAY', element: s } : s;
}

function sqlValueFromJson(v: unknown, t: SqlType, what: string): SqlValue {
  if (v === null || v === undefined) return null;
  const bad = (): never => {
    throw invalidArgument(`${what}: ${JSON.stringify(v)} is not a ${typeText(t)}`);
  };
  switch (t.kind) {
    case 'INT64':
      if ((typeof v === 'string' && /^-?\d+$/.test(v)) || (typeof v === 'number' && Number.isSafeInteger(v))) {
        const b = BigInt(v);
        if (b >= -(2n ** 63n) && b < 2n ** 63n) return b;
      }
      return bad();
    case 'FLOAT32':
    case 'FLOAT64': {
      const n = typeof v === 'number' ? v : typeof v === 'string' && ['NaN', 'Infinity', '-Infinity'].includes(v) ? Number(v) : bad();
      return t.kind === 'FLOAT32' ? Math.fround(n) : n;
    }
    case 'BOOL':
      return typeof v === 'boolean' ? v : bad();
    case 'STRING':
      return typeof v === 'string' ? v : bad();
    case 'BYTES':
      if (typeof v === 'string') return new Uint8Array(Buffer.from(v, 'utf8'));
      if (typeof v === 'object' && typeof (v as { base64?: unknown }).base64 === 'string') {
        return new Uint8Array(Buffer.from((v as { base64: string }).base64, 'base64'));
      }
      return bad();
    case 'TIMESTAMP': {
      const m = typeof v === 'string' ? /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(v) : null;
      const seconds = m ? Date.parse(m[1]! + m[3]!) : NaN;
      if (!m || Number.isNaN(seconds)) return bad();
      return new SqlTimestamp(BigInt(seconds) * 1000n + BigInt((m[2] ?? '').padEnd(6, '0').slice(0, 6) || '0'));
    }
    case 'DATE': {
      const m = typeof v === 'string' ? /^(\d{4})-(\d\d)-(\d\d)$/.exec(v) : null;
      if (!m) return bad();
      const d = new Date(0);
      d.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
      if (d.getUTCDate() !== Number(m[3])) return bad();
      return new SqlDate(d.getTime() / 86_400_000);
    }
    case 'ARRAY':
      return Array.isArray(v) ? v.map((e, i) => sqlValueFromJson(e, t.element, `${what}[${i}]`)) : bad();
    default:
      return bad();
  }
}

/** A result value as JSON (the forms above). */
export function sqlValueToJson(v: SqlValue, t: SqlType): unknown {
  if (v === null) return null;
  switch (t.kind) {
    case 'INT64':
      return (v as bigint).toString();
    case 'FLOAT32':
    case 'FLOAT64':
      return Number.isFinite(v) ? v : String(v);
    case 'BOOL':
    case 'STRING':
      return v;
    case 'JSON':
      return (v as SqlJson).text;
    case 'BYTES': {
      const b = v as Uint8Array;
      return { base64: Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64'), printable: printable(fromBytes(b)) };
    }
    case 'TIMESTAMP':
      return timestampText((v as SqlTimestamp).micros);
    case 'DATE':
      return new Date((v as SqlDate).days * 86_400_000).toISOString().slice(0, 10);
    case 'ARRAY':
      return (v as readonly SqlValue[]).map((e) => sqlValueToJson(e, t.element));
    case 'STRUCT': {
      const out: Record<string, unknown> = {};
      (v as SqlStruct).values.forEach((e, i) => (out[t.fields[i]!.name || String(i)] = sqlValueToJson(e, t.fields[i]!.type)));
      return out;
    }
    case 'MAP':
      return (v as SqlMap).entries.map(([k, e]) => [sqlValueToJson(k, t.key), sqlValueToJson(e, t.value)]);
  }
}

/** RFC 3339 in UTC with microseconds: 2024-06-01T12:00:00.000001Z. */
function timestampText(micros: bigint): string {
  const millis = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
  const sub = micros - millis * 1000n;
  const iso = new Date(Number(millis)).toISOString(); // ...T12:00:00.000Z
  return `${iso.slice(0, -1)}${sub.toString().padStart(3, '0')}Z`;
}
