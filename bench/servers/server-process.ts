import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { isAlive, track } from './cleanup.js';

/**
 * A server process started by the harness, which knows the server's own pid
 * (for /proc measurements) and cannot outlive the harness.
 *
 * The server runs under a small POSIX-sh watchdog, in its own process group
 * (so Ctrl-C reaches only the harness, which then stops servers in order).
 * The watchdog prints the server's pid, then waits on a pipe from the
 * harness: when the harness ends for any reason, even SIGKILL, the pipe
 * closes and the watchdog terminates the server (TERM, then KILL after 3 s).
 */

const WATCHDOG = `
exec 3<&0 </dev/null
"$@" 3<&- &
child=$!
echo "bench-watchdog: server pid $child"
( read -r _ <&3; kill -TERM "$child" 2>/dev/null; sleep 3; kill -KILL "$child" 2>/dev/null ) >/dev/null 2>&1 &
watcher=$!
exec 3<&-
wait "$child"
code=$?
kill "$watcher" 2>/dev/null
exit "$code"
`;

const PID_LINE = /bench-watchdog: server pid (\d+)\n/;
const KEEP_CHARS = 16_384;

export interface ServerProcess {
  readonly name: string;
  /** The server's own pid (not the watchdog's). */
  readonly pid: number;
  /** The first and the most recent output of the server (stdout and stderr interleaved). */
  output(): string;
  alive(): boolean;
  /** Resolves with the first match of `pattern` in the output; rejects if the server exits or the time runs out. */
  waitForOutput(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  /** Stops the server (TERM, then KILL) and waits for it to exit. Idempotent. */
  stop(): Promise<void>;
}

type Child = ChildProcessByStdio<Writable, Readable, Readable>;

export async function spawnServer(
  name: string,
  command: string,
  args: readonly string[],
  options: { cwd?: string } = {},
): Promise<ServerProcess> {
  const child: Child = spawn('/bin/sh', ['-c', WATCHDOG, 'bench-watchdog', command, ...args], {
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdin.on('error', () => undefined); // the pipe may close under us when the watchdog exits
  const out = new OutputBuffer();
  const listeners = new Set<() => void>();
  const onChunk = (chunk: Buffer): void => {
    out.push(chunk.toString('utf8'));
    for (const l of listeners) l();
  };
  child.stdout.on('data', onChunk);
  child.stderr.on('data', onChunk);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let exitedYet = false;
  void exited.then(() => {
    exitedYet = true;
    for (const l of listeners) l();
  });

  const waitForOutput = (pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const m = pattern.exec(out.head + out.tail());
        if (m !== null) {
          done();
          resolve(m);
        } else if (exitedYet) {
          done();
          reject(
            new Error(
              `${name} exited (code ${child.exitCode}, signal ${child.signalCode}) before printing ${pattern}. Its output:\n${out.text()}`,
            ),
          );
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${name} did not print ${pattern} within ${timeoutMs} ms. Its output:\n${out.text()}`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      listeners.add(check);
      check();
    });

  let pid: number;
  try {
    pid = Number((await waitForOutput(PID_LINE, 10_000))[1]);
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (!exitedYet) {
        child.stdin.end();
        const timer = setTimeout(() => {
          if (isAlive(pid)) process.kill(pid, 'SIGKILL');
          child.kill('SIGKILL');
        }, 6_000);
        await exited;
        clearTimeout(timer);
      }
      untrack();
    })();
    return stopping;
  };
  const untrack = track({
    name: `${name} (pid ${pid})`,
    release: stop,
    releaseNow: () => {
      if (isAlive(pid)) process.kill(pid, 'SIGKILL');
      child.kill('SIGKILL');
    },
  });

  return {
    name,
    pid,
    output: () => out.text(),
    alive: () => !exitedYet && isAlive(pid),
    waitForOutput,
    stop,
  };
}

/** Keeps the first KEEP_CHARS characters (start-up banners) and the last KEEP_CHARS (recent errors). */
class OutputBuffer {
  head = '';
  private rest = '';
  private dropped = false;

  push(chunk: string): void {
    if (this.head.length < KEEP_CHARS) {
      const take = KEEP_CHARS - this.head.length;
      this.head += chunk.slice(0, take);
      chunk = chunk.slice(take);
    }
    if (chunk.length === 0) return;
    this.rest += chunk;
    if (this.rest.length > KEEP_CHARS) {
      this.rest = this.rest.slice(-KEEP_CHARS);
      this.dropped = true;
    }
  }

  tail(): string {
    return this.rest;
  }

  text(): string {
    return this.dropped ? `${this.head}\n[...]\n${this.rest}` : this.head + this.rest;
  }
}
