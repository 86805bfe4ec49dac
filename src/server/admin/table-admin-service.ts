import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import type { DatabaseCore } from '../../db/api.js';
import { invalidArgument } from '../../model/errors.js';
import { type InstanceName, parseInstanceName, parseTableName, tableNameString } from '../../model/names.js';
import type { ValueType } from '../../model/value-type.js';
import { operationToProto } from '../convert/operation.js';
import type {
  PCheckConsistencyRequest,
  PCreateTableRequest,
  PDropRowRangeRequest,
  PGetTableRequest,
  PListTablesRequest,
  PModifyColumnFamiliesRequest,
  PNameRequest,
  POperation,
  PTable,
  PUpdateTableRequest,
} from '../convert/proto-types.js';
import {
  createTableRequestFromProto,
  dropRowRangeFromProto,
  modificationFromProto,
  tableResultToProto,
  tableToProto,
  tableViewFromProto,
  updateTableRequestFromProto,
} from '../convert/table.js';
import type { AnyMethod } from '../protos.js';
import { type RpcEnv, unary, unimplementedHandler } from '../rpc.js';
import { type IamPolicies, iamMethods } from './iam.js';
import type { OperationStore } from './operation-store.js';
import { page } from './paging.js';

/** google.bigtable.admin.v2.BigtableTableAdmin over a DatabaseCore. */
export function tableAdminService(
  db: DatabaseCore,
  env: RpcEnv,
  operations: OperationStore,
  policies: IamPolicies,
  methods: Record<string, AnyMethod>,
): UntypedServiceImplementation {
  const clusterIds = (instance: InstanceName): string[] => db.listClusters(instance).map((c) => c.id);

  const impl: UntypedServiceImplementation = {
    CreateTable: unary<PCreateTableRequest, PTable>(env, 'CreateTable', async (req) => {
      const cmd = createTableRequestFromProto(req);
      const info = await db.createTable({ ...cmd.parent, table: cmd.tableId }, cmd.spec);
      return tableResultToProto(info);
    }),

    ListTables: unary<PListTablesRequest, { tables: PTable[]; nextPageToken: string }>(env, 'ListTables', (req) => {
      if (!req.parent) throw invalidArgument('ListTables: parent is required (projects/{project}/instances/{instance})');
      const instance = parseInstanceName(req.parent);
      const view = tableViewFromProto(req.view, 'NAME_ONLY');
      const { items, nextPageToken } = page(db.listTables(instance), (t) => t.name.table, req.pageSize, req.pageToken);
      const clusters = view === 'NAME_ONLY' || view === 'SCHEMA_VIEW' ? [] : clusterIds(instance);
      return { tables: items.map((t) => tableToProto(t, view, clusters)), nextPageToken };
    }),

    GetTable: unary<PGetTableRequest, PTable>(env, 'GetTable', (req) => {
      const name = parseTableName(required(req.name, 'GetTable', 'name'));
      const view = tableViewFromProto(req.view, 'SCHEMA_VIEW');
      const info = db.getTable(name);
      return tableToProto(info, view, view === 'NAME_ONLY' || view === 'SCHEMA_VIEW' ? [] : clusterIds(name));
    }),

    UpdateTable: unary<PUpdateTableRequest, POperation>(env, 'UpdateTable', async (req) => {
      const started = Date.now();
      const cmd = updateTableRequestFromProto(req);
      const info = await db.updateTable(cmd.name, { deletionProtection: cmd.deletionProtection });
      return operationToProto(operations.add(tableNameString(cmd.name), { kind: 'table', table: info }, 'UpdateTableMetadata', started));
    }),

    DeleteTable: unary<PNameRequest, object>(env, 'DeleteTable', async (req) => {
      await db.deleteTable(parseTableName(required(req.name, 'DeleteTable', 'name')));
      return {};
    }),

    ModifyColumnFamilies: unary<PModifyColumnFamiliesRequest, PTable>(env, 'ModifyColumnFamilies', async (req) => {
      const name = parseTableName(required(req.name, 'ModifyColumnFamilies', 'name'));
      const commands = (req.modifications ?? []).map(modificationFromProto);
      if (commands.length === 0) throw invalidArgument('ModifyColumnFamilies needs at least one modification');
      const withValueType = commands.filter((c) => c.requestedValueType !== undefined);
      if (withValueType.length > 0) {
        const current = db.getTable(name);
        for (const c of withValueType) {
          const family = current.families.find((f) => f.name === c.modification.family);
          if (family !== undefined && !sameValueType(family.valueType, c.requestedValueType!)) {
            throw invalidArgument(`ModifyColumnFamilies: the value_type of column family "${family.name}" cannot be changed`);
          }
        }
      }
      const info = await db.modifyColumnFamilies(name, commands.map((c) => c.modification), req.ignoreWarnings === true);
      return tableResultToProto(info);
    }),

    DropRowRange: unary<PDropRowRangeRequest, object>(env, 'DropRowRange', async (req) => {
      const cmd = dropRowRangeFromProto(req);
      await db.dropRowRange(cmd.name, cmd.target);
      return {};
    }),

    GenerateConsistencyToken: unary<PNameRequest, { consistencyToken: string }>(env, 'GenerateConsistencyToken', async (req) => ({
      consistencyToken: await db.generateConsistencyToken(parseTableName(required(req.name, 'GenerateConsistencyToken', 'name'))),
    })),

    CheckConsistency: unary<PCheckConsistencyRequest, { consistent: boolean }>(env, 'CheckConsistency', (req) => {
      const name = parseTableName(required(req.name, 'CheckConsistency', 'name'));
      return { consistent: db.checkConsistency(name, required(req.consistencyToken, 'CheckConsistency', 'consistency_token')) };
    }),

    ...iamMethods(db, env, policies),
  };

  return withUnimplemented(impl, env, methods, {
    snapshots: ['CreateTableFromSnapshot', 'SnapshotTable', 'GetSnapshot', 'ListSnapshots', 'DeleteSnapshot'],
    backups: ['CreateBackup', 'GetBackup', 'UpdateBackup', 'DeleteBackup', 'ListBackups', 'RestoreTable', 'CopyBackup'],
    'table undelete': ['UndeleteTable'],
    'authorized views': ['CreateAuthorizedView', 'ListAuthorizedViews', 'GetAuthorizedView', 'UpdateAuthorizedView', 'DeleteAuthorizedView'],
    'schema bundles': ['CreateSchemaBundle', 'UpdateSchemaBundle', 'GetSchemaBundle', 'ListSchemaBundles', 'DeleteSchemaBundle'],
  });
}

