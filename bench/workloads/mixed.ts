import { cpuSeconds, rssBytes, untilIdle } from '../servers/proc-stats.js';
import { checkAndMutatePlan } from './check-and-mutate.js';
import { closedLoop } from './closed-loop.js';
import type { LoopContext, LoopPlan } from './closed-loop.js';
import { GROUP_ROWS } from './dataset.js';
import { benchTable, countRows, createTable, loadRows } from './node-client.js';
import { pointReadPlan } from './point-reads.js';
import { hotRowPlan } from './rmw-hot-row.js';
import { scanPlan, scanShape } from './scans.js';
import type { ScanKind } from './scans.js';
import type { Counts, Dataset, PhaseMeasured, PhaseWorkload, SequenceContext, SequenceWorkload, Settings } from './workload.js';
import { singleRowWritePlan } from './writes.js';
import type { WriteCall } from './writes.js';

/**
 * The mixed workload: what a user's server does, a bulk load and then every
 * kind of call back to back, on one freshly started server per target,
 * without waiting for the server to be idle between phases. The flushes and
 * compactions the load leaves behind are billed to whichever phase they
 * land in (server CPU from /proc at each phase's edges); the whole run's
 * CPU, until the server is idle after the last phase, is its last row.
 * Each phase is an isolated workload's loop (point-reads.ts, scans.ts,
 * writes.ts, rmw-hot-row.ts, check-and-mutate.ts) and checks its answers as
 * that workload does, once the whole run is over (so that no check's calls
 * are billed to a phase).
 */

export const MIXED = 'mixed';
/** Callers of the write, increment and check-and-mutate phases. */
const CALLERS = 32;
const VALUE = 1024;
const SMALL_VALUE = 100;

/** Rows of each of the two loads: 1.5 × --rows (150,000 by default), at least a prefix group. */
export function mixedRows(s: Settings): number {
  return Math.max(GROUP_ROWS, Math.round(s.rows * 1.5));
}

/** The warm-up's rows: a fifth of a load (prefix scans need at least a group). */
function warmRows(s: Settings): number {
  return Math.max(GROUP_ROWS, Math.ceil(mixedRows(s) / 5));
}

/** The tables of one run (or warm-up): `<prefix>-<role>-<runId>`. */
interface Tables {
  readonly small: string;
  readonly large: string;
  readonly save: string;
  readonly mutateRow: string;
  readonly counters: string;
  readonly checkAndMutate: string;
}

function tablesOf(prefix: string, runId: number): Tables {
  const t = (role: string): string => `${prefix}-${role}-${runId}`;
  return {
    small: t('100b'),
    large: t('1k'),
    save: t('save'),
    mutateRow: t('mutate-row'),
    counters: t('counters'),
    checkAndMutate: t('cam'),
  };
}

/** What a phase runs on: the client, its tables, the rows loaded, and the phase's progress (set per phase). */
interface PhaseInput {
  readonly loop: LoopContext;
  readonly tables: Tables;
  readonly rows: number;
  readonly settings: Settings;
  readonly runId: number;
}

/** A phase ready to run: its measured body and the check of its answers. */
interface Prepared {
  /** Items to do, for count-based phases (loads). */
  readonly total?: number;
  body(seconds: number, tick: (done: number) => void): Promise<Counts>;
  verify(counts: Counts): Promise<void>;
}

interface PhaseSpec {
  readonly info: PhaseWorkload;
  /** Sets the phase up before the run's first phase (nothing of it is measured). */
  prepare(input: PhaseInput): Promise<Prepared>;
}

function phase(
  name: string,
  title: string,
  unit: Pick<PhaseWorkload, 'per' | 'unitName' | 'mbps' | 'latency'>,
  describe: (s: Settings) => string,
): PhaseWorkload {
  return {
    kind: 'phase',
    name: `${MIXED}/${name}`,
    title: `Mixed: ${title}`,
    group: 'client',
    freshServer: false,
    writes: false,
    ...unit,
    describe,
  };
}

const ROWS = { per: 'row', unitName: 'rows', mbps: true, latency: true } as const;
const OPS = (unitName: string) => ({ per: 'op', unitName, mbps: false, latency: true }) as const;
const timed = (s: Settings): string => `for ${s.seconds} s, right after the phase before it`;

