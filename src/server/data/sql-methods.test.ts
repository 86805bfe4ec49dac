import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { crc32c } from '@node-rs/crc32';
import protobuf from 'protobufjs';
import { Bigtable, SqlTypes } from '@google-cloud/bigtable';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TabletopError, failedPrecondition, invalidArgument } from '../../model/errors.js';
import type { ExecuteOptions, PreparedQuery, SqlEngine } from '../../sql/engine.js';
import { SqlDate, SqlMap, SqlStruct, SqlTimestamp, type SqlType, type SqlValue } from '../../sql/types.js';
import { protoRoot } from '../testing/loader-protos.js';
import { type TestServer, startTestServer } from '../testing/test-server.js';

/**
 * PrepareQuery / ExecuteQuery over a raw gRPC client against a tiny in-test
 * engine (the real one is src/sql's; this checks only the wire: conversion,
 * batching, checksums, tokens, resume, expired plans).
 */

const root = new protobuf.Root();
root.resolvePath = (_origin, target) => path.join(protoRoot(), target);
root.loadSync(['google/bigtable/v2/data.proto', 'google/rpc/status.proto', 'google/rpc/error_details.proto'], { keepCase: false });
const ProtoRows = root.lookupType('google.bigtable.v2.ProtoRows');
const RpcStatus = root.lookupType('google.rpc.Status');
const PreconditionFailure = root.lookupType('google.rpc.PreconditionFailure');

const ALL_TYPES: SqlType = {
  kind: 'STRUCT',
  fields: [
    { name: 'a', type: { kind: 'INT64' } },
    { name: 'b', type: { kind: 'STRING' } },
  ],
};
const MAP_TYPE: SqlType = { kind: 'MAP', key: { kind: 'BYTES' }, value: { kind: 'BYTES' } };

/** An engine over `n` generated rows: (i INT64, s STRING, b BYTES, f FLOAT32, t TIMESTAMP, d DATE, st STRUCT, m MAP, nul BOOL). */
class FakeEngine implements SqlEngine {
  executions: ExecuteOptions[] = [];
  prepares = 0;
  /** The next this many executions fail as an expired plan. */
  expiring = 0;
  /** The first execution fails UNAVAILABLE after this many rows (a dropped stream; the client retries). */
  failAfter: number | undefined;
  constructor(private readonly n: number) {}
  prepare(_instance: string, query: string, paramTypes: ReadonlyMap<string, SqlType>): Promise<PreparedQuery> {
    this.prepares++;
    if (query.startsWith('BAD')) return Promise.reject(invalidArgument('line 1, column 1: Syntax error: Unexpected identifier "BAD"'));
    return Promise.resolve({
      columns: [
        { name: 'i', type: { kind: 'INT64' } },
        { name: 's', type: { kind: 'STRING' } },
        { name: 'b', type: { kind: 'BYTES' } },
        { name: 'f', type: { kind: 'FLOAT32' } },
        { name: 't', type: { kind: 'TIMESTAMP' } },
        { name: 'd', type: { kind: 'DATE' } },
        { name: 'st', type: ALL_TYPES },
        { name: 'm', type: MAP_TYPE },
        { name: 'nul', type: { kind: 'BOOL' } },
      ],
      paramTypes,
      token: Buffer.from(query),
    });
  }
  execute(_instance: string, _token: Uint8Array, options: ExecuteOptions) {
    this.executions.push(options);
    const n = this.n;
    const expired = this.expiring > 0;
    if (expired) this.expiring--;
    const failAfter = this.failAfter;
    this.failAfter = undefined;
    const from = options.skipRows ?? 0;
    const offset = (options.params.get('offset') as bigint | undefined) ?? 0n;
    return {
      rows: (async function* (): AsyncGenerator<SqlValue[]> {
        if (expired) throw failedPrecondition('the schema of table t changed');
        for (let i = from; i < n; i++) {
          if (failAfter !== undefined && i === failAfter) throw new TabletopError('Unavailable', 'the stream dropped (test)');
          yield row(i, offset);
        }
      })(),
      stats: () => ({ rowsScanned: n, rowsReturned: n - from }),
    };
  }
}

