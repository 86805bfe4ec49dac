import type { SubsetView } from '../model/authorized-view.js';
import type { ByteString } from '../model/bytes.js';
import type { Row } from '../model/cell.js';
import type { ColumnFamily } from '../model/family.js';
import type { RowFilter } from '../model/filter/index.js';
import type { GcRule } from '../model/gc-rule.js';
import type { KeyRange, RowSet } from '../model/key-range.js';
import type { Mutation, ReadModifyWriteRule, RowMutation } from '../model/mutation.js';
import type { ChildName, InstanceName, TableName } from '../model/names.js';
import type { TabletopError } from '../model/errors.js';
import type { EngineStats, MaybePromise } from '../storage/store.js';
import type { ValueType } from '../model/value-type.js';
import type { LoadRates } from '../tablet/load-meter.js';

/**
 * The database's contract: one set of methods in two faces. Plain model
 * types only (no protobuf). Every method validates its whole input before it
 * touches data and fails with a TabletopError with a precise code.
 *
 *  - `DatabaseCore`, what the gRPC and HTTP servers call: a method answers
 *    now when it can, with a plain value or a MaybePromise (the memory engine
 *    answers synchronously, and a call that needs no I/O then costs no
 *    promise and no microtask); bad input throws at once, except from the
 *    methods typed Promise, which reject. ReadRows is pulled row by row
 *    (RowPuller). createDatabase() (index.ts) makes one.
 *  - `Database`, the public face (src/index.ts's open()): the same methods,
 *    each answering with a promise (a failure rejects it, nothing throws),
 *    and ReadRows an async-iterable RowReader (`for await`). promiseDatabase()
 *    (promise-database.ts) makes it over a core, one promise per call.
 *
 * The servers keep calling the core itself, so their hot paths cost what
 * they did; implementation modules import their types from here.
 */
export interface DatabaseCore {
  // ---- instance admin ----
  createInstance(name: InstanceName, spec: InstanceSpec, clusters: ReadonlyMap<string, ClusterSpec>): MaybePromise<InstanceInfo>;
  /**
   * NOT_FOUND unless CreateInstance created the instance or a CreateTable used
   * it (which creates it implicitly, with one cluster); no other call creates one.
   */
  getInstance(name: InstanceName): InstanceInfo;
  listInstances(project: string): InstanceInfo[];
  updateInstance(name: InstanceName, update: Partial<InstanceSpec>): MaybePromise<InstanceInfo>;
  deleteInstance(name: InstanceName): MaybePromise<void>;

  createCluster(instance: InstanceName, clusterId: string, spec: ClusterSpec): MaybePromise<ClusterInfo>;
  getCluster(instance: InstanceName, clusterId: string): ClusterInfo;
  listClusters(instance: InstanceName): ClusterInfo[];
  /** Rescales the modelled nodes at once when the node count changes (the balancer spreads tablets onto them). */
  updateCluster(instance: InstanceName, clusterId: string, update: ClusterUpdate): MaybePromise<ClusterInfo>;
  deleteCluster(instance: InstanceName, clusterId: string): MaybePromise<void>;

  createAppProfile(instance: InstanceName, profileId: string, spec: AppProfileSpec): MaybePromise<AppProfileInfo>;
  getAppProfile(instance: InstanceName, profileId: string): AppProfileInfo;
  listAppProfiles(instance: InstanceName): AppProfileInfo[];
  updateAppProfile(instance: InstanceName, profileId: string, update: Partial<AppProfileSpec>): MaybePromise<AppProfileInfo>;
  deleteAppProfile(instance: InstanceName, profileId: string): MaybePromise<void>;

