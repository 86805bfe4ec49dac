/**
 * tabletop's public API.
 *
 *   import { startServer } from 'tabletopdb';
 *   const server = await startServer();               // in-process, free port, in memory
 *   process.env.BIGTABLE_EMULATOR_HOST = server.address;
 *   // ... run tests with the official clients ...
 *   await server.stop();
 *
 * or, without a server, `const db = await open({ dataDir })`: a Database
 * (db/api.ts) whose every method answers with a promise.
 */
import { readFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { createDatabase, promiseDatabase, type TabletopDatabase } from './db/index.js';
import { logEngineEvent } from './db/engine-log.js';
import { checkRe2Addon } from './model/filter/index.js';
import { tableNameString } from './model/names.js';
import type { Database } from './db/api.js';
import { consoleLogger, type Logger } from './server/logger.js';
import { startTabletopServer } from './server/server.js';
import { dbViewCatalog } from './server/admin/logical-view-queries.js';
import { createMaterializedViews } from './sql/materialized/index.js';
import type { ServerTuning } from './server/server-config.js';
import type { Authenticator } from './server/auth/authenticator.js';
import type { Authorizer } from './server/auth/authorizer.js';
import type { ProjectPolicySource } from './server/auth/project-policies.js';
import type { TlsOptions } from './server/tls-options.js';
import { createMemoryEngine } from './storage/memory/index.js';
import type { StorageEngine } from './storage/store.js';
import { type Config, resolveConfig } from './config.js';
import { Insight } from './insight/insight.js';
import { rebinColumn } from './insight/rebin.js';
import { systemClock } from './model/clock.js';

export interface StartServerOptions {
  /** gRPC port; default 0 (a free port). */
  readonly port?: number;
  /** Interface to bind; default "localhost" (loopback only). */
  readonly host?: string;
  /** HTTP port (index page, JSON API, /metrics); 0 picks a free port; default false (no HTTP server). */
  readonly httpPort?: number | false;
  /** Keep data in memory only (the default when no `dataDir` is given). */
  readonly inMemory?: boolean;
  /** Directory of the durable store: data survives restarts and crashes. */
  readonly dataDir?: string;
  /** Engine and database tunables (memtable size, cache size, ...). */
  readonly config?: Partial<Config>;
  /**
   * Where the server reports what it does (recovery, flushes, compactions, tablet splits, merges
   * and moves, slow calls, warnings) and internal errors; default stderr.
   */
  readonly logger?: Logger;
  /** Server tunables (message sizes, heartbeats, limits); defaults suit most uses. */
  readonly tuning?: Partial<ServerTuning>;
  /**
   * Record each table's traffic per key range and time (the key heatmap and its diagnostics); default true.
   * The history lives with the data (in `dataDir`, or in memory).
   */
  readonly insight?: boolean;
  /**
   * Who calls (src/server/auth): `required` turns authentication on. Default:
   * off, anonymous calls (an emulator on loopback).
   */
  readonly authenticator?: Authenticator;
  /** Project-level IAM bindings (what `tabletop auth grant` keeps in the auth file); default: none. */
  readonly projectPolicies?: ProjectPolicySource;
  /** The IAM decisions of every call and HTTP route when authentication is on; default: the stored policies and `projectPolicies`. */
  readonly authorizer?: Authorizer;
  /** Serve gRPC and HTTP over TLS (PEM certificate chain and key; with `clientCa`, mutual TLS). */
  readonly tls?: TlsOptions;
}

export interface RunningServer {
  readonly host: string;
  readonly port: number;
  /** host:port: the value for BIGTABLE_EMULATOR_HOST. */
  readonly address: string;
  /** The HTTP port, when an HTTP server was started. */
  readonly httpPort?: number;
  /** Where the data lives. */
  readonly storage: 'memory' | 'disk';
  /** Stops the servers (calls in flight finish first) and closes the database. */
  stop(): Promise<void>;
}

/** tabletop's version (from package.json). */
export const VERSION: string = readVersion();

function readVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

interface OpenedEngine {
  readonly engine: StorageEngine;
  readonly storage: 'memory' | 'disk';
  readonly description: string;
  release(): void;
}

export interface OpenOptions {
  /** Keep data in memory only (the default when no `dataDir` is given). */
  readonly inMemory?: boolean;
  /** Directory of the durable store (created if missing; checked before anything opens). */
  readonly dataDir?: string;
  readonly config?: Partial<Config>;
  /** Where recovery, flushes, compactions and tablet changes are reported. */
  readonly logger?: Logger;
}

/**
 * Opens the storage engine. A data directory is checked first (prepareDataDir, via the lock),
 * so that a bad one is reported as what it is before anything else starts. `database` is
 * called once the database over the engine exists, so that the engine's reports can name
 * tables.
 */
async function openEngine(options: OpenOptions, database: () => TabletopDatabase | undefined): Promise<OpenedEngine> {
  checkRe2Addon();
  if (options.inMemory === true || options.dataDir === undefined) {
    return {
      engine: createMemoryEngine(),
      storage: 'memory',
      description: 'in memory (data is lost when the server stops)',
      release: () => undefined,
    };
  }
  // The durable engine's modules (and their native addons) load only when a data directory is used.
  const [{ createNodeFileSystem }, { lockDataDir }, { openDiskEngine }] = await Promise.all([
    import('./storage/fs/node-fs.js'),
    import('./storage/lsm/data-dir-lock.js'),
    import('./storage/lsm/disk-engine.js'),
  ]);
  const dataDir = options.dataDir;
  const lock = lockDataDir(dataDir);
  const logger = options.logger ?? consoleLogger;
  const tabletOf = (id: string): string => {
    const table = database()?.tableOfTablet(id);
    return table === undefined ? `tablet ${id}` : `tablet ${id} of ${tableNameString(table)}`;
  };
  try {
    const engine = await openDiskEngine({
      // Absolute paths, so that errors (DATA_LOSS names the damaged file) say where the file is.
      fs: createNodeFileSystem('/'),
      dir: resolvePath(dataDir),
      ...(options.config === undefined ? {} : { config: options.config }),
      onBackgroundError: (e) => logger.error(`storage background work failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
      onEvent: (e) => logEngineEvent(logger, e, { dataDir, tabletOf }),
    });
    // A server's build workers start with it: their memory is part of the server at rest, and the first flush does not wait for one.
    engine.builders?.warm();
    return { engine, storage: 'disk', description: `durable, in ${dataDir}`, release: () => lock.release() };
  } catch (e) {
    lock.release();
    throw e;
  }
}

/**
 * Opens the engine and the database over it, whose `close()` also releases
 * the data directory. A database that fails to open leaves nothing open.
 */
async function openDatabase(
  options: OpenOptions,
  logger: Logger,
  insight?: Insight,
): Promise<{ readonly db: TabletopDatabase; readonly opened: OpenedEngine }> {
  let db: TabletopDatabase | undefined;
  const opened = await openEngine({ ...options, logger }, () => db);
  try {
    db = await createDatabase({
      engine: opened.engine,
      logger,
      onClose: () => opened.release(),
      ...(options.config === undefined ? {} : { config: options.config }),
      ...(insight === undefined ? {} : { access: insight }),
    });
  } catch (e) {
    try {
      await opened.engine.close();
    } finally {
      opened.release();
    }
    throw e;
  }
  return { db, opened };
}

/**
 * Opens a database in this process (no server): durable in `dataDir`, or in
 * memory. Every method answers with a promise; `close()` closes it and
 * releases the data directory.
 */
export async function open(options: OpenOptions = {}): Promise<Database> {
  // An embedded database reports only what is amiss unless given a logger.
  const quiet: Logger = { info: () => undefined, warn: consoleLogger.warn, error: consoleLogger.error };
  const { db } = await openDatabase(options, options.logger ?? quiet);
  return promiseDatabase(db);
}

/** Starts a tabletop server in this process; by default on a free port, in memory, for test runners. */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? consoleLogger;
  const insight =
    options.insight === false
      ? undefined
      : new Insight({
          clock: systemClock,
          config: resolveConfig(options.config),
          rebinColumn,
          onError: (e) => logger.error(`insight recording failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
        });
  const { db, opened } = await openDatabase(options, logger, insight);
  let server;
  // Continuous materialized views: brought up (rebuilt if not closed cleanly) before the server serves a write.
  const materialized = createMaterializedViews(db, {
    onError: (e) => logger.error(`materialized view maintenance failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
    onWarning: (m) => logger.warn(m),
  });
  try {
    await materialized.start();
    await insight?.start(db, opened.engine);
    server = await startTabletopServer({
      // FROM finds the db's logical views and the engine's materialized views (the server builds the SQL engine).
      views: dbViewCatalog(db, (instance, id) => materialized.views.materializedView(instance, id)),
      db,
      host: options.host ?? 'localhost',
      port: options.port ?? 0,
      httpPort: options.httpPort ?? false,
      logger,
      storage: opened.description,
      version: VERSION,
      ...(options.tuning === undefined ? {} : { tuning: options.tuning }),
      ...(insight === undefined ? {} : { insight }),
      authenticator: options.authenticator,
      authorizer: options.authorizer,
      projectPolicies: options.projectPolicies,
      tls: options.tls,
    });
  } catch (e) {
    // A failed start (a port in use) stops the view engine's worker and timers before the db closes.
    await materialized.close().catch(() => undefined);
    await insight?.close();
    await db.close();
    throw e;
  }
  const running = server;
  let stopping: Promise<void> | undefined;
  return {
    host: running.host,
    port: running.port,
    address: running.address,
    ...(running.httpPort === undefined ? {} : { httpPort: running.httpPort }),
    storage: opened.storage,
    stop(): Promise<void> {
      // The recording writes its open columns before the database (and its engine) closes.
      stopping ??= running
        .stop()
        .then(() => materialized.close())
        .then(() => insight?.close())
        .finally(() => db.close());
      return stopping;
    },
  };
}

// ---- model types and helpers users need ----
export type {
  Database,
  TableInfo,
  TableSpec,
  InstanceInfo,
  ClusterInfo,
  AppProfileInfo,
  AuthorizedViewInfo,
  AuthorizedViewSpec,
  ReadRequest,
  ReadStats,
  RowReader,
} from './db/api.js';
export type { FamilySubset, SubsetView } from './model/authorized-view.js';
export type { ByteString } from './model/bytes.js';
export { fromBytes, toBytes, fromUtf8, toUtf8, compareBytes, prefixSuccessor } from './model/bytes.js';
export type { Cell, Row } from './model/cell.js';
export type { ColumnFamily } from './model/family.js';
export type { RowFilter, ByteBound } from './model/filter/index.js';
export type { GcRule } from './model/gc-rule.js';
export type { KeyRange, RowRange, RowSet, RangeBound } from './model/key-range.js';
export type { Mutation, ReadModifyWriteRule, RowMutation, AggregateInput } from './model/mutation.js';
export { SERVER_TIME } from './model/mutation.js';
export type { InstanceName, TableName } from './model/names.js';
export type { ValueType, Aggregator } from './model/value-type.js';
export { TabletopError, isTabletopError, type ErrorCode } from './model/errors.js';
export { LIMITS } from './model/limits.js';
export type { Logger } from './server/logger.js';
export type { ServerTuning } from './server/server-config.js';
export type { Authenticator } from './server/auth/authenticator.js';
export type { Authorizer } from './server/auth/authorizer.js';
export type { ProjectPolicySource } from './server/auth/project-policies.js';
export type { Principal } from './server/auth/principal.js';
export type { TlsOptions } from './server/tls-options.js';

// ---- the row-key builder (also `tabletopdb/keys`, which loads nothing of the server) ----
export * from './keys/index.js';