function row(i: number, offset = 0n): SqlValue[] {
  return [
    BigInt(i) + offset,
    `row ${i}`,
    Buffer.from(`k${i}`),
    1.5,
    new SqlTimestamp(BigInt(i) * 1_000_001n),
    new SqlDate(19_000 + i),
    new SqlStruct([BigInt(-i), 'x']),
    new SqlMap([[Buffer.from('q'), Buffer.from('v' + i)]]),
    null,
  ];
}

const INSTANCE = 'projects/p/instances/i';

interface Collected {
  messages: {
    results?: {
      protoRowsBatch?: { batchData: Buffer };
      resumeToken?: Buffer;
      batchChecksum?: number;
      reset?: boolean;
      estimatedBatchSize?: number;
    } | null;
    metadata?: unknown;
  }[];
  status: grpc.StatusObject;
}

function execute(ts: TestServer, request: object): Promise<Collected> {
  return new Promise((resolve) => {
    const call = ts.clients.data.ExecuteQuery!(request) as grpc.ClientReadableStream<Collected['messages'][number]>;
    const messages: Collected['messages'] = [];
    call.on('data', (m) => messages.push(m));
    call.on('error', () => {});
    call.on('status', (status: grpc.StatusObject) => resolve({ messages, status }));
  });
}

function prepare(
  ts: TestServer,
  query: string,
  paramTypes: object = {},
): Promise<{ preparedQuery: Buffer; metadata: any; validUntil: any }> {
  return new Promise((resolve, reject) =>
    ts.clients.data.PrepareQuery!({ instanceName: INSTANCE, query, paramTypes }, (err: Error | null, res: any) =>
      err ? reject(err) : resolve(res),
    ),
  );
}

/** Checks the stream rules and returns the released rows' values (decoded ProtoRows) and the tokens. */
function decodeStream(messages: Collected['messages']): { values: any[]; tokens: Buffer[]; released: number[]; batches: number } {
  let buffer: Buffer[] = [];
  const values: any[] = [];
  const tokens: Buffer[] = [];
  const released: number[] = [];
  let pending: any[] = [];
  let batches = 0;
  messages.forEach((m, i) => {
    expect(m.metadata).toBeUndefined(); // rule 1
    const r = m.results!;
    expect(r).toBeTruthy();
    const hasData = r.protoRowsBatch?.batchData !== undefined && r.protoRowsBatch.batchData.length > 0;
    expect(hasData || (r.resumeToken?.length ?? 0) > 0).toBe(true); // rule 8: never empty
    expect(r.estimatedBatchSize ?? 0).toBe(0); // rule 7
    expect(r.reset === true).toBe(i === 0); // rule 6: reset on the attempt's first message
    if (hasData) buffer.push(r.protoRowsBatch!.batchData);
    if (r.batchChecksum !== undefined && r.batchChecksum !== null) {
      const batch = Buffer.concat(buffer);
      expect(r.batchChecksum).not.toBe(0);
      expect(r.batchChecksum).toBe(crc32c(batch) >>> 0); // rule 3
      pending.push(...(ProtoRows.toObject(ProtoRows.decode(batch), { longs: String, bytes: Buffer, defaults: false }).values ?? []));
      buffer = [];
      batches++;
      expect(r.resumeToken?.length ?? 0).toBeGreaterThan(0); // rule 4: a token on each batch boundary
    }
    if ((r.resumeToken?.length ?? 0) > 0) {
      expect(buffer).toEqual([]); // only on a batch boundary
      values.push(...pending);
      pending = [];
      tokens.push(r.resumeToken!);
      released.push(values.length / 9);
    }
  });
  expect(buffer).toEqual([]);
  expect(pending).toEqual([]); // rule 5: a token after the last data
  return { values, tokens, released, batches };
}

