import type { ResponseBudget } from './response-budget.js';

/** What a stream's user (a gRPC call) hears from it. */
export interface StreamListener {
  /** A DATA payload of the request (may be a view of the socket's buffer: keep it or copy it, never write to it). */
  data(chunk: Buffer): void;
  /** The client half-closed its side: the request is complete. */
  requestEnded(): void;
  /** The stream is gone (ended both ways, reset by either side, or the connection closed); called once. */
  streamClosed(): void;
  /** Data queued by write() has all gone to the socket after write() reported backpressure. */
  drain(): void;
}

/** What a stream asks of its connection (H2Connection). */
export interface StreamHost {
  sendHeaders(stream: H2Stream, block: Buffer, endStream: boolean): void;
  /** Sends what the windows allow of the stream's queue, then its trailers. */
  pump(stream: H2Stream): void;
  /** Sends a whole response at once if nothing waits and the windows allow; false if not sent. */
  sendWhole(stream: H2Stream, headers: Buffer, part1: Buffer, part2: Buffer, trailers: Buffer): boolean;
  /** Our END_STREAM was queued. */
  localEndSent(stream: H2Stream): void;
  resetStream(stream: H2Stream, code: number): void;
}

/**
 * One stream of an HTTP/2 connection: the request side feeds its listener;
 * the response side is written through it. Its data queue and send window
 * are the output's (output.ts), its receive window the connection's.
 */
export class H2Stream {
  listener: StreamListener | undefined = undefined;
  /** The client sent END_STREAM. */
  remoteEnded = false;
  /** We queued END_STREAM (trailers or a headers-only response). */
  localEnded = false;
  /** Fully closed or reset: nothing more may be sent. */
  closed = false;
  /** Bytes written but not yet handed to the socket (waiting for flow control). */
  queuedBytes = 0;
  /** @internal The peer's window for this stream. */ sendWindow: number;
  /** @internal Our window for this stream, and what has been received since we last replenished it. */ recvWindow: number;
  /** @internal */ recvUnacked = 0;
  /** @internal Data waiting for a window or the socket. */ queue: Buffer[] = [];
  /** @internal Trailers to send after the queue. */ trailers: Buffer | undefined = undefined;
  /** Tell the listener drain() once the queue is empty. */
  wantDrain = false;

  constructor(
    readonly id: number,
    private readonly conn: StreamHost,
    /** @internal The server's response budget (response-budget.ts); the stream's queue counts against it. */
    readonly budget: ResponseBudget,
    sendWindow: number,
    recvWindow: number,
  ) {
    this.sendWindow = sendWindow;
    this.recvWindow = recvWindow;
  }

  /** Sends response headers (`block` is an HPACK block), ending the stream if `endStream`. */
  headers(block: Buffer, endStream: boolean): void {
    if (this.closed || this.localEnded) return;
    this.conn.sendHeaders(this, block, endStream);
    if (endStream) {
      this.localEnded = true;
      this.conn.localEndSent(this);
    }
  }

  /**
   * Queues response data and sends what the windows allow. Returns false when
   * the queue reached `highWater` bytes with this write and could not
   * all be sent (as a Writable's write() would), or when the server's
   * response budget is spent and some of it could not be sent; drain()
   * follows once everything queued has gone.
   */
  write(data: Buffer, highWater: number): boolean {
    if (this.closed || this.localEnded) return false;
    this.queue.push(data);
    this.queuedBytes += data.length;
    this.budget.adjust(data.length);
    const over = this.queuedBytes >= highWater;
    this.conn.pump(this);
    // Past the server's budget, anything left queued is backpressure, whatever the high-water mark.
    if (this.queuedBytes === 0 || (!over && !this.budget.over)) return true;
    this.wantDrain = true;
    return false;
  }

  /** Ends the stream with trailers (an HPACK block), after the data queued so far. */
  end(trailers: Buffer): void {
    if (this.closed || this.localEnded) return;
    this.localEnded = true;
    this.trailers = trailers;
    this.conn.pump(this);
  }

  /**
   * A whole unary response: headers, one DATA payload (given in two parts,
   * e.g. a gRPC message's prefix and body) and trailers, in one buffer when
   * the windows allow (the common case), else through the queue.
   */
  respond(headers: Buffer, part1: Buffer, part2: Buffer, trailers: Buffer): void {
    if (this.closed || this.localEnded) return;
    if (!this.conn.sendWhole(this, headers, part1, part2, trailers)) {
      this.headers(headers, false);
      this.write(part1, Infinity);
      this.write(part2, Infinity);
      this.end(trailers);
    }
  }

  /** Resets the stream (RST_STREAM with `code`); its listener hears streamClosed. */
  reset(code: number): void {
    this.conn.resetStream(this, code);
  }
}
