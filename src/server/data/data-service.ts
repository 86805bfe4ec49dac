import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import type { DatabaseCore } from '../../db/api.js';
import { TabletopError, invalidArgument, unimplemented } from '../../model/errors.js';
import { LIMITS } from '../../model/limits.js';
import type { Row } from '../../model/cell.js';
import { tooManyMutationsMessage } from '../../model/validate-mutation.js';
import { checkAndMutateRequestFromProto, pingRequestFromProto, readModifyWriteRequestFromProto, readRowsRequestFromProto, sampleRowKeysRequestFromProto, sampleToProto, targetTable } from '../convert/data-requests.js';
import type { DecodedMutateRow, DecodedMutateRows } from '../convert/mutate-decoder.js';
import type { EntryStatus, MutateRowsFrame } from '../convert/mutate-rows-encoder.js';
import type { PCheckAndMutateRowRequest, PPingAndWarmRequest, PReadModifyWriteRowRequest, PReadRowsRequest, PSampleRowKeysRequest, PSampleRowKeysResponse } from '../convert/proto-types.js';
import type { ReadRowsFrame } from '../convert/read-rows-encoder.js';
import type { AnyMethod } from '../protos.js';
import { type RpcEnv, serverStream, unary, unimplementedHandler } from '../rpc.js';
import type { ServerTuning } from '../server-config.js';
import { grpcCode, toGrpcStatus } from '../status.js';
import { restrictSamples } from './sample-range.js';
import { streamReadRows } from './read-rows-stream.js';

/** google.bigtable.v2.Bigtable over a DatabaseCore. */
export function dataService(db: DatabaseCore, env: RpcEnv, tuning: ServerTuning, methods: Record<string, AnyMethod>): UntypedServiceImplementation {
  const impl: UntypedServiceImplementation = {
    ReadRows: serverStream<PReadRowsRequest, ReadRowsFrame>(env, 'ReadRows', async (req, out, ctx) => {
      const started = performance.now();
      const cmd = readRowsRequestFromProto(req);
      if (cmd.reversed && !ctx.features.reverseScans) {
        throw unimplemented(
          "Client doesn't support reverse scans yet: a reversed ReadRows needs the client to send the bigtable-features header with reverse_scans set",
        );
      }
      const reader = db.readRows(cmd.table, { rows: cmd.rows, filter: cmd.filter, limit: cmd.limit, reversed: cmd.reversed });
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
        env.metrics.rowsReturned += reader.stats.rowsReturned;
        env.metrics.cellsReturned += reader.stats.cellsReturned;
        if (result.completed && cmd.fullStats) {
          const s = reader.stats;
          const latencyMicros = (performance.now() - started) * 1000;
          const w = out.write({ rows: [], stats: { rowsSeen: s.rowsSeen, rowsReturned: s.rowsReturned, cellsSeen: s.cellsSeen, cellsReturned: s.cellsReturned, latencyMicros } });
          if (w instanceof Promise) await w;
        }
      } finally {
        reader.close();
      }
    }),

    SampleRowKeys: serverStream<PSampleRowKeysRequest, PSampleRowKeysResponse>(env, 'SampleRowKeys', async (req, out, ctx) => {
      const cmd = sampleRowKeysRequestFromProto(req);
      const samples = await db.sampleRowKeys(cmd.table);
      const selected = cmd.range === undefined ? samples : restrictSamples(samples, cmd.range);
      for (const s of selected) {
        if (ctx.cancelled()) return;
        const w = out.write(sampleToProto(s));
        if (!(w instanceof Promise ? await w : w)) return;
      }
    }),

    MutateRow: unary<DecodedMutateRow, object>(env, 'MutateRow', async (req, ctx) => {
      if (req.error !== undefined) throw req.error;
      const table = targetTable('MutateRow', req);
      checkMutationCount(req.sent);
      env.metrics.mutations += req.sent;
      if (req.sent > 0 && req.mutations.length === 0) return {}; // only NULL-input aggregate mutations: no effect
      if (ctx.cancelled()) return {};
      await db.mutateRow(table, req.key, req.mutations);
      return {};
    }),

    MutateRows: serverStream<DecodedMutateRows, MutateRowsFrame>(env, 'MutateRows', async (req, out, ctx) => {
      if (req.error !== undefined) throw req.error;
      const table = targetTable('MutateRows', req);
      if (req.entries.length === 0) throw invalidArgument('MutateRows needs at least one entry');
      checkMutationCount(req.mutationCount);
      env.metrics.mutations += req.mutationCount;
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
      const applied = toApply.length === 0 ? [] : await db.mutateRows(table, toApply);
      applied.forEach((r, j) => (results[positions[j]!] = r));
      const per = tuning.mutateRowsStatusesPerMessage;
      for (let from = 0; from < results.length; from += per) {
        const entries: EntryStatus[] = [];
        for (let i = from; i < Math.min(results.length, from + per); i++) entries.push(entryStatus(i, results[i], env));
        const w = out.write({ entries });
        if (!(w instanceof Promise ? await w : w)) return;
      }
    }),

    CheckAndMutateRow: unary<PCheckAndMutateRowRequest, { predicateMatched: boolean }>(env, 'CheckAndMutateRow', async (req) => {
      const cmd = checkAndMutateRequestFromProto(req);
      checkMutationCount(cmd.sentTrue);
      checkMutationCount(cmd.sentFalse);
      env.metrics.mutations += cmd.sentTrue + cmd.sentFalse;
      const matched = await db.checkAndMutateRow(cmd.table, cmd.key, cmd.predicate, cmd.trueMutations, cmd.falseMutations);
      return { predicateMatched: matched };
    }),

    // The response is encoded by the hand-written serializer (convert/row-encoder.ts).
    ReadModifyWriteRow: unary<PReadModifyWriteRowRequest, { row: Row }>(env, 'ReadModifyWriteRow', async (req) => {
      const cmd = readModifyWriteRequestFromProto(req);
      checkMutationCount(cmd.rules.length);
      return { row: await db.readModifyWriteRow(cmd.table, cmd.key, cmd.rules) };
    }),

    PingAndWarm: unary<PPingAndWarmRequest, object>(env, 'PingAndWarm', (req) => {
      db.getInstance(pingRequestFromProto(req));
      return {};
    }),
  };

  const notYet: Record<string, string> = {
    GenerateInitialChangeStreamPartitions: 'change streams',
    ReadChangeStream: 'change streams',
    PrepareQuery: 'SQL queries',
    ExecuteQuery: 'SQL queries',
    GetClientConfiguration: 'client configuration',
    OpenTable: 'the session API',
    OpenAuthorizedView: 'the session API and authorized views',
    OpenMaterializedView: 'the session API and materialized views',
  };
  for (const [name, method] of Object.entries(methods)) {
    if (impl[name] !== undefined) continue;
    const what = notYet[name] ?? 'this RPC';
    impl[name] = unimplementedHandler(env, name, method, `${name} (${what}) is not implemented by tabletop yet`);
  }
  return impl;
}

function checkMutationCount(n: number): void {
  if (n > LIMITS.maxMutationsPerRequest) {
    throw invalidArgument(tooManyMutationsMessage(n));
  }
}

function entryStatus(index: number, error: unknown, env: RpcEnv): EntryStatus {
  if (error === undefined) return { index, code: 0, message: '' };
  if (error instanceof TabletopError) return { index, code: grpcCode(error.code), message: error.message };
  const s = toGrpcStatus(error, 'MutateRows', env.logger);
  return { index, code: s.code, message: s.details };
}
