import type { GcRule } from '../../model/gc-rule.js';
import type { InstanceName, TableName } from '../../model/names.js';
import { type AnalyzedQuery, analyzeSelect } from '../analyze/analyze.js';
import type { Bound, BoundAggregate } from '../bound/bound.js';
import type { ResultColumn } from '../engine.js';
import type { QueryDb } from '../exec/scan.js';
import { familiesRead } from '../plan/read-plan.js';
import type { Expr, Select } from '../syntax/ast.js';
import { parse } from '../syntax/parse.js';
import { type SqlType, typeText } from '../types.js';
import { queryError } from '../values/errors.js';

/**
 * A continuous materialized view's query, checked against what the service allows and analyzed against its
 * source table. Two forms:
 *
 * - `aggregate`: `SELECT expr AS alias, ... FROM t [WHERE ...] GROUP BY ...` with the supported aggregates; one
 *   view row per group, keyed by the GROUP BY values (each must be a column of the view);
 * - `index` (an asynchronous secondary index): `SELECT expr AS alias, ... FROM t [WHERE ...] ORDER BY ...`; one
 *   view row per source row that passes WHERE, keyed by the ORDER BY values (each a column of the view), then
 *   the source row's key (so that equal values do not collide).
 *
 * Refused with INVALID_ARGUMENT, as the service refuses them: neither or both of GROUP BY and ORDER BY, HAVING,
 * LIMIT/OFFSET, `SELECT *`, SELECT DISTINCT, DISTINCT aggregates, unsupported aggregates (ARRAY_AGG, COUNTIF,
 * STRING_AGG, LOGICAL_AND/OR, ...), non-deterministic functions (CURRENT_TIMESTAMP, CURRENT_DATE), UNNEST,
 * temporal table arguments, ORDER BY ... DESC, unnamed columns, and ARRAY, STRUCT, MAP or DATE columns.
 */

export interface ViewDefinition {
  readonly kind: 'aggregate' | 'index';
  readonly source: TableName;
  readonly analyzed: AnalyzedQuery;
  /** The view's columns: key columns first (GROUP BY or ORDER BY order), then the others in SELECT order. */
  readonly columns: readonly ResultColumn[];
  /** For each view column, its index among the query's result columns. */
  readonly resultIndex: readonly number[];
  /** How many leading view columns make the key. */
  readonly keyColumns: number;
  /**
   * True when the key is one column named `_key` of type BYTES or STRING: its bytes are the view's row key as
   * they are (no encoding), and the view has no cell for it. A group whose `_key` is NULL or empty has no row.
   */
  readonly rawKey: boolean;
  /** The families the query reads, by index in the source table's families. */
  readonly families: readonly number[];
  /** Some family the query reads has an age rule: its cells leave the rows as time passes, without a write. */
  readonly expiring: boolean;
  /** Aggregate form: for each aggregate, whether it is kept in place (COUNT, SUM of INT64, BIT_XOR). */
  readonly inPlace: readonly boolean[];
  /**
   * Aggregate form: for each aggregate, whether a new member folds into its last result (MIN and MAX of
   * non-float types, BIT_AND, BIT_OR): a group that only gains members need not be recomputed.
   */
  readonly mergeable: readonly boolean[];
}

const SUPPORTED_AGGREGATES = new Set([
  '$count_star',
  'COUNT',
  'SUM',
  'AVG',
  'MIN',
  'MAX',
  'ANY_VALUE',
  'BIT_AND',
  'BIT_OR',
  'BIT_XOR',
  'HLL_COUNT.INIT',
  'HLL_COUNT.MERGE',
  'HLL_COUNT.MERGE_PARTIAL',
]);

const NO_COLUMN_TYPES = new Set<SqlType['kind']>(['ARRAY', 'STRUCT', 'MAP', 'DATE']);

