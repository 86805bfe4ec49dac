import { createDatabase, type TabletopDatabase } from '../../db/index.js';
import type { InsightQueries } from '../../insight/api-types.js';
import type { HistorySource } from '../../insight/history-source.js';
import type { SqlEngine } from '../../sql/engine.js';
import type { StorageEngine } from '../../storage/store.js';
import { createMemoryEngine } from '../../storage/memory/index.js';
import { memoryLogger } from '../../testing/memory-logger.js';
import { startTabletopServer, type TabletopServer } from '../server.js';
import type { ServerTuning } from '../server-config.js';
import { type RawClients, rawClients } from './raw-client.js';

export interface TestServer {
  readonly server: TabletopServer;
  readonly clients: RawClients;
  /** Everything the server logged; tests assert that no internal error was logged. */
  readonly log: string[];
  stop(): Promise<void>;
}

/** A server on a free port over a fresh in-memory database, with raw clients. */
export async function startTestServer(
  options: {
    engine?: StorageEngine;
    tuning?: Partial<ServerTuning>;
    httpPort?: number | false;
    /** The recording the HTTP API's heatmap and diagnostics read, and the queries over it. */
    insight?: { source: HistorySource; queries: (source: HistorySource) => InsightQueries };
    /** The SQL engine of PrepareQuery and ExecuteQuery (or one made over the server's database). */
    sql?: SqlEngine | ((db: TabletopDatabase) => SqlEngine);
  } = {},
): Promise<TestServer> {
  const db = await createDatabase({ engine: options.engine ?? createMemoryEngine() });
  const logger = memoryLogger();
  const server = await startTabletopServer({
    db,
    host: 'localhost',
    port: 0,
    httpPort: options.httpPort ?? false,
    logger,
    storage: 'in memory',
    version: 'test',
    ...(options.tuning === undefined ? {} : { tuning: options.tuning }),
    ...(options.sql === undefined ? {} : { sql: typeof options.sql === 'function' ? options.sql(db) : options.sql }),
    ...(options.insight === undefined ? {} : { insight: options.insight.source, insightQueries: options.insight.queries }),
  });
  const clients = rawClients(server.address);
  return {
    server,
    clients,
    log: logger.lines,
    async stop() {
      clients.close();
      await server.stop();
      await db.close();
    },
  };
}
