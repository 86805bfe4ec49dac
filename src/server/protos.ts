import { createRequire } from 'node:module';
import type { MethodDefinition } from '@grpc/grpc-js';
import type * as Protobuf from 'protobufjs';
import { BIGTABLE_DESCRIPTOR } from './bigtable-descriptor.js';

/**
 * The Bigtable services' method definitions (paths, streaming, and the
 * generic protobufjs codecs that every request and response without a
 * hand-written codec goes through).
 *
 * The types come from bigtable-descriptor.ts: a protobufjs JSON descriptor of
 * the four services and every type they reach, made from the pinned
 * `google-proto-files` package (the .proto files the official Node client
 * uses) by testing/write-bigtable-descriptor.ts and kept equal to them by
 * protos.test.ts. Loading it takes a fraction of what parsing the .proto files
 * with @grpc/proto-loader took at every start (about 250 ms of CPU, most of it
 * descriptors for grpc reflection, which the server does not serve).
 *
 * The codecs are @grpc/proto-loader's, over the protobufjs it uses (its own
 * dependency, 7.x, not the 8.x the hand-written codecs read with: 7.x keeps a
 * field set to its zero value and does not check UTF-8, 8.x does neither, and
 * the converters were written against the loader), with its options as every
 * converter expects them (convert/proto-types.ts):
 *  - keepCase false: camelCase field names, as the Node client uses;
 *  - longs String: int64 arrive as decimal strings, so out-of-range values are detected, never rounded;
 *  - enums String, bytes Buffer;
 *  - defaults false + oneofs true: unset fields stay absent (unset ≠ empty), and every oneof has a
 *    virtual field naming its set member.
 * protos.test.ts checks that they decode and encode as proto-loader's do.
 */

export const SERVICES = {
  data: 'google.bigtable.v2.Bigtable',
  tableAdmin: 'google.bigtable.admin.v2.BigtableTableAdmin',
  instanceAdmin: 'google.bigtable.admin.v2.BigtableInstanceAdmin',
  operations: 'google.longrunning.Operations',
} as const;

export type ServiceKey = keyof typeof SERVICES;

/** The .proto files (in google-proto-files) that define the services. */
export const PROTO_FILES = [
  'google/bigtable/v2/bigtable.proto',
  'google/bigtable/admin/v2/bigtable_table_admin.proto',
  'google/bigtable/admin/v2/bigtable_instance_admin.proto',
  'google/longrunning/operations.proto',
] as const;

/** The options of @grpc/proto-loader that the codecs follow (keepCase is the descriptor's). */
export const LOADER_OPTIONS = {
  keepCase: false,
  longs: String,
  enums: String,
  bytes: Buffer,
  defaults: false,
  oneofs: true,
} as const;

// grpc-js's own type for loaded method definitions: any request and response; plus, for
// tabletop's transport, an optional decoder of a request that arrived in pieces (the DATA
// frames it came in), so that a large request need not be joined first.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyMethod = MethodDefinition<any, any> & { requestDeserializeParts?: (parts: readonly Buffer[]) => unknown };

let loaded: typeof Protobuf | undefined;

/**
 * protobufjs as @grpc/proto-loader resolves it, its reflection without the
 * .proto parser (which the descriptor makes unnecessary), from the package's
 * own single-file build (dist/light): the same sources as protobufjs/light,
 * bundled, which loads in 5-10 ms against 25-45 for its 40-odd modules. That
 * build finds no `long` by itself (its require is the bundle's), so it is
 * given the one its sources would load (protobufjs's documented
 * `util.Long = Long; configure()`), and the global `protobuf` it sets for
 * browsers is removed again. Typed with this package's protobufjs, whose API
 * is the same for what is used here.
 */
export function loaderProtobuf(): typeof Protobuf {
  if (loaded !== undefined) return loaded;
  const fromLoader = createRequire(createRequire(import.meta.url).resolve('@grpc/proto-loader'));
  const fromProtobuf = createRequire(fromLoader.resolve('protobufjs/package.json'));
  const hadGlobal = Object.hasOwn(globalThis, 'protobuf');
  const protobuf = fromProtobuf('./dist/light/protobuf.min.js') as typeof Protobuf;
  if (!hadGlobal) delete (globalThis as { protobuf?: unknown }).protobuf;
  protobuf.util.Long = fromProtobuf('long') as typeof protobuf.util.Long;
  protobuf.configure();
  loaded = protobuf;
  return protobuf;
}

let root: Protobuf.Root | undefined;

/**
 * The descriptor's types (built on first use). Not Root.fromJSON, which then
 * resolves every field of every type (most of its time): a type's fields are
 * resolved when its codec is first made, and a method's types when its
 * definition is.
 */
function bigtableRoot(): Protobuf.Root {
  if (root === undefined) {
    const json = JSON.parse(BIGTABLE_DESCRIPTOR) as Protobuf.INamespace;
    root = new (loaderProtobuf().Root)();
    if (json.nested !== undefined) root.addJSON(json.nested);
  }
  return root;
}

/**
 * A fresh set of a service's method definitions, so that codecs can be
 * swapped per server. A type's codec code is generated by protobufjs on its
 * first use.
 */
export function serviceDefinition(key: ServiceKey): Record<string, AnyMethod> {
  const name = SERVICES[key];
  const service = bigtableRoot().lookupService(name);
  const methods: Record<string, AnyMethod> = {};
  for (const method of service.methodsArray) {
    method.resolve();
    const request = method.resolvedRequestType;
    const response = method.resolvedResponseType;
    if (request === null || response === null) throw new Error(`${name}.${method.name}: its types are missing from the descriptor`);
    methods[method.name] = {
      path: `/${name}/${method.name}`,
      requestStream: method.requestStream === true,
      responseStream: method.responseStream === true,
      requestSerialize: serializer(request),
      requestDeserialize: deserializer(request),
      responseSerialize: serializer(response),
      responseDeserialize: deserializer(response),
      originalName: method.name.charAt(0).toLowerCase() + method.name.slice(1),
    };
  }
  return methods;
}

/** As @grpc/proto-loader's: an object in the loader's form to bytes. */
function serializer(type: Protobuf.Type): (value: unknown) => Buffer {
  return (value) => {
    if (Array.isArray(value)) throw new Error(`Failed to serialize message: expected object with ${type.name} structure, got array instead`);
    // protobufjs writes Buffers under Node (its BufferWriter).
    return type.encode(type.fromObject(value as Record<string, unknown>)).finish() as Buffer;
  };
}

/** As @grpc/proto-loader's: bytes to an object in the loader's form. */
function deserializer(type: Protobuf.Type): (bytes: Buffer) => unknown {
  return (bytes) => type.toObject(type.decode(bytes), LOADER_OPTIONS);
}
