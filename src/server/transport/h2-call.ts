import { Status } from '../status-codes.js';
import type { Logger } from '../logger.js';
import type { Method } from '../method-table.js';
import type { CallBase, RequestMetadata, ServerStreamCall, UnaryCall } from '../rpc.js';
import { ACCEPTED_ENCODINGS, type MessageEncoding, decompress } from './decompress.js';
import { H2_CANCEL, type H2Stream, type StreamListener } from './h2/connection.js';
import { encodeHeaderBlock } from './h2/hpack.js';
import { FramingError, MessageDecoder, type RawMessage, framedMessage, joinMessage, messageHeader } from './message-framing.js';
import { boundedStatusMessage, percentEncodeStatusMessage } from './status-message.js';

/**
 * One gRPC call on one HTTP/2 stream: reads the request message, decodes it
 * and runs the method's handler (its runner, rpc.ts), and encodes and writes
 * the response (PROTOCOL-HTTP2.md):
 *
 *   response := HEADERS(:status 200, content-type) DATA(message)* HEADERS(grpc-status, grpc-message, END_STREAM)
 *             | HEADERS(:status 200, content-type, grpc-status, grpc-message, END_STREAM)   (trailers-only)
 *
 * Trailers-only is used whenever the call ends before its first message (early
 * errors, an empty stream). When the call ends while the client is still
 * sending, the connection then resets the stream with NO_ERROR ("early server
 * closure").
 *
 * Cancellation: the stream closing before the status went out (client
 * RST_STREAM, connection lost, server shutdown) or the grpc-timeout deadline
 * passing sets `cancelled`, and pending drained() promises settle false. At
 * the deadline the client gets DEADLINE_EXCEEDED if nothing was sent yet;
 * otherwise the stream is reset with CANCEL (the client has given up anyway
 * and buffered messages are dropped).
 *
 * Backpressure: write() reports false once more than `highWaterBytes` wait
 * on the stream for the client's flow-control windows or the socket;
 * drained() settles when they have all gone.
 */

export interface CallOptions {
  readonly maxMessageBytes: number;
  /** write() returns false once this many bytes are queued. */
  readonly highWaterBytes: number;
  readonly logger: Logger;
}

/** Messages up to this size are copied behind their header; larger ones go out as two writes. */
const COPY_BELOW = 64 * 1024;

const RESPONSE_FIELDS: [string, string][] = [
  [':status', '200'],
  ['content-type', 'application/grpc+proto'],
  ['grpc-accept-encoding', ACCEPTED_ENCODINGS],
];
const RESPONSE_HEADERS = encodeHeaderBlock(RESPONSE_FIELDS);
const OK_TRAILERS = encodeHeaderBlock([['grpc-status', '0']]);
const OK_TRAILERS_ONLY = encodeHeaderBlock([...RESPONSE_FIELDS, ['grpc-status', '0']]);

/** The status fields of a non-OK end. */
function statusFields(code: number, details: string, detailsBin?: Buffer): [string, string][] {
  const fields: [string, string][] = [
    ['grpc-status', String(code)],
    ['grpc-message', percentEncodeStatusMessage(boundedStatusMessage(details))],
  ];
  // Binary metadata: base64 (the gRPC spec lets senders omit the padding; receivers accept both).
  if (detailsBin !== undefined) fields.push(['grpc-status-details-bin', detailsBin.toString('base64').replace(/=+$/, '')]);
  return fields;
}

/**
 * Ends a stream at once with a trailers-only status (before any call object
 * exists: bad route, bad headers); `extra` are more response headers.
 */
export function rejectStream(
  stream: H2Stream,
  code: number,
  details: string,
  extra: readonly [string, string][] = [],
  detailsBin?: Buffer,
): void {
  const fields = extra.length === 0 ? RESPONSE_FIELDS : RESPONSE_FIELDS.filter(([name]) => !extra.some(([n]) => n === name));
  stream.headers(encodeHeaderBlock([...fields, ...statusFields(code, details, detailsBin), ...extra]), true);
}

function deadlinePassed(call: H2Call): void {
  call.deadlinePassed();
}

