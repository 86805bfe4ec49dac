import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { DatabaseCore } from '../../db/api.js';
import { normalizeRowSetInSteps } from '../../model/key-range.js';
import { viewTables } from '../../db/materialized-views.js';
import type { ChildName, TableName } from '../../model/names.js';
import { TabletopError, invalidArgument, unimplemented } from '../../model/errors.js';
import { LIMITS } from '../../model/limits.js';
import type { Row } from '../../model/cell.js';
import { tooManyMutationsMessage } from '../../model/validate-mutation.js';
import {
  checkAndMutateRequestFromProto,
  pingRequestFromProto,
  readModifyWriteRequestFromProto,
  readRowsRequestFromProto,
  sampleRowKeysRequestFromProto,
  sampleToProto,
  dataTargetOf,
} from '../convert/data-requests.js';
import {
  type DecodedMutateRow,
  type DecodedMutateRows,
  decodeMutateRowRequest,
  decodeMutateRowsRequest,
  decodeMutateRowsRequestParts,
} from '../convert/mutate-decoder.js';
import { type EntryStatus, type MutateRowsFrame, encodeMutateRowsResponse } from '../convert/mutate-rows-encoder.js';
import type {
  PCheckAndMutateRowRequest,
  PPingAndWarmRequest,
  PReadModifyWriteRowRequest,
  PReadRowsRequest,
  PSampleRowKeysRequest,
  PSampleRowKeysResponse,
} from '../convert/proto-types.js';
import { type ReadRowsFrame, encodeReadRowsResponse } from '../convert/read-rows-encoder.js';
import { type DecodedReadRowsRequest, decodeReadRowsRequest, decodeRowSet } from '../convert/read-rows-decoder.js';
import { decodeReadModifyWriteRowRequest } from '../convert/rmw-decoder.js';
import { encodeReadModifyWriteRowResponse } from '../convert/row-encoder.js';
import type { Logger } from '../logger.js';
import { type Resource, type ServiceSpec, resource, serverStream, unary } from '../method-table.js';
import type { Metrics } from '../metrics.js';
import { SERVICES } from '../protos.js';
import type { ServerTuning } from '../server-config.js';
import { grpcCode, toGrpcStatus } from '../status.js';
import { restrictSamples } from './sample-range.js';
import { streamReadRows } from './read-rows-stream.js';
import { sqlMethods } from './sql-methods.js';
import type { SqlEngine } from '../../sql/engine.js';

/**
 * google.bigtable.v2.Bigtable over a DatabaseCore. The hot paths have their own
 * codecs: ReadRows responses (convert/read-rows-encoder.ts), MutateRow(s)
 * requests (convert/mutate-decoder.ts, MutateRows also from the pieces it
 * arrived in) and MutateRows responses, ReadModifyWriteRow requests and
 * responses, CheckAndMutateRow responses; every other message goes through
 * the protos' codecs.
 */
