import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { ByteString } from '../model/bytes.js';
import type { Row } from '../model/cell.js';
import type { Clock } from '../model/clock.js';
import { type ViewMatcher, outsideViewError } from '../model/authorized-view.js';
import { TabletopError, failedPrecondition, invalidArgument, isTabletopError } from '../model/errors.js';
import type { CompileOptions, RowFilter } from '../model/filter/index.js';
import { normalizeRowSet } from '../model/key-range.js';
import { LIMITS } from '../model/limits.js';
import type { Mutation, ReadModifyWriteRule, RowMutation } from '../model/mutation.js';
import {
  type ChildName,
  type InstanceName,
  type TableName,
  childNameString,
  backupNameString,
  parseAuthorizedViewName,
  parseBackupName,
  parseChildName,
  parseInstanceName,
  parseTableName,
  tableNameString,
} from '../model/names.js';
import { tooManyMutationsMessage, validateMutations, validateReadModifyWriteRules } from '../model/validate-mutation.js';
import type { GcRules, MaybePromise, StorageEngine } from '../storage/store.js';
import type {
  AppProfileInfo,
  AppProfileSpec,
  AuthorizedViewInfo,
  AuthorizedViewSpec,
  BackupInfo,
  BackupName,
  BackupSpec,
  BackupUpdate,
  LogicalViewInfo,
  LogicalViewSpec,
  ClusterInfo,
  ClusterNodesInfo,
  ClusterSpec,
  ClusterUpdate,
  DatabaseCore,
  DatabaseStats,
  FamilyModification,
  HotTabletInfo,
  IamPolicy,
  IamPolicySpec,
  InstanceInfo,
  InstanceSpec,
  MaterializedViewInfo,
  MaterializedViewSpec,
  ReadRequest,
  RowPuller,
  RowReader,
  TableInfo,
  TableSpec,
  TabletInfo,
} from './api.js';
import { Catalog } from './catalog/catalog.js';
import type { CatalogState } from './catalog/catalog-state.js';
import { AuthorizedViews, protectedViews, viewName, viewsNamingFamily } from './catalog/authorized-views.js';
import { InstanceAdmin } from './catalog/instance-admin.js';
import { LogicalViews } from './catalog/logical-views.js';
import { IamPolicies } from './catalog/iam-policies.js';
import { BackupAdmin } from './backups.js';
import { GcSweeper } from './gc-sweep.js';
import { compileRequestFilter } from './read-filter.js';
import { TableRowReader } from './row-reader.js';
import { type RowKeySample, sampleRowKeys, samplesWithin } from './sample-row-keys.js';
import { serverTimeMicros } from './server-time.js';
import { TableAdmin } from './table-admin.js';
import { andThen } from './maybe.js';
import { TabletManager } from './tablet-manager.js';
import {
  MaterializedViewAdmin,
  type MaterializedViewMaintainer,
  type MaterializedViewStatus,
  describeTable,
  viewNameString,
} from './materialized-views.js';
import type { AccessRecorder, KeyDistribution } from './access.js';
import { keyDistribution } from './key-distribution.js';
import { type RowShape, profileRows } from './row-profiles.js';
import type { TableRuntime } from './table-runtime.js';
import type { Schema } from './schema.js';
import {
  type ViewWrite,
  applyEntries,
  entrySlices,
  checkAndMutate,
  mutateRowInView,
  readModifyWrite,
  validateCheckAndMutate,
  validateEntries,
} from './write-path.js';

/** How often the backup sweep looks for expired backups. */
export const BACKUP_SWEEP_INTERVAL_MILLIS = 60_000;

/** The engine meta key under which the catalog is kept. */
export const CATALOG_META_KEY = 'catalog';

export interface DatabaseParts {
  readonly engine: StorageEngine;
  readonly clock: Clock;
  readonly config: Config;
  readonly catalog?: CatalogState;
  readonly random?: () => number;
  readonly onBackgroundError: (error: unknown) => void;
  /** Tablet splits, merges and moves with their reasons (info), and what the database finds amiss (warn). */
  readonly logger?: Logger;
  /** Runs last in `close()`, whether or not closing the engine failed (CreateDatabaseOptions.onClose). */
  readonly onClose?: () => void | Promise<void>;
  /** Where each table's traffic is recorded (CreateDatabaseOptions.access). */
  readonly access?: AccessRecorder;
}

