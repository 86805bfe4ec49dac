/**
 * The Key Visualizer end to end: workloads from the official Node client
 * against a real server in this process, then the JSON API's heatmap and
 * diagnostics and /metrics, as a user would read them. Three tables take
 * their workloads at the same time (each table's recording is its own):
 * - sequential keys (`ts#<zero-padded counter>`, the timestamp-leading key):
 *   the write hotspot climbs the key space, a diagonal, and the diagnostics
 *   name it (sequential_keys) over the keys written;
 * - salted keys (`<hash % 16>#user<n>`, every row rewritten in each batch):
 *   an even band, and no hotspot diagnostic;
 * - one hot row (Row.increment on `counter#1`) amid a light spread load: one
 *   bucket holds almost every write, and a danger high_write_pressure names
 *   the row.
 */
import type { Table } from '@google-cloud/bigtable';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HeatmapJson, METRICS } from '../../src/insight/api-types.js';
import type { RunningServer } from '../../src/index.js';
import { checkHistograms, parseExposition, samplesOf } from '../../src/server/testing/prometheus-text.js';
import { INSTANCE, PROJECT, nodeClient } from '../harness/node-client.js';
import { uniqueTableId } from '../harness/names.js';
import {
  argmax,
  columnsOf,
  diagnostics,
  saltHash,
  getJson,
  heatmap,
  keyOf,
  paced,
  settle,
  startInsightServer,
  tablePath,
  total,
  writeRows,
} from './insight-harness.js';

let server: RunningServer;
let logs: string[];
let client: ReturnType<typeof nodeClient>;

const tables = { sequential: uniqueTableId('kv-seq'), salted: uniqueTableId('kv-salt'), hot: uniqueTableId('kv-hot') };
const tableName = (id: string) => `projects/${PROJECT}/instances/${INSTANCE}/tables/${id}`;

/** What each workload wrote, and when its measured part started. */
const sequential = { keys: [] as string[], from: 0 };
const salted = { keys: [] as string[], from: 0 };
const hot = { increments: 0, from: 0 };

async function newTable(id: string): Promise<Table> {
  const table = client.instance(INSTANCE).table(id);
  await table.create({ families: ['cf'] });
  return table;
}

/** 8 s of rows with ever larger keys, 5 every 100 ms: each 500 ms column writes about 1/16 of them. */
async function sequentialWorkload(table: Table): Promise<void> {
  sequential.from = Date.now();
  let n = 0;
  await paced(8_000, 100, async () => {
    const keys = Array.from({ length: 5 }, () => `ts#${String(n++).padStart(8, '0')}`);
    await writeRows(table, keys);
    sequential.keys.push(...keys);
  });
}

/** 64 salted rows written once, then, once the key buckets follow them, every row again in each batch (shuffled). */
async function saltedWorkload(table: Table): Promise<void> {
  const keys = Array.from({ length: 64 }, (_, i) => `${saltHash(`user${i}`) % 16}#user${String(i).padStart(3, '0')}`);
  salted.keys = keys;
  await writeRows(table, keys);
  await settle(3);
  salted.from = Date.now();
  await paced(5_000, 100, async (step) => {
    const order = [...keys].sort((a, b) => saltHash(`${step}${a}`) - saltHash(`${step}${b}`));
    await writeRows(table, order);
  });
}

/** 100 spread rows and counter#1; then increments of counter#1 from 6 loops while 2 spread rows are written every 250 ms. */
async function hotRowWorkload(table: Table): Promise<void> {
  const spread = Array.from({ length: 100 }, (_, i) => `user#${(saltHash(`u${i}`) % 100_000).toString().padStart(5, '0')}#${i}`);
  await writeRows(table, [...spread, 'counter#1']);
  await settle(3);
  hot.from = Date.now();
  const until = hot.from + 5_000;
  const row = table.row('counter#1');
  const increments = async () => {
    while (Date.now() < until) {
      await row.increment('cf:n', 1);
      hot.increments++;
    }
  };
  await Promise.all([
    increments(),
    increments(),
    increments(),
    increments(),
    paced(5_000, 250, (i) => writeRows(table, spread.slice((i * 5) % 100, ((i * 5) % 100) + 5))),
  ]);
}

