import http2 from 'node:http2';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { rssBytes, threadCpuSeconds, untilIdle } from '../servers/proc-stats.js';
import { startTarget } from '../servers/targets.js';
import type { Target } from '../servers/targets.js';
import type { ProbeRequest, ProbeResult, StartupVariant } from './protocol.js';
import { PROBE_RESULT_PREFIX } from './protocol.js';

/**
 * One start-up measurement, in a process of its own (a new Node process, as
 * a test runner's worker is): starts a server (in this process with
 * `startServer()`, or spawned: `tabletop serve` or the emulator), then makes
 * the first calls, as a test file does, and prints what it measured as one
 * line (PROBE_RESULT_PREFIX + JSON).
 *
 * It runs compiled by tsc under plain `node` (startup/probe-build.ts), not
 * under tsx: tsx's module hooks would slow every module tabletop loads. It
 * imports nothing that tabletop imports (no grpc-js, no protobufjs) before
 * the clock starts, so that tabletop pays for its own modules; the raw client
 * is node:http2. The Node-client variant imports @google-cloud/bigtable
 * before the clock starts, as a test file has.
 *
 * Times run from just before the server is started (before tabletop's
 * module is imported, for in-process) to:
 *  - ready: the server listens (startServer() resolved; the server's
 *    readiness line printed);
 *  - first call: a CreateTable answered (the admin API's first call);
 *  - first read: a ReadRows of that table answered, after the CreateTable.
 * With the Node client, the same two calls through a new client.
 */

const request = JSON.parse(process.argv[2] ?? '') as ProbeRequest;

async function main(): Promise<ProbeResult> {
  const client = request.client === 'node' ? await import('../workloads/node-client.js') : undefined;
  const baselineRss = rssBytes(process.pid);
  const t0 = performance.now();
  const server = await start(request.variant, process.cpuUsage());
  const readyMs = performance.now() - t0;
  try {
    const rssReady = rssBytes(server.pid);
    let firstCallMs: number;
    if (client === undefined) {
      await rawCall(server.address, '/google.bigtable.admin.v2.BigtableTableAdmin/CreateTable', request.createTable);
      firstCallMs = performance.now() - t0;
      const responses = await rawCall(server.address, '/google.bigtable.v2.Bigtable/ReadRows', request.readRows);
      if (responses.some(hasChunks)) throw new Error('ReadRows of the new, empty table answered cells');
    } else {
      const bigtable = client.nodeClient(server.address);
      try {
        const table = await client.createTable(bigtable, request.table);
        firstCallMs = performance.now() - t0;
        const [rows] = await table.getRows();
        if (rows.length !== 0) throw new Error(`the new, empty table returned ${rows.length} rows`);
      } finally {
        await bigtable.close();
      }
    }
    const firstReadMs = performance.now() - t0;
    const cpuMs = server.cpuSeconds() * 1000;
    // The server's memory once it has answered and gone quiet (under 2% of a core for a
    // second); the harness reports it from the raw probe (the Node client's own memory would
    // count in this process).
    if (client === undefined) await untilIdle(server.pid, 10);
    const rssIdle = rssBytes(server.pid);
    const inProcess = request.variant === 'in-process';
    return {
      readyMs,
      firstCallMs,
      firstReadMs,
      cpuMs,
      // In this process, the server's memory is what it added to the process.
      rssReadyBytes: inProcess ? rssReady - baselineRss : rssReady,
      rssIdleBytes: inProcess ? rssIdle - baselineRss : rssIdle,
      storage: server.storage,
      warnings,
    };
  } finally {
    await server.stop();
  }
}

