import { alreadyExists, failedPrecondition, invalidArgument, notFound } from '../model/errors.js';
import {
  type ChildName,
  type InstanceName,
  type TableName,
  INTERNAL_TABLE_PREFIX,
  backupNameString,
  tableNameString,
} from '../model/names.js';
import type { MaybePromise, StorageEngine } from '../storage/store.js';
import type { TabletRecord } from '../tablet/tablet.js';
import type { BackupInfo, BackupName, BackupSpec, BackupUpdate, TableInfo } from './api.js';
import type { Catalog, InstanceEntry } from './catalog/catalog.js';
import type { BackupRecord, ClusterRecord } from './catalog/catalog-state.js';
import type { InstanceAdmin } from './catalog/instance-admin.js';
import { validateChildId } from './catalog/resource-checks.js';
import { forEachInOrder } from './maybe.js';
import type { TableAdmin } from './table-admin.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The service's limits on backups (the Backup and CopyBackup API reference). */
export const BACKUP_LIMITS = {
  maxIdLength: 50,
  /** expire_time: at least this far in the future. */
  minExpireMillis: 6 * HOUR,
  /** expire_time: at most this long after the backup is created. */
  maxExpireMillis: 90 * DAY,
  maxCopyExpireMillis: 30 * DAY,
  /** hot_to_standard_time: at least this long after the backup is created. */
  minHotMillis: 24 * HOUR,
} as const;

export interface BackupAdminParts {
  readonly catalog: Catalog;
  readonly instances: InstanceAdmin;
  readonly tables: TableAdmin;
  readonly engine: StorageEngine;
  readonly nowMillis: () => number;
  /** The engine meta key of the catalog and the catalog serialized now: written with the clones, atomically. */
  readonly catalogMeta: { readonly key: string; readonly catalogJson: () => string };
}

/**
 * Backups, kept on their cluster's catalog record (ClusterRecord.backups) with one storage clone per source
 * tablet (StorageEngine.cloneStores). A create takes the table's write gate while the engine clones its stores,
 * so the backup holds the table at one point in time; the catalog naming the clones (the backup READY) is
 * written in the same atomic step as the clones. Until then the backup is CREATING: listed, not restorable or
 * copyable (FAILED_PRECONDITION); a CREATING record found when the database opens is dropped (its clones were
 * never committed). A backup's clones belong to it alone: a restore or a copy clones them again, so deleting a
 * backup leaves tables restored from it and its copies whole, and deleting its source table leaves the backup.
 */
export class BackupAdmin {
  /** Backups being restored or copied (by uid, with a count): their stores are read, so they are not deleted meanwhile. */
  private readonly reading = new Map<string, number>();

  constructor(private readonly p: BackupAdminParts) {}

  /** Drops CREATING backups (a create cut short before its clones were committed). True when it dropped any. */
  dropUnfinished(): boolean {
    let dropped = false;
    for (const entry of this.p.catalog.allInstances()) {
      for (const c of entry.clusters) {
        if ((c.backups ?? []).some((b) => b.state === 'CREATING')) {
          setBackups(entry, c.id, (list) => list.filter((b) => b.state !== 'CREATING'));
          dropped = true;
        }
      }
    }
    return dropped;
  }