/** Parses, checks and analyzes a view's query against the instance's tables; InvalidArgument says what is wrong. */
export function defineView(query: string, instance: InstanceName, db: QueryDb): ViewDefinition {
  const stmt = groupByAliases(parse(query));
  checkShape(stmt);
  const analyzed = analyzeSelect(stmt, instance, db, new Map());
  if (analyzed.table === undefined) throw queryError(stmt.pos, 'A materialized view must read a table');
  const cols = analyzed.columns;
  const names = new Set<string>();
  cols.forEach((c, i) => {
    if (c.name.startsWith('$')) throw queryError(itemPos(stmt, i), `Column ${i + 1} of a materialized view needs a name: add AS alias`);
    if (names.has(c.name.toLowerCase())) throw queryError(itemPos(stmt, i), `Duplicate column name ${c.name} in a materialized view`);
    names.add(c.name.toLowerCase());
    if (NO_COLUMN_TYPES.has(c.type.kind))
      throw queryError(itemPos(stmt, i), `A materialized view column cannot be of type ${typeText(c.type)} (column ${c.name})`);
  });
  const all: Bound[] = [...analyzed.projection];
  if (analyzed.where !== undefined) all.push(analyzed.where);
  if (analyzed.aggregate !== undefined) {
    all.push(...analyzed.aggregate.groups);
    for (const a of analyzed.aggregate.aggregates) all.push(...a.args);
  }
  for (const b of all) {
    const volatile = volatileFunction(b);
    if (volatile !== undefined) throw queryError(stmt.pos, `A materialized view cannot use the non-deterministic function ${volatile}`);
  }

  let keyIndexes: number[];
  let inPlace: boolean[] = [];
  let mergeable: boolean[] = [];
  if (stmt.groupBy.length > 0) {
    const agg = analyzed.aggregate!;
    agg.aggregates.forEach((a) => checkAggregate(a, stmt));
    inPlace = agg.aggregates.map(isInPlace);
    mergeable = agg.aggregates.map(isMergeable);
    keyIndexes = agg.groups.map((_g, gi) => {
      const p = analyzed.projection.findIndex((b, i) => i < cols.length && b.kind === 'column' && b.index === gi);
      if (p < 0)
        throw queryError(stmt.groupBy[gi]?.pos ?? stmt.pos, `Each GROUP BY expression of a materialized view must be one of its columns`);
      return p;
    });
  } else {
    if (analyzed.aggregate !== undefined)
      throw queryError(stmt.pos, 'A materialized view with ORDER BY (a secondary index) cannot aggregate');
    keyIndexes = analyzed.order.map((o, k) => {
      if (o.index >= cols.length)
        throw queryError(stmt.orderBy[k]!.pos, 'Each ORDER BY expression of a materialized view must be one of its columns');
      return o.index;
    });
  }
  keyIndexes = [...new Set(keyIndexes)];
  const resultIndex = [...keyIndexes, ...cols.map((_c, i) => i).filter((i) => !keyIndexes.includes(i))];
  const columns = resultIndex.map((i) => cols[i]!);
  for (const k of keyIndexes) {
    const t = cols[k]!.type;
    if (t.kind === 'JSON') throw queryError(stmt.pos, `A materialized view's key column cannot be of type JSON (column ${cols[k]!.name})`);
  }
  const key0 = columns[0]!;
  const rawKey =
    stmt.groupBy.length > 0 &&
    keyIndexes.length === 1 &&
    key0.name === '_key' &&
    (key0.type.kind === 'BYTES' || key0.type.kind === 'STRING');
  return {
    kind: stmt.groupBy.length > 0 ? 'aggregate' : 'index',
    source: analyzed.table.name,
    analyzed,
    columns,
    resultIndex,
    keyColumns: keyIndexes.length,
    rawKey,
    families: familiesRead(analyzed),
    expiring: familiesRead(analyzed).some((i) => hasMaxAge(analyzed.table!.families[i]?.gcRule)),
    inPlace,
    mergeable,
  };
}

/**
 * `GROUP BY name` where `name` is a SELECT-list alias groups by that select item, even when the table has a
 * column of that name: the service's own example, `SELECT '*' AS _key, COUNT(*) AS count FROM foo GROUP BY
 * _key`, groups every row into one (the alias `_key`, not the row key).
 */
function groupByAliases(stmt: Select): Select {
  const groupBy = stmt.groupBy.map((g): Expr => {
    if (g.kind !== 'ident') return g;
    const i = stmt.items.findIndex((item) => item.kind === 'expr' && item.alias?.name.toLowerCase() === g.ident.name.toLowerCase());
    return i < 0 ? g : { kind: 'int', pos: g.pos, value: BigInt(i + 1), text: String(i + 1) };
  });
  return { ...stmt, groupBy };
}

