import { type SubsetView, normalizeSubsetView } from '../model/authorized-view.js';
import type { ByteString } from '../model/bytes.js';
import type { GcRule } from '../model/gc-rule.js';
import { FAMILY_NAME_RE, TABLE_ID_RE } from '../model/limits.js';
import type { ValueType } from '../model/value-type.js';
import { GcRuleSyntaxError, formatGcRule, parseGcRule } from './gc-rule-text.js';

/**
 * A schema file (README: Schema as code): JSON, written with a stable order so that it diffs well in review.
 *
 *   { "schema": "tabletop/v1", "tables": { "<id>": TABLE, ... } }          an instance's tables (apply removes others)
 *   { "schema": "tabletop/v1", "table": "<id>", ...TABLE }                 one table (apply touches only it)
 *
 *   TABLE = { "families": { "<name>": { "gc": "maxversions=3 || maxage=7d", "type": "sum(int64)" }, ... },
 *             "deletionProtection": false,
 *             "splits": [KEY, ...],                       used only when apply creates the table
 *             "authorizedViews": { "<id>": { "rowPrefixes": [KEY, ...],
 *                                            "families": { "<name>": { "qualifiers": [KEY], "qualifierPrefixes": [KEY] } },
 *                                            "deletionProtection": false } } }
 *
 * KEY (row keys, prefixes, qualifiers) is a JSON string holding UTF-8 text, or { "base64": "..." } for other bytes.
 * "gc" defaults to "never"; "type" to "bytes" (a plain family); sum, min and max take int64, hll takes bytes or int64.
 */
export const SCHEMA_VERSION = 'tabletop/v1';

export interface FamilySchema {
  readonly gcRule: GcRule | undefined;
  readonly valueType: ValueType;
}

export interface ViewSchema {
  readonly subset: SubsetView;
  readonly deletionProtection: boolean;
}

export interface TableSchema {
  /** By name, sorted. */
  readonly families: ReadonlyMap<string, FamilySchema>;
  readonly deletionProtection: boolean;
  /** Ascending, no duplicates. */
  readonly splits: readonly ByteString[];
  /** By id, sorted; undefined when the server does not serve authorized views (Google's emulator). */
  readonly views: ReadonlyMap<string, ViewSchema> | undefined;
}

/** What a file describes: every table of an instance, or one table. */
export type SchemaDocument =
  | { readonly scope: 'instance'; readonly tables: ReadonlyMap<string, TableSchema> }
  | { readonly scope: 'table'; readonly tableId: string; readonly table: TableSchema };

/** Thrown for a file that is not a schema: the message names the place (tables.t.families.cf.gc) and the fault. */
export class SchemaFileError extends Error {}

// ---- writing ----

export function renderSchema(doc: SchemaDocument): string {
  const json =
    doc.scope === 'instance'
      ? { schema: SCHEMA_VERSION, tables: Object.fromEntries([...sorted(doc.tables)].map(([id, t]) => [id, tableJson(t)])) }
      : { schema: SCHEMA_VERSION, table: doc.tableId, ...tableJson(doc.table) };
  return JSON.stringify(json, null, 2) + '\n';
}

function tableJson(t: TableSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {
    families: Object.fromEntries([...sorted(t.families)].map(([name, f]) => [name, familyJson(f)])),
    deletionProtection: t.deletionProtection,
    splits: t.splits.map(keyJson),
  };
  if (t.views !== undefined) {
    out.authorizedViews = Object.fromEntries(
      [...sorted(t.views)].map(([id, v]) => {
        const s = normalizeSubsetView(v.subset);
        const families = Object.fromEntries(
          s.familySubsets.map((f) => [
            f.family,
            { qualifiers: f.qualifiers.map(keyJson), qualifierPrefixes: f.qualifierPrefixes.map(keyJson) },
          ]),
        );
        return [id, { rowPrefixes: s.rowPrefixes.map(keyJson), families, deletionProtection: v.deletionProtection }];
      }),
    );
  }
  return out;
}

function familyJson(f: FamilySchema): Record<string, string> {
  const out: Record<string, string> = { gc: formatGcRule(f.gcRule) };
  if (f.valueType.kind === 'aggregate') out.type = formatValueType(f.valueType);
  return out;
}

export function formatValueType(t: ValueType): string {
  return t.kind === 'bytes' ? 'bytes' : `${t.aggregator}(${t.input})`;
}

/** A key as the file writes it: its UTF-8 text when it is valid UTF-8 without control characters, else base64. */
function keyJson(k: ByteString): string | { base64: string } {
  const bytes = Buffer.from(k, 'latin1');
  const text = bytes.toString('utf8');
  // eslint-disable-next-line no-control-regex
  if (Buffer.from(text, 'utf8').equals(bytes) && !/[\x00-\x1f\x7f]/.test(text)) return text;
  return { base64: bytes.toString('base64') };
}

/** A key as messages show it: the file's form. */
export function keyText(k: ByteString): string {
  return JSON.stringify(keyJson(k));
}