function loadPhase(name: string, valueSize: number, table: (t: Tables) => string, seed: number): PhaseSpec {
  const size = valueSize === VALUE ? '1 KiB' : `${valueSize} B`;
  return {
    info: phase(
      name,
      `bulk load, ${size} values`,
      ROWS,
      (s) =>
        `${mixedRows(s).toLocaleString('en-US')} rows of ${size} values in shuffled order into an empty table, Table.insert of ${s.loadBatchRows.toLocaleString('en-US')} rows per MutateRows, ${s.loadInFlight} in flight; latency is per request; the row count is checked after the run`,
    ),
    prepare: async ({ loop, tables, rows, settings, runId }) => {
      const t = benchTable(loop.client, table(tables));
      return {
        total: rows,
        body: (_seconds, tick) =>
          loadRows(t, { rows, valueSize, batchRows: settings.loadBatchRows, inFlight: settings.loadInFlight, seed: runId + seed, tick }),
        verify: async () => {
          const n = await countRows(t);
          if (n !== rows) throw new Error(`after loading ${rows} rows the table holds ${n} rows`);
        },
      };
    },
  };
}

/** A phase that runs an isolated workload's loop for --seconds. */
function loopPhase(info: PhaseWorkload, plan: (input: PhaseInput) => LoopPlan | Promise<LoopPlan>): PhaseSpec {
  return {
    info,
    prepare: async (input) => {
      const p = await plan(input);
      return {
        body: (seconds, tick) => closedLoop({ ...p, seconds, tick }),
        verify: async (counts) => p.verify?.(counts),
      };
    },
  };
}

function pointReadPhase(concurrency: number): PhaseSpec {
  return loopPhase(
    phase(
      `point-read-c${concurrency}`,
      `point reads, concurrency ${concurrency}`,
      OPS('reads'),
      (s) =>
        `Row.get of a uniformly random row of the 1 KiB table just loaded, ${concurrency} in flight, ${timed(s)}; every value is compared with the one loaded`,
    ),
    ({ loop }) => pointReadPlan(loop, concurrency),
  );
}

function scanPhase(kind: ScanKind): PhaseSpec {
  const shape = scanShape(kind);
  return loopPhase(
    phase(`${kind}-scan`, shape.title.toLowerCase(), { ...ROWS, latency: shape.latency }, (s) =>
      kind === 'full'
        ? `createReadStream over the whole 1 KiB table just loaded, one scan at a time, ${timed(s)}; every row checked`
        : `createReadStream of ${GROUP_ROWS} rows of the 1 KiB table by ${kind === 'prefix' ? 'a random prefix' : 'a random [start, end)'}, ${shape.concurrency} in flight, ${timed(s)}; every row checked; latency is per scan`,
    ),
    ({ loop }) => scanPlan(loop, kind),
  );
}

function writePhase(name: string, call: WriteCall, what: string, table: (t: Tables) => string): PhaseSpec {
  return loopPhase(
    phase(
      name,
      `single-row writes (${what}), concurrency ${CALLERS}`,
      OPS('writes'),
      (s) =>
        `${what} of one row (${VALUE}-byte value) under a random new key of an empty table, ${CALLERS} in flight, ${timed(s)}; the table's growth is checked`,
    ),
    ({ loop, tables }) => singleRowWritePlan(loop, { table: table(tables), concurrency: CALLERS, valueSize: VALUE, call }),
  );
}

/** The phases, in the order they run. */
const PHASES: readonly PhaseSpec[] = [
  loadPhase('load-100b', SMALL_VALUE, (t) => t.small, 1_000_000),
  loadPhase('load-1k', VALUE, (t) => t.large, 0),
  pointReadPhase(1),
  pointReadPhase(CALLERS),
  scanPhase('full'),
  scanPhase('prefix'),
  scanPhase('range'),
  writePhase('row-save-c32', 'save', 'Row.save, a MutateRows of one entry', (t) => t.save),
  writePhase('mutate-row-c32', 'mutate-row', 'MutateRow, the unary call', (t) => t.mutateRow),
  loopPhase(
    phase(
      'rmw-hot-row',
      `increments of one hot row, concurrency ${CALLERS}`,
      OPS('increments'),
      (s) => `Row.increment (ReadModifyWriteRow) of one counter of one row, ${CALLERS} in flight, ${timed(s)}; the final count is checked`,
    ),
    ({ loop, tables }) => hotRowPlan(loop, tables.counters, CALLERS),
  ),
  loopPhase(
    phase(
      `check-and-mutate-c${CALLERS}`,
      `check-and-mutate, concurrency ${CALLERS}`,
      OPS('calls'),
      (s) =>
        `Row.filter (CheckAndMutateRow) of a random key of an empty table (a column filter as predicate, a ${VALUE}-byte SetCell in both branches), ${CALLERS} in flight, ${timed(s)}; every answer (matched or not) and every row's last value checked`,
    ),
    ({ loop, tables }) => checkAndMutatePlan(loop, tables.checkAndMutate, CALLERS, VALUE),
  ),
];

