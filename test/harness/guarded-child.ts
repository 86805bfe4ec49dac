import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/**
 * Spawns a server process that cannot outlive the test process.
 *
 * The command runs under a tiny POSIX-sh watchdog whose stdin is a pipe from
 * this process. When this process ends for any reason (including SIGKILL of a
 * vitest worker), the pipe closes, the watchdog's `read` returns and it kills
 * the server. `stop()` closes the pipe on purpose. An `exit` hook also kills
 * the watchdog and the server directly, for the common case of a clean exit.
 * The watcher is forked just after the server starts: a watchdog SIGKILLed
 * within that moment leaves the server unguarded (only a test does that).
 */
const WATCHDOG = `
exec 3<&0
"$@" 3<&- </dev/null &
child=$!
( read -r _ <&3; kill -TERM "$child" 2>/dev/null; sleep 2; kill -KILL "$child" 2>/dev/null ) </dev/null >/dev/null 2>&1 &
watcher=$!
exec 3<&-
wait "$child"
code=$?
kill "$watcher" 2>/dev/null
exit "$code"
`;

export type GuardedChild = ChildProcessByStdio<Writable, Readable, Readable>;

const live = new Set<GuardedChild>();
let hooked = false;

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    for (const child of live) {
      // Closing stdin is enough for the watchdog; SIGKILL makes sure even if it is wedged.
      child.stdin.destroy();
      child.kill('SIGKILL');
    }
  });
}

export function spawnGuarded(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): GuardedChild {
  hookExit();
  const child = spawn('/bin/sh', ['-c', WATCHDOG, 'watchdog', command, ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  // The pipe may be closed under us when the child dies; that is not an error here.
  child.stdin.on('error', () => undefined);
  return child;
}

/** Stops a guarded child: the watchdog sends SIGTERM, then SIGKILL after 2 s. Resolves when it has exited. */
export async function stopGuarded(child: GuardedChild): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdin.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** The recent output of a child, kept for error messages. */
export class OutputTail {
  private text = '';
  constructor(private readonly limit = 16_384) {}
  push(chunk: string): void {
    this.text = (this.text + chunk).slice(-this.limit);
  }
  toString(): string {
    return this.text;
  }
}
