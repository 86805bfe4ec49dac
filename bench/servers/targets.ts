import { existsSync, readdirSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { SERVER_NODE_FLAGS } from '../../src/cli/node-flags.js';
import { tempDir } from './cleanup.js';
import { spawnServer } from './server-process.js';
import type { ServerProcess } from './server-process.js';

/** The servers the harness benchmarks, started and stopped by the harness itself. */

/**
 * `tabletop-off` is the same build with recording off (`serve --insight off`): what recording costs.
 * `tabletop-again` is tabletop once more, started the same way (an A/A control): tabletop ÷ tabletop-again is what
 * the machine's noise alone makes of two identical servers in the same run, the yardstick for tabletop ÷ tabletop-off.
 * `tabletop-off-again` is tabletop-off once more: the same control for the side with recording off (each target is
 * one long-lived server, so one server's luck is in every ratio against it).
 * `tabletop-bg0` is the same build with `serve --background-threads 0`: the serving thread builds the SSTables of
 * flushes and compactions itself (tabletop uses serve's default, cores − 2 from 0 to 4: 0 on 2 cores).
 * `tabletop-bg1` is the same build with `serve --background-threads 1`: one worker thread builds them, whatever the
 * default of the machine (on 2 cores, where the default is 0, it shows what a worker changes).
 * `tabletop-base` is another build of tabletop (`--base-dist`), started the same way: what a change costs or saves,
 * measured in one run.
 */
export type TargetKind =
  'tabletop' | 'tabletop-off' | 'tabletop-again' | 'tabletop-off-again' | 'tabletop-bg0' | 'tabletop-bg1' | 'tabletop-base' | 'emulator';
/** In the order runs alternate. */
export const TARGET_KINDS: readonly TargetKind[] = [
  'tabletop',
  'tabletop-off',
  'tabletop-again',
  'tabletop-off-again',
  'tabletop-bg0',
  'tabletop-bg1',
  'tabletop-base',
  'emulator',
];
/** What a run without --targets measures (the control only when asked for). */
export const DEFAULT_TARGETS: readonly TargetKind[] = ['tabletop', 'tabletop-off', 'emulator'];

/** Whether a target is a tabletop server (with or without recording, with or without background threads). */
export function isTabletop(kind: TargetKind): boolean {
  return kind !== 'emulator';
}

export type TabletopMode = 'durable' | 'memory';

export const EMULATOR_BIN = process.env['CBTEMULATOR'] ?? '/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator';

const START_TIMEOUT_MS = 60_000;
const HOST = '127.0.0.1';

export interface Target {
  readonly kind: TargetKind;
  /** host:port, the value of BIGTABLE_EMULATOR_HOST for this server. */
  readonly address: string;
  readonly process: ServerProcess;
  /** How the server stores data, in its own words (tabletop) or by design (emulator). */
  readonly storage: string;
  /** Whether writes go to disk: tabletop in durable mode only. */
  readonly durable: boolean;
  /** Bytes of files under the server's data directory, when it has one. */
  diskBytes(): number | undefined;
  /** Stops the server and removes its data directory. */
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly repoRoot: string;
  /** The build to run (its dist directory); default the repository's. */
  readonly dist?: string;
  /** The build that `tabletop-base` runs instead. */
  readonly baseDist?: string;
  readonly tabletopMode: TabletopMode;
  /** Told once when durable mode was asked for but the server only keeps data in memory. */
  readonly warn: (message: string) => void;
}

export function startTarget(kind: TargetKind, options: StartOptions): Promise<Target> {
  if (kind === 'emulator') return startEmulator();
  if (kind === 'tabletop-base' && options.baseDist === undefined) throw new Error('tabletop-base needs --base-dist');
  const dist = kind === 'tabletop-base' ? options.baseDist : options.dist;
  return startTabletop(options, dist, kind, SERVE_ARGS[kind]);
}

/** What each tabletop target adds to `serve`'s arguments. */
const SERVE_ARGS: Readonly<Record<Exclude<TargetKind, 'emulator'>, readonly string[]>> = {
  tabletop: [],
  'tabletop-off': ['--insight', 'off'],
  'tabletop-again': [],
  'tabletop-off-again': ['--insight', 'off'],
  'tabletop-bg0': ['--background-threads', '0'],
  'tabletop-bg1': ['--background-threads', '1'],
  'tabletop-base': [],
};

let warnedInMemoryOnly = false;

async function startTabletop(
  options: StartOptions,
  dist: string | undefined,
  kind: TargetKind,
  serveArgs: readonly string[],
): Promise<Target> {
  const main = path.join(dist ?? path.join(options.repoRoot, 'dist'), 'cli', 'main.js');
  if (!existsSync(main)) throw new Error(`tabletop is not built: ${main} does not exist (run \`npm run build\`)`);
  const data = options.tabletopMode === 'durable' ? tempDir('data') : undefined;
  const storageArgs = data === undefined ? ['--in-memory'] : ['--data-dir', data.dir];
  // TABLETOP_NODE_FLAGS (space-separated, may be empty) replaces the V8 options the executable passes, for experiments.
  const nodeFlags =
    process.env['TABLETOP_NODE_FLAGS'] !== undefined
      ? process.env['TABLETOP_NODE_FLAGS'].split(' ').filter((f) => f !== '')
      : SERVER_NODE_FLAGS;
  // TABLETOP_SERVER_ARGS (space-separated): more `serve` options, for experiments (e.g. "--total-memtable-size 32MiB").
  const extra = (process.env['TABLETOP_SERVER_ARGS'] ?? '').split(' ').filter((f) => f !== '');
  const args = [...nodeFlags, main, 'serve', '--host', HOST, '--port', '0', '--http-port', '0', ...storageArgs, ...serveArgs, ...extra];
  let proc: ServerProcess;
  try {
    proc = await spawnServer('tabletop', process.execPath, args, { cwd: options.repoRoot });
  } catch (e) {
    data?.remove();
    throw e;
  }
  try {
    const m = await proc.waitForOutput(/^export BIGTABLE_EMULATOR_HOST=(\S+)$/m, START_TIMEOUT_MS);
    const address = m[1] ?? '';
    const storageLine = /^Storage: (.*)$/m.exec(proc.output())?.[1]?.trim() ?? 'not stated';
    // The server states its storage on a "Storage:" line; until the durable
    // engine exists it says "in memory" even when given --data-dir.
    const inMemoryOnly = data !== undefined && /\bin[ -]memory\b/i.test(storageLine);
    if (inMemoryOnly && !warnedInMemoryOnly) {
      warnedInMemoryOnly = true;
      options.warn(
        `--tabletop-mode durable: the server says it keeps data in memory only ("${storageLine}"); benchmarking tabletop in memory.`,
      );
    }
    const durable = data !== undefined && !inMemoryOnly;
    return {
      kind,
      address,
      process: proc,
      storage: storageLine,
      durable,
      diskBytes: () => (durable ? directoryBytes(data.dir) : undefined),
      stop: async () => {
        await proc.stop();
        data?.remove();
      },
    };
  } catch (e) {
    await proc.stop();
    data?.remove();
    throw e;
  }
}

async function startEmulator(): Promise<Target> {
  if (!existsSync(EMULATOR_BIN)) {
    throw new Error(
      `Google's Bigtable emulator is not installed at ${EMULATOR_BIN} (apt-get install google-cloud-cli-bigtable-emulator, or set CBTEMULATOR)`,
    );
  }
  let lastError: unknown;
  // The port is picked before the emulator binds it: retry if another process took it meanwhile.
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const proc = await spawnServer('cbtemulator', EMULATOR_BIN, ['-host', HOST, '-port', String(port)]);
    try {
      await proc.waitForOutput(/Cloud Bigtable emulator running on \S+/, START_TIMEOUT_MS);
      return {
        kind: 'emulator',
        address: `${HOST}:${port}`,
        process: proc,
        storage: 'in memory (the emulator has no other mode)',
        durable: false,
        diskBytes: () => undefined,
        stop: () => proc.stop(),
      };
    } catch (e) {
      lastError = e;
      await proc.stop();
      if (!/address already in use/i.test(proc.output())) throw e;
    }
  }
  throw lastError;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, HOST, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => (port > 0 ? resolve(port) : reject(new Error('could not pick a free port'))));
    });
  });
}

/** Sum of the sizes of the regular files under `dir`. */
function directoryBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    try {
      total += statSync(path.join(entry.parentPath, entry.name)).size;
    } catch {
      // A file removed while we walk (compaction) no longer counts.
    }
  }
  return total;
}
