import { TabletopError, isTabletopError } from '../../model/errors.js';
import type { InstanceName } from '../../model/names.js';
import type { ResultColumn } from '../engine.js';
import type { Pos, Select, TableRef, UnpackSource } from '../syntax/ast.js';
import { parse } from '../syntax/parse.js';
import { TIMESTAMP, type SqlType } from '../types.js';
import { queryError } from '../values/errors.js';
import type { MaterializedSource, ViewCatalog } from '../views.js';

/**
 * FROM sources that are not a table read: a logical view (its query, analyzed recursively, runs as a subquery
 * whose result columns the outer query reads by name), UNPACK((subquery)) (the subquery's history flattened into
 * one row per timestamp), and a materialized view (typed rows from the view engine). Their scan row is the
 * source's result row.
 *
 * Key ranges through a source: when the source's rows are a per-row function of an underlying table read (no
 * aggregation, LIMIT or OFFSET) and one of its result columns is that read's `_key` passed through unchanged,
 * the outer query's predicates on that column become key ranges of the table read (`keySlot`).
 */

/** How UNPACK turns one input column into an output column. */
export type UnpackColumn =
  /** Copied into every output row (`_key`, anything not timestamped). */
  | 'keep'
  /** `MAP<K, ARRAY<STRUCT<timestamp, value V>>>` → `MAP<K, V>`: the entries with a cell at the row's timestamp. */
  | 'map'
  /** `ARRAY<STRUCT<timestamp, value V>>` → `V`: the value at the row's timestamp, else NULL. */
  | 'array';

export type DerivedSource<Q> =
  | { readonly kind: 'view'; readonly id: string; readonly query: Q }
  | { readonly kind: 'unpack'; readonly query: Q; readonly columns: readonly UnpackColumn[] }
  | { readonly kind: 'materialized'; readonly id: string; readonly view: MaterializedSource };

/** What the recursion needs of an analyzed query. */
export interface SubqueryShape {
  readonly columns: readonly ResultColumn[];
  readonly fingerprint: string;
  /**
   * The result column that is the underlying table read's row key passed through unchanged, when the result rows
   * are a per-row function of the read (no aggregation, LIMIT or OFFSET): key ranges on it may restrict the read.
   */
  readonly keyColumn: number | undefined;
}

/** How deeply logical views may read other logical views. */
export const MAX_VIEW_DEPTH = 16;

export interface SourceContext<Q extends SubqueryShape> {
  readonly instance: InstanceName;
  readonly views: ViewCatalog;
  /** The logical views being analyzed, outermost first (a view met again is a cycle). */
  readonly viewStack: readonly string[];
  readonly params: ReadonlyMap<string, SqlType>;
  /** Analyzes a subquery (a view's query with its own stack, or UNPACK's). */
  analyze(stmt: Select, params: ReadonlyMap<string, SqlType>, viewStack: readonly string[]): Q;
}

export interface ResolvedSource<Q> {
  readonly source: DerivedSource<Q>;
  readonly columns: readonly ResultColumn[];
  readonly keySlot: number | undefined;
  readonly fingerprint: string;
}

/** A logical or materialized view by name (after no table of that name was found), or undefined. */
export function viewSource<Q extends SubqueryShape>(ref: TableRef, ctx: SourceContext<Q>): ResolvedSource<Q> | undefined {
  const id = ref.name[0]!.name;
  const logical = ctx.views.logicalView(ctx.instance, id);
  if (logical !== undefined) {
    noTemporalArgs(ref, 'logical view');
    if (ctx.viewStack.includes(id)) {
      throw queryError(ref.pos, `Logical view ${id} reads itself: ${[...ctx.viewStack, id].join(' -> ')}`);
    }
    if (ctx.viewStack.length >= MAX_VIEW_DEPTH) throw queryError(ref.pos, `Logical views nest more than ${MAX_VIEW_DEPTH} deep`);
    let query: Q;
    try {
      query = ctx.analyze(parse(logical.query), new Map(), [...ctx.viewStack, id]);
    } catch (e) {
      if (isTabletopError(e)) throw new TabletopError(e.code, `${at(ref.pos)}Invalid logical view ${id}: ${e.message}`);
      throw e;
    }
    return {
      source: { kind: 'view', id, query },
      columns: query.columns,
      keySlot: query.keyColumn,
      fingerprint: JSON.stringify(['view', id, logical.etag, query.fingerprint]),
    };
  }
  const materialized = ctx.views.materializedView(ctx.instance, id);
  if (materialized !== undefined) {
    noTemporalArgs(ref, 'materialized view');
    return {
      source: { kind: 'materialized', id, view: materialized },
      columns: materialized.columns,
      keySlot: materialized.keyColumn,
      fingerprint: JSON.stringify(['materialized', id, materialized.fingerprint]),
    };
  }
  return undefined;
}

/** UNPACK((subquery)): the subquery must hold timestamped values (it reads a table with with_history => TRUE). */
export function unpackSource<Q extends SubqueryShape>(src: UnpackSource, ctx: SourceContext<Q>): ResolvedSource<Q> {
  const query = ctx.analyze(src.query, ctx.params, ctx.viewStack);
  const kinds: UnpackColumn[] = [];
  const columns: ResultColumn[] = query.columns.map((c) => {
    const { kind, type } = unpackedType(c.type);
    kinds.push(kind);
    return { name: c.name, type };
  });
  if (!kinds.some((k) => k !== 'keep')) {
    throw queryError(
      src.query.pos,
      'UNPACK needs a subquery with timestamped values: read the table with with_history => TRUE and select its families or their columns',
    );
  }
  if (columns.some((c) => c.name.toLowerCase() === '_timestamp')) {
    throw queryError(src.query.pos, 'The subquery of UNPACK must not have a column named _timestamp (UNPACK adds it)');
  }
  columns.push({ name: '_timestamp', type: TIMESTAMP });
  return {
    source: { kind: 'unpack', query, columns: kinds },
    columns,
    // UNPACK keeps the columns in place (the key is BYTES, copied into every row) and appends _timestamp.
    keySlot: query.keyColumn,
    fingerprint: JSON.stringify(['unpack', query.fingerprint]),
  };
}

function noTemporalArgs(ref: TableRef, what: string): void {
  if (ref.args !== null) {
    throw queryError(ref.pos, `${ref.name[0]!.name} is a ${what}: with_history, as_of and the time bounds apply to tables only`);
  }
}

function at(pos: Pos): string {
  return `line ${pos.line}, column ${pos.column}: `;
}

/** A timestamped value's type: `ARRAY<STRUCT<timestamp TIMESTAMP, value V>>` (what with_history gives); V, or undefined. */
function historyValueType(t: SqlType): SqlType | undefined {
  if (t.kind !== 'ARRAY' || t.element.kind !== 'STRUCT') return undefined;
  const [ts, value] = t.element.fields;
  if (t.element.fields.length !== 2 || ts === undefined || value === undefined || ts.type.kind !== 'TIMESTAMP') return undefined;
  return value.type;
}

function unpackedType(t: SqlType): { kind: UnpackColumn; type: SqlType } {
  if (t.kind === 'MAP') {
    const v = historyValueType(t.value);
    if (v !== undefined) return { kind: 'map', type: { kind: 'MAP', key: t.key, value: v } };
  }
  const v = historyValueType(t);
  if (v !== undefined) return { kind: 'array', type: v };
  return { kind: 'keep', type: t };
}