/**
 * The DatabaseCore over a storage engine: the catalog (InstanceAdmin,
 * TableAdmin), the read path (TableRowReader) and the write path
 * (write-path.ts), plus the background GC sweep.
 */
export class LocalDatabase implements DatabaseCore {
  private readonly catalog: Catalog;
  private readonly instances: InstanceAdmin;
  private readonly logicalViews: LogicalViews;
  private readonly authorizedViews: AuthorizedViews;
  private readonly tables: TableAdmin;
  private readonly views: MaterializedViewAdmin;
  private readonly iam: IamPolicies;
  private readonly backups: BackupAdmin;
  private readonly sweeper: GcSweeper;
  private readonly backupSweeper: GcSweeper;
  private readonly tabletManager: TabletManager;
  private readonly clock: Clock;
  private readonly config: Config;
  private readonly filterOptions: CompileOptions;
  private closed = false;
  /** Tablet splits, merges and moves since the database opened (stats()), counted from the tablet manager's reports. */
  private readonly tabletWork = { tabletSplits: 0, tabletMerges: 0, tabletMoves: 0 };

  constructor(private readonly parts: DatabaseParts) {
    this.clock = parts.clock;
    this.config = parts.config;
    this.filterOptions = parts.random === undefined ? {} : { random: parts.random };
    this.catalog = new Catalog(parts.catalog);
    this.instances = new InstanceAdmin(this.catalog, parts.clock, parts.config, (_instance, tables) => this.tables.dropTables(tables));
    this.logicalViews = new LogicalViews(this.catalog, (name) => this.instances.find(name));
    this.authorizedViews = new AuthorizedViews(this.catalog, () => Math.floor(parts.clock.nowMicros() / 1000));
    const logger = parts.logger;
    this.tables = new TableAdmin(
      this.catalog,
      this.instances,
      parts.engine,
      parts.clock,
      (m, f) => (logger === undefined ? console.warn(m) : logger.warn(m, f)),
      parts.access,
    );
    this.backups = new BackupAdmin({
      catalog: this.catalog,
      instances: this.instances,
      tables: this.tables,
      engine: parts.engine,
      nowMillis: () => Math.floor(parts.clock.nowMicros() / 1000),
      catalogMeta: { key: CATALOG_META_KEY, catalogJson: () => JSON.stringify(this.catalog.toState()) },
    });
    this.views = new MaterializedViewAdmin(
      this.catalog,
      () => Math.floor(parts.clock.nowMicros() / 1000),
      (name) => this.instances.find(name),
    );
    this.iam = new IamPolicies(this.catalog, {
      instance: (name) => void this.instances.find(parseInstanceName(name)),
      table: (name) => void this.tables.getTable(parseTableName(name)),
      // i24-a: an authorized view exists when its table does, until the db knows authorized views.
      authorizedView: (name) => {
        const n = parseAuthorizedViewName(name);
        this.authorizedViews.get(n.table, n.id);
      },
      logicalView: (name) => {
        const n = parseChildName(name, 'logicalViews');
        this.logicalViews.get(n, n.id);
      },
      materializedView: (name) => void this.views.get(parseChildName(name, 'materializedViews')),
      backup: (name) => void this.backups.get(parseBackupName(name)),
    });
    this.sweeper = new GcSweeper(parts.config.gcSweepIntervalMillis, () => this.sweepGarbage(), parts.onBackgroundError);
    this.backupSweeper = new GcSweeper(BACKUP_SWEEP_INTERVAL_MILLIS, () => this.sweepBackups(), parts.onBackgroundError);
    this.tabletManager = new TabletManager({
      tables: this.tables,
      catalog: this.catalog,
      engine: parts.engine,
      clock: parts.clock,
      config: parts.config,
      catalogJson: () => JSON.stringify(this.catalog.toState()),
      catalogKey: CATALOG_META_KEY,
      setServeNodes: (instance, clusterId, serveNodes) =>
        andThen(this.persisted(this.instances.setServeNodes(instance, clusterId, serveNodes)), () => undefined),
      log: (m, f) => {
        this.countTabletWork(f?.event);
        logger?.info(m, f);
      },
      onError: parts.onBackgroundError,
      describeTable: (name) => this.describeTable(name),
    });
  }