function sorted<V>(m: ReadonlyMap<string, V>): Map<string, V> {
  return new Map([...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

// ---- reading ----

/** The document a file's text holds, checked field by field. */
export function parseSchema(text: string): SchemaDocument {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new SchemaFileError(`not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  const root = object(json, 'the file');
  if (root.schema !== SCHEMA_VERSION)
    throw new SchemaFileError(`"schema" must be "${SCHEMA_VERSION}" (got ${JSON.stringify(root.schema)})`);
  if ('tables' in root === 'table' in root) throw new SchemaFileError('give either "tables" (an instance) or "table" (one table)');
  if ('tables' in root) {
    only(root, ['schema', 'tables'], 'the file');
    const tables = new Map<string, TableSchema>();
    for (const [id, t] of Object.entries(object(root.tables, 'tables')))
      tables.set(tableId(id, `tables.${id}`), parseTable(t, `tables.${id}`));
    return { scope: 'instance', tables };
  }
  if (typeof root.table !== 'string') throw new SchemaFileError('"table" must be the table id, a string');
  const { schema: _schema, table: id, ...rest } = root;
  return { scope: 'table', tableId: tableId(id, 'table'), table: parseTable(rest, id) };
}

const TABLE_KEYS = ['families', 'deletionProtection', 'splits', 'authorizedViews'];

function parseTable(json: unknown, at: string): TableSchema {
  const t = object(json, at);
  only(t, TABLE_KEYS, at);
  const families = new Map<string, FamilySchema>();
  for (const [name, f] of Object.entries(object(t.families ?? {}, `${at}.families`))) {
    if (!FAMILY_NAME_RE.test(name) || name.length > 64) throw new SchemaFileError(`${at}.families: "${name}" is not a column family name`);
    families.set(name, parseFamily(f, `${at}.families.${name}`));
  }
  const splits = [...new Set(array(t.splits ?? [], `${at}.splits`).map((k, i) => key(k, `${at}.splits[${i}]`)))].sort();
  if (splits.includes('')) throw new SchemaFileError(`${at}.splits: a split key must not be empty`);
  let views: Map<string, ViewSchema> | undefined;
  if (t.authorizedViews !== undefined) {
    views = new Map();
    for (const [id, v] of Object.entries(object(t.authorizedViews, `${at}.authorizedViews`))) {
      views.set(id, parseView(v, `${at}.authorizedViews.${id}`));
    }
  }
  return { families, deletionProtection: bool(t.deletionProtection ?? false, `${at}.deletionProtection`), splits, views };
}

function parseFamily(json: unknown, at: string): FamilySchema {
  const f = object(json, at);
  only(f, ['gc', 'type'], at);
  let gcRule: GcRule | undefined;
  try {
    gcRule = parseGcRule(string(f.gc ?? 'never', `${at}.gc`));
  } catch (e) {
    if (e instanceof GcRuleSyntaxError) throw new SchemaFileError(`${at}.gc: ${e.message}`);
    throw e;
  }
  return { gcRule, valueType: parseValueType(string(f.type ?? 'bytes', `${at}.type`), `${at}.type`) };
}

export function parseValueType(text: string, at: string): ValueType {
  if (text === 'bytes') return { kind: 'bytes' };
  const m = /^(sum|min|max|hll)\((int64|bytes)\)$/.exec(text);
  if (m === null || (m[1] !== 'hll' && m[2] !== 'int64')) {
    throw new SchemaFileError(`${at}: "${text}" is not a family type (bytes, sum(int64), min(int64), max(int64), hll(bytes), hll(int64))`);
  }
  return { kind: 'aggregate', aggregator: m[1] as 'sum' | 'min' | 'max' | 'hll', input: m[2] as 'int64' | 'bytes' };
}

function parseView(json: unknown, at: string): ViewSchema {
  const v = object(json, at);
  only(v, ['rowPrefixes', 'families', 'deletionProtection'], at);
  const familySubsets = Object.entries(object(v.families ?? {}, `${at}.families`)).map(([family, fj]) => {
    const f = object(fj, `${at}.families.${family}`);
    only(f, ['qualifiers', 'qualifierPrefixes'], `${at}.families.${family}`);
    const keys = (field: 'qualifiers' | 'qualifierPrefixes'): ByteString[] =>
      array(f[field] ?? [], `${at}.families.${family}.${field}`).map((k, i) => key(k, `${at}.families.${family}.${field}[${i}]`));
    return { family, qualifiers: keys('qualifiers'), qualifierPrefixes: keys('qualifierPrefixes') };
  });
  const rowPrefixes = array(v.rowPrefixes ?? [], `${at}.rowPrefixes`).map((k, i) => key(k, `${at}.rowPrefixes[${i}]`));
  return {
    subset: normalizeSubsetView({ rowPrefixes, familySubsets }),
    deletionProtection: bool(v.deletionProtection ?? false, `${at}.deletionProtection`),
  };
}

function tableId(id: string, at: string): string {
  if (!TABLE_ID_RE.test(id) || id.length > 50) throw new SchemaFileError(`${at}: "${id}" is not a table id`);
  return id;
}

function key(json: unknown, at: string): ByteString {
  if (typeof json === 'string') return Buffer.from(json, 'utf8').toString('latin1');
  const o = object(json, at);
  if (typeof o.base64 !== 'string' || Object.keys(o).length !== 1 || !/^[A-Za-z0-9+/]*={0,2}$/.test(o.base64)) {
    throw new SchemaFileError(`${at}: a key is a string (UTF-8) or { "base64": "..." }`);
  }
  return Buffer.from(o.base64, 'base64').toString('latin1');
}

function object(json: unknown, at: string): Record<string, unknown> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new SchemaFileError(`${at} must be an object`);
  return json as Record<string, unknown>;
}

function array(json: unknown, at: string): unknown[] {
  if (!Array.isArray(json)) throw new SchemaFileError(`${at} must be an array`);
  return json;
}

function string(json: unknown, at: string): string {
  if (typeof json !== 'string') throw new SchemaFileError(`${at} must be a string`);
  return json;
}

function bool(json: unknown, at: string): boolean {
  if (typeof json !== 'boolean') throw new SchemaFileError(`${at} must be true or false`);
  return json;
}

function only(o: Record<string, unknown>, keys: readonly string[], at: string): void {
  for (const k of Object.keys(o))
    if (!keys.includes(k)) throw new SchemaFileError(`${at}: unknown field "${k}" (known: ${keys.join(', ')})`);
}
