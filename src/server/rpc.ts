import { invalidArgument, unimplemented } from '../model/errors.js';
import { type FeatureFlags, parseFeatureFlags } from './convert/feature-flags.js';
import type { Logger } from './logger.js';
import type { Principal } from './auth/principal.js';
import { statusName, toGrpcStatus } from './status.js';

/**
 * Running a handler on a call, the same way on every transport (tabletop's
 * own HTTP/2 transport and the grpc-js adapter): the transport-neutral call
 * a transport hands over, and the runners that the method table
 * (method-table.ts) builds for each method. A runner: turns an undecodable
 * request into INVALID_ARGUMENT, catches every failure (sync or async) and
 * maps it to a status via status.ts, tells the call's observer (metrics, the
 * slow-call log) when the call starts and how it ended, stops streams when
 * the client cancels, and never leaves a promise rejection unhandled.
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
  /** The authenticated caller; undefined when authentication is off and the call carried no credentials. */
  readonly principal: Principal | undefined;
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

/**
 * What an observer sees of a call as it starts besides its request: the
 * request metadata (credentials are in `authorization`), and the caller,
 * which the access check sets once it has authenticated the call (the
 * handler then reads it as CallContext.principal).
 */
export interface CallStartInfo {
  readonly metadata: RequestMetadata;
  principal: Principal | undefined;
}

/**
 * Called as a call starts, with its decoded request (undefined for a call
 * rejected before reading it); returns what is told, once, how the call
 * ended (a status name such as "OK" or "NOT_FOUND"). It may refuse the call
 * by throwing (a TabletopError, e.g. Unauthenticated or PermissionDenied):
 * the call then ends with that status and its handler does not run.
 */
export type CallStart = (request: unknown, call: CallStartInfo) => CallEnd;
export type CallEnd = (code: string) => void;

/** The end of a call whose start was refused (the refusal reported its own end). */
const REFUSED: CallEnd = () => {};

// ---------------------------------------------------------------------------
// The transport-neutral call: what a transport gives a runner.

/** What every call offers, whatever its shape. */
export interface CallBase {
  readonly metadata: RequestMetadata;
  /** True once the client cancelled, the deadline passed or the connection died. */
  readonly cancelled: boolean;
  /** Ends the call with a non-OK status (ignored once the call has ended); `detailsBin` goes in `grpc-status-details-bin`. */
  fail(code: number, details: string, detailsBin?: Buffer): void;
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
 * A method's runner, by how the transport must drive it:
 *  - unary: run once the single request message has arrived (and been decoded);
 *  - serverStream: likewise, then writes messages;
 *  - reject: run as soon as the call starts, before any request message is
 *    read, for any call shape; it ends the call with fail().
 */
export type RpcHandler =
  | { readonly kind: 'unary'; run(call: UnaryCall<unknown, unknown>): void }
  | { readonly kind: 'serverStream'; run(call: ServerStreamCall<unknown, unknown>): void }
  | { readonly kind: 'reject'; run(call: CallBase): void };

// ---------------------------------------------------------------------------

/** What a safe decoder returns instead of throwing. */
export class MalformedRequest {
  constructor(readonly reason: string) {}
}

/** Wraps a request decoder so that undecodable bytes reach the runner as a MalformedRequest (INVALID_ARGUMENT), not INTERNAL. */
export function safeDecoder<B>(method: string, decode: (b: B) => unknown): (b: B) => unknown {
  return (b: B) => {
    try {
      return decode(b);
    } catch (e) {
      return new MalformedRequest(`Malformed ${method} request: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
}

function checkRequest(request: unknown): void {
  if (request instanceof MalformedRequest) throw invalidArgument(request.reason);
}

class Context implements CallContext, CallStartInfo {
  private flags: FeatureFlags | undefined;
  principal: Principal | undefined = undefined;
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

/** The runner of a unary method `rpc` (its name, e.g. "MutateRow", for messages). */
export function unaryRunner<Req, Res>(rpc: string, handler: UnaryHandler<Req, Res>, begin: CallStart, logger: Logger): RpcHandler {
  const ok = (call: UnaryCall<Req, Res>, end: CallEnd, res: Res): void => {
    end(call.cancelled ? 'CANCELLED' : 'OK');
    call.respond(res);
  };
  const failed = (call: UnaryCall<Req, Res>, end: CallEnd, e: unknown): void => {
    const s = toGrpcStatus(e, rpc, logger);
    end(call.cancelled ? 'CANCELLED' : statusName(s.code));
    call.fail(s.code, s.details, s.detailsBin);
  };
  const sendFailed = (e: unknown): void => logger.error(`${rpc}: failed to send the response: ${String(e)}`);
  const run = (call: UnaryCall<Req, Res>): void => {
    let end = REFUSED;
    let result: Res | Promise<Res>;
    try {
      const ctx = new Context(rpc, call);
      end = begin(call.request, ctx);
      checkRequest(call.request);
      result = handler(call.request, ctx);
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
    result
      .then(
        (res) => ok(call, end, res),
        (e: unknown) => failed(call, end, e),
      )
      .catch(sendFailed);
  };
  return { kind: 'unary', run: run as (call: UnaryCall<unknown, unknown>) => void };
}

/** The runner of a server-streaming method `rpc`. */
export function serverStreamRunner<Req, Res>(rpc: string, handler: StreamHandler<Req, Res>, begin: CallStart, logger: Logger): RpcHandler {
  const run = (call: ServerStreamCall<Req, Res>): void => {
    let end = REFUSED;
    let done: Promise<void>;
    try {
      const ctx = new Context(rpc, call);
      end = begin(call.request, ctx);
      checkRequest(call.request);
      done = Promise.resolve(handler(call.request, streamWriter(call), ctx));
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
          const s = toGrpcStatus(e, rpc, logger);
          end(statusName(s.code));
          call.fail(s.code, s.details, s.detailsBin);
        },
      )
      .catch((e: unknown) => logger.error(`${rpc}: failed to finish the stream: ${String(e)}`));
  };
  return { kind: 'serverStream', run: run as (call: ServerStreamCall<unknown, unknown>) => void };
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

/** The runner of a method of any shape that answers UNIMPLEMENTED with `message`, without reading the request. */
export function rejectRunner(rpc: string, message: string, begin: CallStart, logger: Logger): RpcHandler {
  return {
    kind: 'reject',
    run(call: CallBase): void {
      let refusal: unknown;
      try {
        begin(undefined, new Context(rpc, call))('UNIMPLEMENTED');
      } catch (e) {
        refusal = e;
      }
      const s = toGrpcStatus(refusal ?? unimplemented(message), rpc, logger);
      call.fail(s.code, s.details);
    },
  };
}
