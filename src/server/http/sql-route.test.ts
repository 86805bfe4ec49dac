import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { invalidArgument } from '../../model/errors.js';
import type { ExecuteOptions, PreparedQuery, SqlEngine } from '../../sql/engine.js';
import { SqlDate, SqlMap, SqlStruct, SqlTimestamp, type SqlType, type SqlValue } from '../../sql/types.js';
import { type TestServer, startTestServer } from '../testing/test-server.js';

/** An in-test engine: each parameter becomes a column, then columns of every other kind; `n` rows. */
class EchoEngine implements SqlEngine {
  instances: string[] = [];
  prepare(instance: string, query: string, paramTypes: ReadonlyMap<string, SqlType>): Promise<PreparedQuery> {
    this.instances.push(instance);
    if (query === 'BAD') return Promise.reject(invalidArgument('line 1, column 1: Syntax error'));
    const columns = [...paramTypes].map(([name, type]) => ({ name, type }));
    columns.push(
      { name: 'b', type: { kind: 'BYTES' } },
      { name: 't', type: { kind: 'TIMESTAMP' } },
      { name: 'd', type: { kind: 'DATE' } },
      {
        name: 'st',
        type: {
          kind: 'STRUCT',
          fields: [
            { name: 'a', type: { kind: 'INT64' } },
            { name: '', type: { kind: 'FLOAT64' } },
          ],
        },
      },
      { name: 'm', type: { kind: 'MAP', key: { kind: 'BYTES' }, value: { kind: 'INT64' } } },
    );
    return Promise.resolve({ columns, paramTypes, token: Buffer.from(query) });
  }
  /** Set when a FOREVER query (a row, then nothing until its signal aborts) has stopped. */
  stopped = false;
  execute(_instance: string, token: Uint8Array, options: ExecuteOptions) {
    if (Buffer.from(token).toString() === 'FOREVER') return this.forever(options.signal);
    const n = Number(Buffer.from(token).toString().replace(/\D/g, '') || '1');
    const params = [...options.params.values()];
    return {
      rows: (async function* (): AsyncGenerator<SqlValue[]> {
        for (let i = 0; i < n; i++) {
          yield [
            ...params,
            new Uint8Array([0x61, 0x00, 0xff]),
            new SqlTimestamp(1_717_243_200_000_001n),
            new SqlDate(-1),
            new SqlStruct([5n, NaN]),
            new SqlMap([[new Uint8Array([0x71]), -(2n ** 63n)]]),
          ];
        }
      })(),
      stats: () => ({ rowsScanned: n, rowsReturned: n }),
    };
  }
  private forever(signal: AbortSignal | undefined) {
    const engine = this;
    return {
      rows: (async function* (): AsyncGenerator<SqlValue[]> {
        yield [new Uint8Array(), null, null, null, null];
        await new Promise((resolve) => signal?.addEventListener('abort', resolve, { once: true }));
        engine.stopped = true;
      })(),
      stats: () => ({ rowsScanned: 1, rowsReturned: 1 }),
    };
  }
}

describe('POST /api/v1/projects/{p}/instances/{i}/sql', () => {
  let ts: TestServer;
  const engine = new EchoEngine();
  beforeAll(async () => {
    ts = await startTestServer({ sql: engine, httpPort: 0 });
  });
  afterAll(() => ts.stop());

  const post = async (body: unknown, path = '/api/v1/projects/p/instances/i/sql', type = 'application/json') => {
    const res = await fetch(new URL(path, ts.server.httpUrl), {
      method: 'POST',
      headers: { 'content-type': type },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text) as any };
  };

  it('runs a query with typed parameters and answers columns (type text), JSON values and stats', async () => {
    const { status, body } = await post({
      query: 'SELECT 2',
      params: {
        id: { type: 'INT64', value: '9223372036854775807' },
        k: { type: 'BYTES', value: 'key' },
        tags: { type: 'ARRAY<STRING>', value: ['a', null] },
        at: { type: 'TIMESTAMP', value: '2024-06-01T12:00:00.5Z' },
      },
    });
    expect(status).toBe(200);
    expect(engine.instances.at(-1)).toBe('projects/p/instances/i');
    expect(body.columns).toEqual([
      { name: 'id', type: 'INT64' },
      { name: 'k', type: 'BYTES' },
      { name: 'tags', type: 'ARRAY<STRING>' },
      { name: 'at', type: 'TIMESTAMP' },
      { name: 'b', type: 'BYTES' },
      { name: 't', type: 'TIMESTAMP' },
      { name: 'd', type: 'DATE' },
      { name: 'st', type: 'STRUCT<a INT64, FLOAT64>' },
      { name: 'm', type: 'MAP<BYTES, INT64>' },
    ]);
    expect(body.rows).toHaveLength(2);
    expect(body.rows[0]).toEqual([
      '9223372036854775807',
      { base64: 'a2V5', printable: 'key' },
      ['a', null],
      '2024-06-01T12:00:00.500000Z',
      { base64: 'YQD/', printable: 'a\\x00\\xff' },
      '2024-06-01T12:00:00.000001Z',
      '1969-12-31',
      { a: '5', 1: 'NaN' },
      [[{ base64: 'cQ==', printable: 'q' }, '-9223372036854775808']],
    ]);
    expect(body.stats).toEqual({ rowsScanned: 2, rowsReturned: 2, elapsedMillis: expect.any(Number) });
    expect(body.stats.elapsedMillis).toBeGreaterThanOrEqual(0);
    expect(body.truncated).toBe(false);
  });

  it('bad input is a 400 with the message: SQL errors, bad params, not JSON', async () => {
    expect(await post({ query: 'BAD' })).toMatchObject({
      status: 400,
      body: { error: { code: 'InvalidArgument', message: expect.stringContaining('line 1') } },
    });
    expect((await post({ query: 'SELECT 1', params: { x: { type: 'INT64', value: 'abc' } } })).body.error.message).toContain('params.x');
    expect((await post({ query: 'SELECT 1', params: { x: { type: 'BLOB', value: 1 } } })).status).toBe(400);
    expect((await post({ noquery: 1 })).status).toBe(400);
    expect((await post({ query: 'SELECT 1' }, undefined, 'text/plain')).status).toBe(400);
    expect((await post({ query: 'SELECT 1' }, '/api/v1/projects/p/instances/i/tables')).status).toBe(405);
  });

  it('a client that goes away stops its query', async () => {
    const gone = new AbortController();
    const answer = fetch(new URL('/api/v1/projects/p/instances/i/sql', ts.server.httpUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'FOREVER' }),
      signal: gone.signal,
    }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(engine.instances.length).toBeGreaterThan(0));
    await new Promise((r) => setTimeout(r, 50));
    expect(engine.stopped).toBe(false);
    gone.abort();
    expect(await answer).toBeInstanceOf(Error);
    await vi.waitFor(() => expect(engine.stopped).toBe(true));
  });
});