  /** Opens the tables of the catalog and starts background work. */
  open(): MaybePromise<void> {
    const opened = this.tables.openExisting();
    const start = (): void => {
      if (this.backups.dropUnfinished()) void this.persisted(undefined);
      this.sweeper.start();
      this.backupSweeper.start();
      this.tabletManager.start();
    };
    if (opened instanceof Promise) return opened.then(start);
    start();
  }

  // ---- instance admin ----

  createInstance(name: InstanceName, spec: InstanceSpec, clusters: ReadonlyMap<string, ClusterSpec>): MaybePromise<InstanceInfo> {
    return this.persisted(this.instances.createInstance(name, spec, clusters));
  }
  getInstance(name: InstanceName): InstanceInfo {
    return this.instances.getInstance(name);
  }
  listInstances(project: string): InstanceInfo[] {
    return this.instances.listInstances(project);
  }
  updateInstance(name: InstanceName, update: Partial<InstanceSpec>): MaybePromise<InstanceInfo> {
    return this.persisted(this.instances.updateInstance(name, update));
  }
  /** Deleting an instance or a cluster deletes the backups in it (their stores once the catalog is durable). */
  deleteInstance(name: InstanceName): MaybePromise<void> {
    const stores = this.backups.storesOf(name);
    return andThen(this.persisted(this.instances.deleteInstance(name)), () => this.backups.dropStores(stores));
  }
  createCluster(instance: InstanceName, clusterId: string, spec: ClusterSpec): MaybePromise<ClusterInfo> {
    const info = this.instances.createCluster(instance, clusterId, spec);
    this.tabletManager.clusterChanged(instance, clusterId, info.serveNodes, 'created');
    return this.persisted(info);
  }
  getCluster(instance: InstanceName, clusterId: string): ClusterInfo {
    return this.instances.getCluster(instance, clusterId);
  }
  listClusters(instance: InstanceName): ClusterInfo[] {
    return this.instances.listClusters(instance);
  }
  /** The modelled nodes follow at once: tablets move off removed nodes and onto new ones (each move logged). */
  updateCluster(instance: InstanceName, clusterId: string, update: ClusterUpdate): MaybePromise<ClusterInfo> {
    const before = this.instances.getCluster(instance, clusterId);
    const after = this.instances.updateCluster(instance, clusterId, update);
    const a = after.autoscaling;
    const cause =
      a === undefined
        ? 'serve_nodes set by an admin request'
        : `autoscaling limits ${a.minServeNodes}-${a.maxServeNodes} nodes set by an admin request`;
    this.tabletManager.clusterChanged(instance, clusterId, before.serveNodes, cause);
    return this.persisted(after);
  }
  deleteCluster(instance: InstanceName, clusterId: string): MaybePromise<void> {
    const stores = this.backups.storesOf(instance, clusterId);
    this.instances.deleteCluster(instance, clusterId);
    this.iam.forget(childNameString(instance, 'clusters', clusterId)); // its backups' policies
    return andThen(this.persisted(undefined), () => this.backups.dropStores(stores));
  }
  createAppProfile(instance: InstanceName, profileId: string, spec: AppProfileSpec): MaybePromise<AppProfileInfo> {
    return this.persisted(this.instances.createAppProfile(instance, profileId, spec));
  }
  getAppProfile(instance: InstanceName, profileId: string): AppProfileInfo {
    return this.instances.getAppProfile(instance, profileId);
  }
  listAppProfiles(instance: InstanceName): AppProfileInfo[] {
    return this.instances.listAppProfiles(instance);
  }
  updateAppProfile(instance: InstanceName, profileId: string, update: Partial<AppProfileSpec>): MaybePromise<AppProfileInfo> {
    return this.persisted(this.instances.updateAppProfile(instance, profileId, update));
  }
  deleteAppProfile(instance: InstanceName, profileId: string): MaybePromise<void> {
    return this.persisted(this.instances.deleteAppProfile(instance, profileId));
  }
  createLogicalView(instance: InstanceName, viewId: string, spec: LogicalViewSpec): MaybePromise<LogicalViewInfo> {
    return this.persisted(this.logicalViews.create(instance, viewId, spec));
  }
  getLogicalView(instance: InstanceName, viewId: string): LogicalViewInfo {
    return this.logicalViews.get(instance, viewId);
  }
  listLogicalViews(instance: InstanceName): LogicalViewInfo[] {
    return this.logicalViews.list(instance);
  }
  updateLogicalView(
    instance: InstanceName,
    viewId: string,
    update: Partial<LogicalViewSpec>,
    etag?: string,
  ): MaybePromise<LogicalViewInfo> {
    return this.persisted(this.logicalViews.update(instance, viewId, update, etag));
  }
  deleteLogicalView(instance: InstanceName, viewId: string, etag?: string): MaybePromise<void> {
    this.logicalViews.delete(instance, viewId, etag);
    this.iam.forget(childNameString(instance, 'logicalViews', viewId));
    return this.persisted(undefined);
  }

