import { invalidArgument } from '../../model/errors.js';
import { parseInstanceName } from '../../model/names.js';
import type { PreparedQuery } from '../../sql/engine.js';
import type { SqlType, SqlValue } from '../../sql/types.js';
import { millisToTimestamp } from './int64.js';
import type { PExecuteQueryRequest, PPrepareQueryRequest, PPrepareQueryResponse } from './proto-types.js';
import { sqlTypeFromProto, sqlTypeToProto } from './sql-type.js';
import { sqlParamsFromProto } from './sql-value.js';
import { wrapPreparedQuery } from './prepared-query.js';

/** PrepareQuery and ExecuteQuery requests and responses ↔ what the SQL engine takes and gives. */

export interface PrepareQueryCommand {
  /** projects/{p}/instances/{i} */
  readonly instance: string;
  readonly query: string;
  readonly paramTypes: ReadonlyMap<string, SqlType>;
}

export function prepareQueryRequestFromProto(req: PPrepareQueryRequest): PrepareQueryCommand {
  const instance = instanceOf('PrepareQuery', req.instanceName);
  if (!req.query) throw invalidArgument('PrepareQuery: query is required');
  // data_format: proto_format is the only one, and the default (the Node client sends none).
  const paramTypes = new Map<string, SqlType>();
  for (const [name, t] of Object.entries(req.paramTypes ?? {})) paramTypes.set(name, sqlTypeFromProto(t, `param_types[${name}]`));
  return { instance, query: req.query, paramTypes };
}

/** How long a prepared query is valid (the conformance suite's choice). */
export const PREPARED_QUERY_VALIDITY_MILLIS = 60 * 60 * 1000;

export function prepareQueryResponseToProto(p: PreparedQuery, nowMillis: number): PPrepareQueryResponse {
  return {
    metadata: { protoSchema: { columns: p.columns.map((c) => ({ name: c.name, type: sqlTypeToProto(c.type) })) } },
    preparedQuery: Buffer.from(wrapPreparedQuery(p)),
    validUntil: millisToTimestamp(nowMillis + PREPARED_QUERY_VALIDITY_MILLIS),
  };
}

export interface ExecuteQueryCommand {
  readonly instance: string;
  readonly preparedQuery: Uint8Array;
  /** The resume token of a retry; undefined on a first attempt. */
  readonly resumeToken: Uint8Array | undefined;
  /** Converts the params once the declared types are known (from the prepared query). */
  params(declared: ReadonlyMap<string, SqlType>): Map<string, SqlValue>;
}

export function executeQueryRequestFromProto(req: PExecuteQueryRequest): ExecuteQueryCommand {
  const instance = instanceOf('ExecuteQuery', req.instanceName);
  if (!req.preparedQuery || req.preparedQuery.length === 0) {
    throw invalidArgument(
      req.query
        ? 'ExecuteQuery: send the prepared_query from PrepareQuery (query alone is no longer accepted)'
        : 'ExecuteQuery: prepared_query is required',
    );
  }
  return {
    instance,
    preparedQuery: req.preparedQuery,
    resumeToken: req.resumeToken && req.resumeToken.length > 0 ? req.resumeToken : undefined,
    params: (declared) => sqlParamsFromProto(req.params, declared),
  };
}

function instanceOf(rpc: string, name: string | null | undefined): string {
  if (!name) throw invalidArgument(`${rpc}: instance_name is required (projects/{project}/instances/{instance})`);
  parseInstanceName(name);
  return name;
}
