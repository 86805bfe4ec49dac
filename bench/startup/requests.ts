import { createRequire } from 'node:module';
import path from 'node:path';
import * as protoLoader from '@grpc/proto-loader';
import { FAMILY } from '../workloads/dataset.js';
import { INSTANCE, PROJECT, fullTableName } from '../workloads/node-client.js';

/**
 * The raw first calls of a start-up probe, encoded in the harness with the
 * protos the official clients use (the pinned google-proto-files package),
 * so that the probe itself loads no protobuf code: a CreateTableRequest of a
 * table with the benchmark's column family, and a ReadRowsRequest of it.
 */
export function firstCallRequests(table: string): { readonly createTable: string; readonly readRows: string } {
  const require = createRequire(import.meta.url);
  const root = path.dirname(require.resolve('google-proto-files/package.json'));
  const def = protoLoader.loadSync(['google/bigtable/v2/bigtable.proto', 'google/bigtable/admin/v2/bigtable_table_admin.proto'], {
    keepCase: false,
    includeDirs: [root],
  });
  const serializer = (service: string, method: string): ((v: object) => Buffer) => {
    const m = (def[service] as Record<string, { requestSerialize: (v: object) => Buffer }> | undefined)?.[method];
    if (m === undefined) throw new Error(`${service} ${method} is missing from google-proto-files`);
    return m.requestSerialize;
  };
  const createTable = serializer(
    'google.bigtable.admin.v2.BigtableTableAdmin',
    'CreateTable',
  )({
    parent: `projects/${PROJECT}/instances/${INSTANCE}`,
    tableId: table,
    table: { columnFamilies: { [FAMILY]: {} } },
  });
  const readRows = serializer('google.bigtable.v2.Bigtable', 'ReadRows')({ tableName: fullTableName(table) });
  return { createTable: createTable.toString('base64'), readRows: readRows.toString('base64') };
}