  async create(cluster: ChildName, backupId: string, spec: BackupSpec): Promise<BackupInfo> {
    validateChildId('backup', backupId, BACKUP_LIMITS.maxIdLength);
    const name: BackupName = { project: cluster.project, instance: cluster.instance, cluster: cluster.id, backup: backupId };
    const entry = this.p.instances.find(cluster);
    this.checkNewBackup(entry, name);
    if (spec.sourceTable === '') throw invalidArgument('CreateBackup: backup.source_table is required');
    const tableName: TableName = { project: cluster.project, instance: cluster.instance, table: spec.sourceTable };
    // Internal tables (a materialized view's) are not the user's to back up.
    if (spec.sourceTable.startsWith(INTERNAL_TABLE_PREFIX)) throw notFound(`Table ${tableNameString(tableName)} not found`);
    const runtime = this.p.tables.runtime(tableName);
    const now = this.p.nowMillis();
    checkExpire(spec.expireTimeMillis, now, now + BACKUP_LIMITS.maxExpireMillis, '90 days');
    const backupType = spec.backupType ?? 'STANDARD';
    checkHot(backupType, spec.hotToStandardTimeMillis, now, spec.expireTimeMillis);
    const uid = this.p.catalog.newId('b');
    const pending: BackupRecord = {
      id: backupId,
      uid,
      sourceTable: spec.sourceTable,
      families: [],
      stores: [],
      startTimeMillis: now,
      expireTimeMillis: spec.expireTimeMillis,
      sizeBytes: 0,
      state: 'CREATING',
      backupType,
      ...(spec.hotToStandardTimeMillis === undefined ? {} : { hotToStandardTimeMillis: spec.hotToStandardTimeMillis }),
    };
    // Listed as CREATING at once (and its id taken) while the clone waits for the table's writes to leave.
    putBackup(entry, cluster.id, pending);
    try {
      return await runtime.gate.exclusive(async () => {
        if (runtime.deleted) throw notFound(`Table ${tableNameString(tableName)} not found`);
        const tablets = runtime.tablets.tablets;
        const stores: TabletRecord[] = tablets.map((t) => ({
          id: `${uid}.${this.p.catalog.newId('')}`,
          start: t.range.start,
          end: t.range.end,
        }));
        const sizeBytes = tablets.reduce((n, t) => n + t.store.stats().bytes, 0);
        const families = this.p.tables.tableRecord(tableName).families;
        const ready: BackupRecord = { ...pending, families, stores, sizeBytes, state: 'READY' };
        await this.clone(
          tablets.map((t, i) => [t.id, stores[i]!.id] as const),
          () => putBackup(entry, cluster.id, { ...ready, endTimeMillis: this.p.nowMillis() }),
        );
        return backupInfo(name, this.record(name));
      });
    } catch (e) {
      if (this.find(name)?.uid === uid) setBackups(entry, cluster.id, (list) => list.filter((b) => b.id !== backupId));
      throw e;
    }
  }

  get(name: BackupName): BackupInfo {
    return backupInfo(name, this.record(name));
  }

  /** The backups of one cluster, or of all with cluster `-`; in name order. */
  list(instance: InstanceName, clusterId: string): BackupInfo[] {
    const entry = this.p.instances.find(instance);
    if (clusterId !== '-') this.p.instances.getCluster(instance, clusterId);
    return entry.clusters
      .filter((c) => clusterId === '-' || c.id === clusterId)
      .flatMap((c) => (c.backups ?? []).map((b) => backupInfo({ ...instance, cluster: c.id, backup: b.id }, b)))
      .sort((a, b) => compare(backupNameString(a.name), backupNameString(b.name)));
  }

  update(name: BackupName, update: BackupUpdate): BackupInfo {
    const current = this.record(name);
    if (update.expireTimeMillis === undefined && update.hotToStandardTimeMillis === undefined) {
      throw invalidArgument('UpdateBackup: nothing to update (the update_mask names expire_time or hot_to_standard_time)');
    }
    const created = current.endTimeMillis ?? current.startTimeMillis;
    const copy = current.sourceBackup !== undefined;
    const expire = update.expireTimeMillis ?? current.expireTimeMillis;
    if (update.expireTimeMillis !== undefined) {
      const max = created + (copy ? BACKUP_LIMITS.maxCopyExpireMillis : BACKUP_LIMITS.maxExpireMillis);
      checkExpire(expire, this.p.nowMillis(), max, copy ? '30 days (a copy)' : '90 days');
    }
    let hot = current.hotToStandardTimeMillis;
    if (update.hotToStandardTimeMillis !== undefined) {
      hot = update.hotToStandardTimeMillis ?? undefined;
      checkHot(current.backupType, hot, created, expire);
    }
    const { hotToStandardTimeMillis: _, ...rest } = current;
    const next: BackupRecord = { ...rest, expireTimeMillis: expire, ...(hot === undefined ? {} : { hotToStandardTimeMillis: hot }) };
    putBackup(this.p.instances.find(name), name.cluster, next);
    return backupInfo(name, next);
  }