  /**
   * Logical views (catalog/logical-views.ts): named queries, stored as given (the server checks the query with
   * the SQL engine first). Ids are unique among the instance's tables and views. An `etag` given to update or
   * delete must be the view's current one (ABORTED otherwise); a protected view cannot be deleted.
   */
  createLogicalView(instance: InstanceName, viewId: string, spec: LogicalViewSpec): MaybePromise<LogicalViewInfo>;
  getLogicalView(instance: InstanceName, viewId: string): LogicalViewInfo;
  /** In id order. */
  listLogicalViews(instance: InstanceName): LogicalViewInfo[];
  updateLogicalView(instance: InstanceName, viewId: string, update: Partial<LogicalViewSpec>, etag?: string): MaybePromise<LogicalViewInfo>;
  deleteLogicalView(instance: InstanceName, viewId: string, etag?: string): MaybePromise<void>;
  // ---- continuous materialized views (materialized-views.ts) ----
  /**
   * Checks the query (through the attached maintainer: InvalidArgument for a query that cannot be a
   * materialized view), stores the view, and answers once its data is built from the source table.
   * FailedPrecondition when no maintainer is attached (a database without the SQL engine).
   */
  createMaterializedView(name: ChildName, spec: MaterializedViewSpec): Promise<MaterializedViewInfo>;
  getMaterializedView(name: ChildName): MaterializedViewInfo;
  /** In id order. */
  listMaterializedViews(instance: InstanceName): MaterializedViewInfo[];
  /** Only deletion protection changes (the query is immutable); Aborted when `etag` is given and stale. */
  updateMaterializedView(
    name: ChildName,
    update: { readonly deletionProtection?: boolean },
    etag?: string,
  ): MaybePromise<MaterializedViewInfo>;
  /** FailedPrecondition under deletion protection; Aborted when `etag` is given and stale. Its data goes too. */
  deleteMaterializedView(name: ChildName, etag?: string): Promise<void>;

  // ---- IAM policies (catalog/iam-policies.ts) ----
  /**
   * The policy set on a resource: an instance, table, authorized view, logical or materialized view, or backup
   * (a backup is NOT_FOUND until backups exist); an empty policy (EMPTY_POLICY_ETAG) when none was set. NOT_FOUND
   * for a resource that does not exist, INVALID_ARGUMENT for a name that cannot hold a policy.
   */
  getIamPolicy(resource: string): IamPolicy;
  /**
   * Replaces the resource's policy (the server has checked roles and members) and answers it with a fresh etag.
   * ABORTED when `etag` is given (non-empty) and is not the current one; INVALID_ARGUMENT for a conditional
   * binding in a policy whose version is not 3. Deleting a resource deletes its policy and its children's.
   */
  setIamPolicy(resource: string, policy: IamPolicySpec, etag?: string): MaybePromise<IamPolicy>;
  /** The policy stored for `resource`, without checking that it exists (the authorizer's lookup on every call); undefined when none. */
  storedIamPolicy(resource: string): IamPolicy | undefined;

  // ---- table admin ----
  createTable(name: TableName, spec: TableSpec): MaybePromise<TableInfo>;
  getTable(name: TableName): TableInfo;
  listTables(instance: InstanceName): TableInfo[];
  updateTable(name: TableName, update: { readonly deletionProtection?: boolean }): MaybePromise<TableInfo>;
  deleteTable(name: TableName): MaybePromise<void>;
  /** Applies all modifications atomically: either every one or none. */
  modifyColumnFamilies(name: TableName, modifications: readonly FamilyModification[], ignoreWarnings: boolean): MaybePromise<TableInfo>;
  dropRowRange(
    name: TableName,
    target: { readonly kind: 'prefix'; readonly prefix: ByteString } | { readonly kind: 'all' },
  ): MaybePromise<void>;
  generateConsistencyToken(name: TableName): MaybePromise<string>;
  /**
   * Authorized views (catalog/authorized-views.ts): named subsets of a table's rows and columns, stored on the
   * table's record. An `etag` given to update or delete must be the view's current one (ABORTED otherwise); a
   * protected view cannot be deleted and protects its table and instance from deletion (FAILED_PRECONDITION).
   * Data calls name a view with their `view` argument (its id in the table they name).
   */
  createAuthorizedView(table: TableName, viewId: string, spec: AuthorizedViewSpec): MaybePromise<AuthorizedViewInfo>;
  getAuthorizedView(table: TableName, viewId: string): AuthorizedViewInfo;
  /** In id order. */
  listAuthorizedViews(table: TableName): AuthorizedViewInfo[];
  /** `ignoreWarnings`: store a subset that names families the table does not have (FAILED_PRECONDITION otherwise). */
  updateAuthorizedView(
    table: TableName,
    viewId: string,
    update: Partial<AuthorizedViewSpec>,
    options?: { readonly etag?: string | undefined; readonly ignoreWarnings?: boolean | undefined },
  ): MaybePromise<AuthorizedViewInfo>;
  deleteAuthorizedView(table: TableName, viewId: string, etag?: string): MaybePromise<void>;
  /**
   * Backups (backups.ts): point-in-time copies of a table's data and schema, kept under a cluster, each in
   * storage clones of the table's stores (StorageEngine.cloneStores). Created under the table's write gate (one
   * consistent point), READY when the clones are made; restored into a new table of the same instance; copied
   * into another cluster or instance (the source READY and not a copy). Expire times: 6 hours to 90 days after
   * creation (copies: 30 days); the backup sweep deletes expired backups and turns HOT backups STANDARD at
   * their hot_to_standard_time. A damaged backup is not restored (DATA_LOSS). Deleting a table keeps its backups.
   */
  createBackup(cluster: ChildName, backupId: string, spec: BackupSpec): Promise<BackupInfo>;
  getBackup(name: BackupName): BackupInfo;
  /** The backups of one cluster, or of every cluster of the instance with cluster `-`; in name order. */
  listBackups(instance: InstanceName, clusterId: string): BackupInfo[];
  updateBackup(name: BackupName, update: BackupUpdate): MaybePromise<BackupInfo>;
  deleteBackup(name: BackupName): MaybePromise<void>;
  /** A new table `table` (same instance as the backup) with the backup's schema and data. */
  restoreTable(table: TableName, backup: BackupName): Promise<TableInfo>;
  copyBackup(cluster: ChildName, backupId: string, source: BackupName, expireTimeMillis: number): Promise<BackupInfo>;
  /** True when every write before the token was issued is visible (always, on one node). */
  checkConsistency(name: TableName, token: string): boolean;