interface Started {
  readonly address: string;
  /** The process whose memory and CPU are the server's. */
  readonly pid: number;
  readonly storage: string;
  /** CPU seconds the server has used so far (spawned: the whole process since it started; in-process: this process since the clock started, the client's calls included). */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

const warnings: string[] = [];

/** What the probe uses of tabletop's public API (src/index.ts), loaded from the build under test. */
interface TabletopModule {
  startServer(options: { readonly host: string }): Promise<{ readonly address: string; readonly storage: string; stop(): Promise<void> }>;
}

async function start(variant: StartupVariant, cpu0: NodeJS.CpuUsage): Promise<Started> {
  if (variant === 'in-process') {
    const tabletop = (await import(pathToFileURL(path.join(request.dist, 'index.js')).href)) as TabletopModule;
    const server = await tabletop.startServer({ host: '127.0.0.1' });
    return {
      address: server.address,
      pid: process.pid,
      storage: server.storage,
      cpuSeconds: () => cpuSecondsSince(cpu0),
      stop: () => server.stop(),
    };
  }
  const target: Target = await startTarget(variant === 'emulator' ? 'emulator' : 'tabletop', {
    repoRoot: request.repoRoot,
    dist: request.dist,
    tabletopMode: variant === 'serve-durable' ? 'durable' : 'memory',
    warn: (m) => warnings.push(m),
  });
  return {
    address: target.address,
    pid: target.process.pid,
    storage: target.storage,
    cpuSeconds: () => threadCpuSeconds(target.process.pid),
    stop: () => target.stop(),
  };
}

function cpuSecondsSince(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1e6;
}

/**
 * One unary or server-streaming gRPC call over node:http2 (a 5-byte message
 * header, `te: trailers`, grpc-status from the trailers); resolves with the
 * response messages' bytes (headers stripped), rejects unless the status is OK.
 */
function rawCall(address: string, path: string, messageBase64: string): Promise<Buffer[]> {
  const message = Buffer.from(messageBase64, 'base64');
  const framed = Buffer.alloc(5 + message.length);
  framed.writeUInt32BE(message.length, 1);
  message.copy(framed, 5);
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://${address}`);
    session.on('error', reject);
    const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' });
    const chunks: Buffer[] = [];
    let status: string | undefined;
    let details = '';
    const onHeaders = (h: http2.IncomingHttpHeaders): void => {
      if (typeof h['grpc-status'] === 'string') {
        status = h['grpc-status'];
        details = decodeURIComponent(String(h['grpc-message'] ?? ''));
      }
    };
    stream.on('response', onHeaders);
    stream.on('trailers', onHeaders);
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('error', reject);
    stream.on('end', () => {
      session.close();
      if (status !== '0')
        return reject(new Error(`${path}: ${status === undefined ? 'no grpc-status' : `grpc-status ${status} ${details}`}`));
      resolve(messages(Buffer.concat(chunks)));
    });
    stream.end(framed);
  });
}

/** The messages of a gRPC response body (each after its 5-byte header). */
function messages(body: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i + 5 <= body.length;) {
    const n = body.readUInt32BE(i + 1);
    out.push(body.subarray(i + 5, i + 5 + n));
    i += 5 + n;
  }
  return out;
}

/** Whether a ReadRowsResponse carries field 1 (chunks: cells); it may carry others (last_scanned_row_key, stats). */
function hasChunks(message: Buffer): boolean {
  let i = 0;
  const varint = (): number => {
    let v = 0;
    for (let shift = 0; i < message.length; shift += 7) {
      const b = message[i++] as number;
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
    }
    throw new Error('ReadRowsResponse: truncated varint');
  };
  while (i < message.length) {
    const key = varint();
    if (key >>> 3 === 1) return true;
    const wire = key & 7;
    if (wire === 0) varint();
    else if (wire === 1) i += 8;
    else if (wire === 2) i += varint();
    else if (wire === 5) i += 4;
    else throw new Error(`ReadRowsResponse: wire type ${wire}`);
  }
  return false;
}

try {
  const result = await main();
  process.stdout.write(`${PROBE_RESULT_PREFIX}${JSON.stringify(result)}\n`);
  process.exit(0);
} catch (e) {
  process.stderr.write(`startup probe: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
}
