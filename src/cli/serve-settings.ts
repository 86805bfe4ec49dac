import { availableParallelism } from 'node:os';
import type { Config } from '../config.js';
import { LOG_LEVELS, type LogLevel } from '../log.js';
import { LOG_FORMATS, type LogFormat } from './log-output.js';
import { parseDuration } from './parse-duration.js';
import { parseSize } from './parse-size.js';
import { DEFAULT_SERVER_TUNING, type ServerTuning } from '../server/server-config.js';

/**
 * Everything `tabletop serve` can be told, in one table: each setting is a
 * flag (`--memtable-size`), an environment variable (`TABLETOP_MEMTABLE_SIZE`)
 * and a key of the config file (`memtable-size = "64MiB"`), with one parser
 * for all three. The command line wins over the environment, which wins over
 * the config file, which wins over the defaults.
 */
export interface ServeSettings {
  readonly port: number;
  readonly host: string;
  readonly httpPort: number;
  readonly inMemory: boolean;
  readonly dataDir: string;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
  readonly slowCallMillis: number;
  /** Record each table's traffic for the Key Visualizer (heatmap, diagnostics); off: those endpoints answer 412. */
  readonly insight: boolean;
  /** Engine, tablet and node tunables (src/config.ts); absent ones keep their defaults. */
  readonly config: Partial<Config>;
  /** TLS for both ports: the certificate chain and key files (both or neither), and the CA of client certificates (mutual TLS). */
  readonly tlsCert: string | undefined;
  readonly tlsKey: string | undefined;
  readonly tlsClientCa: string | undefined;
  /** Authentication required (`--auth on`). */
  readonly auth: boolean;
  /** Where tokens and bootstrap bindings are (default <data-dir>/auth.json; none with --in-memory unless given). */
  readonly authFile: string | undefined;
  /** OIDC identity tokens: the JWKS file, issuer and audience (all three or none). */
  readonly oidcJwks: string | undefined;
  readonly oidcIssuer: string | undefined;
  readonly oidcAudience: string | undefined;
  /** Serve beyond loopback without authentication. */
  readonly insecure: boolean;
  /** The server's limits on connections, streams and buffered bytes that differ from the defaults. */
  readonly limits: Partial<ServerLimits>;
}

/** The server tunables `tabletop serve` exposes as limits. */
export type ServerLimits = Pick<
  ServerTuning,
  | 'maxConnections'
  | 'maxConcurrentStreams'
  | 'writeHighWaterBytes'
  | 'maxBufferedResponseBytes'
  | 'maxConnectionIdleMillis'
  | 'httpMaxConnections'
>;

type Draft = { -readonly [K in keyof ServeSettings]: ServeSettings[K] } & {
  config: { -readonly [K in keyof Config]?: Config[K] };
  limits: { -readonly [K in keyof ServerLimits]?: ServerLimits[K] };
};

/** A value as it comes: a string from the command line or the environment, any TOML/JSON value from a file. */
export type RawValue = unknown;

export interface ServeSetting {
  /** The flag without its dashes; also the config-file key. */
  readonly name: string;
  /** Placeholder of the flag's value in help; absent for a switch (`--in-memory`). */
  readonly arg?: string;
  readonly help: string;
  /** The default as help shows it. */
  readonly defaultText?: string;
  readonly group: 'Server' | 'Limits' | 'Security' | 'Storage' | 'Tablets and nodes' | 'Logging';
  /** Parses a value (throws Error with a message that names no source: the caller adds it). */
  apply(draft: Draft, value: RawValue): void;
}