function checkShape(stmt: Select): void {
  const grouped = stmt.groupBy.length > 0;
  const ordered = stmt.orderBy.length > 0;
  if (grouped === ordered)
    throw queryError(
      stmt.pos,
      'A materialized view query must have either a GROUP BY clause or (for a secondary index) an ORDER BY clause, not both',
    );
  if (stmt.from === null) throw queryError(stmt.pos, 'A materialized view must read a table (FROM)');
  const src = stmt.from.source;
  if (src.kind !== 'table') throw queryError(src.pos, 'A materialized view must read a table, not a subquery, UNPACK or UNNEST');
  if (src.args !== null) throw queryError(src.pos, 'A materialized view cannot read a table with temporal arguments (with_history, as_of)');
  if (stmt.from.unnests.length > 0) throw queryError(stmt.from.unnests[0]!.pos, 'A materialized view cannot use UNNEST');
  if (stmt.distinct) throw queryError(stmt.pos, 'A materialized view cannot use SELECT DISTINCT');
  if (stmt.having !== null) throw queryError(stmt.having.pos, 'A materialized view cannot use HAVING');
  if (stmt.limit !== null || stmt.offset !== null)
    throw queryError((stmt.limit ?? stmt.offset)!.pos, 'A materialized view cannot use LIMIT or OFFSET');
  for (const item of stmt.items)
    if (item.kind === 'star') throw queryError(item.pos, 'A materialized view cannot use SELECT *: name each column');
  for (const o of stmt.orderBy) if (o.direction === 'DESC') throw queryError(o.pos, 'A materialized view cannot order by DESC');
  for (const item of stmt.items) if (item.kind === 'expr') checkNoArrayAgg(item.expr);
}

/** ARRAY_AGG and friends are refused by name before analysis (their message names the view, not the type). */
function checkNoArrayAgg(e: Expr): void {
  if (e.kind === 'call') {
    const name = e.name.map((p) => p.name.toUpperCase()).join('.');
    if (name === 'ARRAY_AGG' || name === 'ARRAY_CONCAT_AGG') throw queryError(e.pos, `A materialized view cannot use ${name}`);
    for (const a of e.args) checkNoArrayAgg(a);
  }
}

function checkAggregate(a: BoundAggregate, stmt: Select): void {
  if (!SUPPORTED_AGGREGATES.has(a.fn.name)) throw queryError(stmt.pos, `A materialized view cannot use the aggregate ${a.fn.name}`);
  if (a.distinct) throw queryError(stmt.pos, `A materialized view cannot use ${a.fn.name}(DISTINCT ...)`);
}

/** Aggregates whose result follows from a count and a sum-like state that a leaving row can be taken out of. */
function isInPlace(a: BoundAggregate): boolean {
  return (
    a.fn.name === '$count_star' || a.fn.name === 'COUNT' || a.fn.name === 'BIT_XOR' || (a.fn.name === 'SUM' && a.type.kind === 'INT64')
  );
}

function hasMaxAge(rule: GcRule | undefined): boolean {
  if (rule === undefined) return false;
  if (rule.kind === 'maxAge') return true;
  return (rule.kind === 'union' || rule.kind === 'intersection') && rule.rules.some(hasMaxAge);
}

function isMergeable(a: BoundAggregate): boolean {
  if (a.fn.name === 'BIT_AND' || a.fn.name === 'BIT_OR') return true;
  // Floats tie (0 and -0) and have NaN: the query keeps the first in key order, which only a recompute knows.
  return (a.fn.name === 'MIN' || a.fn.name === 'MAX') && a.type.kind !== 'FLOAT64' && a.type.kind !== 'FLOAT32';
}

function volatileFunction(b: Bound): string | undefined {
  switch (b.kind) {
    case 'call':
      if (b.fn.volatile === true) return b.fn.name;
      for (const a of b.args) {
        const v = volatileFunction(a);
        if (v !== undefined) return v;
      }
      return undefined;
    case 'cast':
    case 'safe':
    case 'field':
      return volatileFunction(b.arg);
    case 'array':
      return b.elements.map(volatileFunction).find((v) => v !== undefined);
    case 'struct':
      return b.fields.map(volatileFunction).find((v) => v !== undefined);
    default:
      return undefined;
  }
}

function itemPos(stmt: Select, i: number): { line: number; column: number } {
  return stmt.items[i]?.pos ?? stmt.pos;
}
