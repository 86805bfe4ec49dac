import type { DatabaseCore } from '../db/api.js';
import type { SqlEngine } from '../sql/engine.js';
import { createSqlEngine } from '../sql/index.js';
import type { ViewCatalog } from '../sql/views.js';
import { dbViewCatalog } from './admin/logical-view-queries.js';
import type { InsightQueries } from '../insight/api-types.js';
import type { HistorySource } from '../insight/history-source.js';
import { policyAuthorizer, startGrpcServer } from './grpc-server.js';
import type { startHttpServer } from './http/http-server.js';
import type { ServedDatabase } from './http/served-database.js';
import type { Logger } from './logger.js';
import { openFilesLimit, openFilesWarning } from './fd-limit.js';
import { isLoopbackOnly, openToNetworkWarning } from './open-warning.js';
import { Metrics } from './metrics.js';
import type { SchemaAdviceLog } from './schema-advice-log.js';
import { DEFAULT_SERVER_TUNING, type ServerTuning } from './server-config.js';
import type { Authenticator } from './auth/authenticator.js';
import type { TlsOptions } from './tls-options.js';
import type { Authorizer } from './auth/authorizer.js';
import type { ProjectPolicySource } from './auth/project-policies.js';

export interface TabletopServerOptions {
  readonly db: ServedDatabase;
  readonly host: string;
  /** gRPC port; 0 picks a free one. */
  readonly port: number;
  /** HTTP port; 0 picks a free one; false serves no HTTP. */
  readonly httpPort: number | false;
  readonly logger: Logger;
  /** Describes the storage on the index page, e.g. "in memory". */
  readonly storage: string;
  readonly version: string;
  readonly tuning?: Partial<ServerTuning>;
  /**
   * The recording (src/insight) the HTTP server's heatmap and diagnostics
   * read; undefined when recording is off (`serve --insight off`): they then
   * answer 412 FailedPrecondition. While it is on, the schema advisor's pass
   * (schema-advice-log.ts) runs every `tuning.schemaAdviceMillis`.
   */
  readonly insight?: HistorySource | undefined;
  /** The queries over the recording; default src/insight/queries.ts insightQueries (tests of the routes give their own). */
  readonly insightQueries?: ((source: HistorySource) => InsightQueries) | undefined;
  /** The SQL engine of PrepareQuery, ExecuteQuery and the HTTP API's queries; default: src/sql's over `db` and `views`. */
  readonly sql?: SqlEngine | undefined;
  /** The views FROM finds besides tables; default: the db's logical views, no materialized views. */
  readonly views?: ViewCatalog | undefined;
  /** Who calls (auth/authenticator.ts); default NO_AUTHENTICATION (anonymous calls, nothing refused). */
  readonly authenticator?: Authenticator | undefined;
  /** Serve gRPC and HTTP over TLS (optionally mutual); undefined: plain text. */
  readonly tls?: TlsOptions | undefined;
  /** Project-level IAM bindings (`tabletop auth grant`, the auth file); default: none. */
  readonly projectPolicies?: ProjectPolicySource | undefined;
  /** The IAM decisions of the gRPC access check and the HTTP routes; default: the db's policies and `projectPolicies`. */
  readonly authorizer?: Authorizer | undefined;
}

export interface TabletopServer {
  readonly host: string;
  readonly port: number;
  /** host:port of the gRPC endpoint (the value for BIGTABLE_EMULATOR_HOST). */
  readonly address: string;
  readonly httpPort: number | undefined;
  readonly httpUrl: string | undefined;
  readonly metrics: Metrics;
  /** Stops both servers: calls in flight finish (up to the grace period). Does not close the database. */
  stop(): Promise<void>;
}

/** Starts the gRPC server and, unless disabled, the HTTP server, over one database. */
export async function startTabletopServer(opts: TabletopServerOptions): Promise<TabletopServer> {
  const tuning: ServerTuning = { ...DEFAULT_SERVER_TUNING, ...opts.tuning };
  const metrics = new Metrics();
  const views = opts.views ?? dbViewCatalog(opts.db);
  const sql = opts.sql ?? createSqlEngine(opts.db, { views });
  const authorizer = opts.authorizer ?? policyAuthorizer(opts.db, opts.projectPolicies);
  const grpc = await startGrpcServer({
    views,
    db: opts.db,
    host: opts.host,
    port: opts.port,
    logger: opts.logger,
    metrics,
    tuning,
    sql,
    authenticator: opts.authenticator,
    authorizer,
    tls: opts.tls,
  });
  let http: Awaited<ReturnType<typeof startHttpServer>> | undefined;
  if (opts.httpPort !== false) {
    try {
      // Loaded only when asked for (startServer() serves no HTTP by default).
      const [{ startHttpServer }, { insightQueries }] = await Promise.all([
        import('./http/http-server.js'),
        import('../insight/queries.js'),
      ]);
      http = await startHttpServer({
        db: opts.db,
        insight:
          opts.insight === undefined ? undefined : { source: opts.insight, queries: (opts.insightQueries ?? insightQueries)(opts.insight) },
        advisorThresholds: tuning.advisorThresholds,
        host: opts.host,
        port: opts.httpPort,
        metrics,
        logger: opts.logger,
        grpcAddress: grpc.address,
        sql,
        storage: opts.storage,
        version: opts.version,
        authenticator: opts.authenticator,
        authorizer,
        tls: opts.tls,
        maxConnections: tuning.httpMaxConnections,
        idleSocketMillis: tuning.httpIdleSocketMillis,
      });
    } catch (e) {
      await grpc.stop();
      throw e;
    }
  }
  // The schema advisor's warnings in the log: only while recording (it reads the recorded traffic).
  let adviceLog: SchemaAdviceLog | undefined;
  if (opts.insight !== undefined && tuning.schemaAdviceMillis > 0) {
    const [{ SchemaAdviceLog }, { advise }] = await Promise.all([import('./schema-advice-log.js'), import('../insight/advisor/advise.js')]);
    const thresholds = tuning.advisorThresholds;
    adviceLog = new SchemaAdviceLog({
      db: opts.db,
      history: opts.insight,
      logger: opts.logger,
      advise: (input) => advise(input, { thresholds }),
    });
    adviceLog.start(tuning.schemaAdviceMillis);
  }
  const files = openFilesWarning(openFilesLimit(), tuning.maxConnections, http === undefined ? 0 : tuning.httpMaxConnections);
  if (files !== undefined) opts.logger.warn(files, { event: 'open-files-limit' });
  if (opts.authenticator?.required !== true && !(await isLoopbackOnly(opts.host))) {
    opts.logger.warn(openToNetworkWarning(opts.host, http === undefined ? [grpc.port] : [grpc.port, http.port]), {
      event: 'open-to-network',
      host: opts.host,
    });
  }
  return {
    host: grpc.host,
    port: grpc.port,
    address: grpc.address,
    httpPort: http?.port,
    httpUrl: http?.url,
    metrics,
    async stop(): Promise<void> {
      await Promise.all([grpc.stop(), http?.stop(), adviceLog?.stop()]);
    },
  };
}