  /** Removes the backup from the catalog; the caller persists the catalog, then drops the returned stores. */
  delete(name: BackupName): readonly TabletRecord[] {
    const current = this.record(name);
    if (current.state === 'CREATING') throw failedPrecondition(`Backup ${backupNameString(name)} is still being created`);
    if (this.reading.has(current.uid)) {
      throw failedPrecondition(`Backup ${backupNameString(name)} is being restored or copied; delete it once that is done`);
    }
    setBackups(this.p.instances.find(name), name.cluster, (list) => list.filter((b) => b.id !== name.backup));
    return current.stores;
  }

  /** Deletes stores (of backups removed from the catalog, which is durable already). */
  dropStores(stores: readonly TabletRecord[]): MaybePromise<void> {
    return forEachInOrder(stores, (s) => this.p.engine.deleteStore(s.id));
  }

  /** Every store the backups of an instance (or of one of its clusters) hold. */
  storesOf(instance: InstanceName, clusterId?: string): TabletRecord[] {
    const entry = this.p.catalog.instance(instance);
    if (entry === undefined) return [];
    return entry.clusters
      .filter((c) => clusterId === undefined || c.id === clusterId)
      .flatMap((c) => (c.backups ?? []).flatMap((b) => b.stores));
  }

  /** Checks every clone's checksums (DATA_LOSS when damaged), then creates the table over clones of them. */
  async restore(table: TableName, name: BackupName): Promise<TableInfo> {
    const backup = this.record(name);
    if (backup.state !== 'READY')
      throw failedPrecondition(`Backup ${backupNameString(name)} is still being created; restore it once it is READY`);
    return this.whileReading(backup, () => this.restoreFrom(table, name, backup));
  }

  private async restoreFrom(table: TableName, name: BackupName, backup: BackupRecord): Promise<TableInfo> {
    for (const s of backup.stores) await this.p.engine.verifyStore(s.id);
    const sourceTable = tableNameString({
      project: name.project,
      instance: backup.sourceInstance ?? name.instance,
      table: backup.sourceTable,
    });
    return this.p.tables.createFromStores(
      table,
      backup.families,
      backup.stores,
      {
        sourceType: 'BACKUP',
        backup: {
          backup: backupNameString(name),
          startTimeMillis: backup.startTimeMillis,
          endTimeMillis: backup.endTimeMillis ?? backup.startTimeMillis,
          sourceTable,
          ...(backup.sourceBackup === undefined ? {} : { sourceBackup: backup.sourceBackup }),
        },
      },
      this.p.catalogMeta,
    );
  }

