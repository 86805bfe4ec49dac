import type { QueryReads, SqlEngine } from '../../sql/engine.js';
import { unwrapPreparedQuery } from '../convert/prepared-query.js';
import type { PExecuteQueryRequest, PPrepareQueryRequest } from '../convert/proto-types.js';
import { executeQueryRequestFromProto, prepareQueryRequestFromProto } from '../convert/sql-requests.js';
import type { RequestNeeds } from '../auth/access-check.js';

const DATA = 'google.bigtable.v2.Bigtable';

/**
 * What a GoogleSQL request needs besides bigtable.instances.executeQuery on its instance (METHOD_NEEDS): the
 * read permission of every table and view the query reads directly (bigtable.tables.readRows,
 * bigtable.logicalViews.readRows, bigtable.materializedViews.readRows), as the service checks ExecuteQuery;
 * a logical view's own query is not checked (views run with their definer's rights). The engine analyzes the
 * query of PrepareQuery, or of the prepared query ExecuteQuery carries. A request whose query does not analyze
 * needs nothing more here: its handler answers the query's error. Without `sql.reads`, nothing more.
 */
export function queryNeeds(sql: SqlEngine | undefined): ReadonlyMap<string, RequestNeeds> {
  const reads = sql?.reads?.bind(sql);
  if (reads === undefined) return new Map();
  return new Map<string, RequestNeeds>([
    [
      `/${DATA}/PrepareQuery`,
      (request) =>
        orNothing(() => {
          const cmd = prepareQueryRequestFromProto(request as PPrepareQueryRequest);
          return needsOf(cmd.instance, reads(cmd.instance, { text: cmd.query, paramTypes: cmd.paramTypes }));
        }),
    ],
    [
      `/${DATA}/ExecuteQuery`,
      (request) =>
        orNothing(() => {
          const cmd = executeQueryRequestFromProto(request as PExecuteQueryRequest);
          return needsOf(cmd.instance, reads(cmd.instance, { token: unwrapPreparedQuery(cmd.preparedQuery).engineToken }));
        }),
    ],
  ]);
}

function needsOf(instance: string, r: QueryReads): { permission: string; resource: string }[] {
  return [
    ...r.tables.map((id) => ({ permission: 'bigtable.tables.readRows', resource: `${instance}/tables/${id}` })),
    ...r.logicalViews.map((id) => ({ permission: 'bigtable.logicalViews.readRows', resource: `${instance}/logicalViews/${id}` })),
    ...r.materializedViews.map((id) => ({
      permission: 'bigtable.materializedViews.readRows',
      resource: `${instance}/materializedViews/${id}`,
    })),
  ];
}

function orNothing<T>(f: () => readonly T[]): readonly T[] {
  try {
    return f();
  } catch {
    return [];
  }
}
