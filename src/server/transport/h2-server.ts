import { Status } from '../status-codes.js';
import type net from 'node:net';
import type { Logger } from '../logger.js';
import type { MethodTable } from '../method-table.js';
import { ACCEPTED_ENCODINGS, isSupportedEncoding } from './decompress.js';
import { H2Call, rejectStream } from './h2-call.js';
import { H2Connection, type H2Stream } from './h2/connection.js';
import { type HeaderMap, encodeHeaderBlock } from './h2/hpack.js';
import { HeaderMetadata } from './header-metadata.js';
import { parseGrpcTimeout } from './grpc-timeout.js';
import { ResponseBudget } from './h2/response-budget.js';
import { memoryReturner } from './memory-return.js';
import { SessionMonitor } from './session-monitor.js';

/** Response buffers that held this much at their peak and were then released are collected (memory-return.ts). */
const RETURN_MEMORY_AFTER_BYTES = 32 * 1024 * 1024;

/**
 * tabletop's gRPC transport: gRPC over HTTP/2 (PROTOCOL-HTTP2.md) on
 * tabletop's own HTTP/2 layer (h2/connection.ts), without node:http2 or
 * grpc-js's server machinery. Connections come from tabletop's own listener
 * (connection-guard.ts) through accept().
 *
 * Per stream: `:method` must be POST (else HTTP 405), `content-type`
 * application/grpc[+proto|;...] (else HTTP 415), `:path` a method of the
 * method table (else UNIMPLEMENTED), `grpc-encoding` identity, gzip or deflate (else
 * UNIMPLEMENTED with grpc-accept-encoding), `grpc-timeout` well formed (else
 * INTERNAL), the header list within maxHeaderListBytes (else
 * RESOURCE_EXHAUSTED); then an H2Call runs it.
 *
 * Per connection (session-monitor.ts): keepalive pings, the idle limit, and
 * graceful shutdown (GOAWAY, calls finish within the grace period, then the
 * rest are cancelled).
 */

export interface H2TransportOptions {
  /** What is served: `:path` is looked up here. */
  readonly methods: MethodTable;
  readonly logger: Logger;
  readonly maxMessageBytes: number;
  readonly maxConcurrentStreams: number;
  /** Largest request header list (SETTINGS_MAX_HEADER_LIST_SIZE). */
  readonly maxHeaderListBytes: number;
  readonly keepaliveTimeMillis: number;
  readonly keepaliveTimeoutMillis: number;
  readonly maxConnectionIdleMillis: number;
  /** Receive windows: per stream (SETTINGS_INITIAL_WINDOW_SIZE) and per connection. */
  readonly streamWindowBytes: number;
  readonly connectionWindowBytes: number;
  /** A stream's write() reports backpressure once this many bytes are queued. */
  readonly highWaterBytes: number;
  /**
   * Response bytes held in memory for all connections together (queued in streams, waiting in socket buffers):
   * past it, every stream that cannot send at once reports backpressure (h2/response-budget.ts).
   */
  readonly maxBufferedResponseBytes: number;
}

export interface H2Transport {
  /** Serves HTTP/2 on a connected socket (bytes already read must have been unshifted). */
  accept(socket: net.Socket): void;
  /** Open connections. */
  readonly connections: number;
  /** Response bytes held for all connections now (queued in streams, waiting in socket buffers). */
  readonly bufferedResponseBytes: number;
  /**
   * Closes the connection that has had no call for the longest (GOAWAY, then the socket), to make room for a new one
   * at the connection cap; false when every connection has calls in flight.
   */
  evictIdle(): boolean;
  /**
   * Sends GOAWAY on every connection and refuses new ones; resolves once all
   * connections closed, cancelling the calls still running after `graceMillis`.
   */
  shutdown(graceMillis: number): Promise<void>;
}

const ALLOW_POST = encodeHeaderBlock([
  [':status', '405'],
  ['allow', 'POST'],
]);
const UNSUPPORTED_MEDIA = encodeHeaderBlock([[':status', '415']]);

function isGrpcContentType(ct: string | undefined): boolean {
  if (ct === undefined || !ct.startsWith('application/grpc')) return false;
  const next = ct.charCodeAt(16); // after "application/grpc": end, "+codec" or ";params" (not "-web")
  return Number.isNaN(next) || next === 0x2b || next === 0x3b;
}