describe('PrepareQuery / ExecuteQuery (raw gRPC)', () => {
  let ts: TestServer;
  const engine = new FakeEngine(500);
  beforeAll(async () => {
    ts = await startTestServer({ sql: engine, tuning: { sqlBatchRows: 100, sqlBatchBytes: 4096, sqlChunkBytes: 1000 } });
  });
  afterAll(() => ts.stop());

  it('PrepareQuery answers the schema with proto types, the prepared query and valid_until an hour on', async () => {
    const before = Date.now();
    const res = await prepare(ts, 'SELECT ...', { offset: { int64Type: {} } });
    const columns = res.metadata.protoSchema.columns;
    expect(columns.map((c: any) => c.name)).toEqual(['i', 's', 'b', 'f', 't', 'd', 'st', 'm', 'nul']);
    expect(columns.map((c: any) => c.type.kind)).toEqual([
      'int64Type',
      'stringType',
      'bytesType',
      'float32Type',
      'timestampType',
      'dateType',
      'structType',
      'mapType',
      'boolType',
    ]);
    expect(columns[6].type.structType.fields.map((f: any) => [f.fieldName, f.type.kind])).toEqual([
      ['a', 'int64Type'],
      ['b', 'stringType'],
    ]);
    expect(columns[7].type.mapType.keyType.kind).toBe('bytesType');
    const validUntil = Number(res.validUntil.seconds) * 1000;
    expect(validUntil).toBeGreaterThanOrEqual(before + 3600_000 - 1000);
    expect(validUntil).toBeLessThanOrEqual(Date.now() + 3600_000);
    expect(res.preparedQuery.length).toBeGreaterThan(0);
  });

  it('a SQL error is INVALID_ARGUMENT with its position', async () => {
    await expect(prepare(ts, 'BAD')).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: expect.stringContaining('line 1, column 1'),
    });
  });

  it('streams every row in batches of whole rows, split into chunks, each with its CRC32C and a token; values encoded per type', async () => {
    const { preparedQuery } = await prepare(ts, 'SELECT all', { offset: { int64Type: {} } });
    const res = await execute(ts, {
      instanceName: INSTANCE,
      preparedQuery,
      params: { offset: { type: { int64Type: {} }, intValue: '1000' } },
    });
    expect(res.status.code).toBe(grpc.status.OK);
    const { values, batches } = decodeStream(res.messages);
    expect(batches).toBeGreaterThan(5);
    expect(res.messages.length).toBeGreaterThan(batches); // batches were split into several messages
    expect(values.length).toBe(500 * 9);
    const r7 = values.slice(7 * 9, 8 * 9);
    expect(r7[0]).toEqual({ intValue: '1007' });
    expect(r7[1]).toEqual({ stringValue: 'row 7' });
    expect(r7[2]).toEqual({ bytesValue: Buffer.from('k7') });
    expect(r7[3]).toEqual({ floatValue: 1.5 });
    expect(r7[4]).toEqual({ timestampValue: { seconds: '7', nanos: 7000 } });
    expect(r7[5]).toEqual({ dateValue: { year: 2022, month: 1, day: 15 } }); // day 19007 since 1970-01-01
    expect(r7[6]).toEqual({ arrayValue: { values: [{ intValue: '-7' }, { stringValue: 'x' }] } });
    expect(r7[7]).toEqual({
      arrayValue: { values: [{ arrayValue: { values: [{ bytesValue: Buffer.from('q') }, { bytesValue: Buffer.from('v7') }] } }] },
    });
    expect(r7[8]).toEqual({}); // NULL: no kind
  });

  it('a retry with a token continues strictly after it; the final token again gives it back alone', async () => {
    const { preparedQuery } = await prepare(ts, 'SELECT all', { offset: { int64Type: {} } });
    const params = { offset: { type: { int64Type: {} }, intValue: '0' } };
    const first = decodeStream((await execute(ts, { instanceName: INSTANCE, preparedQuery, params })).messages);
    const third = first.tokens[2]!;
    const resumed = await execute(ts, { instanceName: INSTANCE, preparedQuery, params, resumeToken: third });
    const after = decodeStream(resumed.messages);
    const skip = first.released[2]!;
    expect(skip).toBeGreaterThan(0);
    expect(engine.executions.at(-1)!.skipRows).toBe(skip);
    expect(after.values).toEqual(first.values.slice(skip * 9));
    const last = first.tokens.at(-1)!;
    const again = await execute(ts, { instanceName: INSTANCE, preparedQuery, params, resumeToken: last });
    expect(again.status.code).toBe(grpc.status.OK);
    expect(again.messages).toHaveLength(1);
    expect(again.messages[0]!.results).toMatchObject({ resumeToken: last, reset: true });
    expect(again.messages[0]!.results!.protoRowsBatch ?? undefined).toBeUndefined();
  });

  it('params: a wrong type, a missing or unknown one is INVALID_ARGUMENT; NULL is a type with no kind', async () => {
    const { preparedQuery } = await prepare(ts, 'SELECT all', { offset: { int64Type: {} } });
    const wrong = await execute(ts, {
      instanceName: INSTANCE,
      preparedQuery,
      params: { offset: { type: { stringType: {} }, stringValue: '1' } },
    });
    expect(wrong.status.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(wrong.status.details).toContain('INT64');
    const kind = await execute(ts, {
      instanceName: INSTANCE,
      preparedQuery,
      params: { offset: { type: { int64Type: {} }, stringValue: '1' } },
    });
    expect(kind.status.code).toBe(grpc.status.INVALID_ARGUMENT);
    const missing = await execute(ts, { instanceName: INSTANCE, preparedQuery, params: {} });
    expect(missing.status).toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: expect.stringContaining('@offset') });
    const unknown = await execute(ts, {
      instanceName: INSTANCE,
      preparedQuery,
      params: { offset: { type: { int64Type: {} } }, other: { type: { int64Type: {} } } },
    });
    expect(unknown.status.code).toBe(grpc.status.INVALID_ARGUMENT);
    const nul = await execute(ts, { instanceName: INSTANCE, preparedQuery, params: { offset: { type: { int64Type: {} } } } });
    expect(nul.status.code).toBe(grpc.status.OK);
    expect(engine.executions.at(-1)!.params.get('offset')).toBeNull();
  });

  it('a bad resume token or prepared query is INVALID_ARGUMENT', async () => {
    const { preparedQuery } = await prepare(ts, 'SELECT all');
    const other = await prepare(ts, 'SELECT other');
    const t = decodeStream((await execute(ts, { instanceName: INSTANCE, preparedQuery: other.preparedQuery })).messages).tokens[0]!;
    expect((await execute(ts, { instanceName: INSTANCE, preparedQuery, resumeToken: t })).status.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect((await execute(ts, { instanceName: INSTANCE, preparedQuery: Buffer.from('junk') })).status.code).toBe(
      grpc.status.INVALID_ARGUMENT,
    );
  });

  it.each(['h2', 'grpc-js'] as const)(
    'an expired plan is FAILED_PRECONDITION with PreconditionFailure PREPARED_QUERY_EXPIRED in grpc-status-details-bin (%s transport)',
    async (transport) => {
      const server = await startTestServer({ sql: engine, tuning: { transport } });
      try {
        const { preparedQuery } = await prepare(server, 'SELECT all');
        engine.expiring = 1;
        const res = await execute(server, { instanceName: INSTANCE, preparedQuery });
        expect(res.status.code).toBe(grpc.status.FAILED_PRECONDITION);
        const bin = res.status.metadata.get('grpc-status-details-bin')[0] as Buffer;
        const status = RpcStatus.toObject(RpcStatus.decode(bin)) as { code: number; details: { type_url: string; value: Uint8Array }[] };
        expect(status.code).toBe(grpc.status.FAILED_PRECONDITION);
        expect(status.details[0]!.type_url).toBe('type.googleapis.com/google.rpc.PreconditionFailure');
        const failure = PreconditionFailure.toObject(PreconditionFailure.decode(status.details[0]!.value)) as {
          violations: { type: string }[];
        };
        expect(failure.violations[0]!.type).toBe('PREPARED_QUERY_EXPIRED');
      } finally {
        await server.stop();
      }
    },
  );

  it('an empty result ends OK with no message', async () => {
    const empty = await startTestServer({ sql: new FakeEngine(0) });
    try {
      const { preparedQuery } = await prepare(empty, 'SELECT none');
      const res = await execute(empty, { instanceName: INSTANCE, preparedQuery });
      expect(res.status.code).toBe(grpc.status.OK);
      expect(res.messages).toEqual([]);
    } finally {
      await empty.stop();
    }
  });
});

