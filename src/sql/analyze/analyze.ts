import type { TableInfo } from '../../db/api.js';
import { isTabletopError, notFound } from '../../model/errors.js';
import { INTERNAL_TABLE_PREFIX, type InstanceName, type TableName } from '../../model/names.js';
import type { ResultColumn } from '../engine.js';
import { isEquatable, isOrderable } from '../functions/operators.js';
import type { Expr, Select, SelectItem, TableRef, Unnest } from '../syntax/ast.js';
import { BOOL, BYTES, INT64, TIMESTAMP, type SqlType, typeText } from '../types.js';
import { queryError } from '../values/errors.js';
import { NO_VIEWS, type ViewCatalog } from '../views.js';
import { type DerivedSource, type SourceContext, unpackSource, viewSource } from './sources.js';
import { type Bound, type BoundAggregate, boundKey } from '../bound/bound.js';
import {
  type AggregateState,
  type Scope,
  type ScopeColumn,
  bindExpr,
  coerceTo,
  containsAggregate,
  implicitName,
  operand,
} from './bind-expr.js';

/**
 * Analysis of a SELECT: resolves the FROM table against the instance's tables (its shape: `_key BYTES`, then
 * one `MAP<BYTES, BYTES>` column per family in creation order, `MAP<BYTES, INT64>` for int64 aggregate
 * families), binds every clause, checks GROUP BY / HAVING / aggregates, names the result columns, and
 * fingerprints the table's schema (a prepared query whose fingerprint no longer matches has expired).
 */

export interface Catalog {
  getTable(name: TableName): TableInfo;
}

/** A family column of the scanned table: its scan slot is its index in `families` + 1. */
export interface FamilyColumn {
  readonly name: string;
  readonly type: Extract<SqlType, { kind: 'MAP' }>;
  /** How cell values decode: raw bytes, or 8-byte big-endian INT64 (sum/min/max aggregate families). */
  readonly decode: 'bytes' | 'int64';
}

/**
 * A temporal read: with history, each family is `MAP<BYTES, ARRAY<STRUCT<timestamp TIMESTAMP, value V>>>` (newest
 * first), bounded by after / after_or_equal / before / before_or_equal and latest_n; as_of reads the latest cell
 * at or before a time. The bounds are constant expressions (literals or parameters), evaluated at execution.
 */
export interface Temporal {
  readonly history: boolean;
  readonly after?: Bound;
  readonly afterOrEqual?: Bound;
  readonly before?: Bound;
  readonly beforeOrEqual?: Bound;
  readonly latestN?: Bound;
  readonly asOf?: Bound;
}

/** `, UNNEST(array) AS x [WITH OFFSET AS o]`: each row repeats once per element, with the element (and offset) appended. */
export interface UnnestStep {
  readonly array: Bound;
  readonly withOffset: boolean;
}

function unnestStep(u: Unnest, scope: Scope, columns: ScopeColumn[]): UnnestStep {
  const array = bindExpr(u.expr, scope);
  if (array.type.kind !== 'ARRAY')
    throw queryError(u.expr.pos, `Values referenced in UNNEST must be arrays. UNNEST contains expression of type ${typeText(array.type)}`);
  const name = u.alias?.name ?? (u.explicit ? '' : implicitName(u.expr));
  columns.push({ name: name === '' ? `$unnest${columns.length}` : name, type: array.type.element });
  if (u.withOffset !== null) columns.push({ name: u.withOffset.alias?.name ?? 'offset', type: INT64 });
  return { array, withOffset: u.withOffset !== null };
}

export interface OrderKey {
  /** Index into `projection`. */
  readonly index: number;
  readonly descending: boolean;
  readonly nullsFirst: boolean;
}