export function dataService(db: DatabaseCore, tuning: ServerTuning, metrics: Metrics, logger: Logger, sql?: SqlEngine): ServiceSpec {
  /** ReadRows and SampleRowKeys with materialized_view_name read the view's internal data table. */
  const viewTable = (name: ChildName): TableName => viewTables(db.getMaterializedView(name)).data;
  const methods = {
    ...(sql === undefined ? {} : sqlMethods(sql, tuning)),
    ReadRows: serverStream<DecodedReadRowsRequest, ReadRowsFrame>(
      { decode: decodeReadRowsRequest, encode: (frame) => encodeReadRowsResponse(frame, tuning.valueChunkBytes), resource: dataTarget },
      async (req, out, ctx) => {
        const started = performance.now();
        let rowSet = req.rowSetBytes === undefined ? undefined : decodeRowSet(req.rowSetBytes);
        if (rowSet instanceof Promise) rowSet = await rowSet;
        const cmd = readRowsRequestFromProto(req, viewTable, rowSet);
        // A very large row set is normalised (sorted, merged) in steps too, other clients served in between.
        const ranges =
          cmd.rows.keys.length + cmd.rows.ranges.length > 8192 ? await normalizeRowSetInSteps(cmd.rows, pauseEvery(5)) : undefined;
        if (cmd.reversed && !ctx.features.reverseScans) {
          throw unimplemented(
            "Client doesn't support reverse scans yet: a reversed ReadRows needs the client to send the bigtable-features header with reverse_scans set",
          );
        }
        const reader = db.readRows(cmd.table, {
          rows: cmd.rows,
          ranges,
          filter: cmd.filter,
          limit: cmd.limit,
          reversed: cmd.reversed,
          view: cmd.view,
        });
        try {
          const result = await streamReadRows(
            reader,
            out,
            {
              targetFrameBytes: tuning.readRowsFrameBytes,
              heartbeatRows: tuning.heartbeatRows,
              heartbeatMillis: tuning.heartbeatMillis,
              valueChunkBytes: tuning.valueChunkBytes,
              reversed: cmd.reversed,
              yieldEveryMillis: tuning.yieldEveryMillis,
            },
            ctx.cancelled,
          );
          metrics.rowsReturned += reader.stats.rowsReturned;
          metrics.cellsReturned += reader.stats.cellsReturned;
          if (result.completed && cmd.fullStats) {
            const s = reader.stats;
            const latencyMicros = (performance.now() - started) * 1000;
            const w = out.write({
              rows: [],
              stats: {
                rowsSeen: s.rowsSeen,
                rowsReturned: s.rowsReturned,
                cellsSeen: s.cellsSeen,
                cellsReturned: s.cellsReturned,
                latencyMicros,
              },
            });
            if (w instanceof Promise) await w;
          }
        } finally {
          reader.close();
        }
      },
    ),

    SampleRowKeys: serverStream<PSampleRowKeysRequest, PSampleRowKeysResponse>({ resource: dataTarget }, async (req, out, ctx) => {
      const cmd = sampleRowKeysRequestFromProto(req, viewTable);
      const samples = await db.sampleRowKeys(cmd.table, cmd.view);
      const selected = cmd.range === undefined ? samples : restrictSamples(samples, cmd.range);
      for (const s of selected) {
        if (ctx.cancelled()) return;
        const w = out.write(sampleToProto(s));
        if (!(w instanceof Promise ? await w : w)) return;
      }
    }),

    MutateRow: unary<DecodedMutateRow, object>({ decode: decodeMutateRowRequest, resource: dataTarget }, async (req, ctx) => {
      if (req.error !== undefined) throw req.error;
      const { table, view } = dataTargetOf('MutateRow', req);
      checkMutationCount(req.sent);
      metrics.mutations += req.sent;
      if (req.sent > 0 && req.mutations.length === 0) return {}; // only NULL-input aggregate mutations: no effect
      if (ctx.cancelled()) return {};
      await db.mutateRow(table, req.key, req.mutations, view);
      return {};
    }),

    MutateRows: serverStream<DecodedMutateRows, MutateRowsFrame>(
      {
        decode: decodeMutateRowsRequest,
        decodeParts: decodeMutateRowsRequestParts,
        encode: encodeMutateRowsResponse,
        resource: dataTarget,
      },
      async (req, out, ctx) => {
        if (req.error !== undefined) throw req.error;
        const { table, view } = dataTargetOf('MutateRows', req);
        if (req.entries.length === 0) throw invalidArgument('MutateRows needs at least one entry');
        checkMutationCount(req.mutationCount);
        metrics.mutations += req.mutationCount;
        const results: (TabletopError | undefined)[] = new Array<TabletopError | undefined>(req.entries.length).fill(undefined);
        const toApply: DecodedMutateRows['entries'][number][] = [];
        const positions: number[] = [];
        req.entries.forEach((e, i) => {
          if (e.error !== undefined) results[i] = e.error;
          else if (e.sent > 0 && e.mutations.length === 0) results[i] = undefined;
          else {
            toApply.push(e);
            positions.push(i);
          }
        });
        if (ctx.cancelled()) return;
        const applied = toApply.length === 0 ? [] : await db.mutateRows(table, toApply, view);
        applied.forEach((r, j) => (results[positions[j]!] = r));
        const per = tuning.mutateRowsStatusesPerMessage;
        for (let from = 0; from < results.length; from += per) {
          const entries: EntryStatus[] = [];
          for (let i = from; i < Math.min(results.length, from + per); i++) entries.push(entryStatus(i, results[i], logger));
          const w = out.write({ entries });
          if (!(w instanceof Promise ? await w : w)) return;
        }
      },
    ),

    CheckAndMutateRow: unary<PCheckAndMutateRowRequest, { predicateMatched: boolean }>(
      { encode: encodeCheckAndMutateRowResponse, resource: dataTarget },
      async (req) => {
        const cmd = checkAndMutateRequestFromProto(req);
        checkMutationCount(cmd.sentTrue);
        checkMutationCount(cmd.sentFalse);
        metrics.mutations += cmd.sentTrue + cmd.sentFalse;
        const matched = await db.checkAndMutateRow(cmd.table, cmd.key, cmd.predicate, cmd.trueMutations, cmd.falseMutations, cmd.view);
        return { predicateMatched: matched };
      },
    ),

    ReadModifyWriteRow: unary<PReadModifyWriteRowRequest, { row: Row }>(
      { decode: decodeReadModifyWriteRowRequest, encode: encodeReadModifyWriteRowResponse, resource: dataTarget },
      async (req) => {
        const cmd = readModifyWriteRequestFromProto(req);
        checkMutationCount(cmd.rules.length);
        return { row: await db.readModifyWriteRow(cmd.table, cmd.key, cmd.rules, cmd.view) };
      },
    ),

    PingAndWarm: unary<PPingAndWarmRequest, object>({ resource: (req) => resource('instance', req.name) }, (req) => {
      db.getInstance(pingRequestFromProto(req));
      return {};
    }),
  };

  return {
    service: SERVICES.data,
    methods,
    notYet: {
      'change streams': ['GenerateInitialChangeStreamPartitions', 'ReadChangeStream'],
      ...(sql === undefined ? { 'SQL queries': ['PrepareQuery', 'ExecuteQuery'] } : {}),
      'client configuration': ['GetClientConfiguration'],
      'the session API': ['OpenTable', 'OpenMaterializedView', 'OpenAuthorizedView'],
    },
  };
}

