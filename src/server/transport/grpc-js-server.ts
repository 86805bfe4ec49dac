import type net from 'node:net';
import * as grpc from '@grpc/grpc-js';
import type {
  ServerDuplexStream,
  ServerReadableStream,
  ServerUnaryCall,
  ServerWritableStream,
  UntypedHandleCall,
  sendUnaryData,
} from '@grpc/grpc-js';
import type { Logger } from '../logger.js';
import type { CallShape, Method, MethodTable } from '../method-table.js';
import type { CallBase, ServerStreamCall, UnaryCall } from '../rpc.js';

/**
 * The @grpc/grpc-js server as the transport (ServerTuning.transport
 * 'grpc-js'), an adapter of the method table: every method is registered
 * with its path, call shape and the table's codecs, and its handler is a
 * grpc-js handler function that runs the table's runner on a
 * transport-neutral call over grpc-js's call object. This module (and so
 * grpc-js) is loaded only when this transport is chosen.
 */

export interface GrpcJsTransportOptions {
  readonly methods: MethodTable;
  readonly logger: Logger;
  readonly maxMessageBytes: number;
  readonly maxConcurrentStreams: number;
  readonly keepaliveTimeMillis: number;
  readonly keepaliveTimeoutMillis: number;
  readonly maxConnectionIdleMillis: number;
  /** HTTP/2 session memory cap per connection, in MiB. */
  readonly maxSessionMemoryMiB: number;
}

export interface GrpcJsTransport {
  /** Serves a connected socket. */
  accept(socket: net.Socket): void;
  /** Lets calls in flight finish (up to `graceMillis`), then cancels the rest. */
  shutdown(graceMillis: number): Promise<void>;
  /** Releases everything at once (the listener could not be opened). */
  abort(): void;
}

export function createGrpcJsTransport(opts: GrpcJsTransportOptions): GrpcJsTransport {
  const { logger } = opts;
  const server = new grpc.Server({
    'grpc.max_receive_message_length': opts.maxMessageBytes,
    'grpc.max_send_message_length': opts.maxMessageBytes,
    'grpc.max_concurrent_streams': opts.maxConcurrentStreams,
    'grpc.keepalive_time_ms': opts.keepaliveTimeMillis,
    'grpc.keepalive_timeout_ms': opts.keepaliveTimeoutMillis,
    'grpc.max_connection_idle_ms': opts.maxConnectionIdleMillis,
    'grpc-node.max_session_memory': opts.maxSessionMemoryMiB,
  });
  for (const m of opts.methods.methods) {
    if (!server.register(m.path, grpcJsHandler(m), m.encode, m.decode, m.shape)) throw new Error(`${m.path} is registered twice`);
  }
  const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
  return {
    accept: (socket) => injector.injectConnection(socket),
    shutdown: (graceMillis) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          logger.warn(`calls still running after ${graceMillis} ms; cancelling them`);
          server.forceShutdown();
          resolve();
        }, graceMillis);
        timer.unref();
        server.tryShutdown((err) => {
          clearTimeout(timer);
          if (err) {
            logger.warn(`graceful shutdown failed (${err.message}); forcing it`);
            server.forceShutdown();
          }
          resolve();
        });
      }),
    abort: () => {
      injector.destroy();
      server.forceShutdown();
    },
  };
}

/** The grpc-js handler function of a method: its runner over grpc-js's call. */
function grpcJsHandler(m: Method): UntypedHandleCall {
  const handler = m.handler;
  switch (handler.kind) {
    case 'unary':
      return grpcJsUnary(handler.run);
    case 'serverStream':
      return grpcJsServerStream(handler.run);
    case 'reject':
      return grpcJsReject(m.shape, handler.run);
  }
}

function statusError(code: number, details: string, detailsBin?: Buffer): Error & { code: number; details: string } {
  if (detailsBin === undefined) return Object.assign(new Error(details), { code, details });
  const metadata = new grpc.Metadata();
  metadata.set('grpc-status-details-bin', detailsBin);
  return Object.assign(new Error(details), { code, details, metadata });
}

function grpcJsUnary(run: (call: UnaryCall<unknown, unknown>) => void): UntypedHandleCall {
  return (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>): void => {
    let ended = false;
    run({
      request: call.request,
      metadata: call.metadata,
      get cancelled() {
        return call.cancelled;
      },
      respond(response: unknown): void {
        if (ended) return;
        ended = true;
        callback(null, response);
      },
      fail(code: number, details: string, detailsBin?: Buffer): void {
        if (ended) return;
        ended = true;
        callback(statusError(code, details, detailsBin));
      },
    });
  };
}

function grpcJsServerStream(run: (call: ServerStreamCall<unknown, unknown>) => void): UntypedHandleCall {
  return (call: ServerWritableStream<unknown, unknown>): void => {
    // A write after the stream was destroyed (cancel) surfaces as an 'error' event; grpc-js's own
    // listener turns it into the (already sent) status, so nothing more needs doing here.
    run({
      request: call.request,
      metadata: call.metadata,
      get cancelled() {
        return call.cancelled;
      },
      get ended() {
        return call.destroyed || call.writableEnded;
      },
      write: (message: unknown): boolean => call.write(message),
      drained: () =>
        new Promise<boolean>((resolve) => {
          const finish = (ok: boolean): void => {
            call.off('drain', onDrain);
            call.off('cancelled', onEnd);
            call.off('close', onEnd);
            resolve(ok);
          };
          const onDrain = (): void => finish(!call.cancelled);
          const onEnd = (): void => finish(false);
          call.on('drain', onDrain);
          call.on('cancelled', onEnd);
          call.on('close', onEnd);
        }),
      end: () => call.end(),
      fail: (code: number, details: string, detailsBin?: Buffer): void => {
        call.emit('error', statusError(code, details, detailsBin));
      },
    });
  };
}

/** A handler of any call shape that runs `run` at once; incoming request messages are dropped. */
function grpcJsReject(shape: CallShape, run: (call: CallBase) => void): UntypedHandleCall {
  const base = (call: { metadata: CallBase['metadata']; cancelled: boolean }, fail: (e: Error) => void): CallBase => ({
    metadata: call.metadata,
    get cancelled() {
      return call.cancelled;
    },
    fail: (code: number, details: string) => fail(statusError(code, details)),
  });
  switch (shape) {
    case 'unary':
      return (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => run(base(call, (e) => callback(e)));
    case 'serverStream':
      return (call: ServerWritableStream<unknown, unknown>) => run(base(call, (e) => call.emit('error', e)));
    case 'clientStream':
      return (call: ServerReadableStream<unknown, unknown>, callback: sendUnaryData<unknown>) => {
        call.on('data', () => {});
        run(base(call, (e) => callback(e)));
      };
    case 'bidi':
      return (call: ServerDuplexStream<unknown, unknown>) => {
        call.on('data', () => {});
        run(base(call, (e) => call.emit('error', e)));
      };
  }
}
