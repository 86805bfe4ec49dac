import { parseArgs } from 'node:util';
import { type RunningServer, VERSION, startServer } from '../index.js';
import type { Config } from '../config.js';
import { isTabletopError } from '../model/errors.js';
import type { Logger } from '../server/logger.js';
import { missingServerFlags } from './node-flags.js';
import { parseSize } from './parse-size.js';
import { tabletsCommand } from './tablets-command.js';

/**
 * The `tabletop` command line. `runCli` is the whole program with its outside
 * world injected (output streams, signals), so that tests can drive it.
 *
 * Contract with tools and tests: once `serve` is listening, stdout carries a
 * line exactly `export BIGTABLE_EMULATOR_HOST=<host>:<port>` and a line
 * `HTTP: http://<host>:<httpPort>/` (with the real ports when 0 was asked for).
 */

export const USAGE = `Usage: tabletop <command> [options]

Commands:
  serve              Serve the Cloud Bigtable APIs over gRPC, and an HTTP server
                     (index page, JSON API, Prometheus /metrics).

Options of serve:
  --port N           gRPC port (default 8086; 0 picks a free port)
  --host H           interface to bind (default localhost: loopback only)
  --http-port N      HTTP port (default 8087; 0 picks a free port)
  --in-memory        keep data in memory only
  --data-dir DIR     where durable data lives (default ./data)
  --memtable-size S  memtable size at which a tablet flushes to an SSTable (default 32MiB)
  --cache-size S     block cache for SSTable reads (default 128MiB)
  --total-memtable-size S  all memtables together; past twice this, writes wait
                     for flushes (default 32MiB)
  --wal-file-size S  commit-log file size at which a new file starts (default 64MiB)
  --commit-delay MS  when writes arrive during a commit-log sync, the next sync waits
                     this long for more of them (default 1; 0 turns it off)
  --split-size S     tablet size at which it splits at its median key (default 64MiB;
                     1MiB shows realistic tablet behaviour on small local datasets)
  --nodes N          serving nodes of the modelled cluster (default 3)
                     Sizes take a KiB/MiB/GiB suffix.

  tabletop tablets TABLE [--instance I] [--project P] [--server HOST:PORT]
                     Print the tablets of a table: key range, size, node, load.
                     Asks the HTTP JSON API of a running server (default localhost:8087).

  -h, --help         show this help
  -v, --version      show the version

Point the official clients at the server with the printed line:
  export BIGTABLE_EMULATOR_HOST=localhost:8086
`;

export interface CliIo {
  readonly stdout: (line: string) => void;
  readonly stderr: (line: string) => void;
  /** Subscribes to SIGINT / SIGTERM; returns an unsubscribe function. */
  readonly onSignal: (handler: (signal: string) => void) => () => void;
  /** Called on a second signal while stopping: give up and exit now. */
  readonly exitNow: (code: number) => void;
  /** The Node options the process was started with (process.execArgv); when given, `serve` names missing SERVER_NODE_FLAGS. */
  readonly execArgv?: readonly string[];
}

