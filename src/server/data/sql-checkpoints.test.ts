import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { Bigtable } from '@google-cloud/bigtable';
import { crc32c } from '@node-rs/crc32';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TabletopDatabase } from '../../db/index.js';
import type { Mutation } from '../../model/mutation.js';
import type { ExecuteOptions, QueryStats, SqlEngine } from '../../sql/engine.js';
import { createSqlEngine } from '../../sql/index.js';
import { resumePosition } from '../convert/execute-query-encoder.js';
import { droppingProxy } from '../testing/dropping-proxy.js';
import { protoRoot } from '../testing/loader-protos.js';
import { type TestServer, startTestServer } from '../testing/test-server.js';

/**
 * Checkpoints of sparse scans (bigtable-wire.md 1.3) through the raw gRPC stream, on src/sql's engine: a filtered
 * scan over many rows with few matches sends token-only messages as it goes, and a retry with one of those tokens
 * resumes the scan after its key (the engine's stats count the rows the retry scanned); the official Node client,
 * its connection cut mid-scan, retries with the last checkpoint it got.
 */

const root = new protobuf.Root();
root.resolvePath = (_origin, target) => path.join(protoRoot(), target);
root.loadSync(['google/bigtable/v2/data.proto'], { keepCase: false });
const ProtoRows = root.lookupType('google.bigtable.v2.ProtoRows');

const INSTANCE = 'projects/p/instances/i';
const ROWS = 5000;
const EVERY = 200;
const MATCHES = [17, 1234, 3456, 4999];
const key = (i: number): string => `row${String(i).padStart(5, '0')}`;

/** The real engine, remembering each execution's options and final stats. */
class Recording implements SqlEngine {
  readonly runs: { options: ExecuteOptions; stats: () => QueryStats }[] = [];
  constructor(private readonly inner: SqlEngine) {}
  prepare(...args: Parameters<SqlEngine['prepare']>): ReturnType<SqlEngine['prepare']> {
    return this.inner.prepare(...args);
  }
  execute(instance: string, token: Uint8Array, options: ExecuteOptions): ReturnType<SqlEngine['execute']> {
    const run = this.inner.execute(instance, token, options);
    this.runs.push({ options, stats: run.stats });
    return run;
  }
}

interface Message {
  results?: { protoRowsBatch?: { batchData: Buffer }; resumeToken?: Buffer; batchChecksum?: number; reset?: boolean } | null;
}

let ts: TestServer;
let db: TabletopDatabase;
let engine: Recording;

beforeAll(async () => {
  ts = await startTestServer({
    sql: (d) => {
      db = d;
      engine = new Recording(createSqlEngine(d));
      return engine;
    },
    tuning: { sqlCheckpointRows: EVERY, sqlCheckpointMillis: 600_000, sqlBatchRows: 2 },
  });
  const table = { project: 'p', instance: 'i', table: 'sparse' };
  await db.createTable(table, {
    families: [{ name: 'cf', gcRule: undefined, valueType: { kind: 'bytes' } }],
    initialSplits: [],
    deletionProtection: false,
  });
  const set = (value: string): Mutation => ({ kind: 'setCell', family: 'cf', qualifier: 'm', timestamp: 1000, value: Buffer.from(value) });
  for (let at = 0; at < ROWS; at += 1000) {
    const entries = [];
    for (let i = at; i < at + 1000; i++) entries.push({ key: key(i), mutations: [set(MATCHES.includes(i) ? 'yes' : 'no')] });
    await db.mutateRows(table, entries);
  }
});
afterAll(() => ts.stop());

function prepare(query: string): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    ts.clients.data.PrepareQuery!({ instanceName: INSTANCE, query, paramTypes: {} }, (err: Error | null, res: any) =>
      err ? reject(err) : resolve(res.preparedQuery as Buffer),
    ),
  );
}