function sameValueType(a: ValueType, b: ValueType): boolean {
  if (a.kind === 'bytes' || b.kind === 'bytes') return a.kind === b.kind;
  return a.aggregator === b.aggregator && a.input === b.input;
}

export function required(v: string | null | undefined, rpc: string, field: string): string {
  if (!v) throw invalidArgument(`${rpc}: ${field} is required`);
  return v;
}

/** Methods tabletop does not implement yet, listed under the feature they belong to. */
export type NotYetImplemented = Readonly<Record<string, readonly string[]>>;

/**
 * Completes a service: every method of `methods` without a handler in `impl`
 * answers UNIMPLEMENTED, naming its feature when `notYet` lists it.
 */
export function withUnimplemented(
  impl: UntypedServiceImplementation,
  env: RpcEnv,
  methods: Record<string, AnyMethod>,
  notYet: NotYetImplemented,
): UntypedServiceImplementation {
  const featureOf = new Map<string, string>();
  for (const [feature, names] of Object.entries(notYet)) for (const name of names) featureOf.set(name, feature);
  for (const [name, method] of Object.entries(methods)) {
    if (impl[name] !== undefined) continue;
    impl[name] = unimplementedHandler(env, name, method, `${name} (${featureOf.get(name) ?? 'this RPC'}) is not implemented by tabletop yet`);
  }
  return impl;
}