  // ---- IAM policies ----

  getIamPolicy(resource: string): IamPolicy {
    return this.iam.get(resource);
  }
  setIamPolicy(resource: string, policy: IamPolicySpec, etag?: string): MaybePromise<IamPolicy> {
    return this.persisted(this.iam.set(resource, policy, etag));
  }
  storedIamPolicy(resource: string): IamPolicy | undefined {
    return this.iam.stored(resource);
  }

  // ---- continuous materialized views ----

  /**
   * Attaches the engine that checks, builds and maintains materialized views (src/sql/materialized): from now
   * on it hears of every acknowledged write. Without one, CreateMaterializedView answers FailedPrecondition.
   */
  attachMaterializedViews(maintainer: MaterializedViewMaintainer): void {
    this.views.maintainer = maintainer;
  }

  /** Every materialized view of every instance (the maintainer's start). */
  allMaterializedViews(): MaterializedViewInfo[] {
    return this.views.all();
  }

  async createMaterializedView(name: ChildName, spec: MaterializedViewSpec): Promise<MaterializedViewInfo> {
    const info = this.views.create(name, spec);
    await this.persisted(info);
    try {
      await this.views.maintainer!.created(info);
    } catch (e) {
      // The build failed: the view goes again, with whatever of its data was made.
      this.views.discard(name);
      await this.persisted(undefined);
      await this.views.maintainer?.deleted(info).catch(() => undefined);
      throw e;
    }
    return info;
  }
  getMaterializedView(name: ChildName): MaterializedViewInfo {
    return this.views.get(name);
  }
  /** The maintainer's side: a rebuild filled another pair of internal tables; readers move to them now. */
  async switchMaterializedView(name: ChildName, uid: string, generation: number): Promise<void> {
    this.views.switchGeneration(name, uid, generation);
    await this.persisted(undefined);
  }
  /** How logs and listings name a table: a materialized view's internal tables by the view's name. */
  describeTable(name: TableName): string {
    const entry = this.catalog.instance(name);
    return describeTable(name, entry === undefined ? [] : this.views.list(name));
  }
  /** How the maintainer is doing with a view (undefined without a maintainer or for a view it does not know). */
  materializedViewStatus(name: ChildName): MaterializedViewStatus | undefined {
    return this.views.maintainer?.status?.(name);
  }
  listMaterializedViews(instance: InstanceName): MaterializedViewInfo[] {
    return this.views.list(instance);
  }
  updateMaterializedView(
    name: ChildName,
    update: { readonly deletionProtection?: boolean },
    etag?: string,
  ): MaybePromise<MaterializedViewInfo> {
    return this.persisted(this.views.update(name, update, etag));
  }
  async deleteMaterializedView(name: ChildName, etag?: string): Promise<void> {
    const info = this.views.remove(name, etag);
    this.iam.forget(viewNameString(name));
    await this.persisted(info);
    await this.views.maintainer?.deleted(info);
  }

  /** The maintainer, when a materialized view reads the table: it is told which rows each acknowledged write changed. */
  private watcher(name: TableName): MaterializedViewMaintainer | undefined {
    const maintainer = this.views.maintainer;
    return maintainer !== undefined && maintainer.watches(name) ? maintainer : undefined;
  }

  // ---- table admin ----

