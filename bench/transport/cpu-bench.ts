import { type ChildProcess, fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { packageDefinition } from '../../src/server/testing/loader-protos.js';

/**
 * Server CPU per call, grpc-js transport vs tabletop's h2 transport (and, with
 * --emulator, Google's cbtemulator as the reference):
 *
 *   npx tsx bench/transport/cpu-bench.ts [--calls N] [--rounds R] [--emulator]
 *
 * Each server runs in its own process (tabletop: forked cpu-bench-server.ts,
 * measured with process.cpuUsage() over IPC; the emulator: utime+stime from
 * /proc/<pid>/stat). The client is a raw grpc-js client with identity
 * serializers sending pre-encoded requests, 32 calls in flight. Workloads:
 * PingAndWarm, MutateRow of one small cell, and ReadRows of a whole
 * 2,000-row table (CPU per streamed row). All servers run at once and short
 * measurement rounds alternate between them, so that the machine's changing
 * load hits them alike; the report gives the median (and minimum) per server.
 * --floor adds a bare node:http2 responder (servers/floor-server.ts), the
 * cheapest possible gRPC server on node:http2. --build DIR (repeatable) adds the h2
 * transport of another build (e.g. a copy of dist/ from before a change);
 * --node-flags "FLAGS" (repeatable) adds the h2 transport run with those Node
 * flags, --tuning JSON (repeatable) with those ServerTuning overrides.
 */

const HERE = path.dirname(fileURLToPath(import.meta.url));
const INSTANCE = 'projects/bench/instances/bench';
const TABLE = `${INSTANCE}/tables/t`;
const CONCURRENCY = 32;
/** Clock ticks per second of /proc/<pid>/stat (`getconf CLK_TCK`; 100 on Linux). */
const USER_HZ = 100;
const SCAN_ROWS = 2000;
const EMULATOR = process.env['CBTEMULATOR'] ?? '/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator';

const args = process.argv.slice(2);
const flag = (name: string, def: number): number => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const CALLS = flag('--calls', 5_000);
const TRANSPORTS = args.includes('--h2-only') ? (['h2'] as const) : (['grpc-js', 'h2'] as const);
const ROUNDS = flag('--rounds', 9);
const SCANS = flag('--scans', 40);
const withEmulator = args.includes('--emulator');
const withFloor = args.includes('--floor');
const FLOOR = 'bare node:http2';
/** Other builds to compare (their dist/ directories), each served with the h2 transport. */
const otherBuilds = args.flatMap((a, i) => (a === '--build' && args[i + 1] !== undefined ? [args[i + 1]!] : []));
/** Node flags for extra h2 targets (e.g. "--max-semi-space-size=64"). */
const flagVariants = args.flatMap((a, i) => (a === '--node-flags' && args[i + 1] !== undefined ? [args[i + 1]!] : []));
/** ServerTuning overrides (JSON) for extra h2 targets. */
const tuningVariants = args.flatMap((a, i) => (a === '--tuning' && args[i + 1] !== undefined ? [args[i + 1]!] : []));
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;

type Encoded = Buffer;
const identity = (b: Buffer): Buffer => b;
const def = packageDefinition();
function encode(service: string, method: string, request: object): Encoded {
  const m = (def[service] as unknown as Record<string, { requestSerialize: (r: object) => Buffer }>)[method];
  if (m === undefined) throw new Error(`no ${service}.${method}`);
  return m.requestSerialize(request);
}
const DATA = 'google.bigtable.v2.Bigtable';
const ADMIN = 'google.bigtable.admin.v2.BigtableTableAdmin';

interface Target {
  readonly name: string;
  readonly address: string;
  /** CPU time used so far, and time in GC pauses so far (µs; GC unknown for the emulator). */
  cpuMicros(): Promise<number>;
  gcMicros(): number;
  stop(): Promise<void>;
}

interface Variant {
  /** Another build's dist/ directory. */
  readonly dist?: string;
  readonly nodeFlags?: string[];
  /** ServerTuning overrides, as JSON. */
  readonly tuning?: string;
}

async function forkTabletop(transport: 'h2' | 'grpc-js' | 'floor', v: Variant = {}): Promise<Target> {
  const script = transport === 'floor' ? '../servers/floor-server.ts' : 'cpu-bench-server.ts';
  const nodeFlags = v.nodeFlags ?? [];
  const env = {
    ...process.env,
    ...(v.dist === undefined ? {} : { TABLETOP_DIST: v.dist }),
    ...(v.tuning === undefined ? {} : { TABLETOP_TUNING: v.tuning }),
  };
  const child = fork(path.join(HERE, script), [transport === 'floor' ? '--ipc' : transport], {
    env,
    execArgv: ['--import', 'tsx', ...nodeFlags],
    stdio: 'inherit',
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  let gc = 0;
  const ask = (): Promise<number> =>
    new Promise((resolve) => {
      child.once('message', (m: { cpu: NodeJS.CpuUsage; gcMillis: number }) => {
        gc = m.gcMillis * 1000;
        resolve(m.cpu.user + m.cpu.system);
      });
      child.send('cpu');
    });
  const variant = [v.dist === undefined ? '' : path.basename(v.dist), ...nodeFlags, v.tuning ?? ''].filter(Boolean).join(' ');
  return {
    name: transport === 'floor' ? FLOOR : `tabletop ${transport}${variant === '' ? '' : ` (${variant})`}`,
    address: `127.0.0.1:${port}`,
    cpuMicros: ask,
    gcMicros: () => gc,
    stop: () => stopChild(child, 'stop'),
  };
}

async function startEmulator(): Promise<Target> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(EMULATOR, ['-host', '127.0.0.1', '-port', String(port)], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 1500));
  const cpuMicros = async (): Promise<number> => {
    const stat = readFileSync(`/proc/${child.pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / USER_HZ;
  };
  return { name: 'cbtemulator', address: `127.0.0.1:${port}`, cpuMicros, gcMicros: () => NaN, stop: () => stopChild(child) };
}

function stopChild(child: ChildProcess, message?: string): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    if (message !== undefined) child.send(message);
    else child.kill('SIGTERM');
  });
}

function client(address: string): grpc.Client {
  return new grpc.Client(address, grpc.credentials.createInsecure(), {
    'grpc.max_receive_message_length': -1,
    'grpc.max_send_message_length': -1,
  });
}

function unaryOnce(c: grpc.Client, path: string, req: Buffer): Promise<void> {
  return new Promise((resolve, reject) => c.makeUnaryRequest(path, identity, identity, req, (err) => (err ? reject(err) : resolve())));
}

function streamOnce(c: grpc.Client, path: string, req: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    const call = c.makeServerStreamRequest(path, identity, identity, req);
    call.on('data', (b: Buffer) => (bytes += b.length));
    call.on('error', reject);
    call.on('status', (s: grpc.StatusObject) => (s.code === 0 ? resolve(bytes) : undefined));
  });
}

/** Runs `n` calls with CONCURRENCY in flight; `request(i)` picks each call's bytes. */
async function drive(n: number, call: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < n) await call(next++);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
}

async function setUp(address: string): Promise<void> {
  const c = client(address);
  await unaryOnce(
    c,
    `/${ADMIN}/CreateTable`,
    encode(ADMIN, 'CreateTable', { parent: INSTANCE, tableId: 't', table: { columnFamilies: { cf: {} } } }),
  );
  const value = Buffer.alloc(100, 'v');
  const entries = Array.from({ length: SCAN_ROWS }, (_, i) => ({
    rowKey: Buffer.from(`scan${String(i).padStart(6, '0')}`),
    mutations: [{ setCell: { familyName: 'cf', columnQualifier: Buffer.from('q'), timestampMicros: '1000', value } }],
  }));
  await streamOnce(c, `/${DATA}/MutateRows`, encode(DATA, 'MutateRows', { tableName: TABLE, entries }));
  c.close();
}

interface Workload {
  readonly name: string;
  /** What the CPU is divided by: calls or rows. */
  readonly unit: string;
  /** Only tabletop-like targets with data (not the bare responder). */
  readonly needsData: boolean;
  /** Runs one measurement's worth of work; returns the number of units. */
  run(c: grpc.Client, round: number): Promise<number>;
}

const ping = encode(DATA, 'PingAndWarm', { name: INSTANCE });
/** MutateRow requests, each to a new row, so that every measurement does the same work. */
const mutateRow = (round: number, i: number): Buffer =>
  encode(DATA, 'MutateRow', {
    tableName: TABLE,
    rowKey: Buffer.from(`w${String(round).padStart(4, '0')}${String(i).padStart(7, '0')}`),
    mutations: [
      { setCell: { familyName: 'cf', columnQualifier: Buffer.from('q'), timestampMicros: '-1', value: Buffer.from('small value') } },
    ],
  });
const scan = encode(DATA, 'ReadRows', {
  tableName: TABLE,
  rows: { rowRanges: [{ startKeyClosed: Buffer.from('scan'), endKeyOpen: Buffer.from('scan~') }] },
});

const WORKLOADS: Workload[] = [
  {
    name: 'PingAndWarm',
    unit: 'call',
    needsData: false,
    run: async (c) => {
      await drive(CALLS, () => unaryOnce(c, `/${DATA}/PingAndWarm`, ping));
      return CALLS;
    },
  },
  {
    name: 'MutateRow (1 small cell)',
    unit: 'call',
    needsData: true,
    run: async (c, round) => {
      const requests = Array.from({ length: CALLS }, (_, i) => mutateRow(round, i));
      await drive(CALLS, (i) => unaryOnce(c, `/${DATA}/MutateRow`, requests[i]!));
      return CALLS;
    },
  },
  {
    name: `ReadRows (${SCAN_ROWS} rows of 100 B)`,
    unit: 'row',
    needsData: true,
    run: async (c) => {
      await drive(SCANS, () => streamOnce(c, `/${DATA}/ReadRows`, scan));
      return SCANS * SCAN_ROWS;
    },
  },
];

/** CPU and wall time per unit of one measurement (requests are prepared before the clock starts). */
async function measure(
  target: Target,
  c: grpc.Client,
  w: Workload,
  round: number,
): Promise<{ cpuPerUnit: number; gcPerUnit: number; wallPerUnit: number }> {
  const cpu0 = await target.cpuMicros();
  const gc0 = target.gcMicros();
  const t0 = performance.now();
  const units = await w.run(c, round);
  const wall = (performance.now() - t0) * 1000;
  const cpu1 = await target.cpuMicros();
  return { cpuPerUnit: (cpu1 - cpu0) / units, gcPerUnit: (target.gcMicros() - gc0) / units, wallPerUnit: wall / units };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

async function main(): Promise<void> {
  const targets: Target[] = [];
  for (const t of TRANSPORTS) targets.push(await forkTabletop(t));
  if (withEmulator) targets.push(await startEmulator());
  if (withFloor) targets.push(await forkTabletop('floor'));
  for (const dist of otherBuilds) targets.push(await forkTabletop('h2', { dist: path.resolve(dist) }));
  for (const flags of flagVariants) targets.push(await forkTabletop('h2', { nodeFlags: flags.split(' ').filter(Boolean) }));
  for (const tuning of tuningVariants) {
    const t = (JSON.parse(tuning) as { transport?: 'h2' | 'grpc-js' }).transport ?? 'h2';
    targets.push(await forkTabletop(t, { tuning }));
  }
  const clients = new Map<Target, grpc.Client>();
  try {
    for (const t of targets) {
      if (t.name !== FLOOR) await setUp(t.address);
      clients.set(t, client(t.address));
    }
    console.log(
      `server CPU per unit: median (min) of ${ROUNDS} alternating rounds; ${CONCURRENCY} calls in flight, ${CALLS} calls or ${SCANS} scans per round\n`,
    );
    for (const w of WORKLOADS) {
      if (only !== undefined && !w.name.startsWith(only)) continue;
      const active = targets.filter((t) => !(w.needsData && t.name === FLOOR));
      for (const t of active) await w.run(clients.get(t)!, -1); // warm-up
      const cpu = new Map<Target, number[]>(active.map((t) => [t, []]));
      const wall = new Map<Target, number[]>(active.map((t) => [t, []]));
      const gc = new Map<Target, number[]>(active.map((t) => [t, []]));
      for (let round = 0; round < ROUNDS; round++) {
        for (const t of active) {
          const r = await measure(t, clients.get(t)!, w, round);
          cpu.get(t)!.push(r.cpuPerUnit);
          wall.get(t)!.push(r.wallPerUnit);
          gc.get(t)!.push(r.gcPerUnit);
        }
      }
      const base = median(cpu.get(active[0]!)!);
      console.log(w.name);
      for (const t of active) {
        const xs = cpu.get(t)!;
        const m = median(xs);
        console.log(
          `  ${t.name.padEnd(18)} ${m.toFixed(2).padStart(7)} (${Math.min(...xs).toFixed(2)}) µs CPU/${w.unit}  ${(m / base).toFixed(2)}×   GC ${median(gc.get(t)!).toFixed(2)} µs   wall ${median(wall.get(t)!).toFixed(1)} µs`,
        );
      }
    }
  } finally {
    for (const c of clients.values()) c.close();
    for (const t of targets) await t.stop();
  }
}

await main();