  // ---- data ----
  // `view`, where a data method takes one, is the id of an authorized view of the table (NOT_FOUND when it has
  // none of that id): reads see only the view's rows and cells (a filter sees only those), and a write that
  // reaches outside it fails PERMISSION_DENIED (model/authorized-view.ts outsideViewError). A DeleteFromRow or
  // DeleteFromFamily fails so only when the row holds a cell outside the view that it would remove.
  /** Throws at once on a bad request (unknown table or view, bad filter or limit). */
  readRows(name: TableName, request: ReadRequest): RowPuller & RowReader;
  /** With a view: the samples within its row prefixes (one run per prefix range, each ending at its end key). */
  sampleRowKeys(name: TableName, view?: string): MaybePromise<readonly { readonly key: ByteString; readonly offsetBytes: number }[]>;
  mutateRow(name: TableName, key: ByteString, mutations: readonly Mutation[], view?: string): Promise<void>;
  /** One result per entry, in order: undefined for success or the entry's error. Request-wide problems throw. */
  mutateRows(name: TableName, entries: readonly RowMutation[], view?: string): Promise<(TabletopError | undefined)[]>;
  /** With a view, the key and both branches must be in it, and the predicate sees only the row's cells in it. */
  checkAndMutateRow(
    name: TableName,
    key: ByteString,
    predicate: RowFilter | undefined,
    trueMutations: readonly Mutation[],
    falseMutations: readonly Mutation[],
    view?: string,
  ): Promise<boolean>;
  /** Returns exactly the cells the rules modified (new values, new timestamps). */
  readModifyWriteRow(name: TableName, key: ByteString, rules: readonly ReadModifyWriteRule[], view?: string): Promise<Row>;

  // ---- tablets and nodes (Key Visualizer-style insight; ListHotTablets) ----
  /** The tablets of a table in key order, with size, node and recent load. */
  listTablets(name: TableName): TabletInfo[];
  /** Each cluster of the instance with its modelled serving nodes: what they hold and serve. */
  listNodes(instance: InstanceName): ClusterNodesInfo[];
  /**
   * Tablets with load in each cluster (or the one named), by the serving time
   * they cost their node over the window, hottest first.
   */
  listHotTablets(instance: InstanceName, windowSeconds?: number, clusterId?: string): HotTabletInfo[];

  close(): Promise<void>;
}

