import * as grpc from '@grpc/grpc-js';
import type { AnyMethod } from '../protos.js';

/**
 * Sends raw request bytes to a method of any shape (unary, server, client or
 * bidi streaming) through a grpc-js client with identity codecs, and
 * resolves with the final status: what the fuzz tests need to see the
 * server's answer to bytes no typed client would send.
 */

export interface RawOutcome {
  readonly code: grpc.status;
  readonly details: string;
  /** Response messages received (a stream is cancelled after `maxMessages`). */
  readonly messages: number;
  /** We cancelled the call (enough messages): its CANCELLED status is ours. */
  readonly cancelledByUs: boolean;
}

/**
 * The statuses a server gives on purpose. INTERNAL and UNKNOWN mean an
 * unexpected exception; DATA_LOSS, UNAVAILABLE and DEADLINE_EXCEEDED cannot
 * come from a request alone.
 */
export const DELIBERATE: ReadonlySet<grpc.status> = new Set<grpc.status>([
  grpc.status.OK,
  grpc.status.INVALID_ARGUMENT,
  grpc.status.NOT_FOUND,
  grpc.status.ALREADY_EXISTS,
  grpc.status.PERMISSION_DENIED,
  grpc.status.FAILED_PRECONDITION,
  grpc.status.UNIMPLEMENTED,
  grpc.status.OUT_OF_RANGE,
  grpc.status.RESOURCE_EXHAUSTED,
  grpc.status.ABORTED,
]);

const id = (x: Buffer): Buffer => x;

export function sendRaw(
  client: grpc.Client,
  method: Pick<AnyMethod, 'path' | 'requestStream' | 'responseStream'>,
  bytes: Buffer,
  options: { deadlineMillis?: number; maxMessages?: number } = {},
): Promise<RawOutcome> {
  const callOptions = { deadline: Date.now() + (options.deadlineMillis ?? 10_000) };
  const maxMessages = options.maxMessages ?? Infinity;
  const path = method.path;
  return new Promise((resolve) => {
    if (!method.requestStream && !method.responseStream) {
      client.makeUnaryRequest(path, id, id, bytes, new grpc.Metadata(), callOptions, (err) =>
        resolve({ code: err ? err.code : grpc.status.OK, details: err?.details ?? '', messages: err ? 0 : 1, cancelledByUs: false }),
      );
      return;
    }
    let messages = 0;
    let cancelledByUs = false;
    const call: grpc.ClientReadableStream<Buffer> | grpc.ClientDuplexStream<Buffer, Buffer> | grpc.ClientWritableStream<Buffer> =
      !method.requestStream
        ? client.makeServerStreamRequest(path, id, id, bytes, new grpc.Metadata(), callOptions)
        : method.responseStream
          ? client.makeBidiStreamRequest(path, id, id, new grpc.Metadata(), callOptions)
          : client.makeClientStreamRequest(path, id, id, new grpc.Metadata(), callOptions, () => {});
    call.on('data', () => {
      if (++messages >= maxMessages && !cancelledByUs) {
        cancelledByUs = true;
        call.cancel();
      }
    });
    call.on('error', () => {});
    call.on('status', (s: grpc.StatusObject) => resolve({ code: s.code, details: s.details, messages, cancelledByUs }));
    if (method.requestStream) {
      const w = call as grpc.ClientWritableStream<Buffer>;
      w.write(bytes);
      w.end();
    }
  });
}