beforeAll(async () => {
  ({ server, logs } = await startInsightServer());
  client = nodeClient(server);
  const [seq, salt, hotTable] = await Promise.all([newTable(tables.sequential), newTable(tables.salted), newTable(tables.hot)]);
  await Promise.all([sequentialWorkload(seq), saltedWorkload(salt), hotRowWorkload(hotTable)]);
  // The last columns close, so that every one is in the history.
  await settle();
}, 60_000);

afterAll(async () => {
  await client?.close();
  await server?.stop();
});

/** Columns of the heatmap that recorded any of the metric. */
const active = (h: HeatmapJson) => columnsOf(h).filter((c) => total(c) > 0);

describe('sequential keys', () => {
  it('draw a rising diagonal: the bucket with the most writes climbs the key space over at least 6 columns', async () => {
    const h = await heatmap(server, tables.sequential, { metric: 'write_ops', from: new Date(sequential.from - 1000).toISOString() });
    expect(h).toMatchObject({ metric: 'write_ops', unit: 'ops/s', resolutionSeconds: 0.5 });
    expect(h.times.length).toBe(h.values.length);
    for (const column of h.values) expect(column.length).toBe(h.buckets.length);
    const columns = active(h);
    expect(columns.length, `active columns of ${h.times.length}`).toBeGreaterThanOrEqual(6);
    const peaks = columns.map(argmax);
    for (let i = 1; i < peaks.length; i++) expect(peaks[i], `peaks ${peaks.join(' ')}`).toBeGreaterThanOrEqual(peaks[i - 1]!);
    expect(peaks.at(-1)!).toBeGreaterThan(peaks[0]!);
    // The keys written span the buckets the peaks climb through.
    expect(keyOf(h.buckets[peaks[0]!]!.start) <= sequential.keys[Math.floor(sequential.keys.length / 8)]!).toBe(true);
    expect(keyOf(h.buckets[peaks.at(-1)!]!.start) >= sequential.keys[Math.floor(sequential.keys.length / 2)]!).toBe(true);
    // Rates: the columns' rows written add up to the rows written (per-second rates × seconds per column).
    expect(total(columns.map((c) => total(c) * h.resolutionSeconds))).toBeCloseTo(sequential.keys.length, -1);
  });

  it('are diagnosed: sequential_keys over the key range written (at least 90% of the keys, up to the last), with advice', async () => {
    const d = await diagnostics(server, tables.sequential, { from: sequential.from - 1000 });
    const found = d.diagnostics.find((x) => x.kind === 'sequential_keys');
    expect(found, JSON.stringify(d.diagnostics.map((x) => x.kind))).toBeDefined();
    expect(found!.severity).toBe('warning');
    // The diagonal's range holds (almost) every key written: the first columns may not count yet as a diagonal.
    const start = keyOf(found!.keyRange.start);
    const end = found!.keyRange.end === null ? undefined : keyOf(found!.keyRange.end);
    const inside = sequential.keys.filter((k) => k >= start && (end === undefined || k < end));
    expect(inside.length / sequential.keys.length, `[${found!.keyRange.startText}, ${found!.keyRange.endText})`).toBeGreaterThanOrEqual(
      0.9,
    );
    expect(end === undefined || end > sequential.keys.at(-1)!, `range ends at ${found!.keyRange.endText}`).toBe(true);
    expect(found!.message.length).toBeGreaterThan(0);
    expect(found!.advice).toMatch(/salt|field promotion|reverse/i);
    expect(Date.parse(found!.timeRange.from)).toBeGreaterThanOrEqual(sequential.from - 1000);
  });
});