export interface AnalyzedQuery {
  readonly columns: readonly ResultColumn[];
  readonly table: TableInfo | undefined;
  /** FROM a logical view, UNPACK or a materialized view: the scan rows are that source's result rows. */
  readonly source: DerivedSource<AnalyzedQuery> | undefined;
  /** The scan slot holding the row key of the table read underneath (0 for a table), when key ranges apply to it. */
  readonly keySlot: number | undefined;
  /** The result column that passes the key slot through unchanged, when rows are per-row (see sources.ts). */
  readonly keyColumn: number | undefined;
  readonly families: readonly FamilyColumn[];
  /** UNNEST joins, applied to each scan row in order (their columns follow the table's). */
  readonly unnests: readonly UnnestStep[];
  /** The temporal table function's arguments (`t(with_history => TRUE, ...)`, `t(as_of => ...)`), if called so. */
  readonly temporal: Temporal | undefined;
  readonly where: Bound | undefined;
  /** Set for an aggregating query: group keys and aggregate calls, bound on the scan row. */
  readonly aggregate: { readonly groups: readonly Bound[]; readonly aggregates: readonly BoundAggregate[] } | undefined;
  readonly having: Bound | undefined;
  /** The result columns, then hidden ORDER BY keys (on the scan row, or on the aggregated row). */
  readonly projection: readonly Bound[];
  readonly order: readonly OrderKey[];
  readonly distinct: boolean;
  readonly limit: Bound | undefined;
  readonly offset: Bound | undefined;
  /** A text that changes when the table's schema does, or a view the query reads (its etag or fingerprint). */
  readonly fingerprint: string;
}

export function tableShape(table: TableInfo, history = false): FamilyColumn[] {
  return table.families.map((f) => {
    const int = f.valueType.kind === 'aggregate' && f.valueType.aggregator !== 'hll';
    const cell: SqlType = int ? INT64 : BYTES;
    const value: SqlType = history
      ? {
          kind: 'ARRAY',
          element: {
            kind: 'STRUCT',
            fields: [
              { name: 'timestamp', type: TIMESTAMP },
              { name: 'value', type: cell },
            ],
          },
        }
      : cell;
    return { name: f.name, type: { kind: 'MAP', key: BYTES, value }, decode: int ? 'int64' : 'bytes' };
  });
}

const TEMPORAL_ARGS: Readonly<Record<string, { readonly key: keyof Temporal; readonly type: SqlType }>> = {
  with_history: { key: 'history', type: BOOL },
  after: { key: 'after', type: TIMESTAMP },
  after_or_equal: { key: 'afterOrEqual', type: TIMESTAMP },
  before: { key: 'before', type: TIMESTAMP },
  before_or_equal: { key: 'beforeOrEqual', type: TIMESTAMP },
  latest_n: { key: 'latestN', type: INT64 },
  as_of: { key: 'asOf', type: TIMESTAMP },
};

function temporalOf(ref: TableRef, params: ReadonlyMap<string, SqlType>): Temporal | undefined {
  if (ref.args === null) return undefined;
  const out: Record<string, Bound | boolean> = { history: false };
  for (const a of ref.args) {
    const spec = TEMPORAL_ARGS[a.name.name.toLowerCase()];
    if (spec === undefined)
      throw queryError(a.name.pos, `Unknown argument ${a.name.name} of a table; expected one of ${Object.keys(TEMPORAL_ARGS).join(', ')}`);
    if (spec.key in out && spec.key !== 'history') throw queryError(a.name.pos, `Argument ${a.name.name} given twice`);
    const b = coerceTo(
      bindExpr(a.value, { columns: [], qualifiers: [], params, noAggregates: 'a table argument' }),
      spec.type,
      a.value.pos,
    );
    if (b.type.kind !== spec.type.kind)
      throw queryError(a.value.pos, `Argument ${a.name.name} must be ${typeText(spec.type)}, got ${typeText(b.type)}`);
    if (spec.key === 'history') {
      if (b.kind !== 'const' || typeof b.value !== 'boolean') throw queryError(a.value.pos, 'with_history must be TRUE or FALSE');
      out['history'] = b.value;
    } else out[spec.key] = b;
  }
  const t = out as unknown as Temporal;
  const ranged =
    t.after !== undefined ||
    t.afterOrEqual !== undefined ||
    t.before !== undefined ||
    t.beforeOrEqual !== undefined ||
    t.latestN !== undefined;
  if (t.asOf !== undefined && (t.history || ranged))
    throw queryError(ref.pos, 'as_of cannot be combined with with_history, the time bounds or latest_n');
  if (ranged && !t.history) throw queryError(ref.pos, 'The time bounds and latest_n need with_history => TRUE');
  if (t.after !== undefined && t.afterOrEqual !== undefined) throw queryError(ref.pos, 'after and after_or_equal cannot both be given');
  if (t.before !== undefined && t.beforeOrEqual !== undefined) throw queryError(ref.pos, 'before and before_or_equal cannot both be given');
  if (t.latestN?.kind === 'const' && typeof t.latestN.value === 'bigint' && t.latestN.value < 1n)
    throw queryError(ref.pos, 'latest_n must be at least 1');
  return t;
}

