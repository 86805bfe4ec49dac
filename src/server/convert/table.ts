import { restoreInfoToProto } from './backup.js';
export { maskPaths } from './field-mask.js';
import { maskPaths } from './field-mask.js';
import { type ByteString, fromBytes } from '../../model/bytes.js';
import { invalidArgument, unimplemented } from '../../model/errors.js';
import type { ColumnFamily } from '../../model/family.js';
import { type InstanceName, type TableName, parseInstanceName, parseTableName, tableNameString } from '../../model/names.js';
import type { ValueType } from '../../model/value-type.js';
import type { FamilyModification, TableInfo, TableSpec } from '../../db/api.js';
import { gcRuleFromProto, gcRuleToProto } from './gc-rule.js';
import type {
  Enum,
  PClusterState,
  PColumnFamily,
  PCreateTableRequest,
  PDropRowRangeRequest,
  PFieldMask,
  PModification,
  PTable,
  PUpdateTableRequest,
} from './proto-types.js';
import { valueTypeFromProto, valueTypeToProto } from './value-type.js';

/** Table admin requests → model, and TableInfo → google.bigtable.admin.v2.Table. */

export type TableView = 'NAME_ONLY' | 'SCHEMA_VIEW' | 'REPLICATION_VIEW' | 'ENCRYPTION_VIEW' | 'FULL';

const VIEWS: Readonly<Record<string, TableView>> = {
  NAME_ONLY: 'NAME_ONLY',
  SCHEMA_VIEW: 'SCHEMA_VIEW',
  REPLICATION_VIEW: 'REPLICATION_VIEW',
  ENCRYPTION_VIEW: 'ENCRYPTION_VIEW',
  FULL: 'FULL',
  1: 'NAME_ONLY',
  2: 'SCHEMA_VIEW',
  3: 'REPLICATION_VIEW',
  5: 'ENCRYPTION_VIEW',
  4: 'FULL',
};

/** A Table.View; unspecified means the method's default (GetTable: SCHEMA_VIEW, ListTables: NAME_ONLY). */
export function tableViewFromProto(v: Enum | null | undefined, fallback: TableView): TableView {
  if (v == null || v === 'VIEW_UNSPECIFIED' || v === 0) return fallback;
  const view = VIEWS[String(v)];
  if (view === undefined) throw invalidArgument(`Unknown table view ${String(v)}`);
  return view;
}

export interface CreateTableCommand {
  readonly parent: InstanceName;
  readonly tableId: string;
  readonly spec: TableSpec;
}

export function createTableRequestFromProto(req: PCreateTableRequest): CreateTableCommand {
  if (!req.parent) throw invalidArgument('CreateTable: parent is required (projects/{project}/instances/{instance})');
  const parent = parseInstanceName(req.parent);
  const table = req.table ?? {};
  rejectUnimplementedTableFields(table, 'CreateTable');
  const g = table.granularity;
  if (g != null && g !== 'TIMESTAMP_GRANULARITY_UNSPECIFIED' && g !== 'MILLIS' && g !== 0 && g !== 1) {
    throw invalidArgument(`Unsupported timestamp granularity ${String(g)}: only MILLIS is supported`);
  }
  const families: ColumnFamily[] = [];
  for (const [name, family] of Object.entries(table.columnFamilies ?? {})) families.push(familyFromProto(name, family));
  const initialSplits: ByteString[] = (req.initialSplits ?? []).map((s) => fromBytes(s.key ?? Buffer.alloc(0)));
  return {
    parent,
    tableId: req.tableId ?? '',
    spec: { families, initialSplits, deletionProtection: table.deletionProtection === true },
  };
}

function rejectUnimplementedTableFields(table: PTable, rpc: string): void {
  if (table.changeStreamConfig != null)
    throw unimplemented(`${rpc}: change streams (change_stream_config) are not implemented by tabletop yet`);
  if (table.automatedBackupPolicy != null)
    throw unimplemented(`${rpc}: automated backups (automated_backup_policy) are not implemented by tabletop yet`);
  if (table.tieredStorageConfig != null)
    throw unimplemented(`${rpc}: tiered storage (tiered_storage_config) is not implemented by tabletop yet`);
  if (table.rowKeySchema != null) throw unimplemented(`${rpc}: structured row keys (row_key_schema) are not implemented by tabletop yet`);
}

function familyFromProto(name: string, f: PColumnFamily | null | undefined): ColumnFamily {
  return { name, gcRule: gcRuleFromProto(f?.gcRule), valueType: valueTypeFromProto(f?.valueType) };
}

/** UpdateTable: only `deletion_protection` can be changed. */
export function updateTableRequestFromProto(req: PUpdateTableRequest): { name: TableName; deletionProtection: boolean } {
  const table = req.table ?? {};
  if (!table.name) throw invalidArgument('UpdateTable: table.name is required');
  const name = parseTableName(table.name);
  const paths = maskPaths(req.updateMask);
  if (paths.length === 0) throw invalidArgument('UpdateTable: update_mask is required and must name the fields to update');
  for (const p of paths) {
    if (p === 'deletion_protection') continue;
    if (p === 'change_stream_config' || p.startsWith('change_stream_config.')) {
      throw unimplemented(`UpdateTable: ${p}: change streams are not implemented by tabletop yet`);
    }
    if (p === 'automated_backup_policy' || p.startsWith('automated_backup_policy.')) {
      throw unimplemented(`UpdateTable: ${p}: automated backups are not implemented by tabletop yet`);
    }
    if (p === 'tiered_storage_config' || p.startsWith('tiered_storage_config.')) {
      throw unimplemented(`UpdateTable: ${p}: tiered storage is not implemented by tabletop yet`);
    }
    if (p === 'row_key_schema' || p.startsWith('row_key_schema.')) {
      throw unimplemented(`UpdateTable: ${p}: structured row keys are not implemented by tabletop yet`);
    }
    throw invalidArgument(`UpdateTable: update_mask path "${p}" cannot be updated (supported: deletion_protection)`);
  }
  return { name, deletionProtection: table.deletionProtection === true };
}