/** Runs the command line; resolves with the process exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'http-port': { type: 'string' },
        'in-memory': { type: 'boolean' },
        'data-dir': { type: 'string' },
        'memtable-size': { type: 'string' },
        'cache-size': { type: 'string' },
        'total-memtable-size': { type: 'string' },
        'wal-file-size': { type: 'string' },
        'commit-delay': { type: 'string' },
        'split-size': { type: 'string' },
        nodes: { type: 'string' },
        instance: { type: 'string' },
        project: { type: 'string' },
        server: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (e) {
    io.stderr(`tabletop: ${e instanceof Error ? e.message : String(e)}`);
    io.stderr('Run "tabletop --help" for usage.');
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    io.stdout(USAGE);
    return 0;
  }
  if (values.version === true) {
    io.stdout(`tabletop ${VERSION}`);
    return 0;
  }
  const [command, ...extra] = positionals;
  if (command === undefined) {
    io.stderr(USAGE);
    return 2;
  }
  if (command === 'tablets') {
    return tabletsCommand(extra, { instance: values.instance, project: values.project, server: values.server }, io);
  }
  if (command !== 'serve') {
    io.stderr(`tabletop: unknown command "${command}". Run "tabletop --help" for usage.`);
    return 2;
  }
  if (extra.length > 0) {
    io.stderr(`tabletop serve: unexpected argument "${extra[0]}"`);
    return 2;
  }
  let port: number;
  let httpPort: number;
  const config: { -readonly [K in keyof Config]?: Config[K] } = {};
  try {
    port = parsePort(values.port, 8086, '--port');
    httpPort = parsePort(values['http-port'], 8087, '--http-port');
    if (values['memtable-size'] !== undefined) config.memtableBytes = parseSize(values['memtable-size'], '--memtable-size');
    if (values['cache-size'] !== undefined) config.blockCacheBytes = parseSize(values['cache-size'], '--cache-size');
    if (values['total-memtable-size'] !== undefined) config.totalMemtableBytes = parseSize(values['total-memtable-size'], '--total-memtable-size');
    if (values['wal-file-size'] !== undefined) config.walFileBytes = parseSize(values['wal-file-size'], '--wal-file-size');
    if (values['commit-delay'] !== undefined) {
      const v = values['commit-delay'];
      if (!/^\d+$/.test(v) || Number(v) > 100) throw new Error(`--commit-delay must be a whole number of milliseconds from 0 to 100 (got "${v}")`);
      config.commitDelayMillis = Number(v);
    }
    if (values['split-size'] !== undefined) config.tabletSplitBytes = parseSize(values['split-size'], '--split-size');
    if (values.nodes !== undefined) {
      if (!/^\d+$/.test(values.nodes) || Number(values.nodes) < 1 || Number(values.nodes) > 1000) throw new Error(`--nodes must be a whole number from 1 to 1000 (got "${values.nodes}")`);
      config.nodes = Number(values.nodes);
    }
  } catch (e) {
    io.stderr(`tabletop serve: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  }
  const host = values.host ?? 'localhost';
  if (host === '') {
    io.stderr('tabletop serve: --host must not be empty');
    return 2;
  }
  return serve({ host, port, httpPort, inMemory: values['in-memory'] === true, dataDir: values['data-dir'] ?? './data', config }, io);
}

function parsePort(value: string | undefined, fallback: number, flag: string): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new Error(`${flag} must be a port number from 0 to 65535 (got "${value}")`);
  return Number(value);
}

interface ServeOptions {
  readonly host: string;
  readonly port: number;
  readonly httpPort: number;
  readonly inMemory: boolean;
  readonly dataDir: string;
  readonly config: Partial<Config>;
}

async function serve(opts: ServeOptions, io: CliIo): Promise<number> {
  const logger: Logger = {
    info: (m) => io.stderr(m),
    warn: (m) => io.stderr(`warning: ${m}`),
    error: (m) => io.stderr(`error: ${m}`),
  };
  let server: RunningServer;
  try {
    server = await startServer({ host: opts.host, port: opts.port, httpPort: opts.httpPort, inMemory: opts.inMemory, dataDir: opts.dataDir, config: opts.config, logger });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (isTabletopError(e, 'DataLoss')) {
      io.stderr(`tabletop serve: the data in ${opts.dataDir} is damaged, so the server did not start (nothing was changed): ${message}`);
    } else if (isTabletopError(e, 'FailedPrecondition')) {
      io.stderr(`tabletop serve: ${message}`);
    } else {
      io.stderr(`tabletop serve: could not start on ${opts.host} (gRPC port ${opts.port}, HTTP port ${opts.httpPort}): ${message}`);
    }
    return 1;
  }
  io.stdout(`tabletop ${VERSION}`);
  if (opts.inMemory) io.stdout('Storage: in memory (--in-memory): data is lost when the server stops.');
  else io.stdout(`Storage: durable, in ${opts.dataDir} (every acknowledged write is synced to disk)`);
  io.stdout(`gRPC: ${server.address}`);
  io.stdout(`HTTP: http://${server.address.slice(0, server.address.lastIndexOf(':'))}:${server.httpPort ?? opts.httpPort}/`);
  io.stdout(`export BIGTABLE_EMULATOR_HOST=${server.address}`);
  const missing = io.execArgv === undefined || opts.inMemory ? [] : missingServerFlags(io.execArgv);
  if (missing.length > 0) {
    io.stderr(
      `note: node was started without ${missing.join(' ')}, which \`tabletop\` and \`npm start\` pass: with most of the data off the JavaScript heap, V8 then runs its full collector several times a second under load and reads cost up to twice the CPU (start with \`node ${missing.join(' ')} dist/cli/main.js serve ...\`)`,
    );
  }

  const signal = await new Promise<string>((resolve) => {
    const off = io.onSignal((s) => {
      off();
      resolve(s);
    });
  });
  io.stderr(`${signal}: stopping (calls in flight finish first)...`);
  const offAgain = io.onSignal((s) => {
    io.stderr(`${s} again: exiting now`);
    io.exitNow(1);
  });
  try {
    await server.stop();
  } catch (e) {
    io.stderr(`tabletop serve: error while stopping: ${e instanceof Error ? e.message : String(e)}`);
    offAgain();
    return 1;
  }
  offAgain();
  io.stderr('stopped');
  return 0;
}