  createTable(name: TableName, spec: TableSpec): MaybePromise<TableInfo> {
    return this.persisted(this.tables.createTable(name, spec));
  }
  getTable(name: TableName): TableInfo {
    return this.tables.getTable(name);
  }
  listTables(instance: InstanceName): TableInfo[] {
    return this.tables.listTables(instance);
  }
  updateTable(name: TableName, update: { readonly deletionProtection?: boolean }): MaybePromise<TableInfo> {
    return this.persisted(this.tables.updateTable(name, update));
  }
  deleteTable(name: TableName): MaybePromise<void> {
    const guarded = protectedViews(this.tables.tableRecord(name));
    if (guarded.length > 0) {
      throw failedPrecondition(
        `Table ${name.table} cannot be deleted: deletion protection is enabled on its authorized view(s) ${guarded.map((id) => viewName(name, id)).join(', ')}`,
      );
    }
    const readers = this.views.readersOf(name);
    if (readers.length > 0) {
      const views = readers.map((id) => viewNameString({ ...name, id })).join(', ');
      throw failedPrecondition(`Table ${name.table} cannot be deleted: materialized views read it (${views}); delete them first`);
    }
    return this.persisted(andThen(this.tables.deleteTable(name), () => void this.iam.forget(tableNameString(name))));
  }
  /**
   * Dropping a family that an authorized view names is refused (FAILED_PRECONDITION, naming the views) unless
   * `ignoreWarnings`: the views then name a family the table lacks, and cover it again if it is re-created.
   */
  modifyColumnFamilies(name: TableName, modifications: readonly FamilyModification[], ignoreWarnings: boolean): MaybePromise<TableInfo> {
    if (!ignoreWarnings) {
      const record = this.tables.tableRecord(name);
      for (const m of modifications) {
        const naming = m.kind === 'drop' ? viewsNamingFamily(record, m.family) : [];
        if (naming.length > 0) {
          throw failedPrecondition(
            `Column family ${m.family} cannot be dropped: authorized view(s) ${naming.map((id) => viewName(name, id)).join(', ')} name it (set ignore_warnings to drop it anyway)`,
          );
        }
      }
    }
    // Dropping a family changes rows without a write: views that read the table are told every row changed.
    return andThen(this.persisted(this.tables.modifyColumnFamilies(name, modifications)), (info) => {
      this.watcher(name)?.rowsChanged(name, 'all');
      return info;
    });
  }
  dropRowRange(
    name: TableName,
    target: { readonly kind: 'prefix'; readonly prefix: ByteString } | { readonly kind: 'all' },
  ): MaybePromise<void> {
    const dropped = this.tables.dropRowRange(name, target);
    return andThen(dropped, () => this.watcher(name)?.rowsChanged(name, 'all'));
  }
  generateConsistencyToken(name: TableName): MaybePromise<string> {
    return this.persisted(this.tables.generateConsistencyToken(name));
  }
  checkConsistency(name: TableName, token: string): boolean {
    return this.tables.checkConsistency(name, token);
  }

  // ---- authorized views ----

  createAuthorizedView(table: TableName, viewId: string, spec: AuthorizedViewSpec): MaybePromise<AuthorizedViewInfo> {
    return this.persisted(this.authorizedViews.create(table, viewId, spec));
  }
  getAuthorizedView(table: TableName, viewId: string): AuthorizedViewInfo {
    return this.authorizedViews.get(table, viewId);
  }
  listAuthorizedViews(table: TableName): AuthorizedViewInfo[] {
    return this.authorizedViews.list(table);
  }
  updateAuthorizedView(
    table: TableName,
    viewId: string,
    update: Partial<AuthorizedViewSpec>,
    options: { readonly etag?: string | undefined; readonly ignoreWarnings?: boolean | undefined } = {},
  ): MaybePromise<AuthorizedViewInfo> {
    return this.persisted(this.authorizedViews.update(table, viewId, update, options));
  }
  deleteAuthorizedView(table: TableName, viewId: string, etag?: string): MaybePromise<void> {
    this.authorizedViews.delete(table, viewId, etag);
    this.iam.forget(viewName(table, viewId));
    return this.persisted(undefined);
  }

  // ---- backups ----

  createBackup(cluster: ChildName, backupId: string, spec: BackupSpec): Promise<BackupInfo> {
    return this.backups.create(cluster, backupId, spec);
  }
  getBackup(name: BackupName): BackupInfo {
    return this.backups.get(name);
  }
  listBackups(instance: InstanceName, clusterId: string): BackupInfo[] {
    return this.backups.list(instance, clusterId);
  }
  updateBackup(name: BackupName, update: BackupUpdate): MaybePromise<BackupInfo> {
    return this.persisted(this.backups.update(name, update));
  }
  deleteBackup(name: BackupName): MaybePromise<void> {
    const stores = this.backups.delete(name);
    this.iam.forget(backupNameString(name));
    return andThen(this.persisted(undefined), () => this.backups.dropStores(stores));
  }
  restoreTable(table: TableName, backup: BackupName): Promise<TableInfo> {
    return this.backups.restore(table, backup);
  }
  copyBackup(cluster: ChildName, backupId: string, source: BackupName, expireTimeMillis: number): Promise<BackupInfo> {
    return this.backups.copy(cluster, backupId, source, expireTimeMillis);
  }

