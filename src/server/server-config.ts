import type { AdvisorThresholds } from '../insight/advisor/thresholds.js';

/**
 * Tunables of the gRPC and HTTP servers, with their defaults. (Engine and
 * database tunables live in src/config.ts.)
 */
export interface ServerTuning {
  /**
   * What serves gRPC: 'h2' is tabletop's own HTTP/2 transport (src/server/transport),
   * 'grpc-js' the @grpc/grpc-js server. Both serve the same method table (method-table.ts).
   */
  readonly transport: 'h2' | 'grpc-js';
  /** A ReadRows response message is sent once its rows reach this many bytes (whole rows only). */
  readonly readRowsFrameBytes: number;
  /** Cell values longer than this are split into several chunks of at most this size. */
  readonly valueChunkBytes: number;
  /** Send last_scanned_row_key after this many rows were examined without output... */
  readonly heartbeatRows: number;
  /** ...checked this often while the scan is busy (ms). */
  readonly heartbeatMillis: number;
  /** Long scans yield to the event loop at least this often, so other calls keep being served. */
  readonly yieldEveryMillis: number;
  /** MutateRows reports entry statuses in messages of at most this many entries. */
  readonly mutateRowsStatusesPerMessage: number;
  /** An ExecuteQuery result batch (whole rows, one checksum and resume token) ends at this many bytes... */
  readonly sqlBatchBytes: number;
  /** ...or this many rows. */
  readonly sqlBatchRows: number;
  /** A batch is sent in messages of at most this many of its bytes. */
  readonly sqlChunkBytes: number;
  /**
   * A key-ordered ExecuteQuery scan that has read this many rows, or spent this long, without a result row sends
   * what it holds, or a token-only message, with a resume token that resumes after the last key scanned.
   */
  readonly sqlCheckpointRows: number;
  readonly sqlCheckpointMillis: number;
  /** Largest request and response message, in bytes (both directions). */
  readonly maxMessageBytes: number;
  /** A connection that sends nothing for this long is reset (slowloris). */
  readonly prefaceTimeoutMillis: number;
  /** Open gRPC connections in all; at the cap a new one closes the connection idle the longest, or is refused when none is. */
  readonly maxConnections: number;
  /** Open connections of the HTTP port (web UI, JSON API, /metrics); more are closed as they arrive. */
  readonly httpMaxConnections: number;
  /** A socket of the HTTP port with no bytes either way for this long is closed (a request's own timeouts start only once it begins). */
  readonly httpIdleSocketMillis: number;
  /** HTTP/2 concurrent streams per connection. */
  readonly maxConcurrentStreams: number;
  /** Largest request header list (metadata) of the h2 transport, as SETTINGS_MAX_HEADER_LIST_SIZE counts it. */
  readonly maxHeaderListBytes: number;
  /** Server keepalive ping interval and ack timeout. */
  readonly keepaliveTimeMillis: number;
  readonly keepaliveTimeoutMillis: number;
  /** HTTP/2 session memory cap per connection of the grpc-js transport, in MiB (grpc-js otherwise uses no cap). */
  readonly maxSessionMemoryMiB: number;
  /** Connections idle this long are closed (clients reconnect transparently). */
  readonly maxConnectionIdleMillis: number;
  /**
   * HTTP/2 receive windows of the h2 transport: per stream (SETTINGS_INITIAL_WINDOW_SIZE) and
   * per connection. Large enough that a 256 MiB request uploads without flow-control stalls.
   */
  readonly streamWindowBytes: number;
  readonly connectionWindowBytes: number;
  /** The h2 transport reports backpressure to a streaming handler once this many bytes are queued on its stream. */
  readonly writeHighWaterBytes: number;
  /**
   * Response bytes the h2 transport holds for all connections together (queued in streams, waiting in socket
   * buffers); past it, a stream that cannot send at once reports backpressure whatever its own queue holds.
   */
  readonly maxBufferedResponseBytes: number;
  /** How long shutdown waits for calls in flight before cancelling them. */
  readonly shutdownGraceMillis: number;
  /** Finished long-running operations kept for GetOperation. */
  readonly operationsKept: number;
  /** Calls that take at least this long are logged with their target, method and status (0: none). */
  readonly slowCallMillis: number;
  /**
   * Period of the schema advisor's pass over the tables that had traffic or changed (it logs a warning the first
   * time a danger finding appears for a table); 0: none. Runs only while recording is on.
   */
  readonly schemaAdviceMillis: number;
  /**
   * The schema advisor's thresholds that differ from its defaults (src/insight/advisor/thresholds.ts), for the
   * advice route and the log's pass; tests lower the size ones (a 100 MB row cannot be written in a test).
   */
  readonly advisorThresholds: Partial<AdvisorThresholds>;
}

export const DEFAULT_SERVER_TUNING: ServerTuning = Object.freeze({
  transport: 'h2',
  readRowsFrameBytes: 1024 * 1024,
  valueChunkBytes: 1024 * 1024,
  heartbeatRows: 1000,
  heartbeatMillis: 1000,
  yieldEveryMillis: 20,
  mutateRowsStatusesPerMessage: 10_000,
  sqlBatchBytes: 1024 * 1024,
  sqlBatchRows: 10_000,
  sqlChunkBytes: 256 * 1024,
  sqlCheckpointRows: 10_000,
  sqlCheckpointMillis: 2000,
  maxMessageBytes: 256 * 1024 * 1024,
  prefaceTimeoutMillis: 10_000,
  maxConnections: 4096,
  httpMaxConnections: 512,
  httpIdleSocketMillis: 30_000,
  maxConcurrentStreams: 1000,
  maxHeaderListBytes: 64 * 1024,
  keepaliveTimeMillis: 2 * 60 * 60 * 1000,
  keepaliveTimeoutMillis: 20_000,
  // Must exceed the largest message with room to spare: a 256 MiB MutateRows is legal.
  maxSessionMemoryMiB: 1024,
  maxConnectionIdleMillis: 6 * 60 * 60 * 1000,
  streamWindowBytes: 4 * 1024 * 1024,
  connectionWindowBytes: 16 * 1024 * 1024,
  writeHighWaterBytes: 1024 * 1024,
  maxBufferedResponseBytes: 128 * 1024 * 1024,
  shutdownGraceMillis: 5_000,
  operationsKept: 1000,
  // A second is slow for any single call of a local server (a ReadRows streaming a large table
  // is the exception; its log line says how long it took, which is what an operator wants).
  slowCallMillis: 1000,
  schemaAdviceMillis: 60_000,
  advisorThresholds: Object.freeze({}),
});