export function schemaFingerprint(table: TableInfo | undefined): string {
  if (table === undefined) return '';
  return JSON.stringify([table.name.table, table.createTimeMillis, table.families.map((f) => [f.name, f.valueType])]);
}

const notFoundAt = (ref: TableRef, id: string): Error => notFound(`line ${ref.pos.line}, column ${ref.pos.column}: Table not found: ${id}`);

/** A table by name, or undefined when the instance has none of that name (a view may have it). */
function findTable(ref: TableRef, instance: InstanceName, catalog: Catalog): TableInfo | undefined {
  if (ref.name.length !== 1) throw queryError(ref.pos, `Table not found: ${ref.name.map((n) => n.name).join('.')}`);
  // The internal tables of materialized views are no client's: not found, as for any other name.
  if (ref.name[0]!.name.startsWith(INTERNAL_TABLE_PREFIX)) return undefined;
  try {
    return catalog.getTable({ ...instance, table: ref.name[0]!.name });
  } catch (e) {
    if (isTabletopError(e, 'NotFound') || isTabletopError(e, 'InvalidArgument')) return undefined;
    throw e;
  }
}

/**
 * Analyzes a SELECT. FROM names a table, else a logical view, else a materialized view (`views`), else NOT_FOUND
 * `Table not found`; `viewStack` is the chain of logical views being analyzed (a view that reads itself, directly
 * or through others, is INVALID_ARGUMENT).
 */