/**
 * Runs ExecuteQuery, checking the stream rules (reset first, never an empty message, a token only on a batch
 * boundary, batches' CRC32C), until it ends or `stopAfterTokens` tokens came (then it cancels, as a dropped
 * connection would). Returns the released rows' keys, each token with the keys released by then, and the status.
 */
function execute(
  prepared: Buffer,
  resumeToken?: Buffer,
  stopAfterTokens = Infinity,
): Promise<{ keys: string[]; tokens: { token: Buffer; released: number; tokenOnly: boolean }[]; code: number }> {
  return new Promise((resolve) => {
    const call = ts.clients.data.ExecuteQuery!({
      instanceName: INSTANCE,
      preparedQuery: prepared,
      ...(resumeToken ? { resumeToken } : {}),
    }) as grpc.ClientReadableStream<Message>;
    const keys: string[] = [];
    const tokens: { token: Buffer; released: number; tokenOnly: boolean }[] = [];
    let buffer: Buffer[] = [];
    let pending: string[] = [];
    let first = true;
    call.on('data', (m: Message) => {
      const r = m.results!;
      const hasData = (r.protoRowsBatch?.batchData.length ?? 0) > 0;
      const hasToken = (r.resumeToken?.length ?? 0) > 0;
      expect(hasData || hasToken).toBe(true);
      expect(r.reset === true).toBe(first);
      first = false;
      if (hasData) buffer.push(r.protoRowsBatch!.batchData);
      if (r.batchChecksum) {
        const batch = Buffer.concat(buffer);
        expect(r.batchChecksum).toBe(crc32c(batch) >>> 0);
        const values = (ProtoRows.toObject(ProtoRows.decode(batch), { bytes: Buffer }).values ?? []) as { bytesValue: Buffer }[];
        pending.push(...values.map((v) => v.bytesValue.toString()));
        buffer = [];
      }
      if (hasToken) {
        expect(buffer).toEqual([]);
        keys.push(...pending);
        pending = [];
        tokens.push({ token: r.resumeToken!, released: keys.length, tokenOnly: !hasData });
        if (tokens.length >= stopAfterTokens) call.cancel();
      }
    });
    call.on('error', () => {});
    call.on('status', (s: grpc.StatusObject) => resolve({ keys, tokens, code: s.code }));
  });
}