  /** A copy of a READY backup that is not itself a copy, in `cluster` (of any instance of the project). */
  async copy(cluster: ChildName, backupId: string, sourceName: BackupName, expireTimeMillis: number): Promise<BackupInfo> {
    validateChildId('backup', backupId, BACKUP_LIMITS.maxIdLength);
    const name: BackupName = { project: cluster.project, instance: cluster.instance, cluster: cluster.id, backup: backupId };
    const source = this.record(sourceName);
    const sourceFull = backupNameString(sourceName);
    if (source.state !== 'READY') throw failedPrecondition(`Backup ${sourceFull} is still being created; copy it once it is READY`);
    if (source.sourceBackup !== undefined) {
      throw failedPrecondition(
        `Backup ${sourceFull} is a copy of ${source.sourceBackup}: a copy cannot be copied again (copy the original)`,
      );
    }
    const entry = this.p.instances.find(cluster);
    this.checkNewBackup(entry, name);
    const now = this.p.nowMillis();
    checkExpire(expireTimeMillis, now, now + BACKUP_LIMITS.maxCopyExpireMillis, '30 days (a copy)');
    const uid = this.p.catalog.newId('b');
    const stores: TabletRecord[] = source.stores.map((s) => ({ id: `${uid}.${this.p.catalog.newId('')}`, start: s.start, end: s.end }));
    const { hotToStandardTimeMillis: _, endTimeMillis: __, ...rest } = source;
    const copy: BackupRecord = {
      ...rest,
      id: backupId,
      uid,
      stores,
      sourceBackup: sourceFull,
      ...(sourceName.instance === cluster.instance ? {} : { sourceInstance: source.sourceInstance ?? sourceName.instance }),
      expireTimeMillis,
      backupType: 'STANDARD',
    };
    // Listed as CREATING (its id taken) until the clones and the READY record are committed together.
    putBackup(entry, cluster.id, { ...copy, state: 'CREATING' });
    try {
      await this.whileReading(source, () =>
        this.clone(
          source.stores.map((s, i) => [s.id, stores[i]!.id] as const),
          () => putBackup(entry, cluster.id, { ...copy, endTimeMillis: this.p.nowMillis() }),
        ),
      );
    } catch (e) {
      if (this.find(name)?.uid === uid) setBackups(entry, cluster.id, (list) => list.filter((b) => b.id !== backupId));
      throw e;
    }
    return backupInfo(name, this.record(name));
  }

  /**
   * The sweep (a timer in the database): deletes READY backups whose expire time has passed and turns HOT
   * backups STANDARD once their hot_to_standard_time has passed. The stores of the deleted ones, for the caller
   * to drop once the catalog is durable, and whether anything changed.
   */
  sweep(): { readonly changed: boolean; readonly stores: readonly TabletRecord[]; readonly deleted: readonly string[] } {
    const now = this.p.nowMillis();
    const stores: TabletRecord[] = [];
    const deleted: string[] = [];
    let changed = false;
    for (const entry of this.p.catalog.allInstances()) {
      for (const c of entry.clusters) {
        const list = c.backups ?? [];
        // One being restored or copied goes at the next sweep.
        const expired = list.filter((b) => b.state === 'READY' && b.expireTimeMillis <= now && !this.reading.has(b.uid));
        const cooled = list.some(
          (b) => b.backupType === 'HOT' && b.hotToStandardTimeMillis !== undefined && b.hotToStandardTimeMillis <= now,
        );
        if (expired.length === 0 && !cooled) continue;
        changed = true;
        for (const b of expired) {
          stores.push(...b.stores);
          deleted.push(backupNameString({ project: entry.record.project, instance: entry.record.id, cluster: c.id, backup: b.id }));
        }
        setBackups(entry, c.id, (all) =>
          all
            .filter((b) => !expired.includes(b))
            .map((b) => {
              if (b.backupType !== 'HOT' || b.hotToStandardTimeMillis === undefined || b.hotToStandardTimeMillis > now) return b;
              const { hotToStandardTimeMillis: _, ...rest } = b;
              return { ...rest, backupType: 'STANDARD' as const };
            }),
        );
      }
    }
    return { changed, stores, deleted };
  }

  private async whileReading<T>(backup: BackupRecord, fn: () => Promise<T>): Promise<T> {
    this.reading.set(backup.uid, (this.reading.get(backup.uid) ?? 0) + 1);
    try {
      return await fn();
    } finally {
      const n = this.reading.get(backup.uid)! - 1;
      if (n === 0) this.reading.delete(backup.uid);
      else this.reading.set(backup.uid, n);
    }
  }

