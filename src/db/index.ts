import { type Config, resolveConfig } from '../config.js';
import { type Clock, systemClock } from '../model/clock.js';
import type { Logger } from '../log.js';
import type { ByteString } from '../model/bytes.js';
import type { ChildName, TableName } from '../model/names.js';
import type { StorageEngine } from '../storage/store.js';
import type { AccessRecorder, KeyDistribution } from './access.js';
import type { DatabaseCore, DatabaseStats, MaterializedViewInfo } from './api.js';
import type { MaterializedViewMaintainer, MaterializedViewStatus } from './materialized-views.js';
import type { CatalogState } from './catalog/catalog-state.js';
import type { RowShape } from './row-profiles.js';
import { CATALOG_META_KEY, LocalDatabase } from './database.js';

export type * from './api.js';
export type { AccessRecorder, KeyDistribution, RowBatch, TableAccess } from './access.js';
export type { MaterializedViewMaintainer, MaterializedViewStatus } from './materialized-views.js';
export { internalTableOwner, viewTables } from './materialized-views.js';
export type { CatalogState } from './catalog/catalog-state.js';
export type { FamilyShape, RowShape } from './row-profiles.js';
export { promiseDatabase } from './promise-database.js';
export { SYSTEM_STORE_PREFIX } from './table-admin.js';

export interface CreateDatabaseOptions {
  readonly engine: StorageEngine;
  /** Defaults to the system clock. */
  readonly clock?: Clock;
  readonly config?: Partial<Config>;
  /** A catalog to start from; by default the one the engine persisted (empty for a new engine). */
  readonly catalog?: CatalogState;
  /** Random source of row_sample_filter (uniform in [0, 1)); Math.random by default. */
  readonly random?: () => number;
  /**
   * Receives failures of background work (the GC sweep, dropping the data of a
   * deleted instance). Defaults to printing them on stderr.
   */
  readonly onBackgroundError?: (error: unknown) => void;
  /** Tablet splits, merges and moves (info), and what the database finds amiss (warn); silent by default. */
  readonly logger?: Logger;
  /**
   * Runs once when the database closes, after its engine (whether or not that
   * failed): releases what the opener holds for it, such as the data
   * directory's lock. Not run when createDatabase fails: the opener then
   * still holds what it holds.
   */
  readonly onClose?: () => void | Promise<void>;
  /** Receives each table's traffic per row and per request (src/insight's recorder); nothing is recorded without it. */
  readonly access?: AccessRecorder;
}

/** A DatabaseCore that also exposes maintenance hooks for tools and tests. */
export interface TabletopDatabase extends DatabaseCore {
  /** Runs a GC sweep now (the background sweep runs one every `gcSweepIntervalMillis`). */
  runGcSweep(): Promise<void>;
  /** Runs the backup sweep now (expired backups deleted, HOT ones turned STANDARD; a timer runs it every minute). */
  runBackupSweep(): Promise<void>;
  /** The catalog in its persisted, JSON-serialisable form. */
  catalogState(): CatalogState;
  /** Runs one round of tablet checks (size and load splits, merges) and node balancing now. */
  runTabletChecks(): Promise<void>;
  /** The table a tablet belongs to, if it is a live table's (for logs that name tablets). */
  tableOfTablet(tabletId: string): TableName | undefined;
  /** For key buckets: exact keys of small tables, byte-offset samples of big ones. Reads stores directly: records no usage. */
  keyDistribution(name: TableName, opts: { readonly exactUpToRows: number; readonly bytesPerPiece: number }): Promise<KeyDistribution>;
  /**
   * The shapes of the rows with these keys (size, and per family cells, columns, versions, largest cell), read from
   * the stores directly: records no usage (the schema advisor's row profiles). Missing rows are left out.
   */
  profileRows(name: TableName, keys: readonly ByteString[]): Promise<RowShape[]>;
  /** Rows and stored bytes of a table and its tablets' ids, from the stores' stats: cheap (no load figures, no placement). */
  tableSize(name: TableName): TableSize;
  /** The projects that have instances, sorted. */
  listProjects(): string[];
  /** What the database and its engine have done and hold (for /metrics). */
  stats(): DatabaseStats;
  /** Attaches the engine of continuous materialized views (src/sql/materialized; src/index.ts wires it). */
  attachMaterializedViews(maintainer: MaterializedViewMaintainer): void;
  /** Every materialized view of every instance. */
  allMaterializedViews(): MaterializedViewInfo[];
  /** How logs and listings name a table: `$mv.<uid>` as `projects/../materializedViews/<id> (data)`. */
  describeTable(name: TableName): string;
  /** The maintainer's side: points a view at the internal tables of another generation (viewTables), durably. */
  switchMaterializedView(name: ChildName, uid: string, generation: number): Promise<void>;
  /** How the maintainer is doing with a view: pending rows, rebuilds, rows left out (the JSON API shows it). */
  materializedViewStatus(name: ChildName): MaterializedViewStatus | undefined;
}

/** What `TabletopDatabase.tableSize` tells. */
export interface TableSize {
  readonly rows: number;
  /** The durable engine's row counts are estimates (StoreStats.rowsEstimated). */
  readonly rowsEstimated: boolean;
  readonly storedBytes: number;
  readonly tabletIds: readonly string[];
}

/** Opens a database over `engine`. */
export async function createDatabase(options: CreateDatabaseOptions): Promise<TabletopDatabase> {
  const stored = options.engine.readMeta(CATALOG_META_KEY);
  const catalog = options.catalog ?? (stored === undefined ? undefined : (JSON.parse(stored) as CatalogState));
  const db = new LocalDatabase({
    engine: options.engine,
    clock: options.clock ?? systemClock,
    config: resolveConfig(options.config),
    ...(catalog === undefined ? {} : { catalog }),
    ...(options.random === undefined ? {} : { random: options.random }),
    onBackgroundError: options.onBackgroundError ?? reportBackgroundError,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.onClose === undefined ? {} : { onClose: options.onClose }),
    ...(options.access === undefined ? {} : { access: options.access }),
  });
  await db.open();
  return db;
}

function reportBackgroundError(error: unknown): void {
  console.error('tabletop: background work failed:', error);
}