export const SERVE_SETTINGS: readonly ServeSetting[] = [
  // ---- server ----
  {
    name: 'port',
    arg: 'port',
    help: 'gRPC port; 0 picks a free port (the printed export line shows the real one)',
    defaultText: '8086',
    group: 'Server',
    apply: (d, v) => (d.port = port(v)),
  },
  {
    name: 'host',
    arg: 'host',
    help: 'interface to bind; anything but loopback opens the server to the network, and needs --auth on (or --insecure)',
    defaultText: 'localhost',
    group: 'Server',
    apply: (d, v) => {
      const h = text(v);
      if (h.trim() === '') throw new Error('must not be empty');
      d.host = h;
    },
  },
  {
    name: 'http-port',
    arg: 'port',
    help: 'HTTP port (index page, JSON API, /metrics); 0 picks a free port',
    defaultText: '8087',
    group: 'Server',
    apply: (d, v) => (d.httpPort = port(v)),
  },
  {
    name: 'slow-call',
    arg: 'duration',
    help: 'log calls that take at least this long (method, table, status); 0 turns the log off',
    defaultText: '1s',
    group: 'Server',
    apply: (d, v) => (d.slowCallMillis = duration(v)),
  },
  {
    name: 'insight',
    arg: 'on|off',
    help: "record each table's traffic per key range for the Key Visualizer (the web UI's heatmap and diagnostics); off records nothing",
    defaultText: 'on',
    group: 'Server',
    apply: (d, v) => (d.insight = onOff(v)),
  },
  // ---- limits ----
  {
    name: 'max-connections',
    arg: 'n',
    help: 'gRPC connections in all; at the cap a new client closes the connection idle the longest, and is refused when every one has calls in flight',
    defaultText: String(DEFAULT_SERVER_TUNING.maxConnections),
    group: 'Limits',
    apply: (d, v) => (d.limits.maxConnections = wholeNumber(v, 1, 1_000_000, 'a whole number')),
  },
  {
    name: 'max-streams',
    arg: 'n',
    help: 'concurrent calls (HTTP/2 streams) per gRPC connection; more are refused (REFUSED_STREAM, which clients retry)',
    defaultText: String(DEFAULT_SERVER_TUNING.maxConcurrentStreams),
    group: 'Limits',
    apply: (d, v) => (d.limits.maxConcurrentStreams = wholeNumber(v, 1, 1_000_000, 'a whole number')),
  },
  {
    name: 'stream-buffer',
    arg: 'size',
    help: 'response bytes queued for one streaming call (a client reading slowly) before the server stops producing more for it',
    defaultText: '1MiB',
    group: 'Limits',
    apply: (d, v) => (d.limits.writeHighWaterBytes = positiveSize(v)),
  },
  {
    name: 'response-buffer',
    arg: 'size',
    help: 'response bytes held for all clients together (queued in calls, waiting in socket buffers); past it, every call whose client is not reading waits',
    defaultText: '128MiB',
    group: 'Limits',
    apply: (d, v) => (d.limits.maxBufferedResponseBytes = positiveSize(v)),
  },
  {
    name: 'idle-timeout',
    arg: 'duration',
    help: 'a gRPC connection with no call for this long is closed (clients reconnect by themselves)',
    defaultText: '6h',
    group: 'Limits',
    apply: (d, v) => (d.limits.maxConnectionIdleMillis = positiveDuration(v)),
  },
  {
    name: 'http-max-connections',
    arg: 'n',
    help: 'connections of the HTTP port (web UI, JSON API, /metrics); more are closed as they arrive',
    defaultText: String(DEFAULT_SERVER_TUNING.httpMaxConnections),
    group: 'Limits',
    apply: (d, v) => (d.limits.httpMaxConnections = wholeNumber(v, 1, 1_000_000, 'a whole number')),
  },
  // ---- security ----
  file('tls-cert', 'tlsCert', 'serve gRPC and HTTP over TLS with this certificate chain (PEM); needs --tls-key'),
  file('tls-key', 'tlsKey', 'the private key of --tls-cert (PEM)'),
  file('tls-client-ca', 'tlsClientCa', 'mutual TLS: clients must present a certificate signed by this CA (PEM)'),
  {
    name: 'auth',
    arg: 'on|off',
    help: 'on: every call needs a token (tabletop auth create-token) or an OIDC identity token, and is checked against the IAM policies; off: credentials are optional (checked when given)',
    defaultText: 'off',
    group: 'Security',
    apply: (d, v) => (d.auth = onOff(v)),
  },
  file('auth-file', 'authFile', 'the tokens and bootstrap grants (tabletop auth ...); default <data-dir>/auth.json, none with --in-memory'),
  file(
    'oidc-jwks',
    'oidcJwks',
    'accept OIDC identity tokens (JWTs) signed by these keys (a JWKS file, re-read when it changes); needs --oidc-issuer and --oidc-audience',
  ),
  {
    name: 'oidc-issuer',
    arg: 'iss',
    help: 'the issuer identity tokens must name, e.g. https://accounts.google.com',
    group: 'Security',
    apply: (d, v) => (d.oidcIssuer = nonEmptyText(v)),
  },
  {
    name: 'oidc-audience',
    arg: 'aud',
    help: 'the audience identity tokens must name',
    group: 'Security',
    apply: (d, v) => (d.oidcAudience = nonEmptyText(v)),
  },
  {
    name: 'insecure',
    help: 'serve beyond loopback (--host) without authentication: anyone who reaches the ports can do anything',
    group: 'Security',
    apply: (d, v) => (d.insecure = bool(v)),
  },
  // ---- storage ----
  {
    name: 'data-dir',
    arg: 'dir',
    help: 'where durable data lives (created if missing; one server per directory)',
    defaultText: './data',
    group: 'Storage',
    apply: (d, v) => {
      const dir = text(v);
      if (dir.trim() === '') throw new Error('must not be empty: give a directory, such as ./data');
      d.dataDir = dir;
    },
  },
  {
    name: 'in-memory',
    help: 'keep data in memory only (it is lost when the server stops); not with --data-dir',
    group: 'Storage',
    apply: (d, v) => (d.inMemory = bool(v)),
  },
  size('memtable-size', 'memtableBytes', 'memtable size at which a tablet flushes to an SSTable', '32MiB'),
  size('cache-size', 'blockCacheBytes', 'block cache for SSTable reads (the OS page cache holds the files too)', '128MiB'),
  size('total-memtable-size', 'totalMemtableBytes', 'all memtables together; past twice this, writes wait for flushes', '32MiB'),
  size('wal-file-size', 'walFileBytes', 'commit-log file size at which a new file starts', '64MiB'),
  size(
    'min-free-disk',
    'minFreeDiskBytes',
    "free space kept on the data directory's disk: below it writes get RESOURCE_EXHAUSTED (reads go on) until space is freed (0: none)",
    '128MiB',
  ),
  {
    name: 'commit-delay',
    arg: 'ms',
    help: 'when writes arrive during a commit-log sync, the next sync waits this many milliseconds for more of them (0 turns it off; a lone writer never waits)',
    defaultText: '1',
    group: 'Storage',
    apply: (d, v) => (d.config.commitDelayMillis = wholeNumber(v, 0, 100, 'a whole number of milliseconds')),
  },
  {
    name: 'background-threads',
    arg: 'n',
    help: 'worker threads that build SSTables for flushes and compactions (0: the serving thread builds them, in slices)',
    defaultText: 'cores - 2, 0 to 4',
    group: 'Storage',
    apply: (d, v) => (d.config.backgroundThreads = wholeNumber(v, 0, 64, 'a whole number of threads')),
  },
  {
    name: 'background-slice',
    arg: 'ms',
    help: 'the shortest slice of flush and compaction work on the serving thread, in milliseconds: a request that arrives meanwhile waits for the rest of the slice; while the thread is busy, slices grow as long as the turns of requests between them (to 8 ms)',
    defaultText: '0.25',
    group: 'Storage',
    apply: (d, v) => (d.config.backgroundSliceMillis = sliceMillis(v)),
  },
  // ---- tablets and nodes ----
  size(
    'split-size',
    'tabletSplitBytes',
    'tablet size at which it splits at its median key (1MiB shows tablet behaviour on small local datasets)',
    '64MiB',
    'Tablets and nodes',
  ),
  {
    name: 'nodes',
    arg: 'n',
    help: 'serve nodes of the cluster an instance gets when CreateTable creates it (CreateInstance, UpdateCluster and autoscaling set their own)',
    defaultText: '3',
    group: 'Tablets and nodes',
    apply: (d, v) => (d.config.nodes = wholeNumber(v, 1, 1000, 'a whole number')),
  },
  {
    name: 'load-split-requests',
    arg: 'n',
    help: 'a tablet serving more requests per second than this (or --load-split-bytes) for --load-split-window splits by load',
    defaultText: '2000',
    group: 'Tablets and nodes',
    apply: (d, v) => (d.config.loadSplitRequestsPerSec = positive(v)),
  },
  {
    name: 'load-split-bytes',
    arg: 'size',
    help: 'likewise for bytes read plus written per second',
    defaultText: '32MiB',
    group: 'Tablets and nodes',
    apply: (d, v) => (d.config.loadSplitBytesPerSec = sizeValue(v)),
  },
  {
    name: 'load-split-window',
    arg: 'duration',
    help: 'how long load must stay above the thresholds before a load split or a hotspot report (1s to 110s)',
    defaultText: '30s',
    group: 'Tablets and nodes',
    apply: (d, v) => {
      const ms = duration(v);
      if (ms < 1000 || ms > 110_000) throw new Error('must be from 1s to 110s');
      d.config.loadSplitWindowMillis = ms;
    },
  },
  {
    name: 'hot-row-share',
    arg: 'fraction',
    help: 'a hot tablet where one row takes at least this share of the requests is a single-row hotspot (reported, not split)',
    defaultText: '0.5',
    group: 'Tablets and nodes',
    apply: (d, v) => {
      const n = number(v);
      if (!(n > 0 && n <= 1)) throw new Error('must be a fraction above 0 and at most 1, such as 0.5');
      d.config.hotRowShare = n;
    },
  },
  {
    name: 'merge-cold-requests',
    arg: 'n',
    help: 'neighbouring tablets below this many requests per second for --merge-cold-window, and small together, merge',
    defaultText: '5',
    group: 'Tablets and nodes',
    apply: (d, v) => (d.config.mergeColdRequestsPerSec = nonNegative(v)),
  },
  {
    name: 'merge-cold-window',
    arg: 'duration',
    help: 'how long tablets must stay cold before they merge',
    defaultText: '5m',
    group: 'Tablets and nodes',
    apply: (d, v) => (d.config.mergeColdMillis = duration(v)),
  },
  {
    name: 'autoscale-down-delay',
    arg: 'duration',
    help: 'an autoscaled cluster scales down only once its size has held this long (and by at most 10% of its nodes at a time)',
    defaultText: '10m',
    group: 'Tablets and nodes',
    apply: (d, v) => (d.config.autoscaleDownDelayMillis = duration(v)),
  },
  // ---- logging ----
  {
    name: 'log-level',
    arg: 'level',
    help: `least severe messages logged: ${LOG_LEVELS.join(', ')}`,
    defaultText: 'info',
    group: 'Logging',
    apply: (d, v) => (d.logLevel = oneOf(v, LOG_LEVELS)),
  },
  {
    name: 'log-format',
    arg: 'format',
    help: 'text for people, json (one object per line) for machines',
    defaultText: 'text',
    group: 'Logging',
    apply: (d, v) => (d.logFormat = oneOf(v, LOG_FORMATS)),
  },
];

