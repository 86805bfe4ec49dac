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
import { type ServiceSpec, resource, unary } from '../method-table.js';
import { SERVICES } from '../protos.js';
import type { Authorizer } from '../auth/authorizer.js';
import { authorizedViewMethods } from './authorized-view-methods.js';
import { backupMethods } from './backup-methods.js';
import { required } from './required.js';
import { iamMethods } from './iam.js';
import type { OperationStore } from './operation-store.js';
import { page } from './paging.js';

/** google.bigtable.admin.v2.BigtableTableAdmin over a DatabaseCore. */
export function tableAdminService(db: DatabaseCore, operations: OperationStore, authorizer: Authorizer): ServiceSpec {
  const clusterIds = (instance: InstanceName): string[] => db.listClusters(instance).map((c) => c.id);

  const methods = {
    CreateTable: unary<PCreateTableRequest, PTable>({ resource: (req) => resource('instance', req.parent) }, async (req) => {
      const cmd = createTableRequestFromProto(req);
      const info = await db.createTable({ ...cmd.parent, table: cmd.tableId }, cmd.spec);
      return tableResultToProto(info);
    }),

    ListTables: unary<PListTablesRequest, { tables: PTable[]; nextPageToken: string }>(
      { resource: (req) => resource('instance', req.parent) },
      (req) => {
        if (!req.parent) throw invalidArgument('ListTables: parent is required (projects/{project}/instances/{instance})');
        const instance = parseInstanceName(req.parent);
        const view = tableViewFromProto(req.view, 'NAME_ONLY');
        const { items, nextPageToken } = page(db.listTables(instance), (t) => t.name.table, req.pageSize, req.pageToken);
        const clusters = view === 'NAME_ONLY' || view === 'SCHEMA_VIEW' ? [] : clusterIds(instance);
        return { tables: items.map((t) => tableToProto(t, view, clusters)), nextPageToken };
      },
    ),

    GetTable: unary<PGetTableRequest, PTable>({ resource: (req) => resource('table', req.name) }, (req) => {
      const name = parseTableName(required(req.name, 'GetTable', 'name'));
      const view = tableViewFromProto(req.view, 'SCHEMA_VIEW');
      const info = db.getTable(name);
      return tableToProto(info, view, view === 'NAME_ONLY' || view === 'SCHEMA_VIEW' ? [] : clusterIds(name));
    }),

    UpdateTable: unary<PUpdateTableRequest, POperation>({ resource: (req) => resource('table', req.table?.name) }, async (req) => {
      const started = Date.now();
      const cmd = updateTableRequestFromProto(req);
      const info = await db.updateTable(cmd.name, { deletionProtection: cmd.deletionProtection });
      return operationToProto(operations.add(tableNameString(cmd.name), { kind: 'table', table: info }, 'UpdateTableMetadata', started));
    }),

    /** Refused (FAILED_PRECONDITION) while the table, or one of its authorized views, is protected against deletion. */
    DeleteTable: unary<PNameRequest, object>({ resource: (req) => resource('table', req.name) }, async (req) => {
      await db.deleteTable(parseTableName(required(req.name, 'DeleteTable', 'name')));
      return {};
    }),

    ModifyColumnFamilies: unary<PModifyColumnFamiliesRequest, PTable>({ resource: (req) => resource('table', req.name) }, async (req) => {
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
      const info = await db.modifyColumnFamilies(
        name,
        commands.map((c) => c.modification),
        req.ignoreWarnings === true,
      );
      return tableResultToProto(info);
    }),

    DropRowRange: unary<PDropRowRangeRequest, object>({ resource: (req) => resource('table', req.name) }, async (req) => {
      const cmd = dropRowRangeFromProto(req);
      await db.dropRowRange(cmd.name, cmd.target);
      return {};
    }),

    GenerateConsistencyToken: unary<PNameRequest, { consistencyToken: string }>(
      { resource: (req) => resource('table', req.name) },
      async (req) => ({
        consistencyToken: await db.generateConsistencyToken(parseTableName(required(req.name, 'GenerateConsistencyToken', 'name'))),
      }),
    ),

    CheckConsistency: unary<PCheckConsistencyRequest, { consistent: boolean }>(
      { resource: (req) => resource('table', req.name) },
      (req) => {
        const name = parseTableName(required(req.name, 'CheckConsistency', 'name'));
        return { consistent: db.checkConsistency(name, required(req.consistencyToken, 'CheckConsistency', 'consistency_token')) };
      },
    ),

    ...authorizedViewMethods(db, operations),
    ...backupMethods(db, operations),
    ...iamMethods(db, authorizer),
  };

  return {
    service: SERVICES.tableAdmin,
    methods,
    notYet: {
      snapshots: ['CreateTableFromSnapshot', 'SnapshotTable', 'GetSnapshot', 'ListSnapshots', 'DeleteSnapshot'],
      'table undelete': ['UndeleteTable'],
      'schema bundles': ['CreateSchemaBundle', 'UpdateSchemaBundle', 'GetSchemaBundle', 'ListSchemaBundles', 'DeleteSchemaBundle'],
    },
  };
}

function sameValueType(a: ValueType, b: ValueType): boolean {
  if (a.kind === 'bytes' || b.kind === 'bytes') return a.kind === b.kind;
  return a.aggregator === b.aggregator && a.input === b.input;
}
