import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { SERVER_NODE_FLAGS } from '../../src/cli/node-flags.js';
import { spawnGuarded, stopGuarded } from '../harness/guarded-child.js';
import type { GuardedChild } from '../harness/guarded-child.js';
import { REPO_ROOT, TABLETOP_MAIN, capture, waitForOutput } from '../harness/targets.js';
import type { Target } from '../harness/targets.js';

/**
 * `tabletop serve` on a data directory (the durable engine), as a child
 * process that tests can SIGKILL and restart on the same directory.
 *
 * The harness's startTabletop() always passes --in-memory, so this wrapper
 * spawns the server itself, through the harness's guarded child (it cannot
 * outlive the test process). The guarded child is a small shell watchdog;
 * `pid` is the tabletop process under it, which kill9() signals directly,
 * exactly as a crash or `kill -9` would.
 */
export interface DurableServer extends Target {
  readonly dataDir: string;
  /** Process id of the tabletop server itself (not of its watchdog). */
  readonly pid: number;
  /** SIGKILLs the server and resolves once it has exited. Idempotent. */
  kill9(): Promise<void>;
  /** True once the server process has exited (killed, stopped or crashed). */
  exited(): boolean;
  /** Resident set size of the server, in bytes (VmRSS from /proc/<pid>/status). */
  rssBytes(): number;
  /** Peak resident set size of the server so far, in bytes (VmHWM from /proc/<pid>/status). */
  peakRssBytes(): number;
}

export interface StartDurableOptions {
  readonly dataDir: string;
  /** Extra `serve` arguments, e.g. ['--memtable-size', '64KiB']. */
  readonly args?: readonly string[];
  /** Options for node itself, before the script (e.g. ['--trace-gc']). */
  readonly nodeArgs?: readonly string[];
}

const READY = /export BIGTABLE_EMULATOR_HOST=(\S+):(\d+)\s*\n/;

/** The server's entry point: this repository's build, or another one named by TABLETOP_SERVER_MAIN. */
const MAIN = process.env['TABLETOP_SERVER_MAIN'] ?? TABLETOP_MAIN;

/**
 * Spawns the server without waiting for it: for tests that kill it at a
 * random moment, possibly while it is still recovering.
 */
export function spawnDurable(options: StartDurableOptions): { child: GuardedChild; ready: Promise<DurableServer> } {
  if (!existsSync(MAIN)) {
    throw new Error(`tabletop is not built: ${MAIN} does not exist (run \`npm run build\`)`);
  }
  const args = [
    ...SERVER_NODE_FLAGS,
    ...(options.nodeArgs ?? []),
    MAIN,
    'serve',
    '--port',
    '0',
    '--http-port',
    '0',
    '--data-dir',
    options.dataDir,
    ...(options.args ?? []),
  ];
  const child = spawnGuarded(process.execPath, args, { cwd: REPO_ROOT });
  const tail = capture(child);
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = waitForOutput(child, tail, 'tabletop', READY).then((m): DurableServer => {
    const host = m[1] ?? '';
    const port = Number(m[2]);
    const pid = serverPid(child);
    let killed: Promise<void> | undefined;
    return {
      kind: 'tabletop',
      address: `${host}:${port}`,
      host,
      port,
      dataDir: options.dataDir,
      pid,
      output: () => tail.toString(),
      stop: () => stopGuarded(child),
      exited: () => child.exitCode !== null || child.signalCode !== null,
      kill9: () => {
        killed ??= killAndWait(child, pid, exit);
        return killed;
      },
      rssBytes: () => statusBytes(pid, 'VmRSS'),
      peakRssBytes: () => statusBytes(pid, 'VmHWM'),
    };
  });
  return { child, ready };
}

/** Starts the server on `dataDir` and waits until it serves. */
export async function startDurable(options: StartDurableOptions): Promise<DurableServer> {
  const { child, ready } = spawnDurable(options);
  try {
    return await ready;
  } catch (e) {
    await stopGuarded(child);
    throw e;
  }
}

/**
 * A fresh data directory for the enclosing describe block: `start()` starts a server on it (again after a
 * kill9(), to recover); after the block every server started is stopped and the directory removed.
 */
export function useDataDir(prefix: string): { readonly dataDir: string; start(): Promise<DurableServer> } {
  const dataDir = mkdtempSync(path.join(tmpdir(), prefix));
  const servers: DurableServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    dataDir,
    start: async () => {
      const server = await startDurable({ dataDir });
      servers.push(server);
      return server;
    },
  };
}

/**
 * SIGKILLs the tabletop process under a guarded child that may not be ready
 * yet (a crash during start-up or recovery) and waits until it has exited.
 */
export async function killGuardedServer(child: GuardedChild): Promise<void> {
  const exit = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  // The watchdog forks the server within milliseconds of starting.
  const deadline = Date.now() + 5000;
  let pid: number | undefined;
  while (pid === undefined && child.exitCode === null && child.signalCode === null) {
    pid = findServerPid(child);
    if (pid === undefined) {
      if (Date.now() > deadline) throw new Error('the tabletop server did not appear under its watchdog within 5 s');
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  await killAndWait(child, pid, exit);
}

async function killAndWait(child: GuardedChild, pid: number | undefined, exit: Promise<void>): Promise<void> {
  // Only while it is still the watchdog's child: a pid is reused once its process is gone.
  if (pid !== undefined && child.pid !== undefined && parentOf(pid) === child.pid) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
    }
  }
  // The watchdog waits for the server, so its exit means the server is dead and reaped.
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exit;
  clearTimeout(timer);
}

/** The parent pid of a process, from /proc/<pid>/stat; undefined if it is gone. */
function parentOf(pid: number): number | undefined {
  const stat = readOrEmpty(`/proc/${pid}/stat`);
  if (stat === '') return undefined;
  // pid (comm) state ppid ...: comm may hold spaces and parentheses, so parse after the last ')'.
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** The tabletop process whose parent is the watchdog shell `child`. */
function serverPid(child: GuardedChild): number {
  const pid = findServerPid(child);
  if (pid === undefined) throw new Error(`no tabletop process found under watchdog ${child.pid}`);
  return pid;
}

function findServerPid(child: GuardedChild): number | undefined {
  const parent = child.pid;
  if (parent === undefined) throw new Error('the server watchdog has no pid (spawn failed?)');
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    if (parentOf(Number(entry)) !== parent) continue;
    // The watchdog's watcher subshell is its child too, with the same arguments: match on node itself.
    const cmdline = readOrEmpty(`/proc/${entry}/cmdline`).split('\0');
    if (cmdline[0] === process.execPath && cmdline.includes(MAIN)) return Number(entry);
  }
  return undefined;
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** A memory figure of a live process from /proc/<pid>/status (VmRSS, VmHWM, ...), in bytes. */
export function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  if (!m) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(m[1]) * 1024;
}
