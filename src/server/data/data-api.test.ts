import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryEngine } from '../../storage/memory/index.js';
import { type DecodedResponse, mergeChunks } from '../testing/chunk-merger.js';
import { DATA, loaderMethod } from '../testing/loader-codecs.js';
import { featuresMetadata, streamCall, unaryCall, unaryError } from '../testing/raw-client.js';
import { slowEngine } from '../testing/slow-engine.js';
import { type TestServer, startTestServer } from '../testing/test-server.js';

/**
 * The Data API on the wire, through a raw grpc-js client: the details the
 * official clients hide (chunking, message boundaries, per-entry statuses,
 * status codes).
 */

const INSTANCE = 'projects/p/instances/i';
const b = (s: string) => Buffer.from(s, 'latin1');
let ts: TestServer;
let tableCounter = 0;

async function createTable(
  families: Record<string, object> = { cf1: {}, cf2: { gcRule: { maxNumVersions: 1 } } },
  server = ts,
): Promise<string> {
  const id = `t${++tableCounter}`;
  await unaryCall(server.clients.tableAdmin, 'CreateTable', { parent: INSTANCE, tableId: id, table: { columnFamilies: families } });
  return `${INSTANCE}/tables/${id}`;
}

const set = (family: string, qualifier: string, value: string | Buffer, ts = 1000) => ({
  setCell: {
    familyName: family,
    columnQualifier: b(qualifier),
    timestampMicros: String(ts),
    value: typeof value === 'string' ? b(value) : value,
  },
});

async function mutateRows(tableName: string, entries: object[], server = ts) {
  const r = await streamCall<{ entries: { index?: string; status: { code?: number; message?: string } }[] }>(
    server.clients.data,
    'MutateRows',
    { tableName, entries },
  );
  expect(r.status.code).toBe(status.OK);
  return r.messages
    .flatMap((m) => m.entries)
    .map((e) => ({ index: Number(e.index ?? 0), code: e.status.code ?? 0, message: e.status.message ?? '' }));
}

async function read(request: object, metadata?: Parameters<typeof streamCall>[3], server = ts) {
  const r = await streamCall<DecodedResponse>(server.clients.data, 'ReadRows', request, metadata);
  return {
    ...r,
    merged: r.status.code === status.OK ? mergeChunks(r.messages, (request as { reversed?: boolean }).reversed === true) : undefined,
  };
}

beforeAll(async () => {
  ts = await startTestServer();
});

afterAll(async () => {
  await ts.stop();
  expect(ts.log.filter((l) => l.startsWith('error'))).toEqual([]);
});

describe('ReadRows chunking', () => {
  it('packs many small rows into one message and never splits a row', async () => {
    const table = await createTable();
    const keys = Array.from({ length: 50 }, (_, i) => `r${String(i).padStart(2, '0')}`);
    await mutateRows(
      table,
      keys.map((k) => ({ rowKey: b(k), mutations: [set('cf1', 'a', 'x'), set('cf1', 'b', 'y'), set('cf2', '', 'z')] })),
    );
    const r = await read({ tableName: table, rows: { rowRanges: [{}] } });
    expect(r.status.code).toBe(status.OK);
    expect(r.messages).toHaveLength(1);
    expect(r.merged!.rows.map((row) => row.key)).toEqual(keys);
    expect(r.merged!.rows[0]!.cells.map((c) => [c.family, c.qualifier, Buffer.from(c.value).toString()])).toEqual([
      ['cf1', 'a', 'x'],
      ['cf1', 'b', 'y'],
      ['cf2', '', 'z'],
    ]);
  });

  it('splits a 5 MiB value into value_size chunks inside one message, and sends rows over 1 MiB in several messages', async () => {
    const table = await createTable();
    const big = Buffer.alloc(5 * 1024 * 1024);
    for (let i = 0; i < big.length; i++) big[i] = i % 251;
    const medium = Buffer.alloc(100 * 1024, 7);
    const entries = [{ rowKey: b('a-big'), mutations: [set('cf1', 'q', big), set('cf1', 'r', 'tail')] }];
    for (let i = 0; i < 30; i++) entries.push({ rowKey: b(`m${String(i).padStart(2, '0')}`), mutations: [set('cf1', 'q', medium)] });
    const statuses = await mutateRows(table, entries);
    expect(statuses.every((s) => s.code === 0)).toBe(true);
    const r = await read({ tableName: table });
    expect(r.status.code).toBe(status.OK);
    const first = r.messages[0]!;
    // Five 1 MiB pieces: value_size on the first four, then the last piece, then the "tail" cell with commit_row.
    const bigChunks = first.chunks!.filter((c) => c.valueSize !== undefined);
    expect(bigChunks).toHaveLength(4);
    expect(first.chunks!.slice(0, 6).map((c) => c.value?.length)).toEqual([1 << 20, 1 << 20, 1 << 20, 1 << 20, 1 << 20, 4]);
    expect(bigChunks.every((c) => c.valueSize === big.length)).toBe(true);
    expect(Buffer.from(r.merged!.rows[0]!.cells[0]!.value).equals(big)).toBe(true);
    expect(r.merged!.rows).toHaveLength(31);
    // 3 MiB of medium rows: several messages, each about 1 MiB of whole rows.
    expect(r.messages.length).toBeGreaterThanOrEqual(3);
    const serialize = loaderMethod(DATA, 'ReadRows').responseSerialize;
    for (const m of r.messages.slice(1)) expect((serialize(m) as Buffer).length).toBeLessThanOrEqual(1024 * 1024 + 110 * 1024);
  });
});