  /** Runs the backup sweep now (the timer runs one every BACKUP_SWEEP_INTERVAL_MILLIS): expired backups go. */
  runBackupSweep(): Promise<void> {
    return this.backupSweeper.runOnce();
  }

  private async sweepBackups(): Promise<void> {
    const swept = this.backups.sweep();
    if (!swept.changed) return;
    for (const name of swept.deleted) this.iam.forget(name);
    await this.persisted(undefined);
    await this.backups.dropStores(swept.stores);
  }

  /** The view a data call names, with the error of a write that leaves it. */
  private viewWrite(name: TableName, viewId: string): ViewWrite {
    return { matcher: this.authorizedViews.matcher(name, viewId), denied: () => outsideViewError(viewName(name, viewId)) };
  }

  // ---- data ----

  readRows(name: TableName, request: ReadRequest): RowPuller & RowReader {
    const table = this.tables.runtime(name);
    const limit = request.limit ?? 0;
    if (!Number.isSafeInteger(limit) || limit < 0) throw invalidArgument(`Invalid rows_limit ${limit}: must be a non-negative integer`);
    const view: ViewMatcher | undefined = request.view === undefined ? undefined : this.authorizedViews.matcher(name, request.view);
    const requested = request.ranges ?? normalizeRowSet(request.rows);
    const ranges = view === undefined ? requested : view.restrictRanges(requested);
    const filter = request.filter === undefined ? undefined : compileRequestFilter(request.filter, this.filterOptions);
    return new TableRowReader({
      view,
      ranges,
      reversed: request.reversed,
      limit,
      filter,
      schema: table.schema,
      tablets: () => table.tablets,
      nowMicros: this.clock.nowMicros(),
      usage: table,
    });
  }

  sampleRowKeys(name: TableName, view?: string): MaybePromise<readonly RowKeySample[]> {
    const samples = sampleRowKeys(this.tables.runtime(name).tablets, this.config.samplePieceBytes);
    if (view === undefined) return samples;
    const ranges = this.authorizedViews.matcher(name, view).ranges;
    return andThen(samples, (s) => samplesWithin(s, ranges));
  }

  async mutateRow(name: TableName, key: ByteString, mutations: readonly Mutation[], view?: string): Promise<void> {
    const table = this.tables.runtime(name);
    const schema = table.schema;
    const through = view === undefined ? undefined : this.viewWrite(name, view);
    validateMutations(schema, key, mutations);
    const results: (TabletopError | undefined)[] = [undefined];
    try {
      if (through === undefined) await applyEntries(table, [{ key, mutations }], results, schema, serverTimeMicros(this.clock));
      else await this.applyInView(table, [{ key, mutations }], results, schema, through);
    } finally {
      this.watcher(name)?.rowsChanged(name, [key]);
    }
    const error = results[0];
    if (error !== undefined) throw error;
  }

  async mutateRows(name: TableName, entries: readonly RowMutation[], view?: string): Promise<(TabletopError | undefined)[]> {
    const table = this.tables.runtime(name);
    const through = view === undefined ? undefined : this.viewWrite(name, view);
    if (entries.length === 0) throw invalidArgument('MutateRows needs at least one entry');
    let total = 0;
    for (const e of entries) total += e.mutations.length;
    if (total > LIMITS.maxMutationsPerRequest) throw invalidArgument(tooManyMutationsMessage(total));
    const schema = table.schema;
    const results = validateEntries(schema, entries);
    const now = serverTimeMicros(this.clock);
    const apply = (part: readonly RowMutation[], partResults: (TabletopError | undefined)[]): Promise<void> =>
      through === undefined
        ? applyEntries(table, part, partResults, schema, now)
        : this.applyInView(table, part, partResults, schema, through);
    try {
      // A large request goes in slices, other clients served in between (each entry is atomic on its own, not the request).
      for (const [from, to] of entrySlices(entries)) {
        if (from === 0 && to === entries.length) {
          await apply(entries, results);
          break;
        }
        if (from > 0) await yieldToLoop();
        const part = results.slice(from, to);
        try {
          await apply(entries.slice(from, to), part);
        } finally {
          for (let j = 0; j < part.length; j++) results[from + j] = part[j];
        }
      }
    } finally {
      this.watcher(name)?.rowsChanged(
        name,
        entries.map((e) => e.key),
      );
    }
    return results;
  }

