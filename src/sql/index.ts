import { failedPrecondition, invalidArgument, isTabletopError } from '../model/errors.js';
import { type InstanceName, parseInstanceName } from '../model/names.js';
import { type AnalyzedQuery, analyzeSelect } from './analyze/analyze.js';
import type { ExecuteOptions, PreparedQuery, QueryReads, QueryStats, SqlEngine } from './engine.js';
import { runQuery } from './exec/run-query.js';
import { type QueryDb, newScanStats } from './exec/scan.js';
import { DEFAULT_SPILL, type SpillOptions } from './exec/spill.js';
import { parse } from './syntax/parse.js';
import { SqlTimestamp, type SqlType, type SqlValue } from './types.js';
import { NO_VIEWS, type ViewCatalog } from './views.js';

export type { SpillOptions } from './exec/spill.js';
export type { SqlEngine, Checkpoints, PreparedQuery, ExecuteOptions, QueryReads, QueryStats, ResultColumn } from './engine.js';
export type { ViewCatalog, LogicalViewDefinition, MaterializedSource } from './views.js';
export { NO_VIEWS } from './views.js';

/**
 * The GoogleSQL engine over a database: `prepare` parses and analyzes a query against the instance's tables and
 * hands out a token (the query, its parameter types and the schema fingerprint, as JSON bytes); `execute`
 * analyzes the token's query again and runs it. FROM finds tables in the db, then views in `options.views`. A
 * token whose table changed shape since (a family added or dropped, the table recreated or deleted), or whose
 * view changed (a logical view's etag, a materialized view's fingerprint), fails with FAILED_PRECONDITION `PREPARED_QUERY_EXPIRED: ...`, so
 * that the server answers with that precondition detail and clients prepare again.
 */

/** The message prefix of an expired plan's error (the server maps it to the PreconditionFailure detail). */
export const PREPARED_QUERY_EXPIRED = 'PREPARED_QUERY_EXPIRED';

interface Token {
  readonly v: 1;
  readonly instance: string;
  readonly query: string;
  readonly params: readonly (readonly [string, SqlType])[];
  readonly fingerprint: string;
}

export interface SqlEngineOptions {
  /** Microseconds since the epoch, for CURRENT_TIMESTAMP (defaults to the system clock). */
  readonly nowMicros?: () => bigint;
  /** The instance's logical and materialized views (default: none; FROM then finds tables only). */
  readonly views?: ViewCatalog;
  /**
   * How much ORDER BY, GROUP BY and DISTINCT each hold in memory before they spill to temporary files, and where
   * (default: 64 MiB estimated, in os.tmpdir()).
   */
  readonly spill?: SpillOptions;
}

export function createSqlEngine(db: QueryDb, options: SqlEngineOptions = {}): SqlEngine {
  const nowMicros = options.nowMicros ?? ((): bigint => BigInt(Date.now()) * 1000n);

  const views = options.views ?? NO_VIEWS;
  const analyze = (instance: InstanceName, query: string, paramTypes: ReadonlyMap<string, SqlType>): AnalyzedQuery =>
    analyzeSelect(parse(query), instance, db, paramTypes, views);

  return {
    prepare(instance, query, paramTypes) {
      return Promise.resolve().then((): PreparedQuery => {
        const analyzed = analyze(parseInstanceName(instance), query, paramTypes);
        const token: Token = { v: 1, instance, query, params: [...paramTypes], fingerprint: analyzed.fingerprint };
        return { columns: analyzed.columns, paramTypes, token: new TextEncoder().encode(JSON.stringify(token)) };
      });
    },

    reads(instance, query) {
      const name = parseInstanceName(instance);
      if ('text' in query) return readsOf(analyze(name, query.text, query.paramTypes));
      const token = decodeToken(query.token);
      return readsOf(analyze(name, token.query, new Map(token.params)));
    },

    execute(instance, tokenBytes, execOptions: ExecuteOptions) {
      const stats = newScanStats();
      const spill = options.spill ?? DEFAULT_SPILL;
      async function* rows(): AsyncGenerator<readonly SqlValue[]> {
        const token = decodeToken(tokenBytes);
        if (token.instance !== instance) throw invalidArgument(`The prepared query belongs to instance ${token.instance}, not ${instance}`);
        let analyzed: AnalyzedQuery;
        try {
          analyzed = analyze(parseInstanceName(instance), token.query, new Map(token.params));
        } catch (e) {
          if (isTabletopError(e, 'NotFound') || isTabletopError(e, 'InvalidArgument')) throw expired(e.message);
          throw e;
        }
        if (analyzed.fingerprint !== token.fingerprint)
          throw expired('a table or view the query reads changed since the query was prepared');
        const env = { params: execOptions.params, ctx: { now: new SqlTimestamp(nowMicros()) } };
        yield* runQuery(
          db,
          analyzed,
          env,
          {
            skipRows: execOptions.skipRows ?? 0,
            signal: execOptions.signal,
            spill,
            resumeAfterKey: execOptions.resumeAfterKey,
            checkpoint: execOptions.checkpoint,
          },
          stats,
        );
      }
      return {
        rows: rows(),
        stats: (): QueryStats => ({
          rowsScanned: stats.rowsScanned,
          rowsReturned: stats.rowsReturned,
          peakHeldBytes: stats.spill.peakHeldBytes,
          spilledRuns: stats.spill.spilledRuns,
        }),
      };
    },
  };
}

/** The tables and views a query reads directly (UNPACK's subquery included; a logical view's query not: definer's rights). */
function readsOf(query: AnalyzedQuery): QueryReads {
  const tables = new Set<string>();
  const logicalViews = new Set<string>();
  const materializedViews = new Set<string>();
  for (let q: AnalyzedQuery | undefined = query; q !== undefined;) {
    if (q.table !== undefined) tables.add(q.table.name.table);
    const source: AnalyzedQuery['source'] = q.source;
    q = undefined;
    if (source?.kind === 'view') logicalViews.add(source.id);
    else if (source?.kind === 'materialized') materializedViews.add(source.id);
    else if (source?.kind === 'unpack') q = source.query;
  }
  return { tables: [...tables], logicalViews: [...logicalViews], materializedViews: [...materializedViews] };
}

function expired(why: string): Error {
  return failedPrecondition(`${PREPARED_QUERY_EXPIRED}: ${why}`);
}

function decodeToken(bytes: Uint8Array): Token {
  let t: Token;
  try {
    t = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as Token;
  } catch {
    throw invalidArgument('Invalid prepared query');
  }
  if (
    t === null ||
    typeof t !== 'object' ||
    t.v !== 1 ||
    typeof t.query !== 'string' ||
    typeof t.instance !== 'string' ||
    !Array.isArray(t.params)
  ) {
    throw invalidArgument('Invalid prepared query');
  }
  return t;
}
