import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type * as Protobuf from 'protobufjs';
import { PROTO_FILES, SERVICES } from '../protos.js';
import { protoRoot } from './loader-protos.js';

/**
 * Makes the server's Bigtable descriptor (../bigtable-descriptor.ts) from the
 * pinned google-proto-files package: the four services and every message
 * and enum type they reach (their requests and responses, and the types
 * their long-running operations pack in google.protobuf.Any), as protobufjs JSON (of the protobufjs that
 * @grpc/proto-loader uses, as the server's codecs do), parsed with the server's
 * field-name option (camelCase, as the Node client uses). Custom options
 * (`(google.api.http)`, `(google.api.field_behavior)`, ...) annotate and
 * change no encoding, so they are left out; options that do (`packed`,
 * `proto3_optional`, `allow_alias`) stay.
 *
 * `npx tsx src/server/testing/write-bigtable-descriptor.ts` writes the file;
 * protos.test.ts fails when it differs from what this returns.
 */

export const DESCRIPTOR_FILE = new URL('../bigtable-descriptor.ts', import.meta.url);

/** protobufjs with its .proto parser, as @grpc/proto-loader resolves it (the server's codecs use the same version; see ../protos.ts). */
export function loaderProtobufWithParser(): typeof Protobuf {
  const loader = createRequire(import.meta.url).resolve('@grpc/proto-loader');
  return createRequire(loader)('protobufjs') as typeof Protobuf;
}

/** The services' .proto files parsed by the loader's protobufjs (as the descriptor is made), every type resolved. */
export function parsedProtos(): Protobuf.Root {
  const protobuf = loaderProtobufWithParser();
  const root = new protobuf.Root();
  const include = protoRoot();
  root.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : path.join(include, target));
  root.loadSync([...PROTO_FILES], { keepCase: false });
  root.resolveAll();
  return root;
}

/** The descriptor as JSON text. */
export function descriptorFromProtos(): string {
  const protobuf = loaderProtobufWithParser();
  const root = parsedProtos();
  const reached = new Set<string>();
  const reach = (t: Protobuf.Type | Protobuf.Enum): void => {
    if (reached.has(t.fullName)) return;
    reached.add(t.fullName);
    if (t instanceof protobuf.Type) for (const f of t.fieldsArray) if (f.resolvedType !== null) reach(f.resolvedType);
  };
  for (const name of Object.values(SERVICES)) {
    const service = root.lookupService(name);
    reached.add(service.fullName);
    for (const m of service.methodsArray) {
      m.resolve();
      if (m.resolvedRequestType === null || m.resolvedResponseType === null) throw new Error(`${name}.${m.name} does not resolve`);
      reach(m.resolvedRequestType);
      reach(m.resolvedResponseType);
      // A long-running method's Operation carries these packed in google.protobuf.Any ('@type').
      for (const option of ['response_type', 'metadata_type']) {
        const packed = m.options?.[`(google.longrunning.operation_info).${option}`] as string | undefined;
        if (packed !== undefined) reach(service.parent?.lookupTypeOrEnum(packed) ?? root.lookupTypeOrEnum(packed));
      }
    }
  }
  return JSON.stringify(prune(root.toJSON() as unknown as JsonObject, '', reached));
}

/** The text of ../bigtable-descriptor.ts for a descriptor. */
export function descriptorModule(json: string): string {
  const version = (JSON.parse(readFileSync(path.join(protoRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  return [
    `// Generated from google-proto-files ${version} by \`npx tsx src/server/testing/write-bigtable-descriptor.ts\`; do not edit.`,
    '// The Bigtable services and every type they reach, as protobufjs JSON (see testing/bigtable-descriptor-source.ts);',
    '// protos.test.ts keeps it equal to what the pinned protos give.',
    `export const BIGTABLE_DESCRIPTOR = '${json.replace(/[\\']/g, (c) => `\\${c}`)}';`,
    '',
  ].join('\n');
}

type JsonObject = { [key: string]: unknown };

/** The reached objects of a namespace's JSON (namespaces kept only as paths to them), without custom options. */
function prune(json: JsonObject, prefix: string, reached: ReadonlySet<string>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(json)) {
    if (key === 'nested' || key === 'parsedOptions') continue;
    out[key] = key === 'options' ? plainOptions(value as JsonObject) : deepWithoutCustomOptions(value);
  }
  if (out['options'] !== undefined && Object.keys(out['options'] as JsonObject).length === 0) delete out['options'];
  const nested: JsonObject = {};
  for (const [name, child] of Object.entries((json['nested'] as JsonObject | undefined) ?? {})) {
    const fullName = `${prefix}.${name}`;
    const pruned = prune(child as JsonObject, fullName, reached);
    if (reached.has(fullName)) nested[name] = pruned;
    else if (pruned['nested'] !== undefined) nested[name] = { nested: pruned['nested'] };
  }
  if (Object.keys(nested).length > 0) out['nested'] = nested;
  return out;
}

function plainOptions(options: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(options).filter(([k]) => !k.startsWith('(')));
}

/** Fields, methods and values carry their own `options` and `parsedOptions`. */
function deepWithoutCustomOptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(deepWithoutCustomOptions);
  if (typeof value !== 'object' || value === null) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === 'parsedOptions') continue;
    if (k === 'options') {
      const plain = plainOptions(v as JsonObject);
      if (Object.keys(plain).length > 0) out[k] = plain;
    } else out[k] = deepWithoutCustomOptions(v);
  }
  return out;
}
