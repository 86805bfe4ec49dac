/**
 * Profiles one tabletop server under one workload (not a benchmark: no
 * emulator, no alternation). Starts `dist/cli/main.js serve` on a free port
 * (durable in a temporary directory, or --memory), drives it through the
 * official Node client, and prints the server's CPU per operation and the
 * CPU of each of its threads (main thread, V8's background threads for
 * compilation and garbage collection, libuv's pool for fsync). With --prof
 * the server also writes a V8 CPU profile of the whole run to --prof-dir
 * (open it in Chrome DevTools); the measured window is printed in the
 * profile's clock, and once the server has stopped, the main thread's busy
 * time per operation in that window, the share of it in the recorder's code
 * (dist/insight and what it calls: bench/stats/cpu-profile.ts) and the
 * functions with the most self time.
 *
 *   npx tsx bench/profile.ts load --value 1024 --rows 200000
 *   npx tsx bench/profile.ts writes --seconds 5 --memory
 *   npx tsx bench/profile.ts rmw | check-and-mutate | point-read | prefix-scan | range-scan | full-scan
 *   npx tsx bench/profile.ts writes --emulator     (Google's emulator, as a baseline)
 *   npx tsx bench/profile.ts writes --floor        (a do-nothing gRPC server on node:http2: the transport's floor)
 *   npx tsx bench/profile.ts load --warm-rows 200000   (a longer unmeasured warm-up than the default fifth of --rows:
 *                                                    the server's steady state, its JIT and heap grown)
 *   npx tsx bench/profile.ts load --build .tmp/dist-old   (another build of tabletop, to compare; keep it under
 *                                                    the repository so that it finds node_modules)
 *   npx tsx bench/profile.ts load --rows 20000 --warm-rows 60000 --callgrind
 *                          (the server runs under valgrind's callgrind, instrumented only in the measured window:
 *                          instructions per operation over all threads, and the window's dump kept with KEEP_DATA=1
 *                          for callgrind_annotate. Repeatable to a few % with SERVER_NODE_FLAGS="--predictable
 *                          --initial-old-space-size=128" where CPU times here spread ±30%; but ~40× slower, so work
 *                          done per second of wall time (timers, the recorder's roll) weighs ~40× more per operation)
 *
 * Scans wait after their load until the server is idle (its flushes and
 * compactions done), so that they measure reads alone.
 *
 * Builds nothing: run `npm run build` first.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SERVER_NODE_FLAGS } from '../src/cli/node-flags.js';
import { bytesWritten, cpuSeconds, minorFaults, untilIdle } from './servers/proc-stats.js';
import { EMULATOR_BIN } from './servers/targets.js';
import { type CpuProfile, windowShares } from './stats/cpu-profile.js';
import { GROUP_ROWS, ValuePool, groupPrefix, rowKey } from './workloads/dataset.js';
import { INSTANCE, createTable, loadRows, nodeClient } from './workloads/node-client.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    value: { type: 'string', default: '1024' },
    rows: { type: 'string', default: '100000' },
    'warm-rows': { type: 'string' },
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '32' },
    memory: { type: 'boolean', default: false },
    emulator: { type: 'boolean', default: false },
    floor: { type: 'boolean', default: false },
    'durable-floor': { type: 'boolean', default: false },
    'floor-flush-mib': { type: 'string', default: '32' },
    prof: { type: 'boolean', default: false },
    'prof-dir': { type: 'string', default: '.tmp/prof' },
    port: { type: 'string', default: '8099' },
    build: { type: 'string', default: 'dist' },
    callgrind: { type: 'boolean', default: false },
  },
});
const workload = positionals[0] ?? 'load';
const KINDS = ['load', 'writes', 'rmw', 'check-and-mutate', 'point-read', 'prefix-scan', 'range-scan', 'full-scan'];
if (!KINDS.includes(workload)) throw new Error(`workload must be one of ${KINDS.join(', ')}, not "${workload}"`);
if (values.floor && workload.endsWith('-scan')) throw new Error('--floor serves no reads: profile a load, writes, rmw or check-and-mutate');
if (values.floor && values.emulator) throw new Error('--floor and --emulator are two different servers: pick one');
if (values['durable-floor'] && (values.floor || values.emulator || values.memory))
  throw new Error('--durable-floor is its own server: leave out --floor, --emulator and --memory');
if (values['durable-floor'] && workload !== 'load') throw new Error('--durable-floor serves bulk loads only (MutateRows)');
if (!(Number(values['floor-flush-mib']) >= 0))
  throw new Error(`--floor-flush-mib must be a number of MiB, 0 or more, not "${values['floor-flush-mib']}"`);
const floor = values.floor || values['durable-floor'];
const valueSize = Number(values.value);
const rows = Number(values.rows);
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);

const dataDir = mkdtempSync(path.join(tmpdir(), 'tabletop-profile-'));
// SERVER_NODE_FLAGS (space-separated) replaces the server's V8 options, for experiments; the floor server gets them too.
const nodeArgs = [
  ...(process.env.SERVER_NODE_FLAGS !== undefined ? process.env.SERVER_NODE_FLAGS.split(' ').filter((f) => f !== '') : SERVER_NODE_FLAGS),
  ...(values.prof ? ['--cpu-prof', '--cpu-prof-dir', values['prof-dir']] : []),
];
const args = [
  ...nodeArgs,
  path.join(values.build, 'cli/main.js'),
  'serve',
  '--port',
  values.port,
  '--http-port',
  '0',
  ...(values.memory ? ['--in-memory'] : ['--data-dir', dataDir]),
  ...(process.env.SERVER_ARGS ? process.env.SERVER_ARGS.split(' ') : []),
];
// --emulator profiles Google's emulator instead (a baseline for the per-thread and client figures);
// --floor a server that only answers (servers/floor-server.ts): what the transport alone costs;
// --durable-floor the same server logging and flushing each load's bytes once: what durability adds at the least.
const server = values.emulator
  ? spawn(EMULATOR_BIN, ['-host', 'localhost', '-port', values.port], { stdio: ['ignore', 'ignore', 'inherit'] })
  : floor
    ? spawn(
        process.execPath,
        [
          ...nodeArgs,
          '--import',
          'tsx',
          fileURLToPath(new URL('servers/floor-server.ts', import.meta.url)),
          values.port,
          ...(values['durable-floor'] ? [dataDir, String(Math.round(Number(values['floor-flush-mib']) * 1024 * 1024))] : []),
        ],
        { stdio: ['ignore', 'ignore', 'inherit'] },
      )
    : values.callgrind
      ? spawn(
          'valgrind',
          [
            '--tool=callgrind',
            '--instr-atstart=no',
            `--callgrind-out-file=${path.join(dataDir, 'callgrind.out')}`,
            process.execPath,
            ...args,
          ],
          { stdio: ['ignore', 'ignore', 'ignore'] },
        )
      : spawn(process.execPath, args, { stdio: ['ignore', process.env.SERVER_STDOUT ? 'inherit' : 'ignore', 'inherit'] });
const pid = server.pid;
if (pid === undefined) throw new Error('the server did not start');
const client = nodeClient(`localhost:${values.port}`);

/** CPU seconds of each thread of the server ("main": the event loop; the others: V8's and libuv's pools). */
function threadCpu(of: number = pid!): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${of}/task`)) {
    try {
      const stat = readFileSync(`/proc/${of}/task/${tid}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      out.set(tid === String(of) ? 'main' : `${name} ${tid}`, (Number(rest[11]) + Number(rest[12])) / 100);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}

