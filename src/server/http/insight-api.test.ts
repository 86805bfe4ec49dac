import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DiagnosticsJson,
  type HeatmapJson,
  type HeatmapRequest,
  type InsightQueries,
  METRICS,
  METRIC_UNITS,
} from '../../insight/api-types.js';
import type { HistorySource } from '../../insight/history-source.js';
import { tierSpecs } from '../../insight/tiers.js';
import { printable } from '../../model/bytes.js';
import { invalidArgument, notFound } from '../../model/errors.js';
import { type TableName, tableNameString } from '../../model/names.js';
import { unaryCall } from '../testing/raw-client.js';
import { type TestServer, startTestServer } from '../testing/test-server.js';

/**
 * The Key Visualizer's routes of the JSON API (heatmap, diagnostics), the
 * projects list and the richer tables and table pages, on a real server over
 * an in-memory InsightQueries of our own that answers what it was asked
 * (the real one, src/insight/queries.ts, is tested with the recording in
 * test/insight).
 */

const NOW = Date.parse('2026-11-27T08:00:00.000Z');
const INSTANCE = 'projects/p/instances/dev';
const base64 = (s: string) => Buffer.from(s, 'latin1').toString('base64');

/** Answers each request with its own parameters, and fails on the tables named so. */
class EchoQueries implements InsightQueries {
  readonly asked: { table: TableName; request: HeatmapRequest | { fromMillis: number; toMillis: number } }[] = [];

  async heatmap(table: TableName, request: HeatmapRequest): Promise<HeatmapJson> {
    this.fail(table);
    this.asked.push({ table, request });
    return {
      table: tableNameString(table),
      metric: request.metric,
      unit: METRIC_UNITS[request.metric],
      resolutionSeconds: 10,
      from: new Date(request.fromMillis).toISOString(),
      to: new Date(request.toMillis).toISOString(),
      times: [new Date(request.fromMillis).toISOString()],
      buckets: [
        {
          start: base64(request.startKey ?? ''),
          end: request.endKey === undefined ? null : base64(request.endKey),
          startText: printable(request.startKey ?? ''),
          endText: request.endKey === undefined ? null : printable(request.endKey),
          rows: 1,
          bytes: 10,
        },
      ],
      values: [[1]],
      hierarchy: [],
      approximate: false,
      live: request.toMillis >= NOW,
    };
  }

  async diagnostics(table: TableName, window: { fromMillis: number; toMillis: number }): Promise<DiagnosticsJson> {
    this.fail(table);
    this.asked.push({ table, request: window });
    return {
      table: tableNameString(table),
      from: new Date(window.fromMillis).toISOString(),
      to: new Date(window.toMillis).toISOString(),
      diagnostics: [],
    };
  }

  private fail(table: TableName): void {
    if (table.table === 'refused') throw invalidArgument('the recording refuses this table');
    if (table.table === 'vanished') throw notFound('table vanished meanwhile');
  }
}

/** The routes read only the recording's clock; the query side reads the rest (not here). */
const source: HistorySource = {
  tiers: tierSpecs(10_000),
  nowMillis: () => NOW,
  columns: async () => [],
  boundarySet: async () => undefined,
  currentBoundaries: () => Promise.reject(new Error('not read by the routes')),
  largestRows: async () => [],
  keySamples: async () => [],
  writeOrder: async () => [],
  hotRows: async () => [],
};

let on: TestServer;
let off: TestServer;
let queries: EchoQueries;

beforeAll(async () => {
  queries = new EchoQueries();
  on = await startTestServer({ httpPort: 0, insight: { source, queries: () => queries } });
  off = await startTestServer({ httpPort: 0 });
  for (const ts of [on, off]) {
    for (const tableId of ['events', 'refused', 'vanished']) {
      await unaryCall(ts.clients.tableAdmin, 'CreateTable', {
        parent: INSTANCE,
        tableId,
        table: { columnFamilies: { cf: { gcRule: { maxNumVersions: 1 } } } },
      });
    }
  }
  await unaryCall(on.clients.tableAdmin, 'CreateTable', {
    parent: 'projects/q/instances/other',
    tableId: 't',
    table: { columnFamilies: { cf: {} } },
  });
  for (const key of ['a', 'b', 'c']) {
    await unaryCall(on.clients.data, 'MutateRow', {
      tableName: `${INSTANCE}/tables/events`,
      rowKey: Buffer.from(key),
      mutations: [{ setCell: { familyName: 'cf', columnQualifier: Buffer.from('q'), timestampMicros: '1000', value: Buffer.alloc(10) } }],
    });
  }
});