describe('ExecuteQuery checkpoints sparse scans', () => {
  const query = `SELECT _key FROM sparse WHERE cf['m'] = b'yes'`;

  it('a filtered scan with few matches sends token-only checkpoints as it scans, each resuming after a later key', async () => {
    const prepared = await prepare(query);
    const { keys, tokens, code } = await execute(prepared);
    expect(code).toBe(grpc.status.OK);
    expect(keys).toEqual(MATCHES.map(key));
    const checkpoints = tokens.filter((t) => t.tokenOnly);
    // About one per EVERY rows scanned without a match (fewer around the matches).
    expect(checkpoints.length).toBeGreaterThanOrEqual(ROWS / EVERY - 2 * MATCHES.length);
    const positions = tokens.map((t) => resumePosition(prepared, t.token));
    const checkpointKeys = positions.flatMap((p) => (p.checkpoint === undefined ? [] : [Buffer.from(p.checkpoint.key).toString()]));
    expect(checkpointKeys.length).toBeGreaterThanOrEqual(checkpoints.length);
    expect([...checkpointKeys].sort()).toEqual(checkpointKeys); // in key order
    positions.forEach((p, i) => expect(p.rows).toBe(tokens[i]!.released));
    expect(tokens.at(-1)!.released).toBe(MATCHES.length); // a token after the last data
  });

  it('a retry with a checkpoint token scans only the rows after its key and returns each match once', async () => {
    const prepared = await prepare(query);
    // Cut after the 14th token: past row 1234's match, some checkpoints further on.
    const first = await execute(prepared, undefined, 14);
    expect(first.code).toBe(grpc.status.CANCELLED);
    const last = first.tokens.at(-1)!;
    const position = resumePosition(prepared, last.token);
    const after = Buffer.from(position.checkpoint!.key).toString();
    const scannedBefore = Number(after.slice(3)) + 1; // keys row00000..: the rows up to and including the checkpoint's
    expect(scannedBefore).toBeGreaterThan(1234);
    expect(scannedBefore).toBeLessThan(3456);

    const retry = await execute(prepared, last.token);
    expect(retry.code).toBe(grpc.status.OK);
    expect([...first.keys, ...retry.keys]).toEqual(MATCHES.map(key));
    const run = engine.runs.at(-1)!;
    expect(Buffer.from(run.options.resumeAfterKey!).toString()).toBe(after);
    expect(run.stats().rowsScanned).toBe(ROWS - scannedBefore);
  });

  it('a retry with a data token after a checkpoint resumes after its key and skips the rows released since', async () => {
    const dense = `SELECT _key FROM sparse WHERE cf['m'] = b'yes' OR _key >= b'row04990'`;
    const expected = [...new Set([...MATCHES, ...Array.from({ length: 10 }, (_, i) => 4990 + i)])].sort((a, b) => a - b).map(key);
    const prepared = await prepare(dense);
    const all = await execute(prepared);
    expect(all.keys).toEqual(expected);
    // The last token but one: a batch of the dense tail, released after the scan's last checkpoint.
    const at = all.tokens.length - 2;
    const position = resumePosition(prepared, all.tokens[at]!.token);
    expect(all.tokens[at]!.tokenOnly).toBe(false);
    expect(position.rows - position.checkpoint!.base).toBeGreaterThan(0);

    const first = await execute(prepared, undefined, at + 1);
    expect(first.keys).toEqual(all.keys.slice(0, all.tokens[at]!.released));
    const retry = await execute(prepared, all.tokens[at]!.token);
    expect(retry.code).toBe(grpc.status.OK);
    expect([...first.keys, ...retry.keys]).toEqual(expected);
    const run = engine.runs.at(-1)!;
    expect(run.options.skipRows).toBe(position.rows - position.checkpoint!.base);
    const after = Number(Buffer.from(run.options.resumeAfterKey!).toString().slice(3));
    expect(run.stats().rowsScanned).toBe(ROWS - after - 1);
  });

  it('queries that do not come in key order do not checkpoint (ORDER BY, LIMIT)', async () => {
    for (const q of [`${query} ORDER BY _key DESC`, `${query} LIMIT 3`]) {
      const { keys, tokens, code } = await execute(await prepare(q));
      expect(code).toBe(grpc.status.OK);
      expect(keys.length).toBe(q.includes('LIMIT') ? 3 : MATCHES.length);
      expect(tokens.filter((t) => t.tokenOnly)).toEqual([]);
    }
  });

  it('the official Node client, its connection cut after some checkpoints, retries with the last one and gets each match once', async () => {
    // The prepare and some checkpoints (about 50 bytes each) cross the proxy; then it cuts, mid-scan.
    const proxy = await droppingProxy(ts.server.address, 1200);
    const client = new Bigtable({ projectId: 'p', apiEndpoint: proxy.address, metricsEnabled: false });
    try {
      const instance = client.instance('i');
      const [statement] = await instance.prepareStatement(query);
      const runs = engine.runs.length;
      const [rows] = await instance.executeQuery(statement);
      expect(proxy.cuts).toBe(1);
      expect(rows.map((r) => Buffer.from(r.get('_key') as Uint8Array).toString())).toEqual(MATCHES.map(key));
      const retry = engine.runs.at(-1)!;
      expect(engine.runs.length).toBe(runs + 2);
      const after = Buffer.from(retry.options.resumeAfterKey!).toString();
      expect(retry.stats().rowsScanned).toBe(ROWS - Number(after.slice(3)) - 1);
      expect(retry.stats().rowsScanned).toBeLessThan(ROWS - 1000);
    } finally {
      await client.close();
      proxy.close();
    }
  });
});