describe('salted keys', () => {
  it('draw an even band: in every column no bucket takes more than 5x the mean', async () => {
    const h = await heatmap(server, tables.salted, { metric: 'write_ops', from: salted.from, to: salted.from + 5_000 });
    expect(h.buckets.length).toBeGreaterThanOrEqual(salted.keys.length);
    const columns = active(h);
    expect(columns.length).toBeGreaterThanOrEqual(4);
    for (const [i, column] of columns.entries()) {
      const mean = total(column) / column.length;
      expect(Math.max(...column), `column ${i}: ${column.join(' ')}`).toBeLessThanOrEqual(5 * mean);
    }
  });

  it('get no pressure or sequential-keys diagnostic', async () => {
    const d = await diagnostics(server, tables.salted, { from: salted.from });
    const kinds = d.diagnostics.map((x) => x.kind);
    for (const kind of ['high_write_pressure', 'high_read_pressure', 'sequential_keys'] as const) expect(kinds).not.toContain(kind);
  });
});

describe('one hot row', () => {
  it('lights one bucket: counter#1 holds at least 90% of the writes', async () => {
    expect(hot.increments).toBeGreaterThan(200);
    const h = await heatmap(server, tables.hot, { metric: 'write_ops', from: hot.from, to: hot.from + 5_000 });
    const perBucket = h.buckets.map((_, b) => total(columnsOf(h).map((c) => c[b]!)));
    const hottest = argmax(perBucket);
    expect(perBucket[hottest]! / total(perBucket)).toBeGreaterThanOrEqual(0.9);
    // Its range holds counter#1 (boundaries are the shortest keys between rows).
    const bucket = h.buckets[hottest]!;
    expect(keyOf(bucket.start) <= 'counter#1' && (bucket.end === null || keyOf(bucket.end) > 'counter#1'), JSON.stringify(bucket)).toBe(
      true,
    );
  });

  it('is diagnosed as a danger: high_write_pressure naming counter#1', async () => {
    const d = await diagnostics(server, tables.hot, { from: hot.from });
    const found = d.diagnostics.find((x) => x.kind === 'high_write_pressure' && x.severity === 'danger');
    expect(found, JSON.stringify(d.diagnostics)).toBeDefined();
    // A single row's diagnostic names the row: its key is the range's start (api-types.ts).
    expect(found!.keyRange.startText).toBe('counter#1');
    expect(found!.message).toContain('counter#1');
  });
});

describe('errors of the heatmap and diagnostics', () => {
  it('400 for an unknown metric (naming the metrics) or a time that is not ISO 8601', async () => {
    const bad = await getJson<{ error: { code: string; message: string } }>(server, `${tablePath(tables.sequential)}/heatmap?metric=hot`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('InvalidArgument');
    for (const metric of METRICS) expect(bad.body.error.message).toContain(metric);
    const time = await getJson<{ error: { message: string } }>(server, `${tablePath(tables.sequential)}/diagnostics?from=27.11.2026`);
    expect(time.status).toBe(400);
    expect(time.body.error.message).toMatch(/ISO 8601/);
  });

  it('404 for a table that does not exist', async () => {
    for (const what of ['heatmap', 'diagnostics']) {
      expect((await getJson(server, `${tablePath('no-such-table')}/${what}`)).status).toBe(404);
    }
  });
});

describe('/metrics', () => {
  it('counts the workloads by RPC and table, with monotone latency histograms', async () => {
    const res = await fetch(`http://localhost:${server.httpPort}/metrics`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const e = parseExposition(await res.text());
    const requests = (method: string, table: string) =>
      total(samplesOf(e, 'tabletop_grpc_requests_total', { method, table, code: 'OK' }).map((s) => s.value));
    expect(requests('MutateRows', tableName(tables.sequential))).toBeGreaterThanOrEqual(sequential.keys.length / 5);
    expect(requests('ReadModifyWriteRow', tableName(tables.hot))).toBe(hot.increments);
    // CreateTable targets its instance: it counts under no table.
    expect(requests('CreateTable', '')).toBe(3);
    const histograms = checkHistograms(e);
    expect(histograms.filter((h) => h.startsWith('tabletop_grpc_request_duration_seconds')).length).toBeGreaterThanOrEqual(3);
    for (const id of Object.values(tables)) expect(samplesOf(e, 'tabletop_tablets', { table: tableName(id) })).toHaveLength(1);
    expect(logs.filter((l) => l.startsWith('error:'))).toEqual([]);
  });
});