afterAll(async () => {
  await on?.stop();
  await off?.stop();
});

async function get(ts: TestServer, path: string) {
  const res = await fetch(new URL(path, ts.server.httpUrl!));
  const body = (await res.json()) as Record<string, unknown> & { error?: { code: string; message: string } };
  return { status: res.status, body };
}

const heatmap = (query: string, table = 'events') => `/api/v1/projects/p/instances/dev/tables/${table}/heatmap${query}`;
const diagnostics = (query: string, table = 'events') => `/api/v1/projects/p/instances/dev/tables/${table}/diagnostics${query}`;

describe('GET .../heatmap', () => {
  it('asks for the last hour of ops by default', async () => {
    const { status, body } = await get(on, heatmap(''));
    expect(status).toBe(200);
    expect(body).toMatchObject({
      metric: 'ops',
      unit: 'ops/s',
      from: '2026-11-27T07:00:00.000Z',
      to: '2026-11-27T08:00:00.000Z',
      live: true,
    });
    expect(queries.asked.at(-1)).toEqual({
      table: { project: 'p', instance: 'dev', table: 'events' },
      request: { metric: 'ops', fromMillis: NOW - 3_600_000, toMillis: NOW, startKey: undefined, endKey: undefined },
    });
  });

  it('takes the metric, ISO 8601 or epoch-millisecond times and base64 keys', async () => {
    const start = 'ts#\x00\xff';
    const end = 'ts#9';
    const q = `?metric=write_ops&from=2026-11-27T07:30:00Z&to=${NOW - 60_000}&start=${encodeURIComponent(base64(start))}&end=${encodeURIComponent(base64(end))}`;
    const { status, body } = await get(on, heatmap(q));
    expect(status).toBe(200);
    expect(queries.asked.at(-1)!.request).toEqual({
      metric: 'write_ops',
      fromMillis: Date.parse('2026-11-27T07:30:00Z'),
      toMillis: NOW - 60_000,
      startKey: start,
      endKey: end,
    });
    expect(body).toMatchObject({ metric: 'write_ops', live: false, buckets: [{ startText: 'ts#\\x00\\xff', endText: 'ts#9' }] });
  });

  it('reads times with an offset or none (UTC), dates alone, and URL-safe or unencoded base64', async () => {
    for (const [from, millis] of [
      ['2026-11-27T09:00:00+02:00', NOW - 3_600_000],
      ['2026-11-27T07:15', NOW - 45 * 60_000],
      ['2026-11-27T07:15:30.250Z', NOW - 44 * 60_000 - 29_750],
      ['2026-11-27', NOW - 8 * 3_600_000],
    ] as const) {
      expect([from, (await get(on, heatmap(`?from=${encodeURIComponent(from)}`))).status]).toEqual([from, 200]);
      expect([from, (queries.asked.at(-1)!.request as HeatmapRequest).fromMillis]).toEqual([from, millis]);
    }
    const key = '\xfb\xff\xbf'; // base64 "+/+/", URL-safe "-_-_"
    expect(base64(key)).toBe('+/+/');
    for (const given of ['-_-_', '+/+/', '%2B%2F%2B%2F']) {
      expect((await get(on, heatmap(`?start=${given}`))).status).toBe(200);
      expect([given, (queries.asked.at(-1)!.request as HeatmapRequest).startKey]).toEqual([given, key]);
    }
  });

  it('answers 400 naming what is allowed: unknown metric, bad time, bad key, empty window or range, unknown parameter', async () => {
    const cases: [string, RegExp][] = [
      ['?metric=write_opz', new RegExp(`Unknown metric "write_opz": use one of ${METRICS.join(', ')}`)],
      ['?from=yesterday', /Invalid "from": "yesterday": give an ISO 8601 time such as .*, or epoch milliseconds/],
      ['?to=2026-13-45T99:00:00Z', /Invalid "to"/],
      ['?from=2026-11-27T08:00:00Z&to=2026-11-27T07:00:00Z', /"from" \(2026-11-27T08:00:00.000Z\) must be before "to"/],
      ['?start=not*base64', /Invalid "start": "not\*base64" is not base64/],
      [`?start=${base64('b')}&end=${base64('a')}`, /"start" must come before "end"/],
      ['?metric=ops&metric=rows', /"metric" is given 2 times/],
      ['?metrics=ops', /Unknown query parameter "metrics": use metric, from, to, start, end/],
    ];
    const before = queries.asked.length;
    for (const [q, message] of cases) {
      const { status, body } = await get(on, heatmap(q));
      expect([q, status, body.error?.code]).toEqual([q, 400, 'InvalidArgument']);
      expect(body.error?.message).toMatch(message);
    }
    expect(queries.asked.length).toBe(before);
  });

  it('answers 404 for a table or instance that does not exist, before looking at the query', async () => {
    for (const path of [heatmap('', 'nope'), heatmap('?metric=bad', 'nope'), '/api/v1/projects/p/instances/ghost/tables/t/heatmap']) {
      const { status, body } = await get(on, path);
      expect([path, status, body.error?.code]).toEqual([path, 404, 'NotFound']);
    }
  });

  it("maps the recording's errors to HTTP statuses", async () => {
    expect((await get(on, heatmap('', 'refused'))).status).toBe(400);
    expect((await get(on, heatmap('', 'vanished'))).status).toBe(404);
  });

  it('answers 412 when recording is off, after checking the table and the query', async () => {
    const { status, body } = await get(off, heatmap('?metric=write_ops'));
    expect(status).toBe(412);
    expect(body.error).toEqual({ code: 'FailedPrecondition', message: expect.stringContaining('recording is off (--insight off)') });
    expect((await get(off, heatmap('?metric=nope'))).status).toBe(400);
    expect((await get(off, heatmap('', 'nope'))).status).toBe(404);
  });
});

