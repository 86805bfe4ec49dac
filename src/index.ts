/**
 * tabletop's public API.
 *
 *   import { startServer } from 'tabletop';
 *   const server = await startServer();               // in-process, free port, in memory
 *   process.env.BIGTABLE_EMULATOR_HOST = server.address;
 *   // ... run tests with the official clients ...
 *   await server.stop();
 */
import { readFileSync } from 'node:fs';
import { createDatabase } from './db/index.js';
import type { Database } from './db/api.js';
import { consoleLogger, type Logger } from './server/logger.js';
import { startTabletopServer } from './server/server.js';
import type { ServerTuning } from './server/server-config.js';
import { createMemoryEngine } from './storage/memory/index.js';

export interface StartServerOptions {
  /** gRPC port; default 0 (a free port). */
  readonly port?: number;
  /** Interface to bind; default "localhost" (loopback only). */
  readonly host?: string;
  /** HTTP port (index page, JSON API, /metrics); 0 picks a free port; default false (no HTTP server). */
  readonly httpPort?: number | false;
  /** Keep data in memory only. Until the durable engine lands, data is always kept in memory. */
  readonly inMemory?: boolean;
  /** Where durable data will live once the durable engine lands (ignored for now; see `storage`). */
  readonly dataDir?: string;
  /** Where the server reports internal errors; default stderr. */
  readonly logger?: Logger;
  /** Server tunables (message sizes, heartbeats, limits); defaults suit most uses. */
  readonly tuning?: Partial<ServerTuning>;
}

export interface RunningServer {
  readonly host: string;
  readonly port: number;
  /** host:port: the value for BIGTABLE_EMULATOR_HOST. */
  readonly address: string;
  /** The HTTP port, when an HTTP server was started. */
  readonly httpPort?: number;
  /** Where the data lives: "memory" for now. */
  readonly storage: 'memory';
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

/**
 * Opens a database in this process (no server). Data is kept in memory until
 * the durable engine lands.
 */
export async function open(_options: { readonly inMemory?: boolean; readonly dataDir?: string } = {}): Promise<Database> {
  return createDatabase({ engine: createMemoryEngine() });
}

/** Starts a tabletop server in this process; by default on a free port, for test runners. */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const db = await createDatabase({ engine: createMemoryEngine() });
  let server;
  try {
    server = await startTabletopServer({
      db,
      host: options.host ?? 'localhost',
      port: options.port ?? 0,
      httpPort: options.httpPort ?? false,
      logger: options.logger ?? consoleLogger,
      storage: 'in memory (data is lost when the server stops)',
      version: VERSION,
      ...(options.tuning === undefined ? {} : { tuning: options.tuning }),
    });
  } catch (e) {
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
    storage: 'memory',
    stop(): Promise<void> {
      stopping ??= running.stop().finally(() => db.close());
      return stopping;
    },
  };
}

// ---- model types and helpers users need ----
export type { Database, TableInfo, TableSpec, InstanceInfo, ClusterInfo, AppProfileInfo, ReadRequest, RowReader } from './db/api.js';
export type { ByteString } from './model/bytes.js';
export { fromBytes, toBytes, fromUtf8, toUtf8, compareBytes, prefixSuccessor } from './model/bytes.js';
export type { Cell, Row } from './model/cell.js';
export type { ColumnFamily } from './model/family.js';
export type { RowFilter, ByteBound } from './model/filter/ast.js';
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