describe('PrepareQuery / ExecuteQuery through the official Node client', () => {
  let ts: TestServer;
  let client: Bigtable;
  const engine = new FakeEngine(3000);
  beforeAll(async () => {
    process.env['METADATA_SERVER_DETECTION'] ??= 'none';
    ts = await startTestServer({ sql: engine, tuning: { sqlBatchRows: 250, sqlChunkBytes: 5000 } });
    client = new Bigtable({ projectId: 'p', apiEndpoint: ts.server.address, metricsEnabled: false });
  });
  afterAll(async () => {
    await client.close();
    await ts.stop();
  });

  it('decodes every type and takes parameters; a large result arrives whole across many batches', async () => {
    const instance = client.instance('i');
    const [statement] = await instance.prepareStatement({ query: 'SELECT all', parameterTypes: { offset: SqlTypes.Int64() } });
    const [rows] = await instance.executeQuery({ preparedStatement: statement, parameters: { offset: 10n } });
    expect(rows).toHaveLength(3000);
    const r = rows[42]!;
    expect(r.get('i')).toBe(52n);
    expect(r.get('s')).toBe('row 42');
    expect(Buffer.from(r.get('b') as Uint8Array).toString()).toBe('k42');
    expect(r.get('f')).toBe(1.5);
    expect((r.get('t') as { getFullTime(): bigint }).getFullTime()).toBe(42n * 1_000_001_000n);
    expect(r.get('d')).toMatchObject({ year: 2022, month: 2, day: 19 });
    const st = r.get('st') as { get(k: string): unknown };
    expect([st.get('a'), st.get('b')]).toEqual([-42n, 'x']);
    const m = r.get('m') as Map<Uint8Array, Uint8Array>;
    expect([...m].map(([k, v]) => [Buffer.from(k).toString(), Buffer.from(v).toString()])).toEqual([['q', 'v42']]);
    expect(r.get('nul')).toBeNull();
    expect(rows.map((x) => x.get('i'))).toEqual(Array.from({ length: 3000 }, (_, i) => BigInt(i) + 10n));
  });

  it('retries after the stream drops mid-way, resuming strictly after the last token: no row lost or repeated', async () => {
    const instance = client.instance('i');
    const [statement] = await instance.prepareStatement({ query: 'SELECT all', parameterTypes: { offset: SqlTypes.Int64() } });
    engine.failAfter = 1234;
    const before = engine.executions.length;
    const [rows] = await instance.executeQuery({ preparedStatement: statement, parameters: { offset: 0n } });
    expect(rows.map((x) => x.get('i'))).toEqual(Array.from({ length: 3000 }, (_, i) => BigInt(i)));
    const attempts = engine.executions.slice(before);
    expect(attempts.map((a) => a.skipRows ?? 0)).toEqual([0, 1000]); // batches of 250 rows: the 4th token released 1000
  });

  it('an expired plan before any token: the client prepares again and succeeds', async () => {
    const instance = client.instance('i');
    const [statement] = await instance.prepareStatement('SELECT all');
    engine.expiring = 1;
    const before = engine.executions.length;
    const prepares = engine.prepares;
    const [rows] = await instance.executeQuery(statement);
    expect(rows).toHaveLength(3000);
    expect(engine.executions.length - before).toBe(2);
    expect(engine.prepares - prepares).toBe(1);
  });
});
