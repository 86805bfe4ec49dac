import { createRequire } from 'node:module';
import path from 'node:path';
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

/**
 * The Bigtable protos, loaded once at runtime from the pinned
 * `google-proto-files` package (the same files the official Node client uses).
 *
 * Loader options, used consistently by every converter (convert/proto-types.ts):
 *  - keepCase false: camelCase field names, as the Node client uses;
 *  - longs String: int64 arrive as decimal strings, so out-of-range values are detected, never rounded;
 *  - enums String, bytes Buffer;
 *  - defaults false + oneofs true: unset fields stay absent (unset ≠ empty), and every oneof has a
 *    virtual field naming its set member.
 */

export const SERVICES = {
  data: 'google.bigtable.v2.Bigtable',
  tableAdmin: 'google.bigtable.admin.v2.BigtableTableAdmin',
  instanceAdmin: 'google.bigtable.admin.v2.BigtableInstanceAdmin',
  operations: 'google.longrunning.Operations',
} as const;

export type ServiceKey = keyof typeof SERVICES;

const PROTO_FILES = [
  'google/bigtable/v2/bigtable.proto',
  'google/bigtable/admin/v2/bigtable_table_admin.proto',
  'google/bigtable/admin/v2/bigtable_instance_admin.proto',
  'google/longrunning/operations.proto',
];

export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: false,
  longs: String,
  enums: String,
  bytes: Buffer,
  defaults: false,
  oneofs: true,
};

let cached: protoLoader.PackageDefinition | undefined;

/** The directory that holds google/bigtable/... (the root of google-proto-files). */
export function protoRoot(): string {
  const require = createRequire(import.meta.url);
  return path.dirname(require.resolve('google-proto-files/package.json'));
}

/** The loaded package definition (cached; about 150 ms the first time). */
export function packageDefinition(): protoLoader.PackageDefinition {
  cached ??= protoLoader.loadSync(PROTO_FILES, { ...LOADER_OPTIONS, includeDirs: [protoRoot()] });
  return cached;
}

// grpc-js's own type for loaded method definitions: any request and response; plus, for
// tabletop's transport, an optional decoder of a request that arrived in pieces (the DATA
// frames it came in), so that a large request need not be joined first.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyMethod = MethodDefinition<any, any> & { requestDeserializeParts?: (parts: readonly Buffer[]) => unknown };

/**
 * A fresh copy of a service definition (its method definitions copied too),
 * so that codecs can be swapped per server without touching the cache.
 */
export function serviceDefinition(key: ServiceKey): Record<string, AnyMethod> {
  const def = packageDefinition()[SERVICES[key]] as unknown as ServiceDefinition | undefined;
  if (def === undefined) throw new Error(`Service ${SERVICES[key]} is missing from the loaded protos`);
  const copy: Record<string, AnyMethod> = {};
  for (const [name, method] of Object.entries(def)) copy[name] = { ...(method as AnyMethod) };
  return copy;
}