/** The table, authorized view or materialized view a data request names. */
export function dataTarget(req: {
  tableName?: string | null;
  authorizedViewName?: string | null;
  materializedViewName?: string | null;
}): Resource | undefined {
  if (req.authorizedViewName) return { kind: 'authorizedView', name: req.authorizedViewName };
  if (req.materializedViewName) return { kind: 'materializedView', name: req.materializedViewName };
  return resource('table', req.tableName);
}

const EMPTY_MESSAGE = Buffer.alloc(0);
const PREDICATE_MATCHED = Buffer.from([0x08, 0x01]);

/** CheckAndMutateRowResponse := predicate_matched(1) bool: two bytes, or none for false. */
function encodeCheckAndMutateRowResponse(r: { predicateMatched: boolean }): Buffer {
  return r.predicateMatched ? PREDICATE_MATCHED : EMPTY_MESSAGE;
}

function checkMutationCount(n: number): void {
  if (n > LIMITS.maxMutationsPerRequest) {
    throw invalidArgument(tooManyMutationsMessage(n));
  }
}

function entryStatus(index: number, error: unknown, logger: Logger): EntryStatus {
  if (error === undefined) return { index, code: 0, message: '' };
  if (error instanceof TabletopError) return { index, code: grpcCode(error.code), message: error.message };
  const s = toGrpcStatus(error, 'MutateRows', logger);
  return { index, code: s.code, message: s.details };
}

/** A pause for work done in steps: a turn of the event loop once `millis` have passed since the last one, else none. */
function pauseEvery(millis: number): () => Promise<void> | undefined {
  let last = performance.now();
  return () => {
    if (performance.now() - last < millis) return undefined;
    return yieldToLoop().then(() => {
      last = performance.now();
    });
  };
}