describe('GET .../diagnostics', () => {
  it('asks for the last 15 minutes by default, or the window given', async () => {
    const { status, body } = await get(on, diagnostics(''));
    expect(status).toBe(200);
    expect(body).toEqual({
      table: `${INSTANCE}/tables/events`,
      from: '2026-11-27T07:45:00.000Z',
      to: '2026-11-27T08:00:00.000Z',
      diagnostics: [],
    });
    await get(on, diagnostics(`?from=${NOW - 120_000}&to=2026-11-27T07:59:00Z`));
    expect(queries.asked.at(-1)!.request).toEqual({ fromMillis: NOW - 120_000, toMillis: NOW - 60_000 });
  });

  it('answers 400 for a bad window or a heatmap parameter, 404 for no table, 412 when recording is off', async () => {
    expect((await get(on, diagnostics('?from=soon'))).status).toBe(400);
    expect((await get(on, diagnostics('?metric=ops'))).body.error?.message).toMatch(/Unknown query parameter "metric": use from, to/);
    expect((await get(on, diagnostics('', 'nope'))).status).toBe(404);
    const { status, body } = await get(off, diagnostics(''));
    expect([status, body.error?.message]).toEqual([412, expect.stringContaining('recording is off (--insight off)')]);
  });
});

describe('pages of the web UI', () => {
  it('GET /api/v1/projects lists the projects that have instances, with their instances', async () => {
    const { status, body } = await get(on, '/api/v1/projects');
    expect(status).toBe(200);
    expect(body).toEqual({
      projects: [
        { projectId: 'p', instances: [expect.objectContaining({ instanceId: 'dev', name: INSTANCE })] },
        { projectId: 'q', instances: [expect.objectContaining({ instanceId: 'other' })] },
      ],
    });
  });

  it('the tables list gives each table its stored bytes, rows and tablets', async () => {
    const { body } = await get(on, '/api/v1/projects/p/instances/dev/tables');
    const tables = body.tables as { tableId: string }[];
    expect(tables.map((t) => t.tableId)).toEqual(['events', 'refused', 'vanished']);
    // In memory: exact figures (key + family + qualifier + value + 8 per cell).
    expect(tables[0]).toMatchObject({ storedBytes: 3 * (1 + 2 + 1 + 10 + 8), rowCount: 3, tabletCount: 1, estimates: [] });
    expect(tables[1]).toMatchObject({ storedBytes: 0, rowCount: 0, tabletCount: 1 });
  });

  it('a table gives its families and GC policies, size, tablets with node and load, and its hot tablets', async () => {
    const { body } = await get(on, '/api/v1/projects/p/instances/dev/tables/events');
    expect(body).toMatchObject({
      tableId: 'events',
      families: [{ name: 'cf', gcPolicy: 'versions() > 1' }],
      rowCount: 3,
      tabletCount: 1,
      tablets: [{ rowCount: 3, nodes: [{ clusterId: 'dev-c1', node: expect.any(Number) }], rates: expect.any(Object) }],
      hotTablets: expect.any(Array),
    });
  });
});
