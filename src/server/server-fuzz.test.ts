import * as grpc from '@grpc/grpc-js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnyMethod, SERVICES, serviceDefinition } from './protos.js';
import { packageDefinition } from './testing/loader-protos.js';
import { unaryCall } from './testing/raw-client.js';
import { DELIBERATE, sendRaw } from './testing/raw-send.js';
import { type TestServer, startTestServer } from './testing/test-server.js';

/**
 * Random and corrupted requests, as raw bytes, to every method of every
 * service: the server must answer each with a deliberate status (never
 * INTERNAL or UNKNOWN, which would mean an unexpected exception), log no
 * internal error, and keep serving. Seeded (FUZZ_SEED overrides) so that CI is
 * reproducible.
 */

const SEED = Number(process.env['FUZZ_SEED'] ?? 20260101);
const RUNS_PER_METHOD = 25;
const INSTANCE = 'projects/p/instances/fuzz';
const TABLE = `${INSTANCE}/tables/t`;
const b = (s: string) => Buffer.from(s, 'latin1');

/** Deliberate answers, minus PERMISSION_DENIED (authentication is off). */
const ALLOWED: ReadonlySet<grpc.status> = new Set([...DELIBERATE].filter((c) => c !== grpc.status.PERMISSION_DENIED));

/** Valid requests to corrupt, per method; other methods start from random bytes. */
const SEEDS: Record<string, object> = {
  ReadRows: {
    tableName: TABLE,
    rows: { rowKeys: [b('a')], rowRanges: [{ startKeyOpen: b('a'), endKeyClosed: b('z') }] },
    filter: {
      chain: {
        filters: [
          { familyNameRegexFilter: 'cf' },
          { cellsPerColumnLimitFilter: 1 },
          { condition: { predicateFilter: { valueRegexFilter: b('v.*') }, trueFilter: { stripValueTransformer: true } } },
        ],
      },
    },
    rowsLimit: '10',
  },
  MutateRows: {
    tableName: TABLE,
    entries: [
      {
        rowKey: b('k'),
        mutations: [
          { setCell: { familyName: 'cf', columnQualifier: b('q'), timestampMicros: '1000', value: b('v') } },
          {
            addToCell: {
              familyName: 'agg',
              columnQualifier: { rawValue: b('c') },
              timestamp: { rawTimestampMicros: '1000' },
              input: { intValue: '1' },
            },
          },
          { deleteFromColumn: { familyName: 'cf', columnQualifier: b('q'), timeRange: { startTimestampMicros: '0' } } },
        ],
      },
    ],
  },
  MutateRow: {
    tableName: TABLE,
    rowKey: b('k'),
    mutations: [
      { setCell: { familyName: 'cf', columnQualifier: b('q'), timestampMicros: '-1', value: b('v') } },
      {
        mergeToCell: {
          familyName: 'agg',
          columnQualifier: { rawValue: b('c') },
          timestamp: { rawTimestampMicros: '1000' },
          input: { rawValue: b('\x00\x00\x00\x00\x00\x00\x00\x01') },
        },
      },
    ],
  },
  CheckAndMutateRow: {
    tableName: TABLE,
    rowKey: b('k'),
    predicateFilter: { interleave: { filters: [{ sink: true }, { applyLabelTransformer: 'l' }] } },
    trueMutations: [{ deleteFromRow: {} }],
    falseMutations: [{ deleteFromFamily: { familyName: 'cf' } }],
  },
  ReadModifyWriteRow: {
    tableName: TABLE,
    rowKey: b('k'),
    rules: [
      { familyName: 'cf', columnQualifier: b('n'), incrementAmount: '1' },
      { familyName: 'cf', columnQualifier: b('s'), appendValue: b('x') },
    ],
  },
  SampleRowKeys: { tableName: TABLE, rowRange: { startKeyClosed: b('a') } },
  CreateTable: {
    parent: INSTANCE,
    tableId: 'new',
    table: { columnFamilies: { f: { gcRule: { intersection: { rules: [{ maxNumVersions: 1 }, { maxAge: { seconds: '1' } }] } } } } },
    initialSplits: [{ key: b('m') }],
  },
  ModifyColumnFamilies: {
    name: TABLE,
    modifications: [
      { id: 'g', create: { valueType: { aggregateType: { inputType: { bytesType: {} }, hllppUniqueCount: {} } } } },
      { id: 'cf', update: { gcRule: { maxNumVersions: 2 } }, updateMask: { paths: ['gc_rule'] } },
    ],
  },
  DropRowRange: { name: TABLE, rowKeyPrefix: b('zz') },
  UpdateTable: { table: { name: TABLE, deletionProtection: false }, updateMask: { paths: ['deletion_protection'] } },
  CreateInstance: {
    parent: 'projects/p',
    instanceId: 'fz',
    instance: { displayName: 'x' },
    clusters: { c: { location: 'projects/p/locations/z' } },
  },
  CreateAppProfile: { parent: INSTANCE, appProfileId: 'ap', appProfile: { multiClusterRoutingUseAny: { clusterIds: ['c'] } } },
};

