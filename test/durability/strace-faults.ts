import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

/**
 * Faults from the system, injected into a running server by `strace --inject`
 * (Debian's strace): the kernel's own answers to the server's system calls are
 * replaced by an errno or delayed, for the calls on the files named. This is
 * how the server meets a disk that fails, end to end, with nothing of it
 * replaced: the same binary, the same libuv threads, the same file descriptors.
 */
export interface Strace {
  /** Detaches from the server (which goes on, its calls the kernel's again) and resolves when strace has exited. */
  detach(): Promise<void>;
  /** What strace said on stderr (errors, with -qq nothing else). */
  output(): string;
}

/**
 * Attaches strace to every thread of `pid` (the libuv pool's threads do the
 * file system calls) with `args` (e.g. -e inject=...; -P <file> to limit them
 * to the calls on one file) and resolves once every thread is traced.
 */
export async function attachStrace(pid: number, args: readonly string[]): Promise<Strace> {
  const child: ChildProcess = spawn('strace', ['-f', '-qq', '-o', '/dev/null', ...args, '-p', String(pid)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!allTraced(pid)) {
    if (child.exitCode !== null) throw new Error(`strace exited (${child.exitCode}) before it traced ${pid}: ${stderr}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`strace did not attach to every thread of ${pid} within 10 s: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    detach: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
    output: () => stderr,
  };
}

/** True when every thread of `pid` has a tracer (TracerPid in /proc/<pid>/task/<tid>/status). */
function allTraced(pid: number): boolean {
  const tids = readdirSync(`/proc/${pid}/task`);
  return tids.every((tid) => {
    try {
      return !/^TracerPid:\s+0$/m.test(readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'));
    } catch {
      return true; // The thread ended meanwhile.
    }
  });
}