describe('ReadRows options', () => {
  let table: string;
  beforeAll(async () => {
    table = await createTable();
    await mutateRows(
      table,
      ['a', 'b', 'c', 'd', 'e'].map((k) => ({ rowKey: b(k), mutations: [set('cf1', 'q', `v-${k}`), set('cf1', 'r', `w-${k}`)] })),
    );
  });

  it('reverses only when the client announces reverse_scans in bigtable-features', async () => {
    const refused = await read({ tableName: table, reversed: true });
    expect(refused.status.code).toBe(status.UNIMPLEMENTED);
    expect(refused.status.details).toMatch(/reverse scans/);
    const r = await read(
      { tableName: table, reversed: true, rows: { rowRanges: [{ startKeyClosed: b('b'), endKeyOpen: b('e') }] } },
      featuresMetadata({ reverseScans: true }),
    );
    expect(r.status.code).toBe(status.OK);
    expect(r.merged!.rows.map((row) => row.key)).toEqual(['d', 'c', 'b']);
    expect(r.merged!.rows[0]!.cells.map((c) => c.qualifier)).toEqual(['q', 'r']);
  });

  it('honours rows_limit and filters', async () => {
    const r = await read({ tableName: table, rowsLimit: '2', filter: { columnQualifierRegexFilter: b('r') } });
    expect(r.merged!.rows.map((row) => [row.key, row.cells.map((c) => c.qualifier)])).toEqual([
      ['a', ['r']],
      ['b', ['r']],
    ]);
  });

  it('ends with one message carrying only request_stats when REQUEST_STATS_FULL is asked', async () => {
    const r = await read({ tableName: table, filter: { rowKeyRegexFilter: b('[ab]') }, requestStatsView: 'REQUEST_STATS_FULL' });
    expect(r.status.code).toBe(status.OK);
    const last = r.messages[r.messages.length - 1] as DecodedResponse & { requestStats: any };
    expect(last.chunks).toBeUndefined();
    expect(last.requestStats.fullReadStatsView.readIterationStats).toEqual({
      rowsSeenCount: '5',
      rowsReturnedCount: '2',
      cellsSeenCount: '10',
      cellsReturnedCount: '4',
    });
    expect(last.requestStats.fullReadStatsView.requestLatencyStats.frontendServerLatency).toBeDefined();
    expect(r.messages.slice(0, -1).every((m) => (m as { requestStats?: unknown }).requestStats === undefined)).toBe(true);
    const empty = await read({ tableName: table, rows: { rowKeys: [b('zz')] }, requestStatsView: 'REQUEST_STATS_FULL' });
    expect(empty.messages).toHaveLength(1);
    expect((empty.messages[0] as { requestStats?: unknown }).requestStats).toBeDefined();
    const none = await read({ tableName: table });
    expect(none.messages.every((m) => (m as { requestStats?: unknown }).requestStats === undefined)).toBe(true);
  });

  it('rejects malformed filters and regexes with INVALID_ARGUMENT', async () => {
    for (const filter of [
      { chain: { filters: [{}] } },
      { valueRegexFilter: b('(') },
      { rowSampleFilter: 2 },
      { applyLabelTransformer: 'Bad Label' },
    ]) {
      const r = await read({ tableName: table, filter });
      expect([filter, r.status.code]).toEqual([filter, status.INVALID_ARGUMENT]);
    }
  });

  it('treats a RowFilter with no kind set as pass-all, as data.proto says', async () => {
    const all = await read({ tableName: table });
    const empty = await read({ tableName: table, filter: {} });
    expect(empty.status.code).toBe(status.OK);
    expect(empty.messages).toEqual(all.messages);
    expect(all.messages.length).toBeGreaterThan(0);
  });

  it('answers unknown tables with NOT_FOUND and bad names with INVALID_ARGUMENT', async () => {
    expect((await read({ tableName: `${INSTANCE}/tables/nope` })).status.code).toBe(status.NOT_FOUND);
    expect((await read({ tableName: 'tables/nope' })).status.code).toBe(status.INVALID_ARGUMENT);
    expect((await read({})).status.code).toBe(status.INVALID_ARGUMENT);
    expect((await read({ authorizedViewName: `${table}/authorizedViews/v` })).status).toMatchObject({
      code: status.NOT_FOUND,
      details: `Authorized view ${table}/authorizedViews/v not found`,
    });
    expect((await read({ tableName: table, authorizedViewName: `${table}/authorizedViews/v` })).status.code).toBe(status.INVALID_ARGUMENT);
  });
});

