import { status as Status } from '@grpc/grpc-js';
import http2, { type IncomingHttpHeaders, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2';
import type net from 'node:net';
import type { Logger } from '../logger.js';
import { ACCEPTED_ENCODINGS, isSupportedEncoding } from './decompress.js';
import { H2Call, rejectStream } from './h2-call.js';
import { HeaderMetadata } from './header-metadata.js';
import { parseGrpcTimeout } from './grpc-timeout.js';
import type { RouteTable } from './routes.js';
import { SessionMonitor } from './session-monitor.js';

/**
 * tabletop's gRPC transport: gRPC over HTTP/2 (PROTOCOL-HTTP2.md) served
 * directly on node:http2, without grpc-js's server machinery. Connections come
 * from tabletop's own listener (connection-guard.ts) through accept().
 *
 * Per stream: `:method` must be POST (else HTTP 405), `content-type`
 * application/grpc[+proto|;...] (else HTTP 415), `:path` a known method (else
 * UNIMPLEMENTED), `grpc-encoding` identity, gzip or deflate (else
 * UNIMPLEMENTED with grpc-accept-encoding), `grpc-timeout` well formed (else
 * INTERNAL); then an H2Call runs it.
 *
 * Per connection (session-monitor.ts): keepalive pings, the idle limit, and
 * graceful shutdown (GOAWAY, calls finish within the grace period, then the
 * rest are cancelled).
 */

export interface H2TransportOptions {
  readonly routes: RouteTable;
  readonly logger: Logger;
  readonly maxMessageBytes: number;
  readonly maxConcurrentStreams: number;
  /** HTTP/2 session memory cap per connection, in MiB. */
  readonly maxSessionMemoryMiB: number;
  readonly keepaliveTimeMillis: number;
  readonly keepaliveTimeoutMillis: number;
  readonly maxConnectionIdleMillis: number;
  /** Receive windows: per stream (SETTINGS_INITIAL_WINDOW_SIZE) and per connection. */
  readonly streamWindowBytes: number;
  readonly connectionWindowBytes: number;
  /** A stream's write() reports backpressure once this many bytes are queued. */
  readonly highWaterBytes: number;
}

export interface H2Transport {
  /** Serves HTTP/2 on a connected socket (bytes already read must have been unshifted). */
  accept(socket: net.Socket): void;
  /** Open connections. */
  readonly connections: number;
  /**
   * Sends GOAWAY on every connection and refuses new ones; resolves once all
   * connections closed, cancelling the calls still running after `graceMillis`.
   */
  shutdown(graceMillis: number): Promise<void>;
}

const ALLOW_POST = { ':status': 405, allow: 'POST' };
const UNSUPPORTED_MEDIA = { ':status': 415 };

function isGrpcContentType(ct: string | undefined): boolean {
  if (ct === undefined || !ct.startsWith('application/grpc')) return false;
  const next = ct.charCodeAt(16); // after "application/grpc": end, "+codec" or ";params" (not "-web")
  return Number.isNaN(next) || next === 0x2b || next === 0x3b;
}

function ignoreStreamError(): void {
  // A stream 'error' (the peer reset it with an error code, a write after it closed) is always
  // followed by 'close', which H2Call turns into cancellation; the listener keeps it from being fatal.
}

export function createH2Transport(opts: H2TransportOptions): H2Transport {
  const server = http2.createServer({
    settings: {
      maxConcurrentStreams: opts.maxConcurrentStreams,
      initialWindowSize: opts.streamWindowBytes,
    },
    maxSessionMemory: opts.maxSessionMemoryMiB,
  });
  const callOptions = { maxMessageBytes: opts.maxMessageBytes, highWaterBytes: opts.highWaterBytes, logger: opts.logger };
  const monitors = new Map<ServerHttp2Session, SessionMonitor>();
  let closing = false;
  let allClosed: (() => void) | undefined;

  server.on('session', (session: ServerHttp2Session) => {
    const monitor = new SessionMonitor(session, opts);
    monitors.set(session, monitor);
    session.on('close', () => {
      monitor.dispose();
      monitors.delete(session);
      if (monitors.size === 0) allClosed?.();
    });
    // A session 'error' (protocol violation, socket failure) is followed by 'close'; its
    // streams close too, and their calls see cancellation.
    session.on('error', () => {});
    session.setLocalWindowSize(opts.connectionWindowBytes);
    if (closing) session.close();
  });
  server.on('sessionError', () => {});

  server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    stream.on('error', ignoreStreamError);
    const monitor = monitors.get(stream.session as ServerHttp2Session);
    monitor?.streamOpened();
    const closed = monitor === undefined ? noop : monitor.streamClosed;
    if (headers[':method'] !== 'POST') return respondHttp(stream, ALLOW_POST, closed);
    if (!isGrpcContentType(headers['content-type'])) return respondHttp(stream, UNSUPPORTED_MEDIA, closed);
    const path = headers[':path'] ?? '';
    const route = opts.routes.get(path);
    if (route === undefined) return reject(stream, closed, Status.UNIMPLEMENTED, opts.routes.unknownPathMessage(path));
    const encoding = single(headers['grpc-encoding']) ?? 'identity';
    if (!isSupportedEncoding(encoding)) {
      return reject(stream, closed, Status.UNIMPLEMENTED, `Unsupported grpc-encoding "${encoding}": tabletop accepts ${ACCEPTED_ENCODINGS}`, {
        'grpc-accept-encoding': ACCEPTED_ENCODINGS,
      });
    }
    const timeoutHeader = single(headers['grpc-timeout']);
    let timeout: number | undefined;
    if (timeoutHeader !== undefined) {
      timeout = parseGrpcTimeout(timeoutHeader);
      if (timeout === undefined) return reject(stream, closed, Status.INTERNAL, `Malformed grpc-timeout "${timeoutHeader}"`);
    }
    new H2Call(stream, new HeaderMetadata(headers), route, encoding, callOptions, closed).start(timeout);
  });

  return {
    accept(socket: net.Socket): void {
      if (closing) {
        socket.destroy();
        return;
      }
      server.emit('connection', socket);
    },
    get connections() {
      return monitors.size;
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

function noop(): void {}

/** A header's value; a repeated header's values joined with "," (which no single-valued header accepts). */
function single(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(',') : v;
}

function respondHttp(stream: ServerHttp2Stream, headers: http2.OutgoingHttpHeaders, closed: () => void): void {
  stream.once('close', closed);
  if (stream.closed || stream.destroyed) return;
  stream.respond(headers, { endStream: true });
  if (!stream.readableEnded) stream.close(http2.constants.NGHTTP2_NO_ERROR);
}

function reject(stream: ServerHttp2Stream, closed: () => void, code: number, details: string, extra?: http2.OutgoingHttpHeaders): void {
  stream.once('close', closed);
  rejectStream(stream, code, details, extra);
}
