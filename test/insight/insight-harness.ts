import { crc32 } from 'node:zlib';
/**
 * What the Key Visualizer's integration tests share: a real server in this
 * process (startServer, HTTP on a free port, 500 ms time buckets so that a
 * few seconds of traffic make a dozen columns), the official Node client,
 * the JSON API's heatmap and diagnostics, and paced workloads.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Table } from '@google-cloud/bigtable';
import { expect } from 'vitest';
import type { DiagnosticsJson, HeatmapJson } from '../../src/insight/api-types.js';
import { type RunningServer, type StartServerOptions, startServer } from '../../src/index.js';
import { INSTANCE, PROJECT } from '../harness/node-client.js';

export const BUCKET_MILLIS = 500;

/** A server with the recording's columns 500 ms long; logs kept for failure messages. */
export async function startInsightServer(options: StartServerOptions = {}): Promise<{ server: RunningServer; logs: string[] }> {
  const logs: string[] = [];
  const server = await startServer({
    httpPort: 0,
    logger: { info: (m) => logs.push(m), warn: (m) => logs.push(`warn: ${m}`), error: (m) => logs.push(`error: ${m}`) },
    ...options,
    config: { insightBucketMillis: BUCKET_MILLIS, ...options.config },
  });
  return { server, logs };
}

/** GET a path of the server's HTTP API: status and parsed JSON. */
export async function getJson<T = Record<string, unknown>>(server: RunningServer, path: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`http://localhost:${server.httpPort}${path}`);
  return { status: res.status, body: (await res.json()) as T };
}

export const tablePath = (table: string) => `/api/v1/projects/${PROJECT}/instances/${INSTANCE}/tables/${encodeURIComponent(table)}`;

const query = (params: Record<string, string | number | undefined>) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s === '' ? '' : `?${s}`;
};

/** The heatmap of a table (must answer 200). */
export async function heatmap(
  server: RunningServer,
  table: string,
  params: { metric?: string; from?: number | string; to?: number | string } = {},
): Promise<HeatmapJson> {
  const { status, body } = await getJson<HeatmapJson>(server, `${tablePath(table)}/heatmap${query(params)}`);
  expect(status, JSON.stringify(body)).toBe(200);
  return body;
}

/** The diagnostics of a table (must answer 200). */
export async function diagnostics(
  server: RunningServer,
  table: string,
  params: { from?: number; to?: number } = {},
): Promise<DiagnosticsJson> {
  const { status, body } = await getJson<DiagnosticsJson>(server, `${tablePath(table)}/diagnostics${query(params)}`);
  expect(status, JSON.stringify(body)).toBe(200);
  return body;
}

/** A base64 key of the JSON as the byte string it stands for. */
export const keyOf = (base64: string) => Buffer.from(base64, 'base64').toString('latin1');

/** Per column of the heatmap: its values with null as 0. */
export const columnsOf = (h: HeatmapJson): number[][] => h.values.map((column) => column.map((v) => v ?? 0));

export const total = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

/** Index of the largest value (the lowest such index on ties). */
export function argmax(values: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i]! > values[best]!) best = i;
  return best;
}

/**
 * Runs `step(i)` every `everyMillis` for `forMillis` (each step awaited, the
 * next one starting on schedule or at once when late); resolves with the
 * number of steps run.
 */
export async function paced(forMillis: number, everyMillis: number, step: (i: number) => Promise<unknown>): Promise<number> {
  const start = Date.now();
  let i = 0;
  while (Date.now() - start < forMillis) {
    await step(i);
    i++;
    const next = start + i * everyMillis;
    if (next > Date.now()) await sleep(next - Date.now());
  }
  return i;
}

/** Sets one cell in each row, in one MutateRows call. */
export function writeRows(table: Table, keys: readonly string[], value = 'v'.repeat(32)): Promise<unknown> {
  return table.insert(keys.map((key) => ({ key, data: { cf: { q: value } } })));
}

/** The salt hash the row-key builder and the what-if use: CRC-32 of the key's bytes. */
export function saltHash(s: string): number {
  return crc32(s);
}

/** Waits for the recording to close the column holding now (and its key buckets to follow the data). */
export const settle = (columns = 2) => sleep(columns * BUCKET_MILLIS + 100);
