import type { SqlType, SqlValue } from './types.js';

/**
 * What the server asks of the SQL engine (src/server's PrepareQuery and
 * ExecuteQuery handlers, the `tabletop sql` command and the web UI's query
 * box all go through it). Errors are TabletopErrors: InvalidArgument for
 * syntax, unknown names, type errors and bad parameters, with the position in
 * the query (`line 1, column 8: ...`); NotFound for an unknown table;
 * FailedPrecondition for a plan whose schema no longer matches.
 */

export interface ResultColumn {
  /** Never empty: unaliased expressions get generated names (`$col1`, ...), as the service does. */
  readonly name: string;
  readonly type: SqlType;
}

/** A prepared query: what PrepareQuery answers, and what ExecuteQuery runs. */
export interface PreparedQuery {
  readonly columns: readonly ResultColumn[];
  /** The declared parameter types, by name without `@`. */
  readonly paramTypes: ReadonlyMap<string, SqlType>;
  /**
   * Opaque bytes that hold everything ExecuteQuery needs to run it again (the query text, the parameter types,
   * the schema it was prepared against): the server hands them out as `prepared_query` and back to `execute`.
   */
  readonly token: Uint8Array;
}

export interface ExecuteOptions {
  /** Parameter values by name (without `@`), already of their declared types (the server checks and converts). */
  readonly params: ReadonlyMap<string, SqlValue>;
  /** Resume after this many rows of the result (a retry after a resume token): rows are in a deterministic order. */
  readonly skipRows?: number;
  /** Stop early (the client went away). */
  readonly signal?: AbortSignal;
  /**
   * Resume a key-ordered scan strictly after this row key (a checkpoint the engine reported through
   * `checkpoint`); `skipRows` then counts the rows produced after it. InvalidArgument for a query that does not
   * checkpoint.
   */
  readonly resumeAfterKey?: Uint8Array;
  /** Checkpoints of sparse scans (for queries that checkpoint: see `Checkpoints`). */
  readonly checkpoint?: Checkpoints;
}

/**
 * A query whose result comes row by row in the order of one table's keys (a table read without GROUP BY,
 * DISTINCT, ORDER BY, LIMIT or OFFSET, and not through a view) reports how far its scan got once it has scanned
 * `everyRows` rows, or spent `everyMillis`, without producing a result row: `reached(key)` is awaited (the scan
 * waits) with the last key scanned, when every row produced so far has been handed to the consumer; no row
 * produced later comes from a key at or before it. Other queries never call it.
 */
export interface Checkpoints {
  readonly everyRows: number;
  readonly everyMillis: number;
  reached(key: Uint8Array): Promise<void>;
}

export interface QueryStats {
  /** Rows the storage read examined (the planner's key ranges bound it: a point query reads one). */
  readonly rowsScanned: number;
  readonly rowsReturned: number;
  /** The most estimated bytes of rows one ORDER BY, GROUP BY or DISTINCT held in memory (0 without them). */
  readonly peakHeldBytes?: number;
  /** Sorted runs those operators wrote to temporary files because they passed their memory budget. */
  readonly spilledRuns?: number;
}

/**
 * What a query reads directly, by id in its instance: tables, logical views and materialized views. Not what a
 * logical view reads in turn: a view runs with its definer's rights, so reading one needs the view's permission
 * only (the server's access check asks for these).
 */
export interface QueryReads {
  readonly tables: readonly string[];
  readonly logicalViews: readonly string[];
  readonly materializedViews: readonly string[];
}

export interface SqlEngine {
  prepare(instance: string, query: string, paramTypes: ReadonlyMap<string, SqlType>): Promise<PreparedQuery>;
  /**
   * What a query (its text and parameter types, or a prepared query's token) reads; throws as `prepare` does
   * for a query that does not analyze, InvalidArgument for a token that is not one of this engine's. Optional:
   * without it the server checks access to the instance only.
   */
  reads?(
    instance: string,
    query: { readonly text: string; readonly paramTypes: ReadonlyMap<string, SqlType> } | { readonly token: Uint8Array },
  ): QueryReads;
  /**
   * Runs a prepared query (from its token), streaming rows of values in column order with bounded memory
   * (ORDER BY, GROUP BY and DISTINCT hold up to a budget and spill the rest to temporary files). `stats` is complete once the iteration ends.
   */
  execute(instance: string, token: Uint8Array, options: ExecuteOptions): { rows: AsyncIterable<readonly SqlValue[]>; stats(): QueryStats };
}
