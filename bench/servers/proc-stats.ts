import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

/**
 * What the kernel says about a server process (Linux /proc): CPU time used
 * by all its threads, and its resident set size.
 */

let ticksPerSecond: number | undefined;

/** Clock ticks per second (USER_HZ), the unit of utime/stime in /proc/<pid>/stat. */
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    const out = execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim();
    const n = Number(out);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`getconf CLK_TCK printed "${out}", not a positive integer`);
    ticksPerSecond = n;
  }
  return ticksPerSecond;
}

/** utime + stime of the process, in seconds (resolution 1/CLK_TCK, usually 10 ms). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Field 2 (comm) is in parentheses and may contain spaces: parse after the last ')'.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state); utime is field 14, stime field 15.
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error(`cannot parse utime/stime in /proc/${pid}/stat: ${stat}`);
  return (utime + stime) / clockTicks();
}

/**
 * CPU time of the process's threads that are still alive, in seconds, at
 * nanosecond resolution (the first field of /proc/<pid>/task/<tid>/schedstat,
 * summed): for short spans such as a start-up, where utime + stime (10 ms
 * ticks) is too coarse. Threads that have ended are not counted.
 */
export function threadCpuSeconds(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended while we read.
    }
  }
  if (!Number.isFinite(ns)) throw new Error(`cannot parse /proc/${pid}/task/*/schedstat`);
  return ns / 1e9;
}

/** A process's CPU time read both ways at one moment: utime + stime (10 ms ticks), and each live thread's run time (ns). */
export interface CpuReading {
  readonly tickSeconds: number;
  /** Nanoseconds on a CPU per live thread id (schedstat's first field). */
  readonly threadNanos: ReadonlyMap<string, number>;
}

export function readCpu(pid: number): CpuReading {
  const threadNanos = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      if (Number.isFinite(ns)) threadNanos.set(tid, ns);
    } catch {
      // The thread ended while we read.
    }
  }
  return { tickSeconds: cpuSeconds(pid), threadNanos };
}

/**
 * CPU seconds the process used between two readings, at nanosecond
 * resolution where that is sound: the threads' run times (a thread alive at
 * both its delta, a new one its whole time). A run of a second costs a server
 * a few hundred ms of CPU, which 10 ms ticks measure to ±4%: more than the
 * effects the bench looks for (5%). When a thread ended in between (its time
 * left the per-thread sums), or the ticks say clearly more (a thread that
 * came and went unseen), the tick-based figure is taken.
 */
export function cpuSecondsBetween(a: CpuReading, b: CpuReading): number {
  const ticks = b.tickSeconds - a.tickSeconds;
  let ns = 0;
  for (const [tid, before] of a.threadNanos) {
    const after = b.threadNanos.get(tid);
    if (after === undefined) return ticks;
    ns += after - before;
  }
  for (const [tid, after] of b.threadNanos) if (!a.threadNanos.has(tid)) ns += after;
  const precise = ns / 1e9;
  // Ticks are sampled: allow them two ticks and 5% above the exact figure before distrusting it.
  return ticks > precise * 1.05 + 2 / clockTicks() ? ticks : precise;
}

/**
 * CPU seconds the process's main thread (thread id = process id: in a Node
 * server, the thread that serves requests) used between two readings;
 * what is left of cpuSecondsBetween ran on other threads (GC helpers, libuv's
 * pool, workers). Undefined when a reading lacks the thread.
 */
export function mainThreadSecondsBetween(pid: number, a: CpuReading, b: CpuReading): number | undefined {
  const before = a.threadNanos.get(String(pid));
  const after = b.threadNanos.get(String(pid));
  return before === undefined || after === undefined ? undefined : (after - before) / 1e9;
}

/**
 * Minor page faults of the process so far (field 10 of /proc/<pid>/stat):
 * each is a first touch of a page of memory. On a virtual machine that
 * hands freed memory back to its host, each costs microseconds.
 */
export function minorFaults(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const n = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[7]);
  if (!Number.isFinite(n)) throw new Error(`cannot parse minflt in /proc/${pid}/stat: ${stat}`);
  return n;
}

/** Bytes the process has passed to write calls (files and sockets alike), from /proc/PID/io's wchar. */
export function bytesWritten(pid: number): number {
  const m = /^wchar:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
  if (m === null) throw new Error(`cannot find wchar in /proc/${pid}/io`);
  return Number(m[1]);
}

/** VmRSS of the process, in bytes. */
export function rssBytes(pid: number): number {
  return statusField(pid, 'VmRSS');
}

/** VmHWM (peak resident set size) of the process, in bytes. */
export function peakRssBytes(pid: number): number {
  return statusField(pid, 'VmHWM');
}

function statusField(pid: number, field: string): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  if (m === null) throw new Error(`/proc/${pid}/status has no ${field} line`);
  return Number(m[1]) * 1024;
}

/**
 * Waits until the process has used under 2% of a core for a second (its
 * background work, such as flushes and compactions, is done), at most
 * `maxSeconds`; returns the CPU seconds it used meanwhile.
 */
export async function untilIdle(pid: number, maxSeconds = 60): Promise<number> {
  const start = cpuSeconds(pid);
  for (let i = 0; i < maxSeconds; i++) {
    const c0 = cpuSeconds(pid);
    await new Promise((r) => setTimeout(r, 1000));
    if (cpuSeconds(pid) - c0 < 0.02) break;
  }
  return cpuSeconds(pid) - start;
}
