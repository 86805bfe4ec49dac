/** What the harness and a start-up probe (probe.ts) pass each other. */

/**
 * How the server under test starts:
 *  - in-process: `startServer()` of tabletop's build, in the probe's own process (in memory, no HTTP);
 *  - serve-memory, serve-durable: `tabletop serve` spawned (`--in-memory`, or an empty `--data-dir`; HTTP on);
 *  - emulator: Google's cbtemulator spawned.
 */
export type StartupVariant = 'in-process' | 'serve-memory' | 'serve-durable' | 'emulator';

/** Which client makes the first calls: raw gRPC over node:http2, or the official Node client. */
export type ProbeClient = 'raw' | 'node';

export interface ProbeRequest {
  readonly variant: StartupVariant;
  readonly client: ProbeClient;
  readonly repoRoot: string;
  /** Absolute path of the build's dist directory (the repository's, or another build's for comparisons). */
  readonly dist: string;
  /** The table the first calls create and read. */
  readonly table: string;
  /** Encoded CreateTableRequest and ReadRowsRequest for that table (base64), for the raw client. */
  readonly createTable: string;
  readonly readRows: string;
}

/** Milliseconds from just before the server was started; bytes of resident memory. */
export interface ProbeResult {
  readonly readyMs: number;
  readonly firstCallMs: number;
  readonly firstReadMs: number;
  /** CPU the server used until its first read was answered (in-process: the process's CPU since the clock started). */
  readonly cpuMs: number;
  /** RSS when ready and once idle after the first read (in-process: RSS added to the process since just before the start). */
  readonly rssReadyBytes: number;
  readonly rssIdleBytes: number;
  readonly storage: string;
  readonly warnings: readonly string[];
}

export const PROBE_RESULT_PREFIX = 'startup-probe-result ';