export class H2Call implements UnaryCall<unknown, unknown>, ServerStreamCall<unknown, unknown>, CallBase, StreamListener {
  request: unknown = undefined;
  cancelled = false;
  /** Status sent (or being sent), or the stream is gone: nothing more may be written. */
  ended = false;
  private headersSent = false;
  private deadline: NodeJS.Timeout | undefined;
  /** Only once a message spans chunks (the common single-chunk request needs none). */
  private decoder: MessageDecoder | undefined;
  private received: RawMessage | undefined;
  private messages = 0;
  private waiters: ((ok: boolean) => void)[] | undefined;

  constructor(
    private readonly stream: H2Stream,
    readonly metadata: RequestMetadata,
    private readonly method: Method,
    private readonly encoding: MessageEncoding,
    private readonly opts: CallOptions,
  ) {}

  /** Starts reading the request; `timeoutMillis` is the grpc-timeout, if any. */
  start(timeoutMillis: number | undefined): void {
    this.stream.listener = this;
    if (timeoutMillis !== undefined) {
      if (timeoutMillis <= 0) {
        this.deadlinePassed();
        return;
      }
      // Past setTimeout's range (about 24.8 days) the deadline is as good as none.
      if (timeoutMillis < 2 ** 31 - 1) this.deadline = setTimeout(deadlinePassed, timeoutMillis, this);
    }
    if (this.method.handler.kind === 'reject') this.runHandler();
  }

  // --- reading the request (data and requestEnded are called by the stream) ---

  /** A DATA chunk of the request. */
  data(chunk: Buffer): void {
    if (this.ended || this.method.handler.kind === 'reject') return;
    if (this.decoder === undefined) {
      // Fast path: the chunk is exactly one whole message.
      const n = chunk.length;
      if (this.messages === 0 && n >= 5 && chunk[0]! <= 1) {
        const length = chunk.readUInt32BE(1);
        if (length + 5 === n && length <= this.opts.maxMessageBytes) {
          this.messages = 1;
          this.received = { compressed: chunk[0] === 1, parts: [chunk.subarray(5)] };
          return;
        }
      }
      this.decoder = new MessageDecoder(this.opts.maxMessageBytes);
    }
    let messages: RawMessage[];
    try {
      messages = this.decoder.push(chunk);
    } catch (e) {
      this.failFraming(e);
      return;
    }
    for (const m of messages) {
      if (++this.messages > 1) {
        this.fail(Status.INTERNAL, `${this.method.label} takes exactly one request message; the client sent more`);
        return;
      }
      this.received = m;
    }
  }

  /** The client half-closed: the request is complete. */
  requestEnded(): void {
    if (this.ended || this.method.handler.kind === 'reject') return;
    const m = this.received;
    if (this.decoder?.partial === true) {
      this.fail(Status.INTERNAL, `Truncated request: the stream ended inside a message (${this.method.label})`);
    } else if (m === undefined) {
      this.fail(Status.INTERNAL, `${this.method.label} takes exactly one request message; the client sent none`);
    } else if (!m.compressed) {
      this.dispatch(m.parts);
    } else if (this.encoding === 'identity') {
      this.fail(Status.INTERNAL, 'Request message has the compressed flag set, but the call declared no grpc-encoding');
    } else {
      decompress(this.encoding, joinMessage(m), this.opts.maxMessageBytes).then(
        (bytes) => this.dispatch([bytes]),
        (e: unknown) => this.failFraming(e),
      );
    }
  }

  private failFraming(e: unknown): void {
    if (e instanceof FramingError) this.fail(e.code, e.message);
    else this.internalError('reading the request', e);
  }

  /** Decodes the request (from its pieces when the method can, else joined) and runs the handler. */
  private dispatch(parts: readonly Buffer[]): void {
    if (this.ended) return;
    this.received = undefined;
    const method = this.method;
    try {
      this.request =
        parts.length > 1 && method.decodeParts !== undefined
          ? method.decodeParts(parts)
          : method.decode(joinMessage({ compressed: false, parts }));
    } catch (e) {
      // The table's decoders report malformed requests themselves; a throw is a tabletop bug.
      this.internalError('decoding the request', e);
      return;
    }
    this.runHandler();
  }

