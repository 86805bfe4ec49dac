import * as grpc from '@grpc/grpc-js';
import type { Database } from '../db/api.js';
import { decodeMutateRowRequest, decodeMutateRowsRequest } from './convert/mutate-decoder.js';
import { encodeMutateRowsResponse } from './convert/mutate-rows-encoder.js';
import { type ReadRowsFrame, encodeReadRowsResponse } from './convert/read-rows-encoder.js';
import { instanceAdminService } from './admin/instance-admin-service.js';
import { IamPolicies } from './admin/iam.js';
import { OperationStore } from './admin/operation-store.js';
import { operationsService } from './admin/operations-service.js';
import { tableAdminService } from './admin/table-admin-service.js';
import { dataService } from './data/data-service.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import { type AnyMethod, SERVICES, type ServiceKey, serviceDefinition } from './protos.js';
import { type GuardedListener, listenGuarded } from './connection-guard.js';
import { safeDeserializer } from './rpc.js';
import type { ServerTuning } from './server-config.js';

export interface GrpcServerOptions {
  readonly db: Database;
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly tuning: ServerTuning;
}

export interface GrpcServerHandle {
  readonly host: string;
  readonly port: number;
  /** host:port, as BIGTABLE_EMULATOR_HOST wants it. */
  readonly address: string;
  /** Stops accepting calls, lets calls in flight finish (up to the grace period), then closes. */
  stop(): Promise<void>;
}

/** `host:port`, with brackets around an IPv6 literal. */
export function hostPort(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * The method definitions with tabletop's codecs: the hand-written hot-path
 * codecs for ReadRows responses and MutateRow(s) requests, and every other
 * request decoded by the loader but with decoding failures reported as
 * INVALID_ARGUMENT instead of INTERNAL.
 */
export function definitionsWithCodecs(key: ServiceKey, tuning: ServerTuning): Record<string, AnyMethod> {
  const def = serviceDefinition(key);
  for (const [name, method] of Object.entries(def)) {
    method.requestDeserialize = safeDeserializer(name, method.requestDeserialize);
  }
  if (key === 'data') {
    const readRows = def['ReadRows'];
    const mutateRows = def['MutateRows'];
    const mutateRow = def['MutateRow'];
    if (readRows === undefined || mutateRows === undefined || mutateRow === undefined) throw new Error('Bigtable service is missing a data method');
    readRows.responseSerialize = (frame: ReadRowsFrame) => encodeReadRowsResponse(frame, tuning.valueChunkBytes);
    mutateRows.requestDeserialize = safeDeserializer('MutateRows', decodeMutateRowsRequest);
    mutateRows.responseSerialize = encodeMutateRowsResponse;
    mutateRow.requestDeserialize = safeDeserializer('MutateRow', decodeMutateRowRequest);
  }
  return def;
}

export async function startGrpcServer(opts: GrpcServerOptions): Promise<GrpcServerHandle> {
  const { db, logger, metrics, tuning } = opts;
  const server = new grpc.Server({
    'grpc.max_receive_message_length': tuning.maxMessageBytes,
    'grpc.max_send_message_length': tuning.maxMessageBytes,
    'grpc.max_concurrent_streams': tuning.maxConcurrentStreams,
    'grpc.keepalive_time_ms': tuning.keepaliveTimeMillis,
    'grpc.keepalive_timeout_ms': tuning.keepaliveTimeoutMillis,
    'grpc.max_connection_idle_ms': tuning.maxConnectionIdleMillis,
    'grpc-node.max_session_memory': tuning.maxSessionMemoryMiB,
  });
  const operations = new OperationStore(tuning.operationsKept);
  const policies = new IamPolicies();
  const env = (key: ServiceKey) => ({ service: SERVICES[key], metrics, logger });

  const data = definitionsWithCodecs('data', tuning);
  server.addService(data, dataService(db, env('data'), tuning, data));
  const tables = definitionsWithCodecs('tableAdmin', tuning);
  server.addService(tables, tableAdminService(db, env('tableAdmin'), operations, policies, tables));
  const instances = definitionsWithCodecs('instanceAdmin', tuning);
  server.addService(instances, instanceAdminService(db, env('instanceAdmin'), operations, policies, instances));
  const ops = definitionsWithCodecs('operations', tuning);
  server.addService(ops, operationsService(env('operations'), operations, ops));

  let listener: GuardedListener;
  try {
    listener = await listenGuarded(server, opts.host, opts.port, { prefaceTimeoutMillis: tuning.prefaceTimeoutMillis, maxConnections: tuning.maxConnections });
  } catch (e) {
    server.forceShutdown();
    const reason = e instanceof Error ? e.message : String(e);
    throw new Error(`cannot listen on ${hostPort(opts.host, opts.port)} (is the port already in use, or the host not local?): ${reason}`, { cause: e });
  }
  const port = listener.port;

  let stopping: Promise<void> | undefined;
  return {
    host: opts.host,
    port,
    address: hostPort(opts.host, port),
    stop(): Promise<void> {
      stopping ??= (async () => {
        const closed = listener.close();
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            logger.warn(`calls still running after ${tuning.shutdownGraceMillis} ms; cancelling them`);
            server.forceShutdown();
            resolve();
          }, tuning.shutdownGraceMillis);
          timer.unref();
          server.tryShutdown((err) => {
            clearTimeout(timer);
            if (err) {
              logger.warn(`graceful shutdown failed (${err.message}); forcing it`);
              server.forceShutdown();
            }
            resolve();
          });
        });
        await closed;
      })();
      return stopping;
    },
  };
}
