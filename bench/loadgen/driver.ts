import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { track } from '../servers/cleanup.js';
import { Histogram } from '../stats/histogram.js';
import type { Counts, Measured, RunContext } from '../workloads/workload.js';
import type { FromWorker, ToWorker, WorkerConfig, WorkerTotals } from './messages.js';

/**
 * Runs the load generator: forks `processes` workers, waits until each has
 * connected and checked one call, then measures the window from "go" until
 * every worker has finished its calls.
 */

const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url));
const READY_TIMEOUT_MS = 60_000;

export async function runLoadgen(ctx: RunContext, processes: number, config: Omit<WorkerConfig, 'seed'>): Promise<Measured> {
  const workers = Array.from({ length: processes }, (_, i) => startWorker({ ...config, seed: ctx.runId * 1000 + i }));
  try {
    await withTimeout(Promise.all(workers.map((w) => w.ready)), READY_TIMEOUT_MS, 'load-generator workers did not get ready');
    return await ctx.measure(async (): Promise<Counts> => {
      for (const w of workers) w.send({ type: 'go', seconds: ctx.seconds });
      const done = await Promise.all(workers.map((w) => w.done));
      const latency = new Histogram();
      for (const d of done) latency.merge(Histogram.fromJSON(d.latency));
      return {
        ops: sum(done, (d) => d.ops),
        rows: sum(done, (d) => d.rows),
        bytes: sum(done, (d) => d.bytes),
        latency,
        clientCpuSeconds: sum(done, (d) => d.cpuSeconds),
        clientProcesses: processes,
      };
    });
  } finally {
    for (const w of workers) w.stop();
  }

  function startWorker(c: WorkerConfig): Worker {
    const w = spawnWorker(c, () => ctx.tick(workers.reduce((n, x) => n + (config.kind === 'scan' ? x.progress.rows : x.progress.ops), 0)));
    return w;
  }
}

interface Worker {
  readonly ready: Promise<void>;
  readonly done: Promise<Extract<FromWorker, { type: 'done' }>>;
  progress: WorkerTotals;
  send(m: ToWorker): void;
  stop(): void;
}

function spawnWorker(config: WorkerConfig, onProgress: () => void): Worker {
  // The harness runs under tsx; fork() passes its loader flags on (process.execArgv), so the worker runs as TypeScript too.
  const child: ChildProcess = fork(WORKER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const untrack = track({
    name: `load-generator worker ${child.pid}`,
    release: async () => void child.kill('SIGKILL'),
    releaseNow: () => void child.kill('SIGKILL'),
  });
  type Done = Extract<FromWorker, { type: 'done' }>;
  let onReady!: { resolve: () => void; reject: (e: Error) => void };
  let onDone!: { resolve: (m: Done) => void; reject: (e: Error) => void };
  const ready = new Promise<void>((resolve, reject) => (onReady = { resolve, reject }));
  const done = new Promise<Done>((resolve, reject) => (onDone = { resolve, reject }));
  // Settling a settled promise does nothing: a failure after "done" changes nothing.
  const failAll = (e: Error): void => {
    onReady.reject(e);
    onDone.reject(e);
  };
  ready.catch(() => undefined);
  done.catch(() => undefined);
  const w: Worker = {
    ready,
    done,
    progress: { ops: 0, rows: 0, bytes: 0 },
    send: (m) => void child.send(m),
    stop: () => {
      if (child.connected) child.disconnect();
      untrack();
    },
  };
  child.on('message', (m: FromWorker) => {
    switch (m.type) {
      case 'ready':
        onReady.resolve();
        break;
      case 'progress':
        w.progress = m;
        onProgress();
        break;
      case 'done':
        w.progress = m;
        onDone.resolve(m);
        break;
      case 'failed':
        failAll(new Error(`load generator (${config.kind}): ${m.message}`));
        break;
    }
  });
  child.on('error', (e) => failAll(new Error(`load-generator worker: ${e.message}`)));
  child.on('exit', (code, signal) => failAll(new Error(`load-generator worker exited (code ${code}, signal ${signal})`)));
  child.send({ type: 'config', config } satisfies ToWorker);
  return w;
}

function sum<T>(xs: readonly T[], f: (x: T) => number): number {
  return xs.reduce((n, x) => n + f(x), 0);
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
