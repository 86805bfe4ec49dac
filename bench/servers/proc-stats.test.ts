import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { cpuSecondsBetween, mainThreadSecondsBetween, readCpu } from './proc-stats.js';

// A child that, on each line of input, burns the given ms of CPU on its main thread ("main 300"), or runs a worker
// thread busy for that many ms of wall time that then ends ("worker 300"), and answers "done".
const CHILD = `
const { Worker } = require('node:worker_threads');
const burn = 'const until = Date.now() + Number(require("node:worker_threads").workerData); while (Date.now() < until) {}';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (line) => {
  const [where, ms] = line.trim().split(' ');
  if (where === 'main') {
    const start = process.cpuUsage();
    for (;;) { const u = process.cpuUsage(start); if ((u.user + u.system) / 1000 >= Number(ms)) break; }
    process.stdout.write('done\\n');
  } else {
    new Worker(burn, { eval: true, workerData: Number(ms) }).on('exit', () => process.stdout.write('done\\n'));
  }
});
process.stdout.write('ready\\n');
`;

let child: ChildProcess | undefined;
afterEach(() => child?.kill());

async function start(): Promise<ChildProcess> {
  const c = spawn(process.execPath, ['-e', CHILD], { stdio: ['pipe', 'pipe', 'inherit'] });
  child = c;
  await once(c.stdout!, 'data');
  return c;
}

async function ask(c: ChildProcess, line: string): Promise<void> {
  const answered = once(c.stdout!, 'data');
  c.stdin!.write(`${line}\n`);
  await answered;
}

describe('server CPU between two readings', () => {
  it('is the threads’ run time, to well under a 10 ms tick', async () => {
    const c = await start();
    const before = readCpu(c.pid!);
    await ask(c, 'main 300');
    const after = readCpu(c.pid!);
    const seconds = cpuSecondsBetween(before, after);
    expect(seconds).toBeGreaterThan(0.29);
    expect(seconds).toBeLessThan(0.45);
    // Not a whole number of ticks: the per-thread figure was taken.
    expect(Math.abs(seconds * 100 - Math.round(seconds * 100))).toBeGreaterThan(1e-6);
  });

  it('falls back to the ticks when a thread ended between the readings (its time left the per-thread sums)', async () => {
    const c = await start();
    // A first worker, so that thread ids of V8's platform are all there before the first reading.
    await ask(c, 'worker 10');
    const before = readCpu(c.pid!);
    const started = once(c.stdout!, 'data');
    c.stdin!.write('worker 300\n');
    // Read while the worker runs, so that it is in `between` and gone at the end.
    await new Promise((r) => setTimeout(r, 100));
    const between = readCpu(c.pid!);
    await started;
    const after = readCpu(c.pid!);
    expect(between.threadNanos.size).toBeGreaterThan(before.threadNanos.size);
    const seconds = cpuSecondsBetween(between, after);
    // The worker's last ~200 ms (less on a busy machine) are counted although its thread is gone.
    expect(seconds).toBeGreaterThan(0.05);
    expect(seconds).toBe(after.tickSeconds - between.tickSeconds);
  });

  it('tells the main thread’s share from the other threads’', async () => {
    const c = await start();
    await ask(c, 'worker 10');
    const a = readCpu(c.pid!);
    await ask(c, 'main 200');
    const b = readCpu(c.pid!);
    const main = mainThreadSecondsBetween(c.pid!, a, b)!;
    expect(main).toBeGreaterThan(0.19);
    expect(main).toBeLessThanOrEqual(cpuSecondsBetween(a, b));
    // A worker busy for 300 ms of wall time: its CPU is not the main thread's.
    const started = once(c.stdout!, 'data');
    c.stdin!.write('worker 300\n');
    await new Promise((r) => setTimeout(r, 100));
    const during = readCpu(c.pid!);
    await new Promise((r) => setTimeout(r, 150));
    const later = readCpu(c.pid!);
    await started;
    expect(mainThreadSecondsBetween(c.pid!, during, later)!).toBeLessThan(0.05);
    expect(cpuSecondsBetween(during, later)).toBeGreaterThan(0.1);
  });
});
