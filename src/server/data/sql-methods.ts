import { isTabletopError } from '../../model/errors.js';
import type { SqlEngine } from '../../sql/engine.js';
import { type ExecuteQueryFrame, encodeExecuteQueryResponse, resumePosition, resumeToken } from '../convert/execute-query-encoder.js';
import { unwrapPreparedQuery } from '../convert/prepared-query.js';
import type { PExecuteQueryRequest, PPrepareQueryRequest, PPrepareQueryResponse } from '../convert/proto-types.js';
import { executeQueryRequestFromProto, prepareQueryRequestFromProto, prepareQueryResponseToProto } from '../convert/sql-requests.js';
import { preparedQueryExpired } from '../convert/status-details.js';
import { type MethodSpec, resource, serverStream, unary } from '../method-table.js';
import type { ServerTuning } from '../server-config.js';
import { executeQueryStream } from './execute-query-stream.js';

/**
 * PrepareQuery and ExecuteQuery over a SqlEngine (src/sql/engine.ts). The
 * prepared query the client holds wraps the engine's token with the
 * parameter and column types (convert/prepared-query.ts); a resume token
 * counts the rows released, and a retry asks the engine to skip them; once a
 * sparse scan checkpointed, it also names the last key scanned, and a retry
 * resumes the scan after it, skipping only the rows released since.
 */
export function sqlMethods(sql: SqlEngine, tuning: ServerTuning): Record<string, MethodSpec> {
  return {
    PrepareQuery: unary<PPrepareQueryRequest, PPrepareQueryResponse>(
      { resource: (req) => resource('instance', req.instanceName) },
      async (req) => {
        const cmd = prepareQueryRequestFromProto(req);
        const prepared = await sql.prepare(cmd.instance, cmd.query, cmd.paramTypes);
        return prepareQueryResponseToProto(prepared, Date.now());
      },
    ),

    ExecuteQuery: serverStream<PExecuteQueryRequest, ExecuteQueryFrame>(
      { encode: encodeExecuteQueryResponse, resource: (req) => resource('instance', req.instanceName) },
      async (req, out, ctx) => {
        const cmd = executeQueryRequestFromProto(req);
        const envelope = unwrapPreparedQuery(cmd.preparedQuery);
        const params = cmd.params(envelope.paramTypes);
        const position = cmd.resumeToken === undefined ? { rows: 0 } : resumePosition(cmd.preparedQuery, cmd.resumeToken);
        const skipped = position.rows;
        // The engine stops on the signal: the client cancelled, or its deadline passed (checked while the engine works).
        const abort = new AbortController();
        const watch = setInterval(() => ctx.cancelled() && abort.abort(), 50);
        watch.unref();
        try {
          const stream = executeQueryStream(envelope.columnTypes, out, {
            batchBytes: tuning.sqlBatchBytes,
            batchRows: tuning.sqlBatchRows,
            chunkBytes: tuning.sqlChunkBytes,
            skipped,
            checkpoint: position.checkpoint,
            resumed: cmd.resumeToken !== undefined,
            token: (rows, checkpoint) => resumeToken(cmd.preparedQuery, rows, checkpoint),
          });
          const run = sql.execute(cmd.instance, envelope.engineToken, {
            params,
            signal: abort.signal,
            skipRows: skipped - (position.checkpoint?.base ?? 0),
            ...(position.checkpoint === undefined ? {} : { resumeAfterKey: position.checkpoint.key }),
            checkpoint: {
              everyRows: tuning.sqlCheckpointRows,
              everyMillis: tuning.sqlCheckpointMillis,
              reached: (key) => stream.checkpoint(key),
            },
          });
          await stream.run(run.rows);
        } catch (e) {
          // The engine's FailedPrecondition is a plan whose schema no longer matches: the clients prepare again.
          if (isTabletopError(e, 'FailedPrecondition')) throw preparedQueryExpired(e.message);
          throw e;
        } finally {
          clearInterval(watch);
          abort.abort();
        }
      },
    ),
  };
}