export interface ModificationCommand {
  readonly modification: FamilyModification;
  /** For updates that state a value_type: it must equal the family's current one (it is immutable). */
  readonly requestedValueType: ValueType | undefined;
}

export function modificationFromProto(m: PModification): ModificationCommand {
  const family = m.id ?? '';
  if (family === '') throw invalidArgument('ModifyColumnFamilies: every modification needs an id (the family name)');
  const mod = m.mod ?? (m.create != null ? 'create' : m.update != null ? 'update' : m.drop != null ? 'drop' : undefined);
  switch (mod) {
    case 'create': {
      const f = familyFromProto(family, m.create);
      return { modification: { kind: 'create', family, gcRule: f.gcRule, valueType: f.valueType }, requestedValueType: undefined };
    }
    case 'update': {
      const u = m.update ?? {};
      const paths = maskPaths(m.updateMask);
      let updateGcRule = true;
      let requestedValueType: ValueType | undefined = u.valueType == null ? undefined : valueTypeFromProto(u.valueType);
      if (paths.length > 0) {
        updateGcRule = false;
        let valueTypeNamed = false;
        for (const p of paths) {
          if (p === 'gc_rule') updateGcRule = true;
          else if (p === 'value_type') valueTypeNamed = true;
          else throw invalidArgument(`ModifyColumnFamilies: update_mask path "${p}" is not supported (supported: gc_rule, value_type)`);
        }
        if (valueTypeNamed) requestedValueType = valueTypeFromProto(u.valueType);
        else requestedValueType = undefined;
      }
      return { modification: { kind: 'update', family, gcRule: gcRuleFromProto(u.gcRule), updateGcRule }, requestedValueType };
    }
    case 'drop':
      if (m.drop !== true) throw invalidArgument(`ModifyColumnFamilies: drop must be true to drop family "${family}"`);
      return { modification: { kind: 'drop', family }, requestedValueType: undefined };
    default:
      throw invalidArgument(`ModifyColumnFamilies: the modification of "${family}" sets none of create, update, drop`);
  }
}

export type DropTarget = { readonly kind: 'prefix'; readonly prefix: ByteString } | { readonly kind: 'all' };

export function dropRowRangeFromProto(req: PDropRowRangeRequest): { name: TableName; target: DropTarget } {
  if (!req.name) throw invalidArgument('DropRowRange: name is required');
  const name = parseTableName(req.name);
  const target =
    req.target ?? (req.rowKeyPrefix != null ? 'rowKeyPrefix' : req.deleteAllDataFromTable != null ? 'deleteAllDataFromTable' : undefined);
  if (target === 'rowKeyPrefix') {
    const prefix = fromBytes(req.rowKeyPrefix ?? Buffer.alloc(0));
    if (prefix === '')
      throw invalidArgument('DropRowRange: row_key_prefix must not be empty (use delete_all_data_from_table to drop every row)');
    return { name, target: { kind: 'prefix', prefix } };
  }
  if (target === 'deleteAllDataFromTable') {
    if (req.deleteAllDataFromTable !== true) throw invalidArgument('DropRowRange: delete_all_data_from_table must be true');
    return { name, target: { kind: 'all' } };
  }
  throw invalidArgument('DropRowRange: one of row_key_prefix or delete_all_data_from_table must be set');
}

/** TableInfo → Table in the given view. `clusterIds` are the instance's clusters (for cluster_states). */
export function tableToProto(info: TableInfo, view: TableView, clusterIds: readonly string[]): PTable {
  const out: PTable = { name: tableNameString(info.name) };
  if (view === 'SCHEMA_VIEW' || view === 'FULL') {
    const families: Record<string, PColumnFamily> = {};
    for (const f of info.families) families[f.name] = familyToProto(f);
    out.columnFamilies = families;
    out.granularity = 'MILLIS';
  }
  if (view === 'REPLICATION_VIEW' || view === 'ENCRYPTION_VIEW' || view === 'FULL') {
    const states: Record<string, PClusterState> = {};
    for (const id of clusterIds) {
      const state: PClusterState = {};
      if (view !== 'ENCRYPTION_VIEW') state.replicationState = 'READY';
      if (view !== 'REPLICATION_VIEW') state.encryptionInfo = [{ encryptionType: 'GOOGLE_DEFAULT_ENCRYPTION' }];
      states[id] = state;
    }
    out.clusterStates = states;
  }
  if (view === 'FULL') out.deletionProtection = info.deletionProtection;
  if (view !== 'NAME_ONLY' && info.restoreInfo !== undefined) out.restoreInfo = restoreInfoToProto(info.restoreInfo);
  return out;
}

/** The Table that CreateTable, ModifyColumnFamilies and UpdateTable return. */
export function tableResultToProto(info: TableInfo): PTable {
  const out = tableToProto(info, 'SCHEMA_VIEW', []);
  out.deletionProtection = info.deletionProtection;
  return out;
}

function familyToProto(f: ColumnFamily): PColumnFamily {
  const out: PColumnFamily = {};
  if (f.gcRule !== undefined) out.gcRule = gcRuleToProto(f.gcRule);
  const vt = valueTypeToProto(f.valueType);
  if (vt !== undefined) out.valueType = vt;
  return out;
}