  async checkAndMutateRow(
    name: TableName,
    key: ByteString,
    predicate: RowFilter | undefined,
    trueMutations: readonly Mutation[],
    falseMutations: readonly Mutation[],
    view?: string,
  ): Promise<boolean> {
    const table = this.tables.runtime(name);
    const schema = table.schema;
    const through = view === undefined ? undefined : this.viewWrite(name, view);
    validateCheckAndMutate(schema, key, trueMutations, falseMutations);
    if (through !== undefined) {
      // Both branches, whichever applies: the request names cells outside the view or it does not.
      const families = schema.familyNames;
      if (
        through.matcher.checkMutations(key, trueMutations, families) === 'out' ||
        through.matcher.checkMutations(key, falseMutations, families) === 'out'
      ) {
        throw through.denied();
      }
    }
    const compiled = predicate === undefined ? undefined : compileRequestFilter(predicate, this.filterOptions);
    try {
      return await checkAndMutate(table, key, compiled, trueMutations, falseMutations, serverTimeMicros(this.clock), through);
    } finally {
      this.watcher(name)?.rowsChanged(name, [key]);
    }
  }

  async readModifyWriteRow(name: TableName, key: ByteString, rules: readonly ReadModifyWriteRule[], view?: string): Promise<Row> {
    const table = this.tables.runtime(name);
    const schema = table.schema;
    if (view !== undefined) {
      const through = this.viewWrite(name, view);
      if (!through.matcher.rulesInView(key, rules)) throw through.denied();
    }
    validateReadModifyWriteRules(schema, key, rules);
    try {
      return await readModifyWrite(table, key, rules, schema, serverTimeMicros(this.clock));
    } finally {
      this.watcher(name)?.rowsChanged(name, [key]);
    }
  }

  /**
   * Writes through an authorized view, entry by entry where an entry's deletes depend on its row: entries
   * outside the view get its PERMISSION_DENIED in their slot; runs of entries that are wholly inside go through
   * the write path as one batch; an entry whose DeleteFromRow / DeleteFromFamily may remove cells outside the
   * view reads its row first (mutateRowInView). Entries apply in order.
   */
  private async applyInView(
    table: TableRuntime,
    entries: readonly RowMutation[],
    results: (TabletopError | undefined)[],
    schema: Schema,
    view: ViewWrite,
  ): Promise<void> {
    const now = serverTimeMicros(this.clock);
    const families = schema.familyNames;
    const verdicts = entries.map((e, i) => (results[i] === undefined ? view.matcher.checkMutations(e.key, e.mutations, families) : 'in'));
    verdicts.forEach((v, i) => {
      if (v === 'out') results[i] = view.denied();
    });
    let from = 0;
    while (from < entries.length) {
      let to = from;
      while (to < entries.length && verdicts[to] !== 'dependsOnRow') to++;
      if (to > from) {
        // A run of plain entries: the other slots of `results` read as done for this batch.
        const slots = results.map((r, i) => (i >= from && i < to ? r : (r ?? PASSED)));
        await applyEntries(table, entries, slots, schema, now);
        for (let i = from; i < to; i++) results[i] = slots[i] === PASSED ? undefined : slots[i];
      }
      if (to < entries.length) {
        const e = entries[to]!;
        try {
          await mutateRowInView(table, e.key, e.mutations, schema, now, view);
        } catch (err) {
          if (!isTabletopError(err)) throw err;
          results[to] = err;
        }
      }
      from = to + 1;
    }
  }

  /**
   * Makes the catalog durable after a change: the change's result is returned
   * once the engine has stored the new catalog. Snapshots are written in call
   * order, so the last one written is the latest.
   */
  private persisted<T>(result: MaybePromise<T>): MaybePromise<T> {
    const store = (value: T): MaybePromise<T> => {
      const written = this.parts.engine.writeMeta(CATALOG_META_KEY, JSON.stringify(this.catalog.toState()));
      return written instanceof Promise ? written.then(() => value) : value;
    };
    return result instanceof Promise ? result.then(store) : store(result);
  }

