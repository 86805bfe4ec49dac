import type { UntypedHandleCall } from '@grpc/grpc-js';
import { invalidArgument, unimplemented } from '../model/errors.js';
import { type FeatureFlags, parseFeatureFlags } from './convert/feature-flags.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import type { AnyMethod } from './protos.js';
import { statusName, toGrpcStatus } from './status.js';
import { formatMillis } from '../units.js';
import { grpcJsReject, grpcJsServerStream, grpcJsUnary } from './transport/grpc-js-calls.js';

/**
 * Binding handlers to calls, the same way on every transport (tabletop's own
 * HTTP/2 transport and grpc-js). Every call runs inside one of these wrappers,
 * which: turn undecodable requests into INVALID_ARGUMENT, catch every failure
 * (sync or async) and map it to a status via status.ts, count the call in the
 * metrics, stop streams when the client cancels, and never leave a promise
 * rejection unhandled.
 *
 * A wrapper returns a grpc-js handler function (what the services' handler
 * tables hold) carrying its transport-neutral form, an RpcHandler, under
 * RPC_HANDLER; tabletop's transport runs that form directly.
 */

/** Request metadata (headers), as both transports expose it; `-bin` values are Buffers. */
export interface RequestMetadata {
  /** Every value of `key` (lower case), in arrival order; empty when absent. */
  get(key: string): (string | Buffer)[];
}

export interface CallContext {
  /** The method name, e.g. "ReadRows". */
  readonly rpc: string;
  readonly metadata: RequestMetadata;
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
  /** Calls that take at least this long are logged (warn) with their target and status; 0 or absent: none. */
  readonly slowCallMillis?: number;
}

/**
 * Counts a call in the metrics from now; returns the function that ends it
 * with a status name (once), logging it when it was slow.
 */
function startCall(env: RpcEnv, rpc: string, request: unknown): (code: string) => void {
  const end = env.metrics.start(env.service, rpc);
  const slow = env.slowCallMillis ?? 0;
  if (slow <= 0) return end;
  const began = performance.now();
  let ended = false;
  return (code: string) => {
    if (ended) return;
    ended = true;
    end(code);
    const millis = performance.now() - began;
    if (millis < slow) return;
    const target = callTarget(request);
    env.logger.warn(`slow call: ${rpc}${target === undefined ? '' : ` on ${target}`} took ${formatMillis(millis)} (${code})`, {
      event: 'slow-call',
      service: env.service,
      method: rpc,
      ...(target === undefined ? {} : { target }),
      code,
      millis: Math.round(millis),
    });
  };
}