export function analyzeSelect(
  stmt: Select,
  instance: InstanceName,
  catalog: Catalog,
  params: ReadonlyMap<string, SqlType>,
  views: ViewCatalog = NO_VIEWS,
  viewStack: readonly string[] = [],
): AnalyzedQuery {
  let table: TableInfo | undefined;
  let source: DerivedSource<AnalyzedQuery> | undefined;
  let keySlot: number | undefined;
  let sourceFingerprint = '';
  let families: FamilyColumn[] = [];
  let temporal: Temporal | undefined;
  const qualifiers: string[] = [];
  const columns: ScopeColumn[] = [];
  const unnests: UnnestStep[] = [];
  const ctx: SourceContext<AnalyzedQuery> = {
    instance,
    views,
    viewStack,
    params,
    analyze: (sub, subParams, stack) => analyzeSelect(sub, instance, catalog, subParams, views, stack),
  };
  if (stmt.from !== null) {
    const src = stmt.from.source;
    if (src.kind === 'subquery') throw queryError(src.pos, 'A subquery in FROM is not supported (UNPACK((SELECT ...)) is)');
    if (src.kind === 'table') {
      table = findTable(src, instance, catalog);
      if (table !== undefined) {
        temporal = temporalOf(src, params);
        families = tableShape(table, temporal?.history === true);
        columns.push({ name: '_key', type: BYTES }, ...families.map((f) => ({ name: f.name, type: f.type })));
        keySlot = 0;
        sourceFingerprint = schemaFingerprint(table);
      } else {
        const view = viewSource(src, ctx);
        if (view === undefined) throw notFoundAt(src, src.name[0]!.name);
        ({ source, keySlot, fingerprint: sourceFingerprint } = view);
        columns.push(...view.columns);
      }
      qualifiers.push(src.name[0]!.name);
      if (src.alias !== null) qualifiers.push(src.alias.name);
    }
    if (src.kind === 'unpack') {
      const unpacked = unpackSource(src, ctx);
      ({ source, keySlot, fingerprint: sourceFingerprint } = unpacked);
      columns.push(...unpacked.columns);
      if (src.alias !== null) qualifiers.push(src.alias.name);
    }
    for (const u of [...(src.kind === 'unnest' ? [src.unnest] : []), ...stmt.from.unnests.map((j) => j.unnest)]) {
      unnests.push(unnestStep(u, { columns: [...columns], qualifiers, params, noAggregates: 'FROM' }, columns));
    }
  }
  const rowScope: Scope = { columns, qualifiers, params };

  const where = stmt.where === null ? undefined : condition(stmt.where, { ...rowScope, noAggregates: 'WHERE' }, 'WHERE');

  const aggregating =
    stmt.groupBy.length > 0 ||
    stmt.having !== null ||
    stmt.items.some((i) => i.kind === 'expr' && containsAggregate(i.expr)) ||
    stmt.orderBy.some((o) => containsAggregate(o.expr));

  // GROUP BY: ordinals and select-list aliases name select items.
  let agg: AggregateState | undefined;
  let groups: Bound[] = [];
  if (aggregating) {
    const groupKeys = new Map<string, { index: number; type: SqlType }>();
    groups = stmt.groupBy.map((g) => {
      const target = groupTarget(g, stmt.items);
      const b = bindExpr(target, { ...rowScope, noAggregates: 'GROUP BY' });
      if (!isEquatable(b.type)) throw queryError(g.pos, `Grouping by expressions of type ${typeText(b.type)} is not allowed`);
      if (!groupKeys.has(boundKey(b))) groupKeys.set(boundKey(b), { index: groupKeys.size, type: b.type });
      return b;
    });
    const unique = new Map<string, Bound>();
    for (const g of groups) unique.set(boundKey(g), g);
    groups = [...unique.values()];
    agg = { groupKeys, groupCount: groups.length, aggregates: [], aggregateKeys: new Map() };
  }
  const selectScope: Scope = agg === undefined ? { ...rowScope, noAggregates: 'the SELECT list without GROUP BY' } : { ...rowScope, agg };

  // The select list.
  const outColumns: ResultColumn[] = [];
  const projection: Bound[] = [];
  const aliases: (string | undefined)[] = [];
  stmt.items.forEach((item) => {
    if (item.kind === 'star') {
      expandStar(item, columns, qualifiers, selectScope).forEach(({ name, bound }) => {
        outColumns.push({ name, type: bound.type });
        projection.push(bound);
        aliases.push(name);
      });
      return;
    }
    const b = bindExpr(item.expr, selectScope);
    const explicit = item.alias?.name ?? implicitName(item.expr);
    const name = explicit === '' ? `$col${outColumns.length + 1}` : explicit;
    outColumns.push({ name, type: b.type });
    projection.push(b);
    aliases.push(item.alias?.name ?? (explicit === '' ? undefined : explicit));
  });
  if (outColumns.length === 0) throw queryError(stmt.pos, 'SELECT list must not be empty');

  const having = stmt.having === null ? undefined : condition(stmt.having, selectScope, 'HAVING');

  // ORDER BY: an ordinal or an output alias names a result column; anything else is a (maybe hidden) key.
  const order = stmt.orderBy.map((o) => {
    let index: number | undefined;
    if (o.expr.kind === 'int') {
      const n = Number(o.expr.value);
      if (n < 1 || n > outColumns.length)
        throw queryError(o.expr.pos, `ORDER BY column number ${o.expr.value} is out of range (1 to ${outColumns.length})`);
      index = n - 1;
    } else if (o.expr.kind === 'ident') {
      const name = o.expr.ident.name.toLowerCase();
      const hits = aliases.flatMap((a, i) => (a !== undefined && a.toLowerCase() === name ? [i] : []));
      if (hits.length > 1) throw queryError(o.expr.pos, `Column name ${o.expr.ident.name} is ambiguous`);
      index = hits[0];
    }
    if (index === undefined) {
      const b = bindExpr(o.expr, selectScope);
      const key = boundKey(b);
      index = projection.findIndex((p, i) => i < outColumns.length && boundKey(p) === key);
      if (index < 0) {
        if (stmt.distinct)
          throw queryError(o.expr.pos, 'ORDER BY clause expression references a column that is not in the SELECT DISTINCT list');
        index = projection.length;
        projection.push(b);
      }
    }
    const type = projection[index]!.type;
    if (!isOrderable(type)) throw queryError(o.expr.pos, `ORDER BY does not support expressions of type ${typeText(type)}`);
    const descending = o.direction === 'DESC';
    return { index, descending, nullsFirst: o.nulls === null ? !descending : o.nulls === 'FIRST' };
  });

  if (stmt.distinct) {
    outColumns.forEach((c, i) => {
      if (!isEquatable(c.type)) throw queryError(stmt.pos, `SELECT DISTINCT cannot be used on column ${i + 1} of type ${typeText(c.type)}`);
    });
  }

  const perRow = agg === undefined && stmt.limit === null && stmt.offset === null;
  const keyColumn =
    perRow && keySlot !== undefined
      ? projection.findIndex((p, i) => i < outColumns.length && p.kind === 'column' && p.index === keySlot)
      : -1;
  return {
    columns: outColumns,
    table,
    source,
    keySlot,
    keyColumn: keyColumn < 0 ? undefined : keyColumn,
    families,
    unnests,
    temporal,
    where,
    aggregate: agg === undefined ? undefined : { groups, aggregates: agg.aggregates },
    having,
    projection,
    order,
    distinct: stmt.distinct,
    limit: stmt.limit === null ? undefined : count(stmt.limit, params, 'LIMIT'),
    offset: stmt.offset === null ? undefined : count(stmt.offset, params, 'OFFSET'),
    fingerprint: sourceFingerprint,
  };
}