/** A corrupted version of `seed`: truncated, bytes flipped, or random bytes appended. */
const corrupt = (seed: Buffer) =>
  fc.oneof(
    fc.nat({ max: Math.max(0, seed.length - 1) }).map((n) => seed.subarray(0, n)),
    fc
      .array(fc.tuple(fc.nat({ max: Math.max(0, seed.length - 1) }), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 })
      .map((flips) => {
        const out = Buffer.from(seed);
        for (const [at, x] of flips) if (out.length > 0) out[at % out.length] = out[at % out.length]! ^ x;
        return out;
      }),
    fc.uint8Array({ minLength: 1, maxLength: 16 }).map((tail) => Buffer.concat([seed, Buffer.from(tail)])),
  );

let ts: TestServer;
let raw: grpc.Client;

beforeAll(async () => {
  ts = await startTestServer();
  raw = new grpc.Client(ts.server.address, grpc.credentials.createInsecure());
  await unaryCall(ts.clients.tableAdmin, 'CreateTable', {
    parent: INSTANCE,
    tableId: 't',
    table: { columnFamilies: { cf: {}, agg: { valueType: { aggregateType: { inputType: { int64Type: {} }, sum: {} } } } } },
  });
});

afterAll(async () => {
  raw.close();
  await ts.stop();
});

/** Sends raw bytes to a method of any type; resolves with the final status code. */
const send = async (path: string, method: AnyMethod, bytes: Buffer): Promise<grpc.status> =>
  (await sendRaw(raw, { ...method, path }, bytes)).code;

const methods: [string, string, AnyMethod][] = Object.values(SERVICES).flatMap((service) =>
  Object.entries(packageDefinition()[service] as unknown as Record<string, AnyMethod>).map(([name, m]): [string, string, AnyMethod] => [
    service,
    name,
    m,
  ]),
);

describe('fuzzed requests', () => {
  it.each(methods)('%s/%s answers every malformed request deliberately', async (service, name, method) => {
    const seed = method.requestSerialize(SEEDS[name] ?? {}) as Buffer;
    const input = fc.oneof(
      fc.uint8Array({ maxLength: 64 }).map((u) => Buffer.from(u)),
      corrupt(seed),
      fc.constant(seed),
    );
    const seen: [string, grpc.status][] = [];
    await fc.assert(
      fc.asyncProperty(input, async (bytes) => {
        const code = await send(method.path, method, bytes);
        seen.push([bytes.toString('hex'), code]);
        expect(ALLOWED.has(code), `${name}(${bytes.toString('hex')}) answered ${grpc.status[code]}`).toBe(true);
      }),
      { seed: SEED, numRuns: RUNS_PER_METHOD },
    );
    expect(seen.length).toBeGreaterThan(0);
  });

  it('answers a request naming a 60 KB table promptly, with a bounded message, and the connection goes on', async () => {
    // Found by protocol fuzzing: the message quoted the name whole, and the 150 KB grpc-message trailer made
    // Node's HTTP/2 client drop the connection; every call on it then hung until its deadline.
    const name = `${INSTANCE}/tables/${'\u00e9x'.repeat(30_000)}`;
    const method = serviceDefinition('tableAdmin')['CheckConsistency']!;
    const started = performance.now();
    const outcome = await sendRaw(raw, method, method.requestSerialize({ name, consistencyToken: 't' }), { deadlineMillis: 10_000 });
    expect([grpc.status.INVALID_ARGUMENT, grpc.status.NOT_FOUND]).toContain(outcome.code);
    expect(outcome.details.length).toBeLessThanOrEqual(2000);
    expect(outcome.details).toMatch(/more characters\)$/);
    expect(performance.now() - started).toBeLessThan(5000);
    await expect(unaryCall(ts.clients.data, 'PingAndWarm', { name: INSTANCE })).resolves.toEqual({});
    const again = await sendRaw(raw, serviceDefinition('data')['PingAndWarm']!, Buffer.alloc(0), { deadlineMillis: 5000 });
    expect(again.code).not.toBe(grpc.status.DEADLINE_EXCEEDED);
  });

  it('keeps serving and logs no internal error', async () => {
    await expect(unaryCall(ts.clients.data, 'PingAndWarm', { name: INSTANCE })).resolves.toEqual({});
    expect(ts.log.filter((l) => l.startsWith('error'))).toEqual([]);
  });
});