describe('ReadRows heartbeats', () => {
  it('sends last_scanned_row_key during a long filtered stretch on slow storage', async () => {
    const slow = await startTestServer({ engine: slowEngine(createMemoryEngine()), tuning: { heartbeatRows: 100, heartbeatMillis: 2 } });
    try {
      const table = await createTable({ cf: {} }, slow);
      const entries = [{ rowKey: b('a-first'), mutations: [set('cf', 'keep', 'x')] }];
      for (let i = 0; i < 3000; i++) entries.push({ rowKey: b(`m${String(i).padStart(5, '0')}`), mutations: [set('cf', 'drop', 'x')] });
      entries.push({ rowKey: b('z-last'), mutations: [set('cf', 'keep', 'x')] });
      await mutateRows(table, entries, slow);
      const r = await read({ tableName: table, filter: { columnQualifierRegexFilter: b('keep') } }, undefined, slow);
      expect(r.status.code).toBe(status.OK);
      expect(r.merged!.rows.map((row) => row.key)).toEqual(['a-first', 'z-last']);
      const beats = r.merged!.messages.filter((m) => m.lastScannedRowKey !== undefined).map((m) => m.lastScannedRowKey!);
      expect(beats.length).toBeGreaterThan(0);
      // Between the two returned rows, in order (mergeChunks checks strict ascent across rows and heartbeats).
      expect(beats.every((k) => k > 'a-first' && k < 'z-last')).toBe(true);
    } finally {
      await slow.stop();
    }
  });
});

