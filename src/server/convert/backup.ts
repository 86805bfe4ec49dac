import type { BackupInfo, BackupSpec, BackupUpdate, RestoreInfo } from '../../db/api.js';
import { invalidArgument } from '../../model/errors.js';
import { backupNameString, tableNameString } from '../../model/names.js';
import { timestampToMillis } from './hot-tablet.js';
import { millisToTimestamp } from './int64.js';
import type { PBackup, PBackupInfo, PFieldMask } from './proto-types.js';
import { maskPaths } from './field-mask.js';

/**
 * Backups on the wire. A backup's source_table is a full table name; encryption_info is what the service
 * reports for Google-managed keys (GOOGLE_DEFAULT_ENCRYPTION); end_time is absent while it is CREATING, and
 * hot_to_standard_time only on HOT backups that have one.
 */
export function backupToProto(b: BackupInfo): PBackup {
  return {
    name: backupNameString(b.name),
    sourceTable: tableNameString(b.sourceTable),
    ...(b.sourceBackup === undefined ? {} : { sourceBackup: b.sourceBackup }),
    expireTime: millisToTimestamp(b.expireTimeMillis),
    startTime: millisToTimestamp(b.startTimeMillis),
    ...(b.endTimeMillis === undefined ? {} : { endTime: millisToTimestamp(b.endTimeMillis) }),
    sizeBytes: String(b.sizeBytes),
    state: b.state,
    encryptionInfo: { encryptionType: 'GOOGLE_DEFAULT_ENCRYPTION' },
    backupType: b.backupType,
    ...(b.hotToStandardTimeMillis === undefined ? {} : { hotToStandardTime: millisToTimestamp(b.hotToStandardTimeMillis) }),
  };
}

/** BackupInfo (restore_info, operation metadata): `backup` is the backup's id, source_table its table's full name. */
export function backupInfoToProto(b: RestoreInfo['backup']): PBackupInfo {
  return {
    backup: b.backup.slice(b.backup.lastIndexOf('/') + 1),
    startTime: millisToTimestamp(b.startTimeMillis),
    endTime: millisToTimestamp(b.endTimeMillis),
    sourceTable: b.sourceTable,
    ...(b.sourceBackup === undefined ? {} : { sourceBackup: b.sourceBackup }),
  };
}

/** The BackupInfo of a backup (CopyBackupMetadata's source_backup_info). */
export function backupInfoOf(b: BackupInfo): RestoreInfo['backup'] {
  return {
    backup: backupNameString(b.name),
    startTimeMillis: b.startTimeMillis,
    endTimeMillis: b.endTimeMillis ?? b.startTimeMillis,
    sourceTable: tableNameString(b.sourceTable),
    sourceBackup: b.sourceBackup,
  };
}

export function restoreInfoToProto(r: RestoreInfo): { sourceType: string; backupInfo: PBackupInfo } {
  return { sourceType: r.sourceType, backupInfo: backupInfoToProto(r.backup) };
}

/** CreateBackup's backup: source_table (a table id or its full name in the cluster's instance) and expire_time required. */
export function backupSpecFromProto(b: PBackup | null | undefined, instance: string): BackupSpec {
  if (b == null) throw invalidArgument('CreateBackup: backup is required');
  if (!b.sourceTable) throw invalidArgument('CreateBackup: backup.source_table is required');
  const prefix = `${instance}/tables/`;
  const sourceTable = b.sourceTable.includes('/') ? b.sourceTable : prefix + b.sourceTable;
  if (!sourceTable.startsWith(prefix) || sourceTable.length === prefix.length) {
    throw invalidArgument(`CreateBackup: backup.source_table "${b.sourceTable}" must be a table of ${instance}`);
  }
  const expire = timestampToMillis(b.expireTime, 'backup.expire_time');
  if (expire === undefined) throw invalidArgument('CreateBackup: backup.expire_time is required');
  return {
    sourceTable: sourceTable.slice(prefix.length),
    expireTimeMillis: expire,
    backupType: backupTypeFromProto(b.backupType),
    hotToStandardTimeMillis: timestampToMillis(b.hotToStandardTime, 'backup.hot_to_standard_time'),
  };
}

function backupTypeFromProto(t: PBackup['backupType']): BackupSpec['backupType'] {
  if (t == null || t === 'BACKUP_TYPE_UNSPECIFIED' || t === 0 || t === 'STANDARD' || t === 1) return 'STANDARD';
  if (t === 'HOT' || t === 2) return 'HOT';
  throw invalidArgument(`Unknown backup_type ${String(t)}`);
}

/** UpdateBackup: the mask is required and names expire_time and/or hot_to_standard_time (an absent one clears it). */
export function backupUpdateFromProto(b: PBackup, mask: PFieldMask | null | undefined): BackupUpdate {
  const paths = maskPaths(mask);
  if (paths.length === 0) throw invalidArgument('UpdateBackup: update_mask is required (expire_time, hot_to_standard_time)');
  let update: BackupUpdate = {};
  for (const p of paths) {
    if (p === 'expire_time') {
      const expire = timestampToMillis(b.expireTime, 'backup.expire_time');
      if (expire === undefined) throw invalidArgument('UpdateBackup: backup.expire_time is required by the update_mask');
      update = { ...update, expireTimeMillis: expire };
    } else if (p === 'hot_to_standard_time') {
      update = { ...update, hotToStandardTimeMillis: timestampToMillis(b.hotToStandardTime, 'backup.hot_to_standard_time') ?? null };
    } else {
      throw invalidArgument(`UpdateBackup: update_mask path "${p}" is not supported (supported: expire_time, hot_to_standard_time)`);
    }
  }
  return update;
}