function condition(e: Expr, scope: Scope, clause: string): Bound {
  const b = bindExpr(e, scope);
  if (b.type.kind !== 'BOOL' && !operand(b).nullLiteral)
    throw queryError(e.pos, `${clause} clause should return type BOOL, but returns ${typeText(b.type)}`);
  return coerceTo(b, BOOL, e.pos);
}

function count(e: Expr, params: ReadonlyMap<string, SqlType>, clause: string): Bound {
  if (e.kind !== 'int' && e.kind !== 'param' && !(e.kind === 'cast'))
    throw queryError(e.pos, `${clause} expects an integer literal or parameter`);
  const b = bindExpr(e, { columns: [], qualifiers: [], params, noAggregates: clause });
  if (b.type.kind !== 'INT64') throw queryError(e.pos, `${clause} expects an integer literal or parameter, got ${typeText(b.type)}`);
  if (b.kind === 'const' && typeof b.value === 'bigint' && b.value < 0n) throw queryError(e.pos, `${clause} must not be negative`);
  return b;
}

function groupTarget(g: Expr, items: readonly SelectItem[]): Expr {
  if (g.kind === 'int') {
    const item = items[Number(g.value) - 1];
    if (item === undefined || item.kind !== 'expr') throw queryError(g.pos, `GROUP BY column number ${g.value} is out of range`);
    return item.expr;
  }
  // A SELECT alias overrides a FROM column of the same name, as GoogleSQL defines GROUP BY: the reference's own
  // materialized view `SELECT '*' AS _key, COUNT(*) AS count FROM t GROUP BY _key` counts every row in one group.
  if (g.kind === 'ident') {
    const item = items.find((i) => i.kind === 'expr' && i.alias?.name.toLowerCase() === g.ident.name.toLowerCase());
    if (item !== undefined && item.kind === 'expr') return item.expr;
  }
  return g;
}

function expandStar(
  item: Extract<SelectItem, { kind: 'star' }>,
  allColumns: readonly ScopeColumn[],
  qualifiers: readonly string[],
  scope: Scope,
): { name: string; bound: Bound }[] {
  if (item.qualifier !== null && !(item.qualifier.kind === 'ident' && qualifiers.includes(item.qualifier.ident.name))) {
    throw queryError(item.pos, 'Only `*` and `table.*` are supported in the SELECT list');
  }
  if (allColumns.length === 0) throw queryError(item.pos, 'SELECT * must have a FROM clause');
  const columns = allColumns.flatMap((c, index) => (c.name.startsWith('$') ? [] : [{ ...c, index }]));
  if (scope.agg !== undefined) throw queryError(item.pos, 'SELECT * is not allowed in a query with GROUP BY or aggregation');
  const except = new Set<string>();
  for (const x of item.except) {
    const c = columns.find((col) => col.name.toLowerCase() === x.name.toLowerCase());
    if (c === undefined) throw queryError(x.pos, `Column ${x.name} in SELECT * EXCEPT list does not exist`);
    except.add(c.name);
  }
  const replace = new Map<string, Bound>();
  for (const r of item.replace) {
    const c = columns.find((col) => col.name.toLowerCase() === r.name.name.toLowerCase());
    if (c === undefined) throw queryError(r.name.pos, `Column ${r.name.name} in SELECT * REPLACE list does not exist`);
    replace.set(c.name, bindExpr(r.expr, scope));
  }
  const out = columns.flatMap((c) =>
    except.has(c.name) ? [] : [{ name: c.name, bound: replace.get(c.name) ?? ({ kind: 'column', type: c.type, index: c.index } as Bound) }],
  );
  if (out.length === 0) throw queryError(item.pos, 'SELECT * EXCEPT leaves no columns');
  return out;
}