  private runHandler(): void {
    try {
      this.method.handler.run(this);
    } catch (e) {
      this.internalError('running the handler', e);
    }
  }

  private internalError(what: string, e: unknown): void {
    const message = e instanceof Error ? e.message : String(e);
    this.opts.logger.error(`internal error in ${this.method.label} while ${what}: ${e instanceof Error && e.stack ? e.stack : message}`);
    this.fail(Status.INTERNAL, `Internal error in ${this.method.label} while ${what}: ${message}`);
  }

  // --- writing the response ---

  /** The serialized response, or undefined after failing the call (serializer bug, message too large). */
  private serialize(message: unknown): Buffer | undefined {
    let payload: Buffer;
    try {
      payload = this.method.encode(message);
    } catch (e) {
      this.internalError('encoding the response', e);
      return undefined;
    }
    if (payload.length > this.opts.maxMessageBytes) {
      this.fail(
        Status.RESOURCE_EXHAUSTED,
        `${this.method.label} response message of ${payload.length} bytes is larger than the maximum of ${this.opts.maxMessageBytes}`,
      );
      return undefined;
    }
    return payload;
  }

  respond(response: unknown): void {
    if (this.ended) return;
    const payload = this.serialize(response);
    if (payload === undefined) return;
    if (!this.finishing()) return;
    this.stream.respond(RESPONSE_HEADERS, messageHeader(payload.length), payload, OK_TRAILERS);
  }

  write(message: unknown): boolean {
    if (this.ended) return false;
    const payload = this.serialize(message);
    if (payload === undefined) return false;
    const stream = this.stream;
    if (!this.headersSent) {
      if (stream.closed) return false;
      this.headersSent = true;
      stream.headers(RESPONSE_HEADERS, false);
    }
    const highWater = this.opts.highWaterBytes;
    if (payload.length < COPY_BELOW) return stream.write(framedMessage(payload), highWater);
    stream.write(messageHeader(payload.length), Infinity);
    return stream.write(payload, highWater);
  }

  drained(): Promise<boolean> {
    if (this.ended) return Promise.resolve(false);
    if (this.stream.queuedBytes === 0) return Promise.resolve(true);
    // The stream tells drain() once its queue is empty, whatever write() last returned.
    this.stream.wantDrain = true;
    return new Promise((resolve) => (this.waiters ??= []).push(resolve));
  }

  end(): void {
    if (!this.finishing()) return;
    if (!this.headersSent) this.stream.headers(OK_TRAILERS_ONLY, true);
    else this.stream.end(OK_TRAILERS);
  }

  fail(code: number, details: string, detailsBin?: Buffer): void {
    if (!this.finishing()) return;
    if (!this.headersSent) rejectStream(this.stream, code, details, [], detailsBin);
    else this.stream.end(encodeHeaderBlock(statusFields(code, details, detailsBin)));
  }

  /** Marks the call ended; false when it already was or the stream can no longer carry a status. */
  private finishing(): boolean {
    if (this.ended) return false;
    this.ended = true;
    this.clearDeadline();
    this.settleWaiters(false);
    return !this.stream.closed;
  }

  // --- cancellation (called by the deadline timer and the stream's listeners) ---

  deadlinePassed(): void {
    this.deadline = undefined;
    if (this.ended) return;
    this.cancelled = true;
    if (this.headersSent) {
      this.ended = true;
      this.settleWaiters(false);
      this.stream.reset(H2_CANCEL);
    } else {
      this.fail(Status.DEADLINE_EXCEEDED, 'Deadline exceeded');
    }
  }

  streamClosed(): void {
    this.clearDeadline();
    if (!this.ended) {
      this.ended = true;
      this.cancelled = true;
    }
    this.settleWaiters(false);
  }

  drain(): void {
    this.settleWaiters(!this.ended);
  }

  private settleWaiters(ok: boolean): void {
    const w = this.waiters;
    if (w === undefined) return;
    this.waiters = undefined;
    for (const resolve of w) resolve(ok);
  }

  private clearDeadline(): void {
    if (this.deadline !== undefined) {
      clearTimeout(this.deadline);
      this.deadline = undefined;
    }
  }
}
