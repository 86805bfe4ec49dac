import type { BackupInfo, DatabaseCore } from '../../db/api.js';
import { invalidArgument } from '../../model/errors.js';
import { backupNameString, instanceNameString, parseBackupName, parseChildName, parseInstanceName } from '../../model/names.js';
import { backupSpecFromProto, backupToProto, backupUpdateFromProto } from '../convert/backup.js';
import { timestampToMillis } from '../convert/hot-tablet.js';
import { type OperationMetadataType, operationToProto } from '../convert/operation.js';
import type {
  PBackup,
  PCopyBackupRequest,
  PCreateBackupRequest,
  PListBackupsRequest,
  PNameRequest,
  POperation,
  PRestoreTableRequest,
  PUpdateBackupRequest,
} from '../convert/proto-types.js';
import { resource, unary } from '../method-table.js';
import { filterAndOrderBackups } from './backup-list.js';
import type { OperationStore } from './operation-store.js';
import { required } from './required.js';

/**
 * The Table Admin API's backups. CreateBackup, CopyBackup and RestoreTable answer an operation that is done
 * when it answers (the clone is made before the reply), found by GetOperation under the new backup's or table's
 * name, with the service's metadata (CreateBackupMetadata, CopyBackupMetadata, RestoreTableMetadata with
 * progress 100 %). ListBackups takes cluster `-` for every cluster, `filter`, `order_by` (backup-list.ts) and
 * pages by position (the token is the offset of the next page in that order).
 */
export function backupMethods(db: DatabaseCore, operations: OperationStore) {
  const done = (name: string, result: Parameters<OperationStore['add']>[1], metadata: OperationMetadataType, started: number): POperation =>
    operationToProto(operations.add(name, result, metadata, started));
  const backupDone = (info: BackupInfo, metadata: OperationMetadataType, started: number): POperation =>
    done(backupNameString(info.name), { kind: 'backup', backup: info }, metadata, started);

  return {
    CreateBackup: unary<PCreateBackupRequest, POperation>({ resource: (req) => resource('cluster', req.parent) }, async (req) => {
      const started = Date.now();
      const cluster = parseChildName(required(req.parent, 'CreateBackup', 'parent'), 'clusters');
      const id = required(req.backupId, 'CreateBackup', 'backup_id');
      const info = await db.createBackup(cluster, id, backupSpecFromProto(req.backup, instanceNameString(cluster)));
      return backupDone(info, 'CreateBackupMetadata', started);
    }),

    GetBackup: unary<PNameRequest, PBackup>({ resource: (req) => resource('backup', req.name) }, (req) =>
      backupToProto(db.getBackup(parseBackupName(required(req.name, 'GetBackup', 'name')))),
    ),

    ListBackups: unary<PListBackupsRequest, { backups: PBackup[]; nextPageToken: string }>(
      {
        resource: (req) =>
          req.parent?.endsWith('/clusters/-') ? resource('instance', req.parent.slice(0, -11)) : resource('cluster', req.parent),
      },
      (req) => {
        const parent = required(req.parent, 'ListBackups', 'parent');
        const cut = parent.lastIndexOf('/clusters/');
        if (cut < 0)
          throw invalidArgument(
            `ListBackups: invalid parent "${parent}"; expected projects/{project}/instances/{instance}/clusters/{cluster} (or -)`,
          );
        const instance = parseInstanceName(parent.slice(0, cut));
        const clusterId = parent.slice(cut + '/clusters/'.length);
        if (clusterId !== '-') parseChildName(parent, 'clusters');
        const all = filterAndOrderBackups(db.listBackups(instance, clusterId), req.filter ?? '', req.orderBy ?? '');
        const { items, nextPageToken } = pageByOffset(all, req.pageSize, req.pageToken);
        return { backups: items.map(backupToProto), nextPageToken };
      },
    ),

    UpdateBackup: unary<PUpdateBackupRequest, PBackup>({ resource: (req) => resource('backup', req.backup?.name) }, async (req) => {
      const backup = req.backup ?? {};
      const name = parseBackupName(required(backup.name, 'UpdateBackup', 'backup.name'));
      db.getBackup(name); // NOT_FOUND before the update is read
      return backupToProto(await db.updateBackup(name, backupUpdateFromProto(backup, req.updateMask)));
    }),

    DeleteBackup: unary<PNameRequest, object>({ resource: (req) => resource('backup', req.name) }, async (req) => {
      await db.deleteBackup(parseBackupName(required(req.name, 'DeleteBackup', 'name')));
      return {};
    }),

    RestoreTable: unary<PRestoreTableRequest, POperation>({ resource: (req) => resource('backup', req.backup) }, async (req) => {
      const started = Date.now();
      const instance = parseInstanceName(required(req.parent, 'RestoreTable', 'parent'));
      const tableId = required(req.tableId, 'RestoreTable', 'table_id');
      const backup = parseBackupName(required(req.backup, 'RestoreTable', 'backup'));
      const table = await db.restoreTable({ ...instance, table: tableId }, backup);
      const tableName = `${instanceNameString(instance)}/tables/${tableId}`;
      // Onto another storage type the service optimizes the restored table in an operation of its own, which
      // RestoreTableMetadata names (clients wait for it); tabletop's is done at once, like every operation.
      const from = db.getCluster(backup, backup.cluster).storageType;
      const optimize = db.listClusters(instance).some((c) => c.storageType !== from)
        ? operations.add(tableName, { kind: 'table', table }, 'OptimizeRestoredTableMetadata', started).name
        : undefined;
      return operationToProto(
        operations.add(tableName, { kind: 'table', table }, 'RestoreTableMetadata', started, {
          ...(optimize === undefined ? {} : { optimizeTableOperationName: optimize }),
        }),
      );
    }),

    CopyBackup: unary<PCopyBackupRequest, POperation>({ resource: (req) => resource('cluster', req.parent) }, async (req) => {
      const started = Date.now();
      const cluster = parseChildName(required(req.parent, 'CopyBackup', 'parent'), 'clusters');
      const id = required(req.backupId, 'CopyBackup', 'backup_id');
      const source = parseBackupName(required(req.sourceBackup, 'CopyBackup', 'source_backup'));
      const expire = timestampToMillis(req.expireTime, 'expire_time');
      if (expire === undefined) throw invalidArgument('CopyBackup: expire_time is required');
      return backupDone(await db.copyBackup(cluster, id, source, expire), 'CopyBackupMetadata', started);
    }),
  };
}

/** A page of `items` from the offset the token holds (base64url of a decimal); a page size of 0 returns the rest. */
function pageByOffset<T>(
  items: readonly T[],
  pageSize: number | null | undefined,
  pageToken: string | null | undefined,
): { items: T[]; nextPageToken: string } {
  const size = pageSize ?? 0;
  if (!Number.isInteger(size) || size < 0) throw invalidArgument(`page_size must not be negative (got ${size})`);
  let start = 0;
  if (pageToken) {
    const text = Buffer.from(pageToken, 'base64url').toString('utf8');
    start = Number(text);
    if (!/^\d+$/.test(text) || Buffer.from(text, 'utf8').toString('base64url') !== pageToken)
      throw invalidArgument(`Invalid page_token "${pageToken}"`);
  }
  const end = size === 0 ? items.length : start + size;
  return {
    items: items.slice(start, end),
    nextPageToken: end < items.length ? Buffer.from(String(end), 'utf8').toString('base64url') : '',
  };
}
