import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import type * as Protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { BIGTABLE_DESCRIPTOR } from './bigtable-descriptor.js';
import { type AnyMethod, SERVICES, type ServiceKey, loaderProtobuf, serviceDefinition } from './protos.js';
import {
  DESCRIPTOR_FILE,
  descriptorFromProtos,
  descriptorModule,
  loaderProtobufWithParser,
  parsedProtos,
} from './testing/bigtable-descriptor-source.js';
import { packageDefinition } from './testing/loader-protos.js';

/**
 * The server's method definitions (protos.ts, from the descriptor made at
 * build time) against @grpc/proto-loader's, loaded from the pinned .proto
 * files as the server loaded them before: the same methods, and codecs that
 * decode and encode as proto-loader's do, on random messages of every
 * request and response type.
 */

const KEYS = Object.keys(SERVICES) as ServiceKey[];
const reference = (key: ServiceKey): Record<string, AnyMethod> =>
  packageDefinition()[SERVICES[key]] as unknown as Record<string, AnyMethod>;

describe('bigtable-descriptor.ts', () => {
  it('resolves every type it holds by itself (the server resolves them lazily)', () => {
    expect(() =>
      loaderProtobuf()
        .Root.fromJSON(JSON.parse(BIGTABLE_DESCRIPTOR) as Protobuf.INamespace)
        .resolveAll(),
    ).not.toThrow();
  });

  it('is what the pinned google-proto-files give (else: npx tsx src/server/testing/write-bigtable-descriptor.ts)', () => {
    expect(readFileSync(DESCRIPTOR_FILE, 'utf8')).toBe(descriptorModule(descriptorFromProtos()));
  });
});

describe('serviceDefinition', () => {
  it.each(KEYS)('%s has the methods of the protos, with their paths and shapes', (key) => {
    const shape = (methods: Record<string, AnyMethod>) =>
      Object.fromEntries(
        Object.entries(methods).map(([name, m]) => [
          name,
          { path: m.path, requestStream: m.requestStream, responseStream: m.responseStream, originalName: m.originalName },
        ]),
      );
    expect(shape(serviceDefinition(key))).toEqual(shape(reference(key)));
  });

  it("loads the loader's protobufjs with int64 support and Node Buffers, and leaves no global behind", () => {
    const protobuf = loaderProtobuf();
    expect(protobuf.util.Long).toBe(loaderProtobufWithParser().util.Long);
    expect(protobuf.util.Long).toBeTruthy();
    // Node Buffers, as the converters expect bytes fields and encoded messages to be.
    expect(protobuf.util.Buffer).toBe(Buffer);
    const readRows = serviceDefinition('data')['ReadRows']!;
    const bytes = readRows.requestSerialize({ tableName: 't', rows: { rowKeys: [Buffer.from('k')] } });
    expect(Buffer.isBuffer(bytes)).toBe(true);
    expect(Buffer.isBuffer(readRows.requestDeserialize(bytes).rows.rowKeys[0])).toBe(true);
    expect(Object.hasOwn(globalThis, 'protobuf')).toBe(false);
  });

  it('gives frozen definitions, made once: nothing can edit them in place', () => {
    const a = serviceDefinition('data');
    expect(serviceDefinition('data')).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(Object.values(a).every((m) => Object.isFrozen(m))).toBe(true);
    expect(() => {
      (a['ReadRows'] as { responseSerialize: unknown }).responseSerialize = () => Buffer.alloc(0);
    }).toThrow(TypeError);
  });

  const root = parsedProtos();
  const methods = KEYS.flatMap((key) =>
    root.lookupService(SERVICES[key]).methodsArray.map((m): [ServiceKey, string, Protobuf.Method] => [key, m.name, m]),
  );

  const packed = methods.flatMap(([key, name, method]) =>
    ['response_type', 'metadata_type'].flatMap((option) => {
      const type = method.options?.[`(google.longrunning.operation_info).${option}`] as string | undefined;
      return type === undefined ? [] : [[key, name, method.parent!.lookupType(type).fullName.slice(1)] as const];
    }),
  );

  it.each(packed)('%s.%s: an Operation packs %s in google.protobuf.Any as proto-loader does', (key, name, type) => {
    const operation = { name: 'operations/x', done: true, metadata: { '@type': `type.googleapis.com/${type}` } };
    const ours = serviceDefinition(key)[name]!.responseSerialize(operation);
    expect(ours).toEqual(reference(key)[name]!.responseSerialize(operation));
    expect(ours.length).toBeGreaterThan(0);
  });

  it.each(methods)('%s.%s: codecs decode and encode random messages as proto-loader does', (key, name, method) => {
    const ours = serviceDefinition(key)[name]!;
    const theirs = reference(key)[name]!;
    for (const [type, side] of [
      [method.resolvedRequestType!, 'request'],
      [method.resolvedResponseType!, 'response'],
    ] as const) {
      const serialize = side === 'request' ? 'requestSerialize' : 'responseSerialize';
      const deserialize = side === 'request' ? 'requestDeserialize' : 'responseDeserialize';
      fc.assert(
        fc.property(messageArbitrary(type), (message) => {
          const bytes = theirs[serialize](message);
          // Decoding: the same object from the same bytes.
          expect(ours[deserialize](bytes)).toEqual(theirs[deserialize](bytes));
          // Encoding: bytes that proto-loader decodes to what it decodes from its own.
          expect(theirs[deserialize](ours[serialize](message))).toEqual(theirs[deserialize](bytes));
        }),
        { seed: SEED, numRuns: 40 },
      );
    }
  });
});

