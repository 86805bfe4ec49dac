import type {
  ServerDuplexStream,
  ServerReadableStream,
  ServerUnaryCall,
  ServerWritableStream,
  UntypedHandleCall,
  sendUnaryData,
} from '@grpc/grpc-js';
import type { CallBase, ServerStreamCall, UnaryCall } from '../rpc.js';
import type { AnyMethod } from '../protos.js';

/**
 * The transport-neutral calls of rpc.ts over grpc-js call objects: the grpc-js
 * handler functions that run a neutral handler. Used when the server runs on
 * the grpc-js transport (ServerTuning.transport 'grpc-js').
 */

function statusError(code: number, details: string): Error & { code: number; details: string } {
  return Object.assign(new Error(details), { code, details });
}

export function grpcJsUnary(run: (call: UnaryCall<unknown, unknown>) => void): UntypedHandleCall {
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
      fail(code: number, details: string): void {
        if (ended) return;
        ended = true;
        callback(statusError(code, details));
      },
    });
  };
}

export function grpcJsServerStream(run: (call: ServerStreamCall<unknown, unknown>) => void): UntypedHandleCall {
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
      fail: (code: number, details: string): void => {
        call.emit('error', statusError(code, details));
      },
    });
  };
}

/** A handler of any method shape that runs `run` at once; incoming request messages are dropped. */
export function grpcJsReject(method: AnyMethod, run: (call: CallBase) => void): UntypedHandleCall {
  const base = (call: { metadata: CallBase['metadata']; cancelled: boolean }, fail: (e: Error) => void): CallBase => ({
    metadata: call.metadata,
    get cancelled() {
      return call.cancelled;
    },
    fail: (code: number, details: string) => fail(statusError(code, details)),
  });
  if (!method.requestStream && !method.responseStream) {
    return (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => run(base(call, (e) => callback(e)));
  }
  if (!method.requestStream) {
    return (call: ServerWritableStream<unknown, unknown>) => run(base(call, (e) => call.emit('error', e)));
  }
  if (!method.responseStream) {
    return (call: ServerReadableStream<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      call.on('data', () => {});
      run(base(call, (e) => callback(e)));
    };
  }
  return (call: ServerDuplexStream<unknown, unknown>) => {
    call.on('data', () => {});
    run(base(call, (e) => call.emit('error', e)));
  };
}
