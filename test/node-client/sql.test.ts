import * as grpc from '@grpc/grpc-js';
import { Bigtable, SqlTypes, type Table } from '@google-cloud/bigtable';
import { crc32c } from '@node-rs/crc32';
import { beforeAll, describe, expect, it } from 'vitest';
import { droppingProxy } from '../../src/server/testing/dropping-proxy.js';
import { rawClients } from '../../src/server/testing/raw-client.js';
import { uniqueTableId } from '../harness/names.js';
import { INSTANCE, PROJECT } from '../harness/node-client.js';
import { useTarget } from '../harness/suite.js';

/**
 * GoogleSQL end to end: the official Node client's prepareStatement /
 * executeQuery against a tabletop server (src/sql's engine behind
 * PrepareQuery/ExecuteQuery), a large result across many batches, a
 * connection dropped mid-stream (the client retries with its last resume
 * token), and the stream's wire rules seen by a raw gRPC client.
 */

const ROWS = 3000;
const VALUE = 'v'.repeat(1000); // 3000 rows of ~1 KB: about 3 MB, several 1 MiB batches
const key = (i: number): string => `row${String(i).padStart(5, '0')}`;

describe('GoogleSQL through the official Node client', () => {
  const ctx = useTarget('tabletop');
  let table: Table;
  let tableId: string;

  beforeAll(async () => {
    tableId = uniqueTableId('sql');
    table = ctx.instance.table(tableId);
    await table.create({ families: ['cf', 'stats'] });
    const rows = Array.from({ length: ROWS }, (_, i) => ({
      key: key(i),
      data: { cf: { q: `${i}:${VALUE}` }, ...(i % 2 === 0 ? { stats: { even: 'yes' } } : {}) },
    }));
    for (let i = 0; i < rows.length; i += 500) await table.insert(rows.slice(i, i + 500));
  }, 60_000);

  it('prepares and runs a point query with a BYTES parameter: _key and map access, NULL when absent', async () => {
    const [statement] = await ctx.instance.prepareStatement({
      query: `SELECT _key, cf['q'] AS q, stats['even'] AS even, cf FROM \`${tableId}\` WHERE _key = @k`,
      parameterTypes: { k: SqlTypes.Bytes() },
    });
    const [rows] = await ctx.instance.executeQuery({ preparedStatement: statement, parameters: { k: Buffer.from(key(7)) } });
    expect(rows).toHaveLength(1);
    const r = rows[0]!;
    expect(Buffer.from(r.get('_key') as Uint8Array).toString()).toBe(key(7));
    expect(Buffer.from(r.get('q') as Uint8Array).toString()).toBe(`7:${VALUE}`);
    expect(r.get('even')).toBeNull();
    const cf = r.get('cf') as Map<Uint8Array, Uint8Array>;
    expect([...cf].map(([k, v]) => [Buffer.from(k).toString(), Buffer.from(v).toString().slice(0, 2)])).toEqual([['q', '7:']]);
  });

  it('decodes every column type the client knows', async () => {
    const [statement] = await ctx.instance.prepareStatement(
      `SELECT 'x' AS s, b'foo' AS b, 1 AS i, CAST(1.5 AS FLOAT32) AS f, 2.5 AS d64, true AS t, TIMESTAMP_FROM_UNIX_MILLIS(1000) AS ts, ` +
        `DATE(2024, 6, 1) AS d, STRUCT(1 AS a, 'foo' AS b) AS st, [1, 2, 3] AS arr FROM \`${tableId}\` WHERE _key = '${key(1)}' LIMIT 1`,
    );
    const [rows] = await ctx.instance.executeQuery(statement);
    const r = rows[0]!;
    expect([r.get('s'), Buffer.from(r.get('b') as Uint8Array).toString(), r.get('i'), r.get('f'), r.get('d64'), r.get('t')]).toEqual([
      'x',
      'foo',
      1n,
      1.5,
      2.5,
      true,
    ]);
    expect((r.get('ts') as Date).getTime()).toBe(1000);
    expect(r.get('d')).toMatchObject({ year: 2024, month: 6, day: 1 });
    const st = r.get('st') as { get(k: string): unknown };
    expect([st.get('a'), st.get('b')]).toEqual([1n, 'foo']);
    expect(r.get('arr')).toEqual([1n, 2n, 3n]);
  });

  it('a large result arrives whole and in key order', async () => {
    const [statement] = await ctx.instance.prepareStatement(`SELECT _key, cf['q'] AS q FROM \`${tableId}\``);
    const [rows] = await ctx.instance.executeQuery(statement);
    expect(rows.map((r) => Buffer.from(r.get('_key') as Uint8Array).toString())).toEqual(Array.from({ length: ROWS }, (_, i) => key(i)));
  });

  it('a connection dropped mid-stream: the client retries with its last token and gets every row exactly once', async () => {
    const proxy = await droppingProxy(ctx.target.address, 1_500_000);
    const client = new Bigtable({ projectId: PROJECT, apiEndpoint: proxy.address, metricsEnabled: false });
    try {
      const instance = client.instance(INSTANCE);
      const [statement] = await instance.prepareStatement(`SELECT _key, cf['q'] AS q FROM \`${tableId}\` WHERE cf['q'] IS NOT NULL`);
      // The statement is prepared over the first connection (small); executing it crosses the cut.
      const [rows] = await instance.executeQuery(statement);
      expect(proxy.cuts).toBe(1);
      expect(rows.map((r) => Buffer.from(r.get('_key') as Uint8Array).toString())).toEqual(Array.from({ length: ROWS }, (_, i) => key(i)));
    } finally {
      await client.close();
      proxy.close();
    }
  });

  it('raw stream rules: no metadata message, reset first, whole-row batches with CRC32C and a token, a token last, none empty', async () => {
    const raw = rawClients(ctx.target.address);
    try {
      const instanceName = `projects/${PROJECT}/instances/${INSTANCE}`;
      const prepared = await new Promise<{ preparedQuery: Buffer }>((resolve, reject) =>
        raw.data.PrepareQuery!({ instanceName, query: `SELECT _key, cf['q'] AS q FROM \`${tableId}\`` }, (e: Error | null, r: any) =>
          e ? reject(e) : resolve(r),
        ),
      );
      const messages: any[] = [];
      const status = await new Promise<grpc.StatusObject>((resolve) => {
        const call = raw.data.ExecuteQuery!({ instanceName, preparedQuery: prepared.preparedQuery }) as grpc.ClientReadableStream<any>;
        call.on('data', (m) => messages.push(m));
        call.on('error', () => {});
        call.on('status', resolve);
      });
      expect(status.code).toBe(grpc.status.OK);
      let buffer: Buffer[] = [];
      let batches = 0;
      let unreleased = false;
      messages.forEach((m, i) => {
        expect(m.metadata ?? undefined).toBeUndefined();
        const r = m.results;
        expect(r.reset === true).toBe(i === 0);
        expect(r.estimatedBatchSize ?? 0).toBe(0);
        const data: Buffer | undefined = r.protoRowsBatch?.batchData;
        expect((data?.length ?? 0) > 0 || (r.resumeToken?.length ?? 0) > 0).toBe(true);
        if (data) {
          buffer.push(data);
          unreleased = true;
        }
        if (r.batchChecksum != null) {
          expect(r.batchChecksum).toBe(crc32c(Buffer.concat(buffer)) >>> 0);
          expect(r.resumeToken.length).toBeGreaterThan(0);
          buffer = [];
          batches++;
        }
        if ((r.resumeToken?.length ?? 0) > 0) {
          expect(buffer).toEqual([]);
          unreleased = false;
        }
      });
      expect(unreleased).toBe(false);
      expect(batches).toBeGreaterThanOrEqual(3);
      expect(messages.length).toBeGreaterThan(batches);
    } finally {
      raw.close();
    }
  });

  it('a plan whose table changed is expired: the client prepares it again and gets the new schema', async () => {
    const id = uniqueTableId('sql-expire');
    const t = ctx.instance.table(id);
    await t.create({ families: ['a'] });
    await t.insert([{ key: 'k', data: { a: { q: 'v' } } }]);
    const [statement] = await ctx.instance.prepareStatement(`SELECT * FROM \`${id}\``);
    await t.createFamily('b');
    const [rows] = await ctx.instance.executeQuery(statement);
    expect(rows).toHaveLength(1);
    expect((rows[0]!.get('a') as Map<unknown, unknown>).size).toBe(1);
    expect((rows[0]!.get('b') as Map<unknown, unknown>).size).toBe(0); // the new family: only in the re-prepared schema
  });

  it('SQL errors are INVALID_ARGUMENT with the position; an unknown table NOT_FOUND', async () => {
    await expect(ctx.instance.prepareStatement(`SELECT FROM \`${tableId}\``)).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      message: expect.stringMatching(/line 1, column \d+/),
    });
    await expect(ctx.instance.prepareStatement('SELECT _key FROM no_such_table')).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  });
});
