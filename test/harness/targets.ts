import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { SERVER_NODE_FLAGS } from '../../src/cli/node-flags.js';
import { OutputTail, spawnGuarded, stopGuarded } from './guarded-child.js';
import type { GuardedChild } from './guarded-child.js';
import { freePort, waitForPort } from './ports.js';

/** A running Bigtable-compatible server that tests talk to. */
export interface Target {
  readonly kind: TargetKind;
  /** host:port, the value for BIGTABLE_EMULATOR_HOST. */
  readonly address: string;
  readonly host: string;
  readonly port: number;
  /** Recent stdout+stderr of the server, for failure messages. */
  output(): string;
  /** Kills the server and waits for it to exit. Idempotent. */
  stop(): Promise<void>;
}

export type TargetKind = 'tabletop' | 'emulator';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const TABLETOP_MAIN = path.join(REPO_ROOT, 'dist', 'cli', 'main.js');
export const EMULATOR_BIN = process.env['CBTEMULATOR'] ?? '/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator';

const START_TIMEOUT_MS = 30_000;

/**
 * Waits until `ready` matches the child's combined output, resolving with the
 * match. Rejects with the child's output if it exits first or takes too long.
 */
export function waitForOutput(child: GuardedChild, tail: OutputTail, what: string, ready: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString('utf8');
      const m = ready.exec(seen);
      if (m) {
        cleanup();
        resolve(m);
      }
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      cleanup();
      reject(new Error(`${what} exited (code ${code}, signal ${signal}) before it was ready. Its output:\n${tail.toString()}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`${what} was not ready within ${START_TIMEOUT_MS} ms. Its output:\n${tail.toString()}`));
    }, START_TIMEOUT_MS);
    const cleanup = (): void => {
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.stderr.off('data', onData);
      child.off('close', onExit);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    // 'close', not 'exit': the output the child wrote before it died is only all in once its streams are closed.
    child.once('close', onExit);
  });
}

export function capture(child: GuardedChild): OutputTail {
  const tail = new OutputTail();
  child.stdout.on('data', (c: Buffer) => tail.push(c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => tail.push(c.toString('utf8')));
  return tail;
}

function makeTarget(kind: TargetKind, host: string, port: number, child: GuardedChild, tail: OutputTail): Target {
  return {
    kind,
    address: `${host}:${port}`,
    host,
    port,
    output: () => tail.toString(),
    stop: () => stopGuarded(child),
  };
}

export interface StartTabletopOptions {
  /** Extra command-line arguments after the defaults. */
  readonly args?: readonly string[];
}

/**
 * Starts `node dist/cli/main.js serve --port 0 --http-port 0 --in-memory` and
 * parses the `export BIGTABLE_EMULATOR_HOST=host:port` line it prints once it
 * listens. The package must have been built (`npm run build`, which `npm test` does).
 */
export async function startTabletop(options: StartTabletopOptions = {}): Promise<Target> {
  if (!existsSync(TABLETOP_MAIN)) {
    throw new Error(`tabletop is not built: ${TABLETOP_MAIN} does not exist (run \`npm run build\`)`);
  }
  const args = [...SERVER_NODE_FLAGS, TABLETOP_MAIN, 'serve', '--port', '0', '--http-port', '0', '--in-memory', ...(options.args ?? [])];
  const child = spawnGuarded(process.execPath, args, { cwd: REPO_ROOT });
  const tail = capture(child);
  try {
    const m = await waitForOutput(child, tail, 'tabletop', /export BIGTABLE_EMULATOR_HOST=(\S+):(\d+)\s*\n/);
    const host = m[1] ?? '';
    const port = Number(m[2]);
    return makeTarget('tabletop', host, port, child, tail);
  } catch (e) {
    await stopGuarded(child);
    throw e;
  }
}

/** Starts Google's emulator (cbtemulator) on a free port and waits until it accepts connections. */
export async function startEmulator(): Promise<Target> {
  if (!existsSync(EMULATOR_BIN)) {
    throw new Error(
      `Google's Bigtable emulator is not installed at ${EMULATOR_BIN} (apt-get install google-cloud-cli-bigtable-emulator, or set CBTEMULATOR)`,
    );
  }
  const host = '127.0.0.1';
  let lastError: unknown;
  // The port is chosen before the emulator binds it; retry if someone took it meanwhile.
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const child = spawnGuarded(EMULATOR_BIN, ['-host', host, '-port', String(port)]);
    const tail = capture(child);
    try {
      await waitForOutput(child, tail, 'cbtemulator', /Cloud Bigtable emulator running on \S+/);
      await waitForPort(host, port, START_TIMEOUT_MS);
      return makeTarget('emulator', host, port, child, tail);
    } catch (e) {
      lastError = e;
      await stopGuarded(child);
      if (!/address already in use/i.test(tail.toString())) throw e;
    }
  }
  throw lastError;
}

export function startTarget(kind: TargetKind): Promise<Target> {
  return kind === 'tabletop' ? startTabletop() : startEmulator();
}

/**
 * The targets a suite runs against, from the TARGET environment variable:
 * `tabletop`, `emulator`, or `both` (the default).
 */
export function selectedTargets(): TargetKind[] {
  const v = (process.env['TARGET'] ?? 'both').trim();
  switch (v) {
    case 'tabletop':
      return ['tabletop'];
    case 'emulator':
      return ['emulator'];
    case 'both':
    case '':
      return ['tabletop', 'emulator'];
    default:
      throw new Error(`TARGET must be tabletop, emulator or both, not "${v}"`);
  }
}
