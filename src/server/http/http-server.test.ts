import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkHistograms, parseExposition, samplesOf } from '../testing/prometheus-text.js';
import { unaryCall } from '../testing/raw-client.js';
import { type TestServer, startTestServer } from '../testing/test-server.js';
import { NAMELESS } from '../metrics.js';

let ts: TestServer;
let base: string;

beforeAll(async () => {
  ts = await startTestServer({ httpPort: 0 });
  base = ts.server.httpUrl!;
  await unaryCall(ts.clients.tableAdmin, 'CreateTable', {
    parent: 'projects/{{projectId}}/instances/dev',
    tableId: 'events',
    table: {
      columnFamilies: {
        stats: { gcRule: { union: { rules: [{ maxNumVersions: 2 }, { maxAge: { seconds: String(7 * 86400) } }] } } },
        raw: {},
      },
    },
  });
});

afterAll(async () => {
  await ts.stop();
});

const get = async (path: string, init?: RequestInit) => {
  const res = await fetch(new URL(path, base), init);
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
};

describe('HTTP server', () => {
  it('serves /healthz and an index page naming the gRPC address', async () => {
    expect(await get('/healthz')).toMatchObject({ status: 200, body: 'ok\n' });
    const index = await get('/');
    expect(index.status).toBe(200);
    expect(index.type).toMatch(/text\/html/);
    expect(index.body).toContain(`export BIGTABLE_EMULATOR_HOST=${ts.server.address}`);
    expect(index.body).toContain('/api/v1/projects/{project}/instances');
  });

  it('serves the JSON API: instances, tables, a table with its families and GC rules', async () => {
    const project = encodeURIComponent('{{projectId}}');
    const instances = JSON.parse((await get(`/api/v1/projects/${project}/instances`)).body);
    expect(instances.instances.map((i: { instanceId: string }) => i.instanceId)).toEqual(['dev']);
    const tables = JSON.parse((await get(`/api/v1/projects/${project}/instances/dev/tables`)).body);
    expect(tables.tables.map((t: { tableId: string }) => t.tableId)).toEqual(['events']);
    const table = await get(`/api/v1/projects/${project}/instances/dev/tables/events`);
    expect(table.type).toMatch(/application\/json/);
    const t = JSON.parse(table.body);
    expect(t).toMatchObject({
      name: 'projects/{{projectId}}/instances/dev/tables/events',
      tableId: 'events',
      granularity: 'millis',
      deletionProtection: false,
    });
    expect(t.families).toEqual([
      {
        name: 'stats',
        gcRule: {
          kind: 'union',
          rules: [
            { kind: 'maxVersions', versions: 2 },
            { kind: 'maxAge', maxAgeMicros: 7 * 86400 * 1e6 },
          ],
        },
        gcPolicy: '(versions() > 2 || age() > 7d)',
        valueType: { kind: 'bytes' },
      },
      { name: 'raw', gcRule: null, gcPolicy: '<never>', valueType: { kind: 'bytes' } },
    ]);
    const instance = JSON.parse((await get(`/api/v1/projects/${project}/instances/dev`)).body);
    expect(instance.clusters.length).toBeGreaterThan(0);
  });

  it("lists an instance's logical views (id, name, query)", async () => {
    const project = encodeURIComponent('{{projectId}}');
    await unaryCall(ts.clients.instanceAdmin, 'CreateLogicalView', {
      parent: 'projects/{{projectId}}/instances/dev',
      logicalViewId: 'raw_keys',
      logicalView: { query: 'SELECT _key, raw FROM events' },
    });
    const { logicalViews } = JSON.parse((await get(`/api/v1/projects/${project}/instances/dev/logical-views`)).body);
    expect(logicalViews).toEqual([
      { id: 'raw_keys', name: 'projects/{{projectId}}/instances/dev/logicalViews/raw_keys', query: 'SELECT _key, raw FROM events' },
    ]);
  });

  it("lists a table's authorized views in the table's JSON (prefixes and qualifiers as keys)", async () => {
    const project = encodeURIComponent('{{projectId}}');
    const table = 'projects/{{projectId}}/instances/dev/tables/events';
    await unaryCall(ts.clients.tableAdmin, 'CreateAuthorizedView', {
      parent: table,
      authorizedViewId: 'tenant',
      authorizedView: {
        subsetView: {
          rowPrefixes: [Buffer.from('t1#')],
          familySubsets: { raw: { qualifiers: [Buffer.from('\xff', 'latin1')], qualifierPrefixes: [Buffer.from('')] } },
        },
      },
    });
    const { authorizedViews } = JSON.parse((await get(`/api/v1/projects/${project}/instances/dev/tables/events`)).body);
    expect(authorizedViews).toEqual([
      {
        id: 'tenant',
        name: `${table}/authorizedViews/tenant`,
        deletionProtection: false,
        rowPrefixes: [{ base64: Buffer.from('t1#').toString('base64'), printable: 't1#' }],
        familySubsets: [
          { family: 'raw', qualifiers: [{ base64: '/w==', printable: '\\xff' }], qualifierPrefixes: [{ base64: '', printable: '' }] },
        ],
      },
    ]);
    await unaryCall(ts.clients.tableAdmin, 'DeleteAuthorizedView', { name: `${table}/authorizedViews/tenant` });
  });

  it("serves tablets (stored and logical bytes, rows, which figures are estimates, node per cluster) and each cluster's nodes", async () => {
    const project = encodeURIComponent('{{projectId}}');
    await unaryCall(ts.clients.data, 'MutateRow', {
      tableName: 'projects/{{projectId}}/instances/dev/tables/events',
      rowKey: Buffer.from('r1'),
      mutations: [
        { setCell: { familyName: 'raw', columnQualifier: Buffer.from('q'), timestampMicros: '1000', value: Buffer.alloc(100, 'x') } },
      ],
    });
    const { tablets } = JSON.parse((await get(`/api/v1/projects/${project}/instances/dev/tables/events/tablets`)).body);
    expect(tablets).toHaveLength(1);
    // The test server keeps data in memory: every figure is exact.
    expect(tablets[0]).toMatchObject({
      storedBytes: 2 + 3 + 1 + 100 + 8,
      logicalBytes: 2 + 3 + 1 + 100 + 8,
      rowCount: 1,
      estimates: [],
      nodes: [{ clusterId: 'dev-c1', node: 0 }],
    });
    expect(Object.keys(tablets[0].rates)).toEqual([
      'requestsPerSec',
      'rowsReadPerSec',
      'rowsWrittenPerSec',
      'bytesReadPerSec',
      'bytesWrittenPerSec',
      'servingMicrosPerSec',
    ]);
    const { clusters } = JSON.parse((await get(`/api/v1/projects/${project}/instances/dev/nodes`)).body);
    expect(clusters).toMatchObject([{ clusterId: 'dev-c1', serveNodes: 3, storageType: 'ssd', autoscaling: null, storedBytes: 114 }]);
    expect(clusters[0].nodes.map((n: { tabletCount: number }) => n.tabletCount).sort()).toEqual([0, 0, 1]);
    expect(Object.keys(clusters[0].nodes[0])).toEqual([
      'node',
      'storedBytes',
      'logicalBytes',
      'tabletCount',
      'requestsPerSec',
      'servingMicrosPerSec',
      'servingUtilization',
      'loadShare',
      'tablets',
    ]);
  });

  it('answers 404 on every path of an instance nobody created, and creates none', async () => {
    for (const path of ['', '/tables', '/tables/t', '/tables/t/tablets', '/nodes', '/hot-tablets', '/logical-views']) {
      const res = await get(`/api/v1/projects/p/instances/ghost${path}`);
      expect([path, res.status, JSON.parse(res.body).error.code]).toEqual([path, 404, 'NotFound']);
    }
    expect(JSON.parse((await get('/api/v1/projects/p/instances')).body)).toEqual({ instances: [] });
  });

  it('answers errors as JSON with a matching HTTP status', async () => {
    const missing = await get('/api/v1/projects/p/instances/dev/tables/nope');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toEqual({ error: { code: 'NotFound', message: expect.stringMatching(/not found/) } });
    expect((await get('/nowhere')).status).toBe(404);
    expect((await get('/api/v1/projects/p/instances/dev/things')).status).toBe(404);
    expect((await get('/api/v1/projects/%E0%A4%A/instances')).status).toBe(400);
    expect((await get('/healthz', { method: 'POST' })).status).toBe(405);
  });

  it('exposes requests by RPC, table and code, latency histograms, tablets, nodes and storage figures in Prometheus format', async () => {
    const events = 'projects/{{projectId}}/instances/dev/tables/events';
    await unaryCall(ts.clients.data, 'PingAndWarm', { name: 'projects/{{projectId}}/instances/dev' });
    await unaryCall(ts.clients.tableAdmin, 'GetTable', { name: 'projects/p/instances/dev/tables/nope' }).catch(() => {});
    await unaryCall(ts.clients.data, 'MutateRow', {
      tableName: events,
      rowKey: Buffer.from('r2'),
      mutations: [{ setCell: { familyName: 'raw', columnQualifier: Buffer.from('q'), timestampMicros: '1000', value: Buffer.from('v') } }],
    });
    const metrics = await get('/metrics');
    expect(metrics.type).toMatch(/text\/plain; version=0.0.4/);
    const e = parseExposition(metrics.body);
    expect(e.types.get('tabletop_grpc_requests_total')).toBe('counter');
    const requests = (labels: Record<string, string>) => samplesOf(e, 'tabletop_grpc_requests_total', labels).map((s) => s.value);
    expect(requests({ service: 'google.bigtable.v2.Bigtable', method: 'PingAndWarm', table: '', code: 'OK' })).toEqual([1]);
    expect(requests({ method: 'GetTable', table: NAMELESS, code: 'NOT_FOUND' })).toEqual([1]);
    expect(requests({ method: 'CreateTable', code: 'OK' })).toEqual([1]);
    expect(requests({ method: 'MutateRow', table: events, code: 'OK' })).toEqual([expect.any(Number)]);
    expect(requests({ method: 'MutateRow', table: events, code: 'OK' })[0]).toBeGreaterThanOrEqual(1);
    // One latency histogram per method, buckets ascending and monotone, +Inf = _count.
    expect(e.types.get('tabletop_grpc_request_duration_seconds')).toBe('histogram');
    const checked = checkHistograms(e);
    expect(checked).toContain('tabletop_grpc_request_duration_seconds{"service":"google.bigtable.v2.Bigtable","method":"MutateRow"}');
    expect(samplesOf(e, 'tabletop_grpc_request_duration_seconds_count', { method: 'PingAndWarm' })).toEqual([
      expect.objectContaining({ value: 1 }),
    ]);
    expect(samplesOf(e, 'tabletop_tablets', { table: events }).map((s) => s.value)).toEqual([1]);
    expect(samplesOf(e, 'tabletop_table_rows', { table: events })[0]!.value).toBeGreaterThanOrEqual(1);
    expect(
      samplesOf(e, 'tabletop_node_tablets', { cluster: 'dev-c1' })
        .map((s) => s.value)
        .sort(),
    ).toEqual([0, 0, 1]);
    for (const name of [
      'tabletop_tablet_splits_total',
      'tabletop_tablet_merges_total',
      'tabletop_tablet_moves_total',
      'tabletop_flushes_total',
    ]) {
      expect([name, samplesOf(e, name).map((s) => s.value)]).toEqual([name, [0]]);
    }
    // The memory engine holds every row in memory: the memtable figure is its logical bytes.
    expect(samplesOf(e, 'tabletop_memtable_bytes')[0]!.value).toBeGreaterThan(100);
    expect(samplesOf(e, 'tabletop_disk_bytes').map((s) => s.value)).toEqual([0]);
    expect(samplesOf(e, 'process_cpu_seconds_total')).toHaveLength(1);
  });
});
