import type {
  AppProfileInfo,
  AuthorizedViewInfo,
  BackupInfo,
  ClusterInfo,
  InstanceInfo,
  LogicalViewInfo,
  MaterializedViewInfo,
  TableInfo,
} from '../../db/api.js';
import { backupNameString, tableNameString } from '../../model/names.js';
import { backupInfoToProto, backupToProto } from './backup.js';
import { authorizedViewName, authorizedViewToProto } from './authorized-view.js';
import { appProfileToProto, clusterToProto, instanceToProto } from './instance.js';
import { logicalViewToProto } from './logical-view.js';
import { materializedViewName, materializedViewToProto } from './materialized-view.js';
import { millisToTimestamp } from './int64.js';
import type { PAny, PBackupInfo, POperation } from './proto-types.js';
import { tableResultToProto } from './table.js';

/**
 * Long-running operations. Every admin call that returns an Operation
 * finishes before it answers, so operations are always `done` and carry their
 * result packed as google.protobuf.Any, with typed metadata (times only; the
 * original request is not echoed).
 */

export type OperationResult =
  | { readonly kind: 'table'; readonly table: TableInfo }
  | { readonly kind: 'instance'; readonly instance: InstanceInfo }
  | { readonly kind: 'cluster'; readonly cluster: ClusterInfo }
  | { readonly kind: 'appProfile'; readonly appProfile: AppProfileInfo }
  | { readonly kind: 'logicalView'; readonly logicalView: LogicalViewInfo }
  | { readonly kind: 'materializedView'; readonly materializedView: MaterializedViewInfo }
  | { readonly kind: 'authorizedView'; readonly authorizedView: AuthorizedViewInfo }
  | { readonly kind: 'backup'; readonly backup: BackupInfo };

/** Metadata message types of the admin APIs, by the shape of their time fields. */
export type OperationMetadataType =
  | 'UpdateTableMetadata'
  | 'CreateInstanceMetadata'
  | 'UpdateInstanceMetadata'
  | 'CreateClusterMetadata'
  | 'UpdateClusterMetadata'
  | 'PartialUpdateClusterMetadata'
  | 'UpdateAppProfileMetadata'
  | 'CreateLogicalViewMetadata'
  | 'UpdateLogicalViewMetadata'
  | 'CreateMaterializedViewMetadata'
  | 'UpdateMaterializedViewMetadata'
  | 'CreateAuthorizedViewMetadata'
  | 'UpdateAuthorizedViewMetadata'
  | 'CreateBackupMetadata'
  | 'CopyBackupMetadata'
  | 'RestoreTableMetadata'
  | 'OptimizeRestoredTableMetadata';

export interface OperationRecord {
  readonly name: string;
  readonly result: OperationResult;
  readonly metadataType: OperationMetadataType;
  readonly startMillis: number;
  readonly endMillis: number;
  /** A RestoreTable's: the operation that optimizes the restored table (a backup restored onto another storage type). */
  readonly optimizeTableOperationName?: string;
}

const ADMIN = 'type.googleapis.com/google.bigtable.admin.v2.';

export function operationToProto(op: OperationRecord): POperation {
  return { name: op.name, done: true, metadata: metadataAny(op), response: resultAny(op.result) };
}

function resultAny(r: OperationResult): PAny {
  switch (r.kind) {
    case 'table':
      return { '@type': ADMIN + 'Table', ...tableResultToProto(r.table) };
    case 'instance':
      return { '@type': ADMIN + 'Instance', ...instanceToProto(r.instance) };
    case 'cluster':
      return { '@type': ADMIN + 'Cluster', ...clusterToProto(r.cluster) };
    case 'appProfile':
      return { '@type': ADMIN + 'AppProfile', ...appProfileToProto(r.appProfile) };
    case 'logicalView':
      return { '@type': ADMIN + 'LogicalView', ...logicalViewToProto(r.logicalView) };
    case 'materializedView':
      return { '@type': ADMIN + 'MaterializedView', ...materializedViewToProto(r.materializedView) };
    case 'authorizedView':
      return { '@type': ADMIN + 'AuthorizedView', ...authorizedViewToProto(r.authorizedView, 'FULL') };
    case 'backup':
      return { '@type': ADMIN + 'Backup', ...backupToProto(r.backup) };
  }
}