/** Each method of T, answering with a promise of what it answered. */
type Promised<T> = { [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : T[K] };

/**
 * The public face of the database (see DatabaseCore for what each method
 * does): every method answers with a promise, and every failure, bad input
 * included, rejects it. ReadRows answers with a RowReader to iterate:
 * `for await (const row of db.readRows(table, request))`; a bad request
 * fails the iteration.
 */
export interface Database extends Promised<Omit<DatabaseCore, 'readRows'>> {
  readRows(name: TableName, request: ReadRequest): RowReader;
}

export interface InstanceSpec {
  readonly displayName: string;
  readonly type: 'production' | 'development';
  readonly labels: Readonly<Record<string, string>>;
}
export interface InstanceInfo extends InstanceSpec {
  readonly name: InstanceName;
  readonly createTimeMillis: number;
}

/**
 * A cluster's node count is its modelled serving nodes (node-placement.ts):
 * set by hand (manual scaling), or by the autoscaler within limits.
 */
export interface ClusterSpec {
  /** e.g. projects/p/locations/us-central1-b */
  readonly location: string;
  /**
   * The node count. With autoscaling, the current count (the autoscaler
   * changes it); a new autoscaled cluster starts from it, kept within the limits.
   */
  readonly serveNodes: number;
  readonly storageType: 'ssd' | 'hdd';
  /** Set when autoscaling manages the node count; absent for manual scaling. */
  readonly autoscaling?: AutoscalingSpec | undefined;
}

/** google.bigtable.admin.v2.Cluster.ClusterAutoscalingConfig. */
export interface AutoscalingSpec {
  readonly minServeNodes: number;
  readonly maxServeNodes: number;
  /** Target CPU utilisation, 10-80 (percent). */
  readonly cpuUtilizationPercent: number;
  /** Target stored GiB per node (SSD 2560-5120, HDD 8192-16384); 0 means the storage type's default (2560 or 8192). */
  readonly storageUtilizationGibPerNode: number;
}

/** What UpdateCluster / PartialUpdateCluster change. */
export interface ClusterUpdate {
  /** Immutable: only the current value (or '') is accepted. */
  readonly location?: string;
  /** Immutable: only the current value is accepted. */
  readonly storageType?: ClusterSpec['storageType'];
  /** A new node count for a manually scaled cluster (or one switched to manual scaling by `autoscaling: null`). */
  readonly serveNodes?: number;
  /**
   * null switches to manual scaling (keeping the current node count unless
   * `serveNodes` says otherwise). Fields replace those of the current
   * autoscaling config; a cluster without one needs the limits and the CPU
   * target. The node count is then kept within the new limits.
   */
  readonly autoscaling?: Partial<AutoscalingSpec> | null;
}
export interface ClusterInfo extends ClusterSpec {
  readonly instance: InstanceName;
  readonly id: string;
}

export interface AppProfileSpec {
  readonly description: string;
  readonly routing:
    | { readonly kind: 'multiClusterAny'; readonly clusterIds: readonly string[] }
    | { readonly kind: 'singleCluster'; readonly clusterId: string; readonly allowTransactionalWrites: boolean };
  readonly priority: 'unspecified' | 'low' | 'medium' | 'high';
}
export interface AppProfileInfo extends AppProfileSpec {
  readonly instance: InstanceName;
  readonly id: string;
  readonly etag: string;
}

export interface LogicalViewSpec {
  /** A GoogleSQL query (the server has analyzed it). */
  readonly query: string;
  readonly deletionProtection: boolean;
}
export interface LogicalViewInfo extends LogicalViewSpec {
  readonly instance: InstanceName;
  readonly id: string;
  /** Changes on every update. */
  readonly etag: string;
}

export interface MaterializedViewSpec {
  readonly query: string;
  readonly deletionProtection: boolean;
}

export interface MaterializedViewInfo extends MaterializedViewSpec {
  readonly name: ChildName;
  /** Names the view's internal tables (unique for the life of the database). */
  readonly uid: string;
  readonly sourceTable: string;
  readonly etag: string;
  readonly createTimeMillis: number;
  /** Which pair of internal tables holds the view's data now (a rebuild moves it on; viewTables). */
  readonly generation: number;
}

/** google.type.Expr: an IAM condition, stored as given (policy-authorizer.ts says which ones are evaluated). */
export interface IamCondition {
  readonly expression: string;
  readonly title: string;
  readonly description: string;
  readonly location: string;
}

/** A role granted to members (`user:…`, `serviceAccount:…`, `group:…`, `domain:…`), optionally under a condition. */
export interface IamBinding {
  readonly role: string;
  readonly members: readonly string[];
  readonly condition?: IamCondition;
}

/** What SetIamPolicy gives: version (0, 1 or 3; 3 for conditional bindings) and bindings. */
export interface IamPolicySpec {
  readonly version: number;
  readonly bindings: readonly IamBinding[];
}

/** A stored policy: its etag changes on every set (read-modify-write of policies). */
export interface IamPolicy extends IamPolicySpec {
  readonly etag: string;
}

export interface AuthorizedViewSpec {
  readonly subset: SubsetView;
  readonly deletionProtection: boolean;
}

export interface AuthorizedViewInfo extends AuthorizedViewSpec {
  readonly table: TableName;
  readonly id: string;
  /** Changes on every update. */
  readonly etag: string;
  readonly createTimeMillis: number;
}

export interface TableSpec {
  /** Families in the order given (becomes their creation order). */
  readonly families: readonly ColumnFamily[];
  /** Initial tablet boundaries (row keys), any order; duplicates are ignored. */
  readonly initialSplits: readonly ByteString[];
  readonly deletionProtection: boolean;
  /**
   * An internal table (a materialized view's data): its id begins with INTERNAL_TABLE_PREFIX (model/names.ts)
   * instead of being a valid table id, and ListTables leaves it out. Only the db's own users set this.
   */
  readonly internal?: boolean;
}

export interface TableInfo {
  readonly name: TableName;
  /** Families in creation order. */
  readonly families: readonly ColumnFamily[];
  readonly granularity: 'millis';
  readonly deletionProtection: boolean;
  readonly createTimeMillis: number;
  /** Set on a table restored from a backup. */
  readonly restoreInfo?: RestoreInfo;
}

export type FamilyModification =
  | { readonly kind: 'create'; readonly family: string; readonly gcRule: GcRule | undefined; readonly valueType: ValueType }
  /** `gcRule` undefined with updateGcRule means "clear the GC rule". */
  | { readonly kind: 'update'; readonly family: string; readonly gcRule: GcRule | undefined; readonly updateGcRule: boolean }
  | { readonly kind: 'drop'; readonly family: string };

export interface ReadRequest {
  readonly rows: RowSet;
  /** `rows` already normalised (normalizeRowSet or normalizeRowSetInSteps), for a caller that did it in steps. */
  readonly ranges?: readonly KeyRange[] | undefined;
  readonly filter: RowFilter | undefined;
  /** Maximum rows to return; 0 or undefined means no limit. */
  readonly limit: number | undefined;
  readonly reversed: boolean;
  /** The id of an authorized view of the table to read through (DatabaseCore's data methods). */
  readonly view?: string | undefined;
}

export interface ReadStats {
  rowsSeen: number;
  cellsSeen: number;
  rowsReturned: number;
  cellsReturned: number;
}

/** What a read tells while it runs, and how it ends early. */
export interface ReadProgress {
  /** The last key the scan examined, whether returned or filtered out. */
  readonly lastScannedKey: ByteString | undefined;
  readonly stats: Readonly<ReadStats>;
  /**
   * Ends the read (its cursors and their snapshots go); idempotent. A read
   * ends by itself once its last row or its limit is reached, and `for await`
   * ends it when the loop is left early (break, throw).
   */
  close(): void;
}

/**
 * A streaming read: `for await (const row of reader)`. Rows come in key
 * order (descending when reversed), each whole, with cells in output order
 * (families in creation order, qualifiers ascending, timestamps descending)
 * and labels from the filter. Nothing is read ahead of the consumer: the
 * scan advances as rows are asked for.
 */
export interface RowReader extends ReadProgress, AsyncIterable<Row> {}

/**
 * A streaming read pulled row by row, as the servers stream it: `next()`
 * answers now while the rows come from memory, and with a promise when the
 * scan must wait (the server then flushes what it has and sends heartbeats).
 * `next()` never materialises more than the current row; a puller not read
 * to its end must be closed.
 */
export interface RowPuller extends ReadProgress {
  /** The next row, or undefined at the end. */
  next(): MaybePromise<Row | undefined>;
}

// ---- tablets and nodes (tablet-views.ts) ----

/** A tablet as users see it (JSON API, CLI, ListHotTablets). */
export interface TabletInfo {
  readonly table: TableName;
  readonly id: string;
  readonly start: ByteString;
  /** Exclusive end; undefined for the last tablet. */
  readonly end: ByteString | undefined;
  /** Bytes stored (compressed SSTables plus memtables in the durable engine): see StoreStats. */
  readonly storedBytes: number;
  /** Uncompressed bytes of the keys and cells held. */
  readonly logicalBytes: number;
  readonly rows: number;
  /** The durable engine estimates row counts (a row in several SSTables counts in each until compaction). */
  readonly rowsEstimated: boolean;
  /** Split children estimate their share of the files they share with their sibling. */
  readonly bytesEstimated: boolean;
  /** The node holding the tablet in each cluster of the instance, in cluster order. */
  readonly placements: readonly TabletPlacementInfo[];
  /** Over the last `windowSeconds`. */
  readonly rates: LoadRates;
  readonly windowSeconds: number;
  /** Set when one row takes most of the tablet's load: no split can help. */
  readonly singleRowHotspot: { readonly key: ByteString; readonly share: number } | undefined;
}

export interface TabletPlacementInfo {
  readonly cluster: string;
  readonly node: number;
}

/** One modelled serving node of a cluster. */
export interface NodeInfo {
  readonly node: number;
  readonly storedBytes: number;
  readonly logicalBytes: number;
  readonly tablets: number;
  /** Serving time per second (µs/s) over the window, summed over its tablets. */
  readonly servingMicrosPerSec: number;
  readonly requestsPerSec: number;
  /** Share (0..1) of the cluster's serving time spent on this node. */
  readonly loadShare: number;
  readonly tabletIds: readonly string[];
}

/** A cluster with its modelled nodes. */
export interface ClusterNodesInfo {
  readonly cluster: string;
  readonly serveNodes: number;
  readonly storageType: 'ssd' | 'hdd';
  readonly autoscaling: AutoscalingSpec | undefined;
  readonly windowSeconds: number;
  /**
   * Serving time per second over all nodes divided by the nodes' capacity
   * (1 s per second each): the modelled CPU utilisation that autoscaling
   * compares with its target.
   */
  readonly servingUtilization: number;
  readonly storedBytes: number;
  readonly nodes: readonly NodeInfo[];
}

export interface HotTabletInfo extends TabletInfo {
  readonly cluster: string;
  /** The tablet's node in that cluster. */
  readonly node: number;
  readonly startMicros: number;
  readonly endMicros: number;
  /**
   * The tablet's serving time as a percent of its node's capacity (1 s of
   * serving per second): what ListHotTablets reports as node_cpu_usage_percent.
   */
  readonly servingPercentOfNode: number;
  /** The tablet's share (0..1) of its node's serving time over the window. */
  readonly shareOfNodeServing: number;
}

/** Counts since the database opened, and the engine's figures (undefined for an engine without stats). */
export interface DatabaseStats {
  readonly tabletSplits: number;
  readonly tabletMerges: number;
  readonly tabletMoves: number;
  readonly engine: EngineStats | undefined;
}

/** `projects/P/instances/I/clusters/C/backups/B`. */
export interface BackupName extends InstanceName {
  readonly cluster: string;
  readonly backup: string;
}

export type BackupState = 'CREATING' | 'READY';
export type BackupType = 'STANDARD' | 'HOT';

export interface BackupSpec {
  /** The id of a table of the backup's instance. */
  readonly sourceTable: string;
  readonly expireTimeMillis: number;
  /** STANDARD when absent. */
  readonly backupType?: BackupType | undefined;
  /** HOT backups only: when the sweep turns it STANDARD (at least 24 hours after creation). */
  readonly hotToStandardTimeMillis?: number | undefined;
}

export interface BackupUpdate {
  readonly expireTimeMillis?: number | undefined;
  /** null clears it. */
  readonly hotToStandardTimeMillis?: number | null | undefined;
}

export interface BackupInfo {
  readonly name: BackupName;
  readonly sourceTable: TableName;
  /** The full name of the backup this one was copied from. */
  readonly sourceBackup?: string | undefined;
  /** The point in time the backup holds (for a copy, its source's). */
  readonly startTimeMillis: number;
  /** Undefined while CREATING. */
  readonly endTimeMillis?: number | undefined;
  readonly expireTimeMillis: number;
  readonly sizeBytes: number;
  readonly state: BackupState;
  readonly backupType: BackupType;
  readonly hotToStandardTimeMillis?: number | undefined;
  /** The source table's families at backup time (the schema a restore gets). */
  readonly families: readonly ColumnFamily[];
}

/** Where a restored table came from. */
export interface RestoreInfo {
  readonly sourceType: 'BACKUP';
  readonly backup: {
    /** The backup's full name. */
    readonly backup: string;
    readonly startTimeMillis: number;
    readonly endTimeMillis: number;
    /** The source table's full name. */
    readonly sourceTable: string;
    readonly sourceBackup?: string | undefined;
  };
}