export const SETTING_BY_NAME: ReadonlyMap<string, ServeSetting> = new Map(SERVE_SETTINGS.map((s) => [s.name, s]));

/** The environment variable of a setting: TABLETOP_ and its name in upper snake case. */
export function envName(setting: string): string {
  return `TABLETOP_${setting.toUpperCase().replaceAll('-', '_')}`;
}

/** The environment variable naming a config file. */
export const CONFIG_ENV = 'TABLETOP_CONFIG';

/** Values given by one source, by setting name, in the order given. */
export interface Layer {
  /** How errors name the source: "the command line", "TABLETOP_PORT", "tabletop.toml". */
  readonly describe: (setting: string) => string;
  readonly values: ReadonlyMap<string, RawValue>;
}

/**
 * Two fewer than the cores, at most 4: the serving thread has one, and the
 * rest of the process (V8's collector and compiler threads, libuv's pool for
 * fdatasync) and the machine need another. On 2 cores, 0: with a worker, a
 * 1 KiB bulk load cost 12.4 µs of server CPU per row against 10.1 without
 * and went no faster (59,102 against 59,821 rows/s), a 0.5 GiB load 14.6
 * against 9.3 µs at 60,088 against 68,875 rows/s (bench i26, through the
 * Node client on the same 2 cores: no core was idle for the worker).
 */