/** The resource a request names (table, authorized view, instance, ...), for logs. */
function callTarget(request: unknown): string | undefined {
  if (typeof request !== 'object' || request === null) return undefined;
  const r = request as Record<string, unknown>;
  for (const field of ['tableName', 'authorizedViewName', 'materializedViewName', 'instanceName', 'name', 'parent']) {
    const v = r[field];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// The transport-neutral call: what a transport gives a wrapper.

/** What every call offers, whatever its shape. */
export interface CallBase {
  readonly metadata: RequestMetadata;
  /** True once the client cancelled, the deadline passed or the connection died. */
  readonly cancelled: boolean;
  /** Ends the call with a non-OK status (ignored once the call has ended). */
  fail(code: number, details: string): void;
}

/** A call with one request message and one response message. */
export interface UnaryCall<Req, Res> extends CallBase {
  readonly request: Req;
  /** Sends the response and status OK (ignored once the call has ended). */
  respond(response: Res): void;
}

/** A call with one request message and a stream of response messages. */
export interface ServerStreamCall<Req, Res> extends CallBase {
  readonly request: Req;
  /** True once the call ended (status sent or stream gone): write() must not be called. */
  readonly ended: boolean;
  /** Sends a message; false when the transport's buffer is full (then wait for drained()). */
  write(message: Res): boolean;
  /** Settles true once the buffer drained, false if the call ended first. */
  drained(): Promise<boolean>;
  /** Ends the stream with status OK. */
  end(): void;
}

/**
 * A handler in transport-neutral form:
 *  - unary: run once the single request message has arrived;
 *  - serverStream: likewise, then writes messages;
 *  - reject: run as soon as the call starts, before any request message is
 *    read, for any method shape; it must end the call with fail().
 */
export type RpcHandler =
  | { readonly kind: 'unary'; run(call: UnaryCall<unknown, unknown>): void }
  | { readonly kind: 'serverStream'; run(call: ServerStreamCall<unknown, unknown>): void }
  | { readonly kind: 'reject'; run(call: CallBase): void };

/** The property of a wrapper's grpc-js handler function that holds its RpcHandler. */
export const RPC_HANDLER: unique symbol = Symbol('tabletop.rpcHandler');

export type WrappedHandler = UntypedHandleCall & { readonly [RPC_HANDLER]: RpcHandler };

/** The transport-neutral form of a service handler, if it was built by this module's wrappers. */
export function rpcHandlerOf(handler: unknown): RpcHandler | undefined {
  if (typeof handler !== 'function') return undefined;
  return (handler as Partial<WrappedHandler>)[RPC_HANDLER];
}

function wrapped(grpcJs: UntypedHandleCall, handler: RpcHandler): WrappedHandler {
  return Object.assign(grpcJs, { [RPC_HANDLER]: handler });
}

// ---------------------------------------------------------------------------

/** What a safe deserializer returns instead of throwing. */
export class MalformedRequest {
  constructor(readonly reason: string) {}
}

/** Wraps a loader deserializer so that undecodable bytes reach the handler as InvalidArgument, not INTERNAL. */
export function safeDeserializer<B>(method: string, deserialize: (b: B) => unknown): (b: B) => unknown {
  return (b: B) => {
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

class Context implements CallContext {
  private flags: FeatureFlags | undefined;
  constructor(
    readonly rpc: string,
    private readonly call: CallBase,
  ) {}
  get metadata(): RequestMetadata {
    return this.call.metadata;
  }
  /** An arrow, so that it can be passed around unbound (as streamReadRows takes it). */
  readonly cancelled = (): boolean => this.call.cancelled;
  get features(): FeatureFlags {
    this.flags ??= parseFeatureFlags(this.call.metadata.get('bigtable-features')[0]);
    return this.flags;
  }
}

function isPromise<T>(v: T | Promise<T>): v is Promise<T> {
  return typeof (v as { then?: unknown } | null)?.then === 'function';
}

export function unary<Req, Res>(env: RpcEnv, rpc: string, handler: UnaryHandler<Req, Res>): WrappedHandler {
  const ok = (call: UnaryCall<Req, Res>, end: (code: string) => void, res: Res): void => {
    end(call.cancelled ? 'CANCELLED' : 'OK');
    call.respond(res);
  };
  const failed = (call: UnaryCall<Req, Res>, end: (code: string) => void, e: unknown): void => {
    const s = toGrpcStatus(e, rpc, env.logger);
    end(call.cancelled ? 'CANCELLED' : statusName(s.code));
    call.fail(s.code, s.details);
  };
  const sendFailed = (e: unknown): void => env.logger.error(`${rpc}: failed to send the response: ${String(e)}`);
  const run = (call: UnaryCall<Req, Res>): void => {
    const end = startCall(env, rpc, call.request);
    let result: Res | Promise<Res>;
    try {
      checkRequest(call.request);
      result = handler(call.request, new Context(rpc, call));
    } catch (e) {
      failed(call, end, e);
      return;
    }
    if (!isPromise(result)) {
      try {
        ok(call, end, result);
      } catch (e) {
        sendFailed(e);
      }
      return;
    }
    result.then(
      (res) => ok(call, end, res),
      (e: unknown) => failed(call, end, e),
    ).catch(sendFailed);
  };
  const neutral: RpcHandler = { kind: 'unary', run: run as (call: UnaryCall<unknown, unknown>) => void };
  return wrapped(grpcJsUnary(neutral.run), neutral);
}

export function serverStream<Req, Res>(env: RpcEnv, rpc: string, handler: StreamHandler<Req, Res>): WrappedHandler {
  const run = (call: ServerStreamCall<Req, Res>): void => {
    const end = startCall(env, rpc, call.request);
    let done: Promise<void>;
    try {
      checkRequest(call.request);
      done = Promise.resolve(handler(call.request, streamWriter(call), new Context(rpc, call)));
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
          call.fail(s.code, s.details);
        },
      )
      .catch((e: unknown) => env.logger.error(`${rpc}: failed to finish the stream: ${String(e)}`));
  };
  const neutral: RpcHandler = { kind: 'serverStream', run: run as (call: ServerStreamCall<unknown, unknown>) => void };
  return wrapped(grpcJsServerStream(neutral.run), neutral);
}

function streamWriter<Res>(call: ServerStreamCall<unknown, Res>): StreamWriter<Res> {
  return {
    write(message: Res): boolean | Promise<boolean> {
      if (call.cancelled || call.ended) return false;
      if (call.write(message)) return true;
      return call.ended ? false : call.drained();
    },
  };
}

/** A handler for any method shape that answers UNIMPLEMENTED with `message`, without reading the request. */
export function unimplementedHandler(env: RpcEnv, rpc: string, method: AnyMethod, message: string): WrappedHandler {
  const neutral: RpcHandler = {
    kind: 'reject',
    run(call: CallBase): void {
      env.metrics.start(env.service, rpc)('UNIMPLEMENTED');
      const s = toGrpcStatus(unimplemented(message), rpc, env.logger);
      call.fail(s.code, s.details);
    },
  };
  return wrapped(grpcJsReject(method, neutral.run), neutral);
}