export function createH2Transport(opts: H2TransportOptions): H2Transport {
  const callOptions = { maxMessageBytes: opts.maxMessageBytes, highWaterBytes: opts.highWaterBytes, logger: opts.logger };
  const budget = new ResponseBudget(
    opts.maxBufferedResponseBytes,
    Math.min(RETURN_MEMORY_AFTER_BYTES, opts.maxBufferedResponseBytes),
    memoryReturner(),
  );
  const connectionOptions = {
    responseBudget: budget,
    maxConcurrentStreams: opts.maxConcurrentStreams,
    streamWindowBytes: opts.streamWindowBytes,
    connectionWindowBytes: opts.connectionWindowBytes,
    maxHeaderListBytes: opts.maxHeaderListBytes,
  };
  const monitors = new Map<H2Connection, SessionMonitor>();
  let closing = false;
  let allClosed: (() => void) | undefined;

  function startCall(stream: H2Stream, headers: HeaderMap): void {
    if (headers[':method'] !== 'POST') return stream.headers(ALLOW_POST, true);
    if (!isGrpcContentType(single(headers['content-type']))) return stream.headers(UNSUPPORTED_MEDIA, true);
    const path = single(headers[':path']) ?? '';
    const method = opts.methods.get(path);
    if (method === undefined) return rejectStream(stream, Status.UNIMPLEMENTED, opts.methods.unknownPathMessage(path));
    const encoding = single(headers['grpc-encoding']) ?? 'identity';
    if (!isSupportedEncoding(encoding)) {
      return rejectStream(stream, Status.UNIMPLEMENTED, `Unsupported grpc-encoding "${encoding}": tabletop accepts ${ACCEPTED_ENCODINGS}`, [
        ['grpc-accept-encoding', ACCEPTED_ENCODINGS],
      ]);
    }
    const timeoutHeader = single(headers['grpc-timeout']);
    let timeout: number | undefined;
    if (timeoutHeader !== undefined) {
      timeout = parseGrpcTimeout(timeoutHeader);
      if (timeout === undefined) return rejectStream(stream, Status.INTERNAL, `Malformed grpc-timeout "${timeoutHeader}"`);
    }
    new H2Call(stream, new HeaderMetadata(headers), method, encoding, callOptions).start(timeout);
  }

  return {
    accept(socket: net.Socket): void {
      if (closing) {
        socket.destroy();
        return;
      }
      let monitor: SessionMonitor | undefined;
      const connection = new H2Connection(socket, connectionOptions, {
        stream(stream, headers) {
          monitor?.streamOpened();
          startCall(stream, headers);
        },
        oversizedHeaders(stream, listBytes) {
          monitor?.streamOpened();
          rejectStream(
            stream,
            Status.RESOURCE_EXHAUSTED,
            `Request headers of ${listBytes} bytes are larger than the maximum of ${opts.maxHeaderListBytes}`,
          );
        },
        streamClosed() {
          monitor?.streamClosed();
        },
        closed() {
          monitor?.dispose();
          monitors.delete(connection);
          if (monitors.size === 0) allClosed?.();
        },
      });
      monitor = new SessionMonitor(connection, opts);
      monitors.set(connection, monitor);
    },
    get connections() {
      return monitors.size;
    },
    get bufferedResponseBytes() {
      return budget.bytes;
    },
    evictIdle(): boolean {
      let oldest: [H2Connection, SessionMonitor] | undefined;
      let since = Infinity;
      for (const entry of monitors) {
        const s = entry[1].idleSince;
        if (s !== undefined && s < since && !entry[0].closed) {
          since = s;
          oldest = entry;
        }
      }
      if (oldest === undefined) return false;
      // GOAWAY (NO_ERROR: the client reconnects when it next calls) and the socket closed now: no call is waiting for
      // it, and a peer that would never read the GOAWAY must not keep the slot.
      oldest[0].destroy(0);
      return true;
    },
    async shutdown(graceMillis: number): Promise<void> {
      closing = true;
      if (monitors.size === 0) return;
      const done = new Promise<void>((resolve) => (allClosed = resolve));
      for (const m of monitors.values()) m.goAway();
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), graceMillis);
      });
      const late = await Promise.race([done.then(() => false), expired]);
      clearTimeout(timer);
      if (late) {
        opts.logger.warn(`calls still running after ${graceMillis} ms; cancelling them`);
        for (const m of monitors.values()) m.destroy();
        await done;
      }
    },
  };
}

/** A header's value; a repeated header's values joined with "," (which no single-valued header accepts). */
function single(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(',') : v;
}