function metadataAny(op: OperationRecord): PAny {
  const start = millisToTimestamp(op.startMillis);
  const end = millisToTimestamp(op.endMillis);
  const type = ADMIN + op.metadataType;
  switch (op.metadataType) {
    case 'UpdateTableMetadata':
      return {
        '@type': type,
        name: op.result.kind === 'table' ? tableNameString(op.result.table.name) : '',
        startTime: start,
        endTime: end,
      };
    case 'PartialUpdateClusterMetadata':
    case 'CreateInstanceMetadata':
    case 'UpdateInstanceMetadata':
    case 'CreateClusterMetadata':
    case 'UpdateClusterMetadata':
      return { '@type': type, requestTime: start, finishTime: end };
    case 'UpdateAppProfileMetadata':
      return { '@type': type };
    case 'CreateLogicalViewMetadata':
    case 'UpdateLogicalViewMetadata':
      return { '@type': type, startTime: start, endTime: end };
    case 'CreateMaterializedViewMetadata':
    case 'UpdateMaterializedViewMetadata': {
      const view = op.result.kind === 'materializedView' ? op.result.materializedView : undefined;
      const request =
        view === undefined
          ? {}
          : op.metadataType === 'CreateMaterializedViewMetadata'
            ? { parent: `projects/${view.name.project}/instances/${view.name.instance}`, materializedViewId: view.name.id }
            : { materializedView: { name: materializedViewName(view) } };
      return { '@type': type, originalRequest: request, startTime: start, endTime: end };
    }
    case 'CreateAuthorizedViewMetadata':
    case 'UpdateAuthorizedViewMetadata': {
      // The original request, as far as the view says it (its name, or its table and id).
      const view = op.result.kind === 'authorizedView' ? op.result.authorizedView : undefined;
      const request =
        view === undefined
          ? {}
          : op.metadataType === 'CreateAuthorizedViewMetadata'
            ? { parent: tableNameString(view.table), authorizedViewId: view.id }
            : { authorizedView: { name: authorizedViewName(view) } };
      return { '@type': type, originalRequest: request, requestTime: start, finishTime: end };
    }
    case 'CreateBackupMetadata': {
      const b = op.result.kind === 'backup' ? op.result.backup : undefined;
      return b === undefined
        ? { '@type': type, startTime: start, endTime: end }
        : { '@type': type, name: backupNameString(b.name), sourceTable: tableNameString(b.sourceTable), startTime: start, endTime: end };
    }
    case 'CopyBackupMetadata': {
      // The source is the copy's source backup, with the point in time it holds.
      const b = op.result.kind === 'backup' ? op.result.backup : undefined;
      const source = b === undefined ? {} : { name: backupNameString(b.name), sourceBackupInfo: copySourceInfo(b) };
      return { '@type': type, ...source, progress: { progressPercent: 100, startTime: start, endTime: end } };
    }
    case 'RestoreTableMetadata': {
      const t = op.result.kind === 'table' ? op.result.table : undefined;
      const restored =
        t?.restoreInfo === undefined
          ? {}
          : { name: tableNameString(t.name), sourceType: t.restoreInfo.sourceType, backupInfo: backupInfoToProto(t.restoreInfo.backup) };
      const optimize = op.optimizeTableOperationName === undefined ? {} : { optimizeTableOperationName: op.optimizeTableOperationName };
      return { '@type': type, ...restored, ...optimize, progress: { progressPercent: 100, startTime: start, endTime: end } };
    }
    case 'OptimizeRestoredTableMetadata':
      return {
        '@type': type,
        name: op.result.kind === 'table' ? tableNameString(op.result.table.name) : '',
        progress: { progressPercent: 100, startTime: start, endTime: end },
      };
  }
}

/** A copy's source as BackupInfo: the source backup's id, the time it holds, its table. */
function copySourceInfo(copy: BackupInfo): PBackupInfo {
  return backupInfoToProto({
    backup: copy.sourceBackup ?? '',
    startTimeMillis: copy.startTimeMillis,
    endTimeMillis: copy.startTimeMillis,
    sourceTable: tableNameString(copy.sourceTable),
  });
}
