/**
 * Point-read latency through the official Node client while a real server
 * runs a major compaction, against the same reads on the same server idle:
 * what a compaction costs the requests a user sends (issue 26's limit: p99
 * during ÷ idle ≤ 1.5×). Where `compaction-latency.ts` measures the engine
 * alone, this is the whole path: `dist/cli/main.js serve` (durable, in a
 * temporary directory, under the server's V8 options), the transport and the
 * client, on one machine.
 *
 * Each server setting (`--threads`: `default` is serve's own choice, a
 * number is `--background-threads N`) gets a server of its own, the data set
 * loaded (shuffled MutateRows, as the benchmark loads it) and the server left
 * to go idle. Then, each round: random point reads (Row.get, `--concurrency`
 * in flight) for `--seconds` on the idle server; then a DropRowRange of a
 * prefix no row has (Table.deleteRows, inside a different tablet each round):
 * the drop is cheap, but its tablet's files must then be merged by a major
 * compaction, the only one that applies drops. Reads go on from the drop
 * until the server's log (JSON format) reports that compaction; a read counts
 * as "during" when it overlaps the compaction's interval (its end and
 * duration, from the log line).
 *
 *   npx tsx bench/compaction-latency-server.ts [--rows 150000] [--value 1024] [--concurrency 1]
 *     [--seconds 5] [--rounds 3] [--threads default,1]
 *
 * Builds nothing: run `npm run build` first.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SERVER_NODE_FLAGS } from '../src/cli/node-flags.js';
import { untilIdle } from './servers/proc-stats.js';
import { Histogram } from './stats/histogram.js';
import { ValuePool, laneRandoms, randomBelow, rowKey } from './workloads/dataset.js';
import { benchTable, cellValue, createTable, loadRows, nodeClient } from './workloads/node-client.js';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '150000' },
    value: { type: 'string', default: '1024' },
    concurrency: { type: 'string', default: '1' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    threads: { type: 'string', default: 'default,1' },
  },
});
const rows = Number(values.rows);
const valueSize = Number(values.value);
const concurrency = Number(values.concurrency);
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const settings = values.threads.split(',').map((s) => s.trim());
for (const [name, v] of [
  ['--rows', rows],
  ['--value', valueSize],
  ['--concurrency', concurrency],
  ['--seconds', seconds],
  ['--rounds', rounds],
] as const)
  if (!(v > 0)) throw new Error(`${name} must be a positive number`);
for (const s of settings)
  if (s !== 'default' && !(Number.isInteger(Number(s)) && Number(s) >= 0))
    throw new Error(`--threads takes "default" or whole numbers, not "${s}"`);

// SERVER_NODE_FLAGS (space-separated) replaces the server's V8 options, as in profile.ts: e.g. the server's
// own options plus `--cpu-prof --cpu-prof-dir DIR` for a profile of the serving thread.
const serverNodeFlags =
  process.env.SERVER_NODE_FLAGS !== undefined ? process.env.SERVER_NODE_FLAGS.split(' ').filter((f) => f !== '') : SERVER_NODE_FLAGS;
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const ms = (micros: number): string => (micros / 1000).toFixed(2);

/** A compaction the server logged: when it ended (epoch ms) and how long it ran. */
interface Compaction {
  readonly end: number;
  readonly millis: number;
  readonly major: boolean;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, 'localhost', () => {
      const address = s.address();
      s.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function measure(setting: string): Promise<{ idle: Histogram; during: Histogram; compactions: Compaction[] }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tabletop-compaction-latency-'));
  const port = await freePort();
  const server = spawn(
    process.execPath,
    [
      ...serverNodeFlags,
      path.join(repo, 'dist/cli/main.js'),
      'serve',
      '--port',
      String(port),
      '--http-port',
      '0',
      '--data-dir',
      dir,
      '--log-format',
      'json',
      ...(setting === 'default' ? [] : ['--background-threads', setting]),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let ready = false;
  let failure: Error | undefined;
  const compactions: Compaction[] = [];
  let partial = '';
  // The log (JSON, one record per line) goes to stderr; stdout may carry lines of its own.
  server.stdout.resume();
  server.stderr.on('data', (d: Buffer) => {
    const lines = (partial + d.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      let rec: { time?: string; msg?: string; event?: string; millis?: number; major?: boolean };
      try {
        rec = JSON.parse(line) as typeof rec;
      } catch {
        continue;
      }
      if (rec.event === 'started') ready = true;
      if (rec.event === 'compacted' && rec.time !== undefined && rec.millis !== undefined)
        compactions.push({ end: Date.parse(rec.time), millis: rec.millis, major: rec.major === true });
    }
  });
  server.once('exit', (code, signal) => (failure ??= new Error(`the server exited (code ${code}, signal ${signal})`)));
  try {
    for (let i = 0; !ready; i++) {
      if (failure !== undefined) throw failure;
      if (i > 300) throw new Error('the server did not start within 30 s');
      await sleep(100);
    }
    const client = nodeClient(`localhost:${port}`);
    const table = await createTable(client, 'compacting');
    let lastShown = 0;
    await loadRows(table, {
      rows,
      valueSize,
      batchRows: 500,
      inFlight: 4,
      seed: 1,
      tick: (done) => {
        if (done - lastShown >= rows / 10 || done === rows) {
          lastShown = done;
          process.stdout.write(`\r  ${setting}: loading ${done.toLocaleString('en-US')} of ${rows.toLocaleString('en-US')} rows`);
        }
      },
    });
    process.stdout.write(`\n  ${setting}: loaded; waiting for the server to go idle (its flushes and compactions done)\n`);
    await untilIdle(server.pid!, 300);

    const reader = benchTable(client, 'compacting');
    const pool = new ValuePool(valueSize);
    const idle = new Histogram();
    const during = new Histogram();
    /** Reads [start, end] in epoch ms with their latency in µs; a phase's reads. */
    const readWhile = async (more: () => boolean, runId: number): Promise<{ start: number; end: number; micros: number }[]> => {
      const random = laneRandoms(runId, concurrency);
      const done: { start: number; end: number; micros: number }[] = [];
      await Promise.all(
        Array.from({ length: concurrency }, async (_, lane) => {
          while (more()) {
            const i = randomBelow(random(lane), rows);
            const start = Date.now();
            const t0 = process.hrtime.bigint();
            const [row] = await reader.row(rowKey(i)).get({ decode: false });
            const micros = Number(process.hrtime.bigint() - t0) / 1000;
            const v = cellValue(row);
            if (v === undefined || !v.equals(pool.value(i))) throw new Error(`row ${rowKey(i)} came back without its loaded value`);
            done.push({ start, end: Date.now(), micros });
          }
        }),
      );
      return done;
    };
    for (let round = 0; round < rounds; round++) {
      const until = Date.now() + seconds * 1000;
      const quiet = await readWhile(() => Date.now() < until, 2 * round + 1);
      for (const r of quiet) idle.record(r.micros);
      // A prefix no row has (keys are 10 characters), in a different part of the key space each round.
      const prefix = `${rowKey(Math.floor(((round + 0.5) / rounds) * rows))}~`;
      const seen = compactions.length;
      let dropped = false;
      const readsBeside = readWhile(() => !dropped || compactions.length === seen, 2 * round + 2);
      const started = Date.now();
      await table.deleteRows(prefix);
      dropped = true;
      const reads = await readsBeside;
      const mine = compactions.slice(seen).filter((c) => c.major && c.end >= started);
      if (mine.length === 0) throw new Error(`round ${round + 1}: the drop of ${prefix} was not followed by a major compaction`);
      let n = 0;
      for (const r of reads) {
        if (mine.some((c) => r.end >= c.end - c.millis && r.start <= c.end)) {
          during.record(r.micros);
          n++;
        }
      }
      const c = mine[mine.length - 1]!;
      console.log(
        `  ${setting} round ${round + 1}: idle ${quiet.length.toLocaleString('en-US')} reads, p99 ${ms(percentile(quiet, 0.99))} ms; ` +
          `major compaction of ${formatSeconds(c.millis)}, ${n.toLocaleString('en-US')} reads during it, p99 ${ms(percentileOf(reads, mine, 0.99))} ms`,
      );
    }
    await client.close();
    return { idle, during, compactions };
  } finally {
    server.kill('SIGINT');
    await new Promise((r) => (server.exitCode !== null ? r(undefined) : server.once('exit', r)));
    rmSync(dir, { recursive: true, force: true });
  }
}

function percentile(reads: readonly { micros: number }[], q: number): number {
  const h = new Histogram();
  for (const r of reads) h.record(r.micros);
  return h.quantile(q);
}

function percentileOf(reads: readonly { start: number; end: number; micros: number }[], within: readonly Compaction[], q: number): number {
  return percentile(
    reads.filter((r) => within.some((c) => r.end >= c.end - c.millis && r.start <= c.end)),
    q,
  );
}

function formatSeconds(millis: number): string {
  return millis >= 1000 ? `${(millis / 1000).toFixed(1)} s` : `${millis.toFixed(0)} ms`;
}

console.log(
  `point reads through the Node client, ${concurrency} in flight, beside major compactions: ${rows.toLocaleString('en-US')} rows of ${valueSize} B, ` +
    `${rounds} round(s) of ${seconds} s idle then one compaction, per setting of --background-threads (${settings.join(', ')})`,
);
const results: { setting: string; idle: Histogram; during: Histogram }[] = [];
for (const setting of settings) results.push({ setting, ...(await measure(setting)) });
console.log(
  '\n| background threads | idle p50 / p99 / max, ms | during compaction p50 / p99 / max, ms | reads during | p99 during ÷ idle |',
);
console.log('| --- | --- | --- | --- | --- |');
for (const r of results) {
  const q = (h: Histogram): string => `${ms(h.quantile(0.5))} / ${ms(h.quantile(0.99))} / ${ms(h.max)}`;
  console.log(
    `| ${r.setting} | ${q(r.idle)} | ${q(r.during)} | ${r.during.count.toLocaleString('en-US')} | ${(r.during.quantile(0.99) / r.idle.quantile(0.99)).toFixed(2)}× |`,
  );
}
