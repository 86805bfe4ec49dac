import type { ByteString } from '../../model/bytes.js';
import type { SubsetView } from '../../model/authorized-view.js';
import type { ColumnFamily } from '../../model/family.js';
import type { TabletRecord } from '../../tablet/tablet.js';
import type { AppProfileSpec, ClusterSpec, IamPolicy, InstanceSpec, RestoreInfo } from '../api.js';

/**
 * The catalog in its persisted form: plain, JSON-serialisable data (row keys
 * inside are byte strings, which JSON keeps exactly). The durable engine
 * stores this; the in-memory Catalog is built from it and turns back into it.
 * Arrays keep the order that matters (families in creation order).
 */
export interface CatalogState {
  readonly version: 1;
  /** Source of unique ids (table uids, store ids, etags); only grows. */
  readonly nextId: number;
  readonly instances: readonly InstanceRecord[];
}

export interface InstanceRecord extends InstanceSpec {
  readonly project: string;
  readonly id: string;
  readonly createTimeMillis: number;
  /** True once CreateInstance created it; false while it only exists because a client used it. */
  readonly explicit: boolean;
  readonly clusters: readonly ClusterRecord[];
  readonly appProfiles: readonly AppProfileRecord[];
  readonly tables: readonly TableRecord[];
  /** Absent in catalogs written before logical views existed (read as none). */
  readonly logicalViews?: readonly LogicalViewRecord[];
  /** Continuous materialized views (absent in catalogs written before they existed). */
  readonly materializedViews?: readonly MaterializedViewRecord[];
  /**
   * IAM policies of the instance and the resources in it, by the resource's full name (absent in catalogs written
   * before policies were stored; catalog/iam-policies.ts).
   */
  readonly iamPolicies?: Readonly<Record<string, IamPolicy>>;
}

export interface LogicalViewRecord {
  readonly id: string;
  readonly query: string;
  readonly deletionProtection: boolean;
  /** A fresh one on every change. */
  readonly etag: string;
}

/** A continuous materialized view: its query, and the uid that names its internal tables. */
export interface MaterializedViewRecord {
  readonly id: string;
  readonly uid: string;
  readonly query: string;
  /** The id of the table the query reads (DeleteTable refuses it while the view exists). */
  readonly sourceTable: string;
  readonly deletionProtection: boolean;
  readonly etag: string;
  readonly createTimeMillis: number;
  /**
   * Which pair of internal tables holds the view (absent: 0). A rebuild fills the next pair and then moves this
   * on, so that readers see the previous complete view until the new one is whole.
   */
  readonly generation?: number;
}

export interface ClusterRecord extends ClusterSpec {
  readonly id: string;
  /** Backups kept in the cluster, in id order (absent in catalogs written before backups existed: none). */
  readonly backups?: readonly BackupRecord[];
}

/**
 * A backup: the table's schema at backup time and one storage clone per source tablet (its key range), which
 * belong to the backup alone (a table restored from it gets clones of its own).
 */
export interface BackupRecord {
  readonly id: string;
  /** Names its stores (`<uid>.<n>`); unique for the life of the database. */
  readonly uid: string;
  /** The id of the source table (in the backup's instance; it may have been deleted since). */
  readonly sourceTable: string;
  /** The instance of the source table when it differs from the backup's (a copy into another instance). */
  readonly sourceInstance?: string;
  /** The full name of the backup this one copies. */
  readonly sourceBackup?: string;
  readonly families: readonly ColumnFamily[];
  readonly stores: readonly TabletRecord[];
  readonly startTimeMillis: number;
  readonly endTimeMillis?: number;
  readonly expireTimeMillis: number;
  readonly sizeBytes: number;
  readonly state: 'CREATING' | 'READY';
  readonly backupType: 'STANDARD' | 'HOT';
  readonly hotToStandardTimeMillis?: number;
}

export interface AppProfileRecord extends AppProfileSpec {
  readonly id: string;
  readonly etag: string;
}

export interface TableRecord {
  readonly id: string;
  /** Unique for the life of the database, so a re-created table never meets old stores or tokens. */
  readonly uid: string;
  /** In creation order. */
  readonly families: readonly ColumnFamily[];
  readonly granularity: 'millis';
  readonly deletionProtection: boolean;
  readonly createTimeMillis: number;
  readonly tablets: readonly TabletRecord[];
  /** The boundaries CreateTable asked for: merges never remove them. */
  readonly initialSplits?: readonly ByteString[];
  /** Consistency tokens issued so far (tokens 1..n are valid). */
  readonly tokensIssued: number;
  /** Authorized views of the table, in id order (absent in catalogs written before they existed: none). */
  readonly authorizedViews?: readonly AuthorizedViewRecord[];
  /** Set on a table restored from a backup. */
  readonly restoreInfo?: RestoreInfo;
}

/** An authorized view: a named subset of its table's rows and columns (model/authorized-view.ts). */
export interface AuthorizedViewRecord {
  readonly id: string;
  /** Normalized (normalizeSubsetView). */
  readonly subset: SubsetView;
  readonly deletionProtection: boolean;
  /** A fresh one on every change. */
  readonly etag: string;
  readonly createTimeMillis: number;
}