export function defaultBackgroundThreads(): number {
  return Math.max(0, Math.min(4, availableParallelism() - 2));
}

/**
 * Settings from sources in increasing precedence (config file, environment,
 * command line). Storage is one choice: a layer that sets both --in-memory and
 * --data-dir is an error; a higher layer that sets either replaces the lower
 * layers' choice.
 */

export function resolveServeSettings(layers: readonly Layer[]): ServeSettings {
  const draft: Draft = {
    port: 8086,
    host: 'localhost',
    httpPort: 8087,
    inMemory: false,
    dataDir: './data',
    logLevel: 'info',
    logFormat: 'text',
    slowCallMillis: 1000,
    insight: true,
    tlsCert: undefined,
    tlsKey: undefined,
    tlsClientCa: undefined,
    auth: false,
    authFile: undefined,
    oidcJwks: undefined,
    oidcIssuer: undefined,
    oidcAudience: undefined,
    insecure: false,
    config: { backgroundThreads: defaultBackgroundThreads() },
    limits: {},
  };
  for (const layer of layers) {
    const inMemory = layer.values.get('in-memory');
    if (layer.values.has('data-dir') && inMemory !== undefined && inMemory !== false && inMemory !== 'false' && inMemory !== '0') {
      throw new Error(
        `${layer.describe('in-memory')} and ${layer.describe('data-dir')} contradict each other: keep data in memory, or in a directory`,
      );
    }
    for (const [name, value] of layer.values) {
      const setting = SETTING_BY_NAME.get(name);
      if (setting === undefined) throw new Error(`${layer.describe(name)}: unknown setting`);
      try {
        setting.apply(draft, value);
      } catch (e) {
        throw new Error(`${layer.describe(name)}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    // The storage choice of this layer replaces the lower layers' one.
    if (layer.values.has('data-dir')) draft.inMemory = false;
  }
  checkSecurity(draft);
  return draft;
}

/** The security settings that only make sense together. */
function checkSecurity(s: ServeSettings): void {
  if ((s.tlsCert === undefined) !== (s.tlsKey === undefined))
    throw new Error('--tls-cert and --tls-key go together: give the certificate chain and its private key');
  if (s.tlsClientCa !== undefined && s.tlsCert === undefined)
    throw new Error('--tls-client-ca (mutual TLS) needs TLS: give --tls-cert and --tls-key too');
  const oidc = [s.oidcJwks, s.oidcIssuer, s.oidcAudience].filter((v) => v !== undefined).length;
  if (oidc !== 0 && oidc !== 3) throw new Error('--oidc-jwks, --oidc-issuer and --oidc-audience go together: give all three');
  if (s.auth && s.inMemory && s.authFile === undefined && s.oidcJwks === undefined)
    throw new Error(
      '--auth on with --in-memory needs --auth-file (tokens) or --oidc-jwks (identity tokens): no caller could be authenticated',
    );
}

// ---- value parsers: they accept strings (command line, environment) and typed values (config files) ----

function nonEmptyText(v: RawValue): string {
  const t = text(v);
  if (t.trim() === '') throw new Error('must not be empty');
  return t;
}

/** A setting naming a file. */
function file(name: string, key: 'tlsCert' | 'tlsKey' | 'tlsClientCa' | 'authFile' | 'oidcJwks', help: string): ServeSetting {
  return { name, arg: 'file', help, group: 'Security', apply: (d, v) => (d[key] = nonEmptyText(v)) };
}

function text(v: RawValue): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  throw new Error(`must be a string (got ${JSON.stringify(v)})`);
}

function number(v: RawValue): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!Number.isFinite(n)) throw new Error(`must be a number (got ${JSON.stringify(v)})`);
  return n;
}

function positive(v: RawValue): number {
  const n = number(v);
  if (n <= 0) throw new Error(`must be above 0 (got ${JSON.stringify(v)})`);
  return n;
}

/** A slice of background work: 0.05 to 1000 ms (shorter would yield more often than it works). */
function sliceMillis(v: RawValue): number {
  const n = positive(v);
  if (n < 0.05 || n > 1000) throw new Error(`must be 0.05 to 1000 milliseconds (got ${JSON.stringify(v)})`);
  return n;
}

function nonNegative(v: RawValue): number {
  const n = number(v);
  if (n < 0) throw new Error(`must not be negative (got ${JSON.stringify(v)})`);
  return n;
}

function wholeNumber(v: RawValue, min: number, max: number, what: string): number {
  const s = typeof v === 'number' ? String(v) : text(v);
  if (!/^\d+$/.test(s) || Number(s) < min || Number(s) > max)
    throw new Error(`must be ${what} from ${min} to ${max} (got ${JSON.stringify(v)})`);
  return Number(s);
}

function port(v: RawValue): number {
  return wholeNumber(v, 0, 65535, 'a port number');
}

function bool(v: RawValue): boolean {
  if (v === true || v === 'true' || v === '1' || v === '') return true;
  if (v === false || v === 'false' || v === '0') return false;
  throw new Error(`must be true or false (got ${JSON.stringify(v)})`);
}

/** on or off; a config file may say true or false. */
function onOff(v: RawValue): boolean {
  if (v === 'on' || v === true) return true;
  if (v === 'off' || v === false) return false;
  throw new Error(`must be on or off (got ${JSON.stringify(v)})`);
}

function oneOf<T extends string>(v: RawValue, values: readonly T[]): T {
  const s = text(v);
  if (!(values as readonly string[]).includes(s)) throw new Error(`must be one of ${values.join(', ')} (got ${JSON.stringify(v)})`);
  return s as T;
}

function positiveSize(v: RawValue): number {
  const n = sizeValue(v);
  if (n <= 0) throw new Error(`must be above 0 (got ${JSON.stringify(v)})`);
  return n;
}

function positiveDuration(v: RawValue): number {
  const n = duration(v);
  if (n <= 0) throw new Error(`must be above 0 (got ${JSON.stringify(v)})`);
  return n;
}

function sizeValue(v: RawValue): number {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v) || v < 0) throw new Error(`must be a size such as 4096, 64MiB or 1GiB (got ${v})`);
    return v;
  }
  return parseSize(text(v));
}

function duration(v: RawValue): number {
  if (v === 0 || v === '0') return 0;
  if (typeof v !== 'string') throw new Error(`must be a duration such as 500ms, 30s or 5m (got ${JSON.stringify(v)})`);
  return parseDuration(v);
}

function size(
  name: string,
  key: 'memtableBytes' | 'blockCacheBytes' | 'totalMemtableBytes' | 'walFileBytes' | 'tabletSplitBytes' | 'minFreeDiskBytes',
  help: string,
  defaultText: string,
  group: ServeSetting['group'] = 'Storage',
): ServeSetting {
  return {
    name,
    arg: 'size',
    help,
    defaultText,
    group,
    apply: (d, v) => {
      // A reserve may be none at all; every other size must hold something.
      if (key === 'minFreeDiskBytes' && (v === 0 || v === '0')) {
        d.config[key] = 0;
        return;
      }
      const bytes = sizeValue(v);
      if (bytes <= 0) throw new Error(`must be above 0 (got ${JSON.stringify(v)})`);
      d.config[key] = bytes;
    },
  };
}
