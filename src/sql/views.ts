import type { KeyRange } from '../model/key-range.js';
import type { InstanceName } from '../model/names.js';
import type { ResultColumn } from './engine.js';
import type { SqlValue } from './types.js';

/**
 * What the SQL engine knows of an instance's views, besides its tables (which
 * come from the db). FROM resolves a name to a table first, then a logical
 * view, then a materialized view (ids are unique across the three in the
 * service; the admin calls keep them so).
 *
 * - A logical view is its query: FROM `v` runs the view's query (analyzed as
 *   the view's definer, against the instance as it is now) and the outer
 *   query reads its result columns. A prepared query over a view expires when
 *   the view's `etag` changes.
 * - A materialized view is a source of typed rows kept by the materialized
 *   view engine (src/sql/materialized): its result columns (key columns
 *   first) and its rows in key order. A prepared query over one expires when
 *   its `fingerprint` changes (the view was deleted and created again).
 */
export interface ViewCatalog {
  logicalView(instance: InstanceName, id: string): LogicalViewDefinition | undefined;
  materializedView(instance: InstanceName, id: string): MaterializedSource | undefined;
}

export interface LogicalViewDefinition {
  readonly query: string;
  /** Changes whenever the view changes (Update, or Delete and Create again). */
  readonly etag: string;
}

export interface MaterializedSource {
  readonly columns: readonly ResultColumn[];
  readonly fingerprint: string;
  /**
   * The column (BYTES) whose bytes are the view's row key, when there is one: the outer query's predicates on it
   * become key ranges that `rows` reads alone, as predicates on a table's `_key` do.
   */
  readonly keyColumn?: number;
  /**
   * The view's rows, values in `columns` order, in the view's key order; only those whose row key lies in `ranges`
   * (sorted, disjoint) when given; stops when `signal` aborts.
   */
  rows(signal?: AbortSignal, ranges?: readonly KeyRange[]): AsyncIterable<readonly SqlValue[]>;
}

/** No views at all (a database without the view engines). */
export const NO_VIEWS: ViewCatalog = {
  logicalView: () => undefined,
  materializedView: () => undefined,
};
