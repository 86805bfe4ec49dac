import type net from 'node:net';
import type { DatabaseCore } from '../db/api.js';
import { instanceAdminService } from './admin/instance-admin-service.js';
import { dbViewCatalog, logicalViewQueryCheck } from './admin/logical-view-queries.js';
import { OperationStore } from './admin/operation-store.js';
import { operationsService } from './admin/operations-service.js';
import { tableAdminService } from './admin/table-admin-service.js';
import { dataService } from './data/data-service.js';
import type { Logger } from './logger.js';
import type { SqlEngine } from '../sql/engine.js';
import type { ViewCatalog } from '../sql/views.js';
import { MethodTable, serviceMethods } from './method-table.js';
import { type Metrics, observeCalls } from './metrics.js';
import { serviceDefinition } from './protos.js';
import { type GuardedListener, listenGuarded } from './connection-guard.js';
import type { ServerTuning } from './server-config.js';
import { createH2Transport } from './transport/h2-server.js';
import { type Authenticator, NO_AUTHENTICATION } from './auth/authenticator.js';
import { accessCheck, composeObservers } from './auth/access-check.js';
import { queryNeeds } from './data/query-needs.js';
import { PolicyAuthorizer } from './auth/policy-authorizer.js';
import type { ProjectPolicySource } from './auth/project-policies.js';
import type { Authorizer } from './auth/authorizer.js';
import type { TlsOptions } from './tls-options.js';

export interface GrpcServerOptions {
  readonly db: DatabaseCore;
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly tuning: ServerTuning;
  /** The SQL engine PrepareQuery and ExecuteQuery run on; none: they answer UNIMPLEMENTED. */
  readonly sql?: SqlEngine | undefined;
  /** The views the SQL engine reads (CreateLogicalView checks queries against them); default: the db's logical views. */
  readonly views?: ViewCatalog | undefined;
  /** Who calls (auth/authenticator.ts); default NO_AUTHENTICATION. */
  readonly authenticator?: Authenticator | undefined;
  /** Serve over TLS; undefined: plain text (h2c). */
  readonly tls?: TlsOptions | undefined;
  /** Project-level IAM bindings (the auth state file's); default: none. */
  readonly projectPolicies?: ProjectPolicySource | undefined;
  /** The IAM decisions; default: a PolicyAuthorizer over the db's policies and `projectPolicies`. */
  readonly authorizer?: Authorizer | undefined;
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

/** The method table of every service tabletop serves, over one database. */
export function methodTable(
  opts: Pick<
    GrpcServerOptions,
    'db' | 'logger' | 'metrics' | 'tuning' | 'sql' | 'views' | 'authenticator' | 'projectPolicies' | 'authorizer'
  >,
): MethodTable {
  const { db, logger, metrics, tuning } = opts;
  const checkViewQuery = logicalViewQueryCheck(db, opts.views ?? dbViewCatalog(db));
  const operations = new OperationStore(tuning.operationsKept);
  const authorizer = opts.authorizer ?? policyAuthorizer(db, opts.projectPolicies);
  // The access check runs after the metrics observer, so that refused calls are counted with their status.
  const observe = composeObservers(
    observeCalls(metrics, logger, tuning.slowCallMillis),
    accessCheck(opts.authenticator ?? NO_AUTHENTICATION, authorizer, { requestNeeds: queryNeeds(opts.sql) }),
  );
  const env = { observe, logger };
  return new MethodTable([
    ...serviceMethods(dataService(db, tuning, metrics, logger, opts.sql), serviceDefinition('data'), env),
    ...serviceMethods(tableAdminService(db, operations, authorizer), serviceDefinition('tableAdmin'), env),
    ...serviceMethods(instanceAdminService(db, operations, authorizer, checkViewQuery), serviceDefinition('instanceAdmin'), env),
    ...serviceMethods(operationsService(operations), serviceDefinition('operations'), env),
  ]);
}

/** The IAM decisions over the db's stored policies and the project-level bindings (the gRPC access check's and the HTTP routes'). */
export function policyAuthorizer(db: DatabaseCore, projects: ProjectPolicySource | undefined): Authorizer {
  return new PolicyAuthorizer({ policyOf: (resource) => db.storedIamPolicy(resource), projects });
}

/** A transport's part of the server: where accepted connections go, and how it stops. */
interface Transport {
  accept(socket: net.Socket): void;
  /** At the connection cap: closes the connection idle the longest, if one is (the h2 transport; grpc-js cannot tell). */
  readonly makeRoom?: () => boolean;
  /** Lets calls in flight finish (up to the grace period), then cancels the rest. */
  shutdown(): Promise<void>;
  /** Releases everything at once (the listener could not be opened). */
  abort(): void;
}

/** What both transports are given. */
function commonOptions(opts: GrpcServerOptions, methods: MethodTable) {
  const { tuning } = opts;
  return {
    methods,
    logger: opts.logger,
    maxMessageBytes: tuning.maxMessageBytes,
    maxConcurrentStreams: tuning.maxConcurrentStreams,
    keepaliveTimeMillis: tuning.keepaliveTimeMillis,
    keepaliveTimeoutMillis: tuning.keepaliveTimeoutMillis,
    maxConnectionIdleMillis: tuning.maxConnectionIdleMillis,
  };
}

function h2Transport(opts: GrpcServerOptions, methods: MethodTable): Transport {
  const { tuning } = opts;
  const h2 = createH2Transport({
    ...commonOptions(opts, methods),
    maxHeaderListBytes: tuning.maxHeaderListBytes,
    streamWindowBytes: tuning.streamWindowBytes,
    connectionWindowBytes: tuning.connectionWindowBytes,
    highWaterBytes: tuning.writeHighWaterBytes,
    maxBufferedResponseBytes: tuning.maxBufferedResponseBytes,
  });
  return {
    accept: (socket) => h2.accept(socket),
    makeRoom: () => h2.evictIdle(),
    shutdown: () => h2.shutdown(tuning.shutdownGraceMillis),
    abort: () => void h2.shutdown(0),
  };
}

/** The @grpc/grpc-js server as the transport; it (and grpc-js) is loaded only then (the h2 transport needs none of it). */
async function grpcJsTransport(opts: GrpcServerOptions, methods: MethodTable): Promise<Transport> {
  const { createGrpcJsTransport } = await import('./transport/grpc-js-server.js');
  const { tuning } = opts;
  const grpcJs = createGrpcJsTransport({ ...commonOptions(opts, methods), maxSessionMemoryMiB: tuning.maxSessionMemoryMiB });
  return {
    accept: (socket) => grpcJs.accept(socket),
    shutdown: () => grpcJs.shutdown(tuning.shutdownGraceMillis),
    abort: () => grpcJs.abort(),
  };
}

export async function startGrpcServer(opts: GrpcServerOptions): Promise<GrpcServerHandle> {
  const { tuning } = opts;
  const methods = methodTable(opts);
  const transport = tuning.transport === 'grpc-js' ? await grpcJsTransport(opts, methods) : h2Transport(opts, methods);

  let listener: GuardedListener;
  try {
    listener = await listenGuarded(transport.accept, opts.host, opts.port, {
      prefaceTimeoutMillis: tuning.prefaceTimeoutMillis,
      maxConnections: tuning.maxConnections,
      makeRoom: transport.makeRoom,
      tls: opts.tls,
      logger: opts.logger,
    });
  } catch (e) {
    transport.abort();
    const reason = e instanceof Error ? e.message : String(e);
    throw new Error(`cannot listen on ${hostPort(opts.host, opts.port)} (is the port already in use, or the host not local?): ${reason}`, {
      cause: e,
    });
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