/** The whole run: every phase, and the background work after the last one until the server is idle. */
export const MIXED_TOTAL: PhaseWorkload = phase(
  'total',
  'the whole run',
  { per: 'op', unitName: 'ops', mbps: false, latency: false },
  () =>
    `every phase above, one after the other on one freshly started server; ops are every phase's calls (a load's MutateRows requests, scans, reads, writes, increments, check-and-mutates); server CPU runs from the first phase's start until the server is idle after the last one`,
);

export function mixedWorkload(): SequenceWorkload {
  const phases = [...PHASES.map((p) => p.info), MIXED_TOTAL];
  return {
    kind: 'sequence',
    name: MIXED,
    title: 'Mixed: a bulk load, then every kind of call back to back on one server',
    group: 'client',
    per: 'op',
    unitName: 'ops',
    mbps: false,
    latency: false,
    freshServer: true,
    writes: true,
    phases,
    describe: (s) =>
      `on a freshly started server, ${phases.length - 1} phases back to back without waiting for the server to be idle between them (${phases
        .slice(0, -1)
        .map((p) => p.name)
        .join(', ')}); background work is billed to the phase it lands in` +
      (s.warmupSeconds > 0
        ? `; unmeasured warm-up first: the same phases on ${warmRows(s).toLocaleString('en-US')}-row loads for ${s.warmupSeconds} s each, its tables then deleted`
        : ''),
    warmUp: async (ctx) => {
      const tables = tablesOf('warm', ctx.runId);
      await runPhases(ctx, tables, warmRows(ctx.settings), ctx.settings.warmupSeconds);
      for (const t of Object.values(tables)) await benchTable(ctx.client, t).delete();
    },
    run: (ctx) => runPhases(ctx, tablesOf(MIXED, ctx.runId), mixedRows(ctx.settings), ctx.settings.seconds),
  };
}

/**
 * Runs every phase back to back and measures each between its edges; then
 * waits for the server to be idle (the whole run's CPU), then checks every
 * phase's answers. The total counts every phase's operations.
 */
async function runPhases(ctx: SequenceContext, tables: Tables, rows: number, seconds: number): Promise<PhaseMeasured[]> {
  for (const t of Object.values(tables)) await createTable(ctx.client, t);
  let tick: (done: number) => void = () => undefined;
  const dataset: Dataset = {
    table: tables.large,
    rows,
    valueSize: VALUE,
    writesTable: tables.save,
    countersTable: tables.counters,
    loadgenWritesTable: tables.checkAndMutate,
  };
  const loop: LoopContext = { client: ctx.client, dataset, runId: ctx.runId, tick: (n) => tick(n) };
  const input: PhaseInput = { loop, tables, rows, settings: ctx.settings, runId: ctx.runId };
  const prepared: Prepared[] = [];
  for (const p of PHASES) prepared.push(await p.prepare(input));

  const pid = ctx.target.process.pid;
  const results: PhaseMeasured[] = [];
  const client0 = process.cpuUsage();
  const server0 = cpuSeconds(pid);
  const t0 = performance.now();
  let serverEdge = server0;
  for (const [i, p] of PHASES.entries()) {
    const run = prepared[i] as Prepared;
    tick = ctx.task(p.info, run.total);
    const client = process.cpuUsage();
    const start = performance.now();
    const counts = await run.body(seconds, tick);
    const wall = (performance.now() - start) / 1000;
    const server = cpuSeconds(pid);
    const used = process.cpuUsage(client);
    results.push({
      phase: p.info,
      measured: {
        ...counts,
        seconds: wall,
        serverCpuSeconds: server - serverEdge,
        clientCpuSeconds: (used.user + used.system) / 1e6,
        clientProcesses: 1,
        serverRssBytes: rssBytes(pid),
      },
    });
    serverEdge = server;
  }
  const wall = (performance.now() - t0) / 1000;
  const client = process.cpuUsage(client0);
  const rss = rssBytes(pid);
  await untilIdle(pid, 120);
  const disk = ctx.target.diskBytes();
  const sum = (f: (c: Counts) => number): number => results.reduce((a, r) => a + f(r.measured), 0);
  results.push({
    phase: MIXED_TOTAL,
    measured: {
      ops: sum((c) => c.ops),
      rows: sum((c) => c.rows),
      bytes: sum((c) => c.bytes),
      seconds: wall,
      serverCpuSeconds: cpuSeconds(pid) - server0,
      clientCpuSeconds: (client.user + client.system) / 1e6,
      clientProcesses: 1,
      serverRssBytes: rss,
      ...(disk === undefined ? {} : { serverDiskBytes: disk }),
    },
  });
  for (const [i, p] of PHASES.entries()) {
    try {
      await (prepared[i] as Prepared).verify((results[i] as PhaseMeasured).measured);
    } catch (e) {
      throw new Error(`${p.info.name}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return results;
}