/** Seconds of CPU the whole machine spent busy (all processes and the kernel), in iowait and in interrupts, from /proc/stat. */
function machineCpu(): { busy: number; iowait: number; irq: number } {
  const f = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , iowait = 0, irq = 0, softirq = 0, steal = 0] = f;
  const tick = 100;
  return { busy: (user + nice + system + irq + softirq + steal) / tick, iowait: iowait / tick, irq: (irq + softirq) / tick };
}

async function waitForServer(): Promise<void> {
  for (let i = 0; i < (values.callgrind ? 1200 : 100); i++) {
    try {
      await client.instance(INSTANCE).getTables();
      return;
    } catch (e) {
      // NOT_FOUND: the server answered (the instance exists only once a table is created in it).
      if ((e as { code?: number }).code === 5) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error('the server did not answer within 10 s');
}

/** Runs `op` in `lanes` closed loops for `secs` seconds; returns the operations done. */
async function closedLoop(lanes: number, secs: number, op: (lane: number, i: number) => Promise<void>): Promise<number> {
  let done = 0;
  const until = performance.now() + secs * 1000;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      for (let i = 0; performance.now() < until; i++) {
        await op(lane, i);
        done++;
      }
    }),
  );
  return done;
}

async function main(): Promise<void> {
  await waitForServer();
  const pool = new ValuePool(valueSize);
  const table = await createTable(client, 'profiled');
  const key = (lane: number, i: number): string => 'w' + String((lane * 1_000_003 + i * 7919) % 1e9).padStart(9, '0');
  let measured: () => Promise<{ ops: number; unit: string }>;
  if (workload === 'load') {
    // A warm-up load into another table first, so the JIT's compilation is not counted.
    const warm = await createTable(client, 'warm');
    await loadRows(warm, {
      rows: values['warm-rows'] !== undefined ? Number(values['warm-rows']) : Math.ceil(rows / 5),
      valueSize,
      batchRows: 1000,
      inFlight: 4,
      seed: 2,
      tick: () => undefined,
    });
    await warm.delete();
    measured = async () => {
      await loadRows(table, { rows, valueSize, batchRows: 1000, inFlight: 4, seed: 1, tick: () => undefined });
      return { ops: rows, unit: 'row' };
    };
  } else {
    let op: (lane: number, i: number) => Promise<void>;
    if (workload === 'writes') op = async (lane, i) => void (await table.insert({ key: key(lane, i), data: { cf: { v: pool.value(i) } } }));
    else if (workload === 'rmw') op = async () => void (await table.row('hot').increment('cf:c', 1));
    else if (workload === 'check-and-mutate') {
      const mutation = (i: number) => [{ method: 'insert', data: { cf: { v: pool.value(i) } } }];
      op = async (lane, i) =>
        void (await table.row(key(lane, i)).filter({ column: 'v' }, { onMatch: mutation(i), onNoMatch: mutation(i) }));
    } else if (workload === 'point-read') {
      await loadRows(table, { rows, valueSize, batchRows: 1000, inFlight: 4, seed: 1, tick: () => undefined });
      await untilIdle(pid!);
      op = async (lane, i) => void (await table.row(rowKey((lane * 1_000_003 + i * 7919) % rows)).get({ decode: false }));
    } else {
      await loadRows(table, { rows, valueSize, batchRows: 1000, inFlight: 4, seed: 1, tick: () => undefined });
      await untilIdle(pid!);
      const groups = Math.max(1, Math.floor(rows / GROUP_ROWS));
      // 100 rows: a prefix of one group, or a range from a row that is not group-aligned.
      const request = (lane: number, i: number): object => {
        const g = (lane * 7 + i * 31) % groups;
        if (workload === 'full-scan') return {};
        if (workload === 'prefix-scan') return { prefix: groupPrefix(g) };
        const start = Math.min(rows - GROUP_ROWS, g * GROUP_ROWS + 37);
        return {
          ranges: [{ start: { value: rowKey(start), inclusive: true }, end: { value: rowKey(start + GROUP_ROWS), inclusive: false } }],
        };
      };
      op = (lane, i) =>
        new Promise<void>((resolve, reject) => {
          table
            .createReadStream({ ...request(lane, i), decode: false })
            .on('data', () => undefined)
            .on('error', reject)
            .on('end', resolve);
        });
    }
    const scan = workload.endsWith('-scan');
    const lanes = workload === 'full-scan' ? 1 : scan ? 8 : concurrency;
    await closedLoop(lanes, Math.min(2, seconds), op); // warm-up
    measured = async () => {
      const ops = await closedLoop(lanes, seconds, op);
      return workload === 'full-scan' ? { ops: ops * rows, unit: 'row' } : { ops, unit: scan ? 'scan' : 'op' };
    };
  }
  const threads0 = threadCpu();
  const cpu0 = cpuSeconds(pid!);
  const faults0 = minorFaults(pid!);
  const written0 = bytesWritten(pid!);
  const client0 = process.cpuUsage();
  const clientMain0 = threadCpu(process.pid).get('main') ?? 0;
  const machine0 = machineCpu();
  const t0 = performance.now();
  const from = process.hrtime.bigint() / 1000n;
  if (values.callgrind) callgrindControl('-i', 'on');
  const { ops, unit } = await measured();
  if (values.callgrind) callgrindControl('-d');
  const to = process.hrtime.bigint() / 1000n;
  const wall = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(pid!) - cpu0;
  const faults = minorFaults(pid!) - faults0;
  const written = bytesWritten(pid!) - written0;
  const machine = machineCpu();
  const clientUsage = process.cpuUsage(client0);
  const clientMain = (threadCpu(process.pid).get('main') ?? 0) - clientMain0;
  const clientCpu = (clientUsage.user + clientUsage.system) / 1e6;
  const threads = threadCpu();
  // Work a load leaves behind (flushes, compactions) is the load's too: how much is still to come.
  let after = '';
  // (Not under --prof: the sampling profiler keeps the server from ever looking idle.)
  if (workload === 'load' && !values.prof) {
    after = `; then ${(((await untilIdle(pid!)) * 1e6) / ops).toFixed(1)} µs per row of background work after the last write was acknowledged`;
  }
  console.log(
    `${workload}${workload === 'load' ? ` of ${valueSize}-byte values` : ''} (${values.emulator ? 'emulator' : values['durable-floor'] ? 'durable floor' : values.floor ? 'transport floor' : values.memory ? 'in memory' : 'durable'}): ${ops.toLocaleString('en-US')} ${unit}s in ${wall.toFixed(1)} s, ${Math.round(ops / wall).toLocaleString('en-US')} ${unit}s/s`,
  );
  console.log(
    `server CPU: ${((cpu * 1e6) / ops).toFixed(1)} µs per ${unit} (${(cpu / wall).toFixed(2)} cores busy), ${(faults / ops).toFixed(3)} minor page faults per ${unit}${after}`,
  );
  console.log(
    `server wrote ${Math.round(written / ops).toLocaleString('en-US')} bytes per ${unit} (files and sockets, until the last acknowledgement)`,
  );
  console.log(
    `client CPU (this process, the Node client): ${((clientCpu * 1e6) / ops).toFixed(1)} µs per ${unit} (${(clientCpu / wall).toFixed(2)} cores busy, its event loop ${((100 * clientMain) / wall).toFixed(0)}%)`,
  );
  console.log(
    `machine: ${((machine.busy - machine0.busy) / wall).toFixed(2)} of ${os.cpus().length} cores busy (${((machine.iowait - machine0.iowait) / wall).toFixed(2)} in iowait, ${((machine.irq - machine0.irq) / wall).toFixed(2)} in interrupts)`,
  );
  const busy = [...threads].map(([t, s]) => [t, s - (threads0.get(t) ?? 0)] as const).filter(([, s]) => s > 0);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  console.log(`server RSS: ${(kib('VmRSS') / 1024).toFixed(0)} MiB now, ${(kib('VmHWM') / 1024).toFixed(0)} MiB peak`);
  console.log(`per thread, µs per ${unit}: ${busy.map(([t, s]) => `${t} ${((s * 1e6) / ops).toFixed(1)}`).join(', ')}`);
  if (values.prof) console.log(`measured window in the profile's clock (µs): [${from}, ${to}]`);
  if (values.prof) profWindow = { from: Number(from), to: Number(to), ops, unit };
  if (values.callgrind) instructionsPerOp = (instructions: number) => (instructions / ops).toFixed(0) + ` instructions per ${unit}`;
}

