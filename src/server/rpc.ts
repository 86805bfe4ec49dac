import type {
  Metadata,
  ServerDuplexStream,
  ServerReadableStream,
  ServerUnaryCall,
  ServerWritableStream,
  UntypedHandleCall,
  sendUnaryData,
} from '@grpc/grpc-js';
import { status as Status } from '@grpc/grpc-js';
import { invalidArgument, unimplemented } from '../model/errors.js';
import { type FeatureFlags, parseFeatureFlags } from './convert/feature-flags.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import type { AnyMethod } from './protos.js';
import { statusName, toGrpcStatus } from './status.js';

/**
 * Binding handlers to grpc-js calls. Every call runs inside one of these
 * wrappers, which: turn undecodable requests into INVALID_ARGUMENT, catch
 * every failure (sync or async) and map it to a status via status.ts, count
 * the call in the metrics, stop streams when the client cancels, and never
 * leave a promise rejection unhandled.
 */

export interface CallContext {
  /** The method name, e.g. "ReadRows". */
  readonly rpc: string;
  readonly metadata: Metadata;
  /** True once the client cancelled or the deadline passed: stop working. */
  cancelled(): boolean;
  /** The client's `bigtable-features` header. */
  readonly features: FeatureFlags;
}

export type UnaryHandler<Req, Res> = (request: Req, ctx: CallContext) => Res | Promise<Res>;

/** Sends stream messages with backpressure. */
export interface StreamWriter<T> {
  /**
   * Sends a message. Returns true when more can be sent now, a promise that
   * settles when the client has caught up (true) or the call ended (false),
   * or false when the call has already ended (cancelled).
   */
  write(message: T): boolean | Promise<boolean>;
}

export type StreamHandler<Req, Res> = (request: Req, out: StreamWriter<Res>, ctx: CallContext) => Promise<void> | void;

export interface RpcEnv {
  readonly service: string;
  readonly metrics: Metrics;
  readonly logger: Logger;
}

/** What a safe deserializer returns instead of throwing. */
export class MalformedRequest {
  constructor(readonly reason: string) {}
}

/** Wraps a loader deserializer so that undecodable bytes reach the handler as InvalidArgument, not INTERNAL. */
export function safeDeserializer(method: string, deserialize: (b: Buffer) => unknown): (b: Buffer) => unknown {
  return (b: Buffer) => {
    try {
      return deserialize(b);
    } catch (e) {
      return new MalformedRequest(`Malformed ${method} request: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
}

function checkRequest(request: unknown): void {
  if (request instanceof MalformedRequest) throw invalidArgument(request.reason);
}

function context(rpc: string, call: { metadata: Metadata; cancelled: boolean }): CallContext {
  let features: FeatureFlags | undefined;
  return {
    rpc,
    metadata: call.metadata,
    cancelled: () => call.cancelled,
    get features(): FeatureFlags {
      if (features === undefined) {
        const v = call.metadata.get('bigtable-features')[0];
        features = parseFeatureFlags(v);
      }
      return features;
    },
  };
}

function statusError(code: Status, details: string): Error & { code: Status; details: string } {
  return Object.assign(new Error(details), { code, details });
}

export function unary<Req, Res>(env: RpcEnv, rpc: string, handler: UnaryHandler<Req, Res>) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>): void => {
    const end = env.metrics.start(env.service, rpc);
    const ctx = context(rpc, call);
    let result: Promise<Res>;
    try {
      checkRequest(call.request);
      result = Promise.resolve(handler(call.request, ctx));
    } catch (e) {
      result = Promise.reject(e);
    }
    result
      .then(
        (res) => {
          end(call.cancelled ? 'CANCELLED' : 'OK');
          callback(null, res);
        },
        (e: unknown) => {
          const s = toGrpcStatus(e, rpc, env.logger);
          end(call.cancelled ? 'CANCELLED' : statusName(s.code));
          callback(statusError(s.code, s.details));
        },
      )
      .catch((e: unknown) => env.logger.error(`${rpc}: failed to send the response: ${String(e)}`));
  };
}

export function serverStream<Req, Res>(env: RpcEnv, rpc: string, handler: StreamHandler<Req, Res>) {
  return (call: ServerWritableStream<Req, Res>): void => {
    const end = env.metrics.start(env.service, rpc);
    const ctx = context(rpc, call);
    // A write after the stream was destroyed (cancel) surfaces as an 'error' event; grpc-js's own
    // listener turns it into the (already sent) status, so nothing more needs doing here.
    const writer = streamWriter(call);
    let done: Promise<void>;
    try {
      checkRequest(call.request);
      done = Promise.resolve(handler(call.request, writer, ctx));
    } catch (e) {
      done = Promise.reject(e);
    }
    done
      .then(
        () => {
          if (call.cancelled) return end('CANCELLED');
          end('OK');
          call.end();
        },
        (e: unknown) => {
          if (call.cancelled) return end('CANCELLED');
          const s = toGrpcStatus(e, rpc, env.logger);
          end(statusName(s.code));
          call.emit('error', statusError(s.code, s.details));
        },
      )
      .catch((e: unknown) => env.logger.error(`${rpc}: failed to finish the stream: ${String(e)}`));
  };
}

function streamWriter<Res>(call: ServerWritableStream<unknown, Res>): StreamWriter<Res> {
  return {
    write(message: Res): boolean | Promise<boolean> {
      if (call.cancelled || call.destroyed || call.writableEnded) return false;
      if (call.write(message)) return true;
      return new Promise<boolean>((resolve) => {
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
      });
    },
  };
}

/** A handler for any method type that answers UNIMPLEMENTED with `message`. */
export function unimplementedHandler(env: RpcEnv, rpc: string, method: AnyMethod, message: string): UntypedHandleCall {
  const fail = (): Error => {
    const s = toGrpcStatus(unimplemented(message), rpc, env.logger);
    return statusError(s.code, s.details);
  };
  const count = (): void => env.metrics.start(env.service, rpc)('UNIMPLEMENTED');
  if (!method.requestStream && !method.responseStream) {
    return (_call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      count();
      callback(fail());
    };
  }
  if (!method.requestStream) {
    return (call: ServerWritableStream<unknown, unknown>) => {
      count();
      call.emit('error', fail());
    };
  }
  if (!method.responseStream) {
    return (call: ServerReadableStream<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      count();
      call.on('data', () => {});
      callback(fail());
    };
  }
  return (call: ServerDuplexStream<unknown, unknown>) => {
    count();
    call.on('data', () => {});
    call.emit('error', fail());
  };
}