const SEED = Number(process.env['FUZZ_SEED'] ?? 20261127);
const MAX_DEPTH = 4;
// The reflection classes of the parsed protos that the arbitraries walk.
const protobuf = loaderProtobufWithParser();
const arbitraries = new Map<string, fc.Arbitrary<Record<string, unknown>>>();

/**
 * Random messages of `type` in the loader's object form (camelCase names,
 * int64 as decimal strings, enums by name, bytes as Buffers, at most one
 * member of each oneof), zero values included, nested MAX_DEPTH deep.
 */
function messageArbitrary(type: Protobuf.Type, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const key = `${type.fullName}@${depth}`;
  const cached = arbitraries.get(key);
  if (cached !== undefined) return cached;
  const plain: Record<string, fc.Arbitrary<unknown>> = {};
  for (const field of type.fieldsArray) if (field.partOf === null) plain[field.name] = fieldArbitrary(field, depth);
  const oneofs = type.oneofsArray.map((oneof) =>
    fc.option(fc.oneof(...oneof.fieldsArray.map((f) => fieldArbitrary(f, depth).map((v) => ({ [f.name]: v })))), { nil: {} }),
  );
  const arbitrary = fc
    .tuple(fc.record(plain, { requiredKeys: [] }), ...oneofs)
    .map(([fields, ...chosen]) =>
      Object.fromEntries(
        Object.entries(Object.assign({}, fields, ...chosen) as Record<string, unknown>).filter(([, v]) => v !== undefined),
      ),
    );
  arbitraries.set(key, arbitrary);
  return arbitrary;
}

function fieldArbitrary(field: Protobuf.Field, depth: number): fc.Arbitrary<unknown> {
  const value = valueArbitrary(field, depth);
  if (field instanceof protobuf.MapField) return fc.dictionary(scalarArbitrary(field.keyType).map(String), value, { maxKeys: 2 });
  if (field.repeated) return fc.array(value, { maxLength: 2 }).map((xs) => xs.filter((x) => x !== undefined));
  return value;
}

function valueArbitrary(field: Protobuf.Field, depth: number): fc.Arbitrary<unknown> {
  const t = field.resolvedType;
  if (t instanceof protobuf.Enum) return fc.constantFrom(...Object.keys(t.values));
  if (t instanceof protobuf.Type)
    return depth >= MAX_DEPTH ? fc.constant(undefined) : fc.constant(null).chain(() => messageArbitrary(t, depth + 1));
  return scalarArbitrary(field.type);
}

function scalarArbitrary(type: string): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return fc.string({ maxLength: 8 });
    case 'bytes':
      return fc.uint8Array({ maxLength: 8 }).map((b) => Buffer.from(b));
    case 'bool':
      return fc.boolean();
    case 'double':
      return fc.double({ noNaN: true });
    case 'float':
      return fc.float({ noNaN: true });
    case 'int32':
    case 'sint32':
    case 'sfixed32':
      return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    case 'uint32':
    case 'fixed32':
      return fc.integer({ min: 0, max: 2 ** 32 - 1 });
    case 'int64':
    case 'sint64':
    case 'sfixed64':
      return fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String);
    case 'uint64':
    case 'fixed64':
      return fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String);
    default:
      throw new Error(`no arbitrary for ${type}`);
  }
}