describe('MutateRows', () => {
  it('reports every entry exactly once, applying the valid ones', async () => {
    const table = await createTable();
    const entries = [
      { rowKey: b('ok1'), mutations: [set('cf1', 'q', 'v')] },
      { rowKey: b('unknown-family'), mutations: [set('nope', 'q', 'v')] },
      { rowKey: b('x'.repeat(4097)), mutations: [set('cf1', 'q', 'v')] },
      { rowKey: b('no-mutations'), mutations: [] },
      { rowKey: b('no-kind'), mutations: [{}] },
      { rowKey: b(''), mutations: [set('cf1', 'q', 'v')] },
      { rowKey: b('bad-ts'), mutations: [set('cf1', 'q', 'v', 1001)] },
      { rowKey: b('ok2'), mutations: [set('cf1', 'q', 'v'), { deleteFromFamily: { familyName: 'cf2' } }] },
    ];
    const statuses = await mutateRows(table, entries);
    expect(statuses.map((s) => s.index).sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const codeOf = (i: number) => statuses.find((s) => s.index === i)!.code;
    expect([0, 1, 2, 3, 4, 5, 6, 7].map(codeOf)).toEqual([
      status.OK,
      status.NOT_FOUND,
      status.INVALID_ARGUMENT,
      status.INVALID_ARGUMENT,
      status.INVALID_ARGUMENT,
      status.INVALID_ARGUMENT,
      status.INVALID_ARGUMENT,
      status.OK,
    ]);
    expect(statuses.filter((s) => s.code !== 0).every((s) => s.message.length > 0)).toBe(true);
    const r = await read({ tableName: table });
    expect(r.merged!.rows.map((row) => row.key)).toEqual(['ok1', 'ok2']);
  });

  it('rejects request-wide problems for the whole request', async () => {
    const table = await createTable();
    const tooMany = await streamCall(ts.clients.data, 'MutateRows', {
      tableName: table,
      entries: [{ rowKey: b('k'), mutations: Array.from({ length: 100_001 }, () => ({ deleteFromRow: {} })) }],
    });
    expect(tooMany.status).toEqual({ code: status.INVALID_ARGUMENT, details: 'Too many mutations: 100001 provided; limit 100000' });
    expect((await streamCall(ts.clients.data, 'MutateRows', { tableName: table, entries: [] })).status.code).toBe(status.INVALID_ARGUMENT);
    expect(
      (
        await streamCall(ts.clients.data, 'MutateRows', {
          tableName: `${INSTANCE}/tables/nope`,
          entries: [{ rowKey: b('k'), mutations: [set('cf1', 'q', 'v')] }],
        })
      ).status.code,
    ).toBe(status.NOT_FOUND);
  });
});

describe('single-row calls', () => {
  it('MutateRow applies or rejects as a whole, with precise codes', async () => {
    const table = await createTable();
    await unaryCall(ts.clients.data, 'MutateRow', { tableName: table, rowKey: b('k'), mutations: [set('cf1', 'q', 'v', -1)] });
    const r = await read({ tableName: table });
    expect(r.merged!.rows[0]!.cells[0]!.timestamp % 1000).toBe(0);
    expect(r.merged!.rows[0]!.cells[0]!.timestamp).toBeGreaterThan(Date.UTC(2020, 0, 1) * 1000);
    expect((await unaryError(ts.clients.data, 'MutateRow', { tableName: table, rowKey: b('k'), mutations: [] })).code).toBe(
      status.INVALID_ARGUMENT,
    );
    expect(
      (await unaryError(ts.clients.data, 'MutateRow', { tableName: table, rowKey: b('k'.repeat(5000)), mutations: [set('cf1', 'q', 'v')] }))
        .code,
    ).toBe(status.INVALID_ARGUMENT);
    expect(
      (await unaryError(ts.clients.data, 'MutateRow', { tableName: table, rowKey: b('k'), mutations: [set('zz', 'q', 'v')] })).code,
    ).toBe(status.NOT_FOUND);
    expect(
      (
        await unaryError(ts.clients.data, 'MutateRow', {
          tableName: table,
          rowKey: b('k'),
          mutations: [set('cf1', 'q', 'v', 9007199254740993 as number)],
        })
      ).code,
    ).toBe(status.INVALID_ARGUMENT);
    expect(
      (
        await unaryError(ts.clients.data, 'MutateRow', {
          tableName: `${INSTANCE}/tables/none`,
          rowKey: b('k'),
          mutations: [set('cf1', 'q', 'v')],
        })
      ).code,
    ).toBe(status.NOT_FOUND);
  });

  it('CheckAndMutateRow reports whether the predicate matched', async () => {
    const table = await createTable();
    await unaryCall(ts.clients.data, 'MutateRow', { tableName: table, rowKey: b('k'), mutations: [set('cf1', 'q', 'yes')] });
    const hit = await unaryCall(ts.clients.data, 'CheckAndMutateRow', {
      tableName: table,
      rowKey: b('k'),
      predicateFilter: { valueRegexFilter: b('yes') },
      trueMutations: [set('cf1', 'hit', '1')],
      falseMutations: [set('cf1', 'miss', '1')],
    });
    expect(hit.predicateMatched).toBe(true);
    const none = await unaryCall(ts.clients.data, 'CheckAndMutateRow', {
      tableName: table,
      rowKey: b('other'),
      falseMutations: [set('cf1', 'created', '1')],
    });
    expect(none.predicateMatched ?? false).toBe(false);
    const r = await read({ tableName: table });
    expect(r.merged!.rows.map((row) => [row.key, row.cells.map((c) => c.qualifier)])).toEqual([
      ['k', ['hit', 'q']],
      ['other', ['created']],
    ]);
    expect((await unaryError(ts.clients.data, 'CheckAndMutateRow', { tableName: table, rowKey: b('k') })).code).toBe(
      status.INVALID_ARGUMENT,
    );
  });

  it('ReadModifyWriteRow returns exactly the modified cells', async () => {
    const table = await createTable();
    const res = await unaryCall(ts.clients.data, 'ReadModifyWriteRow', {
      tableName: table,
      rowKey: b('counter'),
      rules: [
        { familyName: 'cf1', columnQualifier: b('n'), incrementAmount: '5' },
        { familyName: 'cf1', columnQualifier: b('s'), appendValue: b('ab') },
      ],
    });
    expect(res.row.key.toString()).toBe('counter');
    const cols = res.row.families[0].columns.map((c: any) => [c.qualifier.toString(), c.cells[0].value.toString('hex')]);
    expect(cols).toEqual([
      ['n', '0000000000000005'],
      ['s', Buffer.from('ab').toString('hex')],
    ]);
    expect(
      (
        await unaryError(ts.clients.data, 'ReadModifyWriteRow', {
          tableName: table,
          rowKey: b('k'),
          rules: [{ familyName: 'cf1', columnQualifier: b('n') }],
        })
      ).code,
    ).toBe(status.INVALID_ARGUMENT);
  });

  it('SampleRowKeys ends with the empty key; PingAndWarm answers', async () => {
    const table = await createTable();
    await mutateRows(table, [{ rowKey: b('a'), mutations: [set('cf1', 'q', 'v')] }]);
    const r = await streamCall<{ rowKey?: Buffer; offsetBytes?: string }>(ts.clients.data, 'SampleRowKeys', { tableName: table });
    expect(r.status.code).toBe(status.OK);
    const last = r.messages[r.messages.length - 1]!;
    expect(last.rowKey === undefined || last.rowKey.length === 0).toBe(true);
    expect(Number(last.offsetBytes)).toBeGreaterThan(0);
    await expect(unaryCall(ts.clients.data, 'PingAndWarm', { name: INSTANCE })).resolves.toEqual({});
    expect((await unaryError(ts.clients.data, 'PingAndWarm', { name: 'projects/p' })).code).toBe(status.INVALID_ARGUMENT);
  });
});

describe('RPCs tabletop does not implement yet', () => {
  it('answers UNIMPLEMENTED with a clear message, whatever the method type', async () => {
    const cs = await streamCall(ts.clients.data, 'ReadChangeStream', { tableName: `${INSTANCE}/tables/t` });
    expect(cs.status).toMatchObject({
      code: status.UNIMPLEMENTED,
      details: expect.stringMatching(/^ReadChangeStream .*not implemented by tabletop yet/),
    });
    const bidi = await new Promise<{ code: number; details: string }>((resolve) => {
      const call = (ts.clients.data as any).OpenTable();
      call.on('data', () => {});
      call.on('error', () => {});
      call.on('status', (s: { code: number; details: string }) => resolve(s));
      call.write({});
      call.end();
    });
    expect(bidi).toMatchObject({
      code: status.UNIMPLEMENTED,
      details: expect.stringMatching(/OpenTable .*not implemented by tabletop yet/),
    });
  });
});
