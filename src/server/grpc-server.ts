import type net from 'node:net';
import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import type { DatabaseCore } from '../db/api.js';
import { decodeMutateRowRequest, decodeMutateRowsRequest, decodeMutateRowsRequestParts } from './convert/mutate-decoder.js';
import { encodeReadModifyWriteRowResponse } from './convert/row-encoder.js';
import { decodeReadModifyWriteRowRequest } from './convert/rmw-decoder.js';
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
import { createH2Transport } from './transport/h2-server.js';
import { RouteTable } from './transport/routes.js';

export interface GrpcServerOptions {
  readonly db: DatabaseCore;
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

const EMPTY_MESSAGE = Buffer.alloc(0);
const PREDICATE_MATCHED = Buffer.from([0x08, 0x01]);

/** True for `{}` (no own enumerable keys): a message with no field set, which encodes to no bytes. */
function isEmptyObject(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  for (const _ in v) return false;
  return true;
}

/** The loader's serializer, with `{}` (MutateRow's, PingAndWarm's and many admin responses) encoded without it. */
function emptyFastPath(serialize: (v: unknown) => Buffer): (v: unknown) => Buffer {
  return (v) => (isEmptyObject(v) ? EMPTY_MESSAGE : serialize(v));
}

/**
 * The method definitions with tabletop's codecs: the hand-written hot-path
 * codecs for ReadRows responses, ReadModifyWriteRow requests and responses and MutateRow(s) requests, empty responses
 * encoded without the loader, and every other request decoded by the loader
 * but with decoding failures reported as INVALID_ARGUMENT instead of INTERNAL.
 */
export function definitionsWithCodecs(key: ServiceKey, tuning: ServerTuning): Record<string, AnyMethod> {
  const def = serviceDefinition(key);
  for (const [name, method] of Object.entries(def)) {
    method.requestDeserialize = safeDeserializer(name, method.requestDeserialize);
    method.responseSerialize = emptyFastPath(method.responseSerialize);
  }
  if (key === 'data') {
    const readRows = def['ReadRows'];
    const mutateRows = def['MutateRows'];
    const mutateRow = def['MutateRow'];
    const readModifyWrite = def['ReadModifyWriteRow'];
    const checkAndMutate = def['CheckAndMutateRow'];
    if (readRows === undefined || mutateRows === undefined || mutateRow === undefined || readModifyWrite === undefined || checkAndMutate === undefined) throw new Error('Bigtable service is missing a data method');
    readModifyWrite.requestDeserialize = safeDeserializer('ReadModifyWriteRow', decodeReadModifyWriteRowRequest);
    // CheckAndMutateRowResponse := predicate_matched(1) bool: two bytes, or none for false.
    checkAndMutate.responseSerialize = (r: { predicateMatched: boolean }) => (r.predicateMatched ? PREDICATE_MATCHED : EMPTY_MESSAGE);
    readModifyWrite.responseSerialize = encodeReadModifyWriteRowResponse;
    readRows.responseSerialize = (frame: ReadRowsFrame) => encodeReadRowsResponse(frame, tuning.valueChunkBytes);
    mutateRows.requestDeserialize = safeDeserializer('MutateRows', decodeMutateRowsRequest);
    mutateRows.requestDeserializeParts = safeDeserializer('MutateRows', decodeMutateRowsRequestParts);
    mutateRows.responseSerialize = encodeMutateRowsResponse;
    mutateRow.requestDeserialize = safeDeserializer('MutateRow', decodeMutateRowRequest);
  }
  return def;
}

interface ServiceTable {
  readonly name: string;
  readonly methods: Record<string, AnyMethod>;
  readonly impl: UntypedServiceImplementation;
}

/** Every service tabletop serves, with its codecs and handlers. */
function services(opts: GrpcServerOptions): ServiceTable[] {
  const { db, logger, metrics, tuning } = opts;
  const operations = new OperationStore(tuning.operationsKept);
  const policies = new IamPolicies();
  const env = (key: ServiceKey) => ({ service: SERVICES[key], metrics, logger, slowCallMillis: tuning.slowCallMillis });
  const data = definitionsWithCodecs('data', tuning);
  const tables = definitionsWithCodecs('tableAdmin', tuning);
  const instances = definitionsWithCodecs('instanceAdmin', tuning);
  const ops = definitionsWithCodecs('operations', tuning);
  return [
    { name: SERVICES.data, methods: data, impl: dataService(db, env('data'), tuning, data) },
    { name: SERVICES.tableAdmin, methods: tables, impl: tableAdminService(db, env('tableAdmin'), operations, policies, tables) },
    { name: SERVICES.instanceAdmin, methods: instances, impl: instanceAdminService(db, env('instanceAdmin'), operations, policies, instances) },
    { name: SERVICES.operations, methods: ops, impl: operationsService(env('operations'), operations, ops) },
  ];
}

/** A transport's part of the server: where accepted connections go, and how it stops. */
interface Transport {
  accept(socket: net.Socket): void;
  /** Lets calls in flight finish (up to the grace period), then cancels the rest. */
  shutdown(): Promise<void>;
  /** Releases everything at once (the listener could not be opened). */
  abort(): void;
}

function h2Transport(opts: GrpcServerOptions, tables: ServiceTable[]): Transport {
  const { tuning } = opts;
  const routes = new RouteTable();
  for (const t of tables) routes.addService(t.name, t.methods, t.impl);
  const h2 = createH2Transport({
    routes,
    logger: opts.logger,
    maxMessageBytes: tuning.maxMessageBytes,
    maxConcurrentStreams: tuning.maxConcurrentStreams,
    maxHeaderListBytes: tuning.maxHeaderListBytes,
    keepaliveTimeMillis: tuning.keepaliveTimeMillis,
    keepaliveTimeoutMillis: tuning.keepaliveTimeoutMillis,
    maxConnectionIdleMillis: tuning.maxConnectionIdleMillis,
    streamWindowBytes: tuning.streamWindowBytes,
    connectionWindowBytes: tuning.connectionWindowBytes,
    highWaterBytes: tuning.writeHighWaterBytes,
  });
  return {
    accept: (socket) => h2.accept(socket),
    shutdown: () => h2.shutdown(tuning.shutdownGraceMillis),
    abort: () => void h2.shutdown(0),
  };
}

/** The @grpc/grpc-js server as the transport; grpc-js is loaded only then (the h2 transport needs none of it). */
async function grpcJsTransport(opts: GrpcServerOptions, tables: ServiceTable[]): Promise<Transport> {
  const grpc = await import('@grpc/grpc-js');
  const { logger, tuning } = opts;
  const server = new grpc.Server({
    'grpc.max_receive_message_length': tuning.maxMessageBytes,
    'grpc.max_send_message_length': tuning.maxMessageBytes,
    'grpc.max_concurrent_streams': tuning.maxConcurrentStreams,
    'grpc.keepalive_time_ms': tuning.keepaliveTimeMillis,
    'grpc.keepalive_timeout_ms': tuning.keepaliveTimeoutMillis,
    'grpc.max_connection_idle_ms': tuning.maxConnectionIdleMillis,
    'grpc-node.max_session_memory': tuning.maxSessionMemoryMiB,
  });
  for (const t of tables) server.addService(t.methods, t.impl);
  const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
  return {
    accept: (socket) => injector.injectConnection(socket),
    shutdown: () =>
      new Promise<void>((resolve) => {
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
      }),
    abort: () => {
      injector.destroy();
      server.forceShutdown();
    },
  };
}

export async function startGrpcServer(opts: GrpcServerOptions): Promise<GrpcServerHandle> {
  const { tuning } = opts;
  const tables = services(opts);
  const transport = tuning.transport === 'grpc-js' ? await grpcJsTransport(opts, tables) : h2Transport(opts, tables);

  let listener: GuardedListener;
  try {
    listener = await listenGuarded(transport.accept, opts.host, opts.port, { prefaceTimeoutMillis: tuning.prefaceTimeoutMillis, maxConnections: tuning.maxConnections });
  } catch (e) {
    transport.abort();
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
        await transport.shutdown();
        await closed;
      })();
      return stopping;
    },
  };
}