  // ---- tablets and nodes ----

  listTablets(name: TableName): TabletInfo[] {
    return this.tabletManager.tablets(this.tables.runtime(name));
  }

  listNodes(instance: InstanceName): ClusterNodesInfo[] {
    this.instances.getInstance(instance);
    return this.tabletManager.nodes(instance);
  }

  listHotTablets(instance: InstanceName, windowSeconds?: number, clusterId?: string): HotTabletInfo[] {
    if (clusterId === undefined) this.instances.getInstance(instance);
    else this.instances.getCluster(instance, clusterId);
    return this.tabletManager.hotTablets(instance, windowSeconds, clusterId);
  }

  /** The projects that have instances, sorted. */
  listProjects(): string[] {
    const projects = new Set<string>();
    for (const entry of this.catalog.allInstances()) projects.add(entry.record.project);
    return [...projects].sort();
  }

  stats(): DatabaseStats {
    return { ...this.tabletWork, engine: this.parts.engine.stats?.() };
  }

  private countTabletWork(event: unknown): void {
    if (event === 'tablet-split') this.tabletWork.tabletSplits++;
    else if (event === 'tablets-merged') this.tabletWork.tabletMerges++;
    else if (event === 'tablet-moved') this.tabletWork.tabletMoves++;
  }

  /** Runs one round of tablet checks (splits, merges) and balancing now. */
  runTabletChecks(): Promise<void> {
    return this.tabletManager.runOnce();
  }

  /** Runs a GC sweep now (the timer runs one every `gcSweepIntervalMillis`). */
  runGcSweep(): Promise<void> {
    return this.sweeper.runOnce();
  }

  keyDistribution(name: TableName, opts: { readonly exactUpToRows: number; readonly bytesPerPiece: number }): Promise<KeyDistribution> {
    return keyDistribution(this.tables.runtime(name).tablets, opts);
  }

  profileRows(name: TableName, keys: readonly ByteString[]): Promise<RowShape[]> {
    return profileRows(this.tables.runtime(name).tablets, keys);
  }

  tableSize(name: TableName): { rows: number; rowsEstimated: boolean; storedBytes: number; tabletIds: string[] } {
    let rows = 0;
    let rowsEstimated = false;
    let storedBytes = 0;
    const tabletIds: string[] = [];
    for (const tablet of this.tables.runtime(name).tablets.tablets) {
      const s = tablet.store.stats();
      rows += s.rows;
      rowsEstimated ||= s.rowsEstimated;
      storedBytes += s.bytes;
      tabletIds.push(tablet.id);
    }
    return { rows, rowsEstimated, storedBytes, tabletIds };
  }

  /** The table a tablet (storage store) belongs to, if it is a live table's. */
  tableOfTablet(tabletId: string): TableName | undefined {
    for (const table of this.tables.liveTables()) {
      if (tabletId.startsWith(`${table.uid}.`)) return table.name;
    }
    return undefined;
  }

  /** The catalog in its persisted form. */
  catalogState(): CatalogState {
    return this.catalog.toState();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.sweeper.stop();
      await this.backupSweeper.stop();
      await this.tabletManager.stop();
      for (const table of this.tables.liveTables()) {
        for (const tablet of table.tablets.tablets) await tablet.store.close();
      }
      await this.parts.engine.close();
    } finally {
      await this.parts.onClose?.();
    }
  }

  private async sweepGarbage(): Promise<void> {
    for (const table of this.tables.liveTables()) {
      if (!table.schema.hasGcRules || table.deleted) continue;
      const gc = gcRulesOf(table);
      const now = this.clock.nowMicros();
      for (const tablet of table.tablets.tablets) {
        if (this.closed) return;
        if (table.deleted) break;
        const r = tablet.store.collectGarbage(gc, now);
        if (r instanceof Promise) await r;
      }
    }
  }
}

/** Marks a MutateRows slot that another batch handles (applyInView). */
const PASSED = new TabletopError('Cancelled', 'handled by another batch');

/** A table's GC rules: its families' rules as of each read; cells of families no longer in the schema go. */
function gcRulesOf(table: TableRuntime): GcRules {
  return {
    current: () => {
      const schema = table.schema;
      return new Map(schema.familyNames.map((f) => [f, schema.gcRule(f)]));
    },
  };
}