/** Turns callgrind's collection on or off in the server (valgrind's own control channel). */
function callgrindControl(...flags: string[]): void {
  execFileSync('callgrind_control', [...flags, String(pid)], { stdio: 'ignore' });
}

let instructionsPerOp: ((instructions: number) => string) | undefined;
/** The measured window, for reading the server's CPU profile once it has written it (--prof). */
let profWindow: { from: number; to: number; ops: number; unit: string } | undefined;

/** The share of the server's main-thread time in the recorder's code (dist/insight) and the top functions, from its profile. */
function printProfileShares(w: { from: number; to: number; ops: number; unit: string }): void {
  const dir = values['prof-dir'];
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile') && f.includes(`.${pid}.`));
  if (file === undefined) return console.log(`no CPU profile of pid ${pid} in ${dir}`);
  const shares = windowShares(JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as CpuProfile, w.from, w.to, '/insight/');
  const perOp = (micros: number): string => (micros / w.ops).toFixed(2);
  console.log(
    `profile ${path.join(dir, file)}, measured window: main thread busy ${perOp(shares.busyMicros)} µs per ${w.unit}, ` +
      `${((100 * shares.underMicros) / Math.max(1, shares.busyMicros)).toFixed(1)}% of it in the recorder (dist/insight, callees included)`,
  );
  console.log(`  most self time, µs per ${w.unit}: ${shares.topSelf.map((f) => `${f.name} ${perOp(f.micros)}`).join('; ')}`);
}

try {
  await main();
} finally {
  server.kill('SIGINT');
  await new Promise((r) => server.once('exit', r));
  if (profWindow !== undefined) printProfileShares(profWindow);
  if (instructionsPerOp !== undefined) {
    // The dump taken at the end of the measured window (callgrind.out.1) counts that window only.
    const out = readFileSync(path.join(dataDir, 'callgrind.out.1'), 'utf8');
    const total = Number(/^summary:\s+(\d+)/m.exec(out)?.[1] ?? /^totals:\s+(\d+)/m.exec(out)?.[1]);
    console.log(`callgrind: ${instructionsPerOp(total)} (server, all threads, measured window)`);
  }
  if (process.env.KEEP_DATA === undefined) rmSync(dataDir, { recursive: true, force: true });
  else console.log('kept', dataDir);
}
process.exit(0);