  private async clone(pairs: readonly (readonly [string, string])[], commit: () => void): Promise<void> {
    await this.p.engine.cloneStores(pairs, {
      key: this.p.catalogMeta.key,
      value: () => {
        commit();
        return this.p.catalogMeta.catalogJson();
      },
    });
  }

  private checkNewBackup(entry: InstanceEntry, name: BackupName): void {
    const cluster = clusterOf(entry, name);
    if ((cluster.backups ?? []).some((b) => b.id === name.backup)) throw alreadyExists(`Backup ${backupNameString(name)} already exists`);
  }

  private find(name: BackupName): BackupRecord | undefined {
    const entry = this.p.catalog.instance(name);
    return entry?.clusters.find((c) => c.id === name.cluster)?.backups?.find((b) => b.id === name.backup);
  }

  private record(name: BackupName): BackupRecord {
    const b = this.find(name);
    if (b === undefined) throw notFound(`Backup ${backupNameString(name)} not found`);
    return b;
  }
}

function clusterOf(entry: InstanceEntry, name: BackupName): ClusterRecord {
  const c = entry.clusters.find((x) => x.id === name.cluster);
  if (c === undefined) throw notFound(`Cluster projects/${name.project}/instances/${name.instance}/clusters/${name.cluster} not found`);
  return c;
}

/** Adds or replaces a backup of a cluster (id order). */
function putBackup(entry: InstanceEntry, clusterId: string, record: BackupRecord): void {
  setBackups(entry, clusterId, (list) => [...list.filter((b) => b.id !== record.id), record].sort((a, b) => compare(a.id, b.id)));
}

function setBackups(entry: InstanceEntry, clusterId: string, change: (list: readonly BackupRecord[]) => readonly BackupRecord[]): void {
  entry.update({ clusters: entry.clusters.map((c) => (c.id === clusterId ? { ...c, backups: change(c.backups ?? []) } : c)) });
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function iso(millis: number): string {
  return Number.isFinite(millis) ? new Date(millis).toISOString() : String(millis);
}

/** INVALID_ARGUMENT unless `expire` lies between 6 hours from now and `max`. */
function checkExpire(expire: number, now: number, max: number, maxText: string): void {
  if (!Number.isFinite(expire) || expire === 0) throw invalidArgument('A backup needs an expire_time');
  if (expire < now + BACKUP_LIMITS.minExpireMillis || expire > max) {
    throw invalidArgument(
      `The backup's expire_time ${iso(expire)} must be at least 6 hours from now (${iso(now + BACKUP_LIMITS.minExpireMillis)}) and at most ${maxText} after the backup's creation (${iso(max)})`,
    );
  }
}

/** hot_to_standard_time: HOT backups only, at least 24 hours after creation and before the expire time. */
function checkHot(type: BackupInfo['backupType'], hot: number | undefined, created: number, expire: number): void {
  if (hot === undefined) return;
  if (type !== 'HOT') throw invalidArgument('hot_to_standard_time applies to HOT backups only');
  if (hot < created + BACKUP_LIMITS.minHotMillis || hot > expire) {
    throw invalidArgument(
      `The backup's hot_to_standard_time ${iso(hot)} must be at least 24 hours after its creation (${iso(created + BACKUP_LIMITS.minHotMillis)}) and before its expire_time`,
    );
  }
}

function backupInfo(name: BackupName, b: BackupRecord): BackupInfo {
  return {
    name: { project: name.project, instance: name.instance, cluster: name.cluster, backup: name.backup },
    sourceTable: { project: name.project, instance: b.sourceInstance ?? name.instance, table: b.sourceTable },
    sourceBackup: b.sourceBackup,
    startTimeMillis: b.startTimeMillis,
    endTimeMillis: b.endTimeMillis,
    expireTimeMillis: b.expireTimeMillis,
    sizeBytes: b.sizeBytes,
    state: b.state,
    backupType: b.backupType,
    hotToStandardTimeMillis: b.hotToStandardTimeMillis,
    families: b.families,
  };
}
