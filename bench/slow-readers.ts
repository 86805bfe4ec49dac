/**
 * What clients that open ReadRows and never read cost the server: starts
 * `dist/cli/main.js serve` (durable, in a temporary directory), loads a table
 * through the official Node client, then opens `--readers` full-table
 * ReadRows calls, each on a connection of its own, whose client never reads
 * (the stream paused: HTTP/2 flow control stops the server once the
 * client's windows are full). Prints the server's RSS after the load, while
 * the readers hang (and how many response bytes it holds for them, from
 * /metrics when it says), and after they went, and checks that an ordinary
 * client is served meanwhile.
 *
 *   npx tsx bench/slow-readers.ts [--rows 20000] [--value 4096] [--readers 200] [--seconds 5]
 *
 * Builds nothing: run `npm run build` first.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { SERVER_NODE_FLAGS } from '../src/cli/node-flags.js';
import { packageDefinition } from '../src/server/testing/loader-protos.js';
import { ValuePool } from './workloads/dataset.js';
import { createTable, loadRows, nodeClient } from './workloads/node-client.js';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '20000' },
    value: { type: 'string', default: '4096' },
    readers: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '5' },
  },
});
const rows = Number(values.rows);
const readers = Number(values.readers);
const seconds = Number(values.seconds);
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const dir = mkdtempSync(path.join(tmpdir(), 'tabletop-slow-readers-'));
const server = spawn(
  process.execPath,
  [...SERVER_NODE_FLAGS, path.join(repo, 'dist/cli/main.js'), 'serve', '--port', '0', '--http-port', '0', '--data-dir', dir],
  {
    stdio: ['ignore', 'pipe', 'pipe'],
  },
);
let out = '';
server.stdout.on('data', (d: Buffer) => (out += d.toString()));
server.stderr.on('data', (d: Buffer) => (out += d.toString()));
const address = await (async () => {
  for (let i = 0; i < 300; i++) {
    const m = /export BIGTABLE_EMULATOR_HOST=(\S+)/.exec(out);
    if (m !== null) return m[1]!;
    await sleep(100);
  }
  throw new Error(`the server did not start:\n${out}`);
})();
const rssMiB = (): number => {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'latin1'))?.[1];
  return Number(kb) / 1024;
};

try {
  const client = nodeClient(address);
  const table = await createTable(client, 'slow');
  await loadRows(table, { rows, valueSize: Number(values.value), batchRows: 500, inFlight: 4, seed: 1, tick: () => undefined });
  await sleep(2000);
  const afterLoad = rssMiB();
  console.log(`loaded ${rows.toLocaleString('en-US')} rows of ${values.value} B: server RSS ${afterLoad.toFixed(0)} MiB`);

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const pkg = grpc.loadPackageDefinition(packageDefinition()) as any;
  const calls: grpc.ClientReadableStream<unknown>[] = [];
  const channels: grpc.Client[] = [];
  for (let i = 0; i < readers; i++) {
    // A connection of its own per reader (no shared subchannel pool).
    const c = new pkg.google.bigtable.v2.Bigtable(address, grpc.credentials.createInsecure(), {
      'grpc.use_local_subchannel_pool': 1,
    }) as grpc.Client;
    channels.push(c);
    const call = (c as unknown as { readRows(req: object): grpc.ClientReadableStream<unknown> }).readRows({
      tableName: 'projects/bench/instances/bench/tables/slow',
    });
    call.on('error', () => undefined);
    call.pause();
    calls.push(call);
  }
  await sleep(seconds * 1000);
  const hanging = rssMiB();
  const t0 = performance.now();
  const [probe] = await table.getRows({ limit: 10 });
  const probeMs = performance.now() - t0;
  console.log(
    `${readers} paused readers: server RSS ${hanging.toFixed(0)} MiB (+${(hanging - afterLoad).toFixed(0)}, ${(((hanging - afterLoad) * 1024) / readers).toFixed(0)} KiB per reader); another client read ${probe.length} rows in ${probeMs.toFixed(0)} ms`,
  );
  for (const call of calls) call.cancel();
  for (const c of channels) c.close();
  await sleep(seconds * 1000);
  const after = rssMiB();
  console.log(`after they went: server RSS ${after.toFixed(0)} MiB (+${(after - afterLoad).toFixed(0)} over the load)`);
  await client.close();
} finally {
  server.kill('SIGINT');
  await new Promise((r) => server.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
