import type net from 'node:net';
import {
  CONTINUATION,
  DATA,
  DEFAULT_WINDOW,
  FLAG_ACK,
  FLAG_END_HEADERS,
  FLAG_END_STREAM,
  FLAG_PADDED,
  FLAG_PRIORITY,
  type FrameSink,
  FrameReader,
  GOAWAY,
  HEADERS,
  MAX_FRAME_IN,
  MAX_WINDOW,
  PING,
  PRIORITY,
  PUSH_PROMISE,
  RST_STREAM,
  SETTINGS,
  SETTINGS_ENABLE_PUSH,
  SETTINGS_HEADER_TABLE_SIZE,
  SETTINGS_INITIAL_WINDOW_SIZE,
  SETTINGS_MAX_CONCURRENT_STREAMS,
  SETTINGS_MAX_FRAME_SIZE,
  SETTINGS_MAX_HEADER_LIST_SIZE,
  WINDOW_UPDATE,
} from './frame-codec.js';
import {
  H2_CANCEL,
  H2_COMPRESSION_ERROR,
  H2_ENHANCE_YOUR_CALM,
  H2_FLOW_CONTROL_ERROR,
  H2_FRAME_SIZE_ERROR,
  H2_INTERNAL_ERROR,
  H2_NO_ERROR,
  H2_PROTOCOL_ERROR,
  H2_REFUSED_STREAM,
  H2_STREAM_CLOSED,
} from './error-codes.js';
import { type HeaderMap, HpackDecoder, HpackError } from './hpack.js';
import { H2Output, type OutputHost } from './output.js';
import { type ResponseBudget, unlimitedBudget } from './response-budget.js';
import { H2Stream, type StreamHost } from './stream.js';

export * from './error-codes.js';
export { H2Stream, type StreamListener } from './stream.js';

/**
 * The server side of one HTTP/2 connection (RFC 9113) on a TCP socket,
 * written for gRPC: cleartext with prior knowledge, client-initiated streams
 * only, no server push, no priorities. It replaces node:http2, whose
 * per-stream objects and event machinery cost about 45 µs of server CPU per
 * unary call on our machines (bench/profile.ts --floor, against a server on
 * this layer).
 *
 * The layer is in parts, as Go's golang.org/x/net/http2 separates its
 * Framer, write scheduler and server connection:
 *  - frame-codec.ts: the wire format; FrameReader cuts the socket's bytes
 *    into frames (enforcing the frame size we advertise), and the control
 *    frames are encoded there;
 *  - output.ts: what leaves and when: the socket write batch, the peer's
 *    windows (data waits in its stream while they are closed, and while the
 *    socket's buffer is full), response header blocks (HEADERS +
 *    CONTINUATION);
 *  - stream.ts: one stream, the object a call holds;
 *  - error-codes.ts: the error codes of RST_STREAM and GOAWAY;
 *  - this file: inbound handling and the connection's state: each frame's
 *    rules (RFC 9113 §6), HPACK decoding of request header blocks with one
 *    decoder per connection (response blocks are pre-encoded by the caller),
 *    our receive windows, the streams and their lifecycle, SETTINGS, PING
 *    and GOAWAY. Protocol violations end the connection with GOAWAY and the
 *    error code.
 *
 * Streams: REFUSED_STREAM past MAX_CONCURRENT_STREAMS or after GOAWAY; a
 * stream we end while the client is still sending is reset with NO_ERROR;
 * RST_STREAM from the client closes the stream (its call is cancelled).
 * Connection: SETTINGS and their ACK, PING answers and our own pings
 * (keepalive), graceful GOAWAY (close) and immediate close (destroy).
 *
 * Output is batched: frames produced by one piece of work (a socket read
 * and the frames it carried, or the promise jobs of a handler) leave in one
 * socket write, flushed from process.nextTick. A peer that stops reading
 * cannot make the server buffer without bound (output.ts). Client resets are
 * rate-limited as nghttp2 does (a burst of 1,000, then 33 per second; past
 * that, GOAWAY ENHANCE_YOUR_CALM), so that opening and cancelling streams in
 * a loop cannot start handlers without limit.
 */

/** Client stream resets: a token bucket (nghttp2's defaults). */
const RESET_BURST = 1000;
const RESETS_PER_SECOND = 33;
/** A header block may take at most this many CONTINUATION frames. */
const MAX_CONTINUATIONS = 1024;
/** A connection that has sent GOAWAY or failed is destroyed if its socket has not closed after this long. */
const CLOSE_TIMEOUT_MILLIS = 5000;

export interface ConnectionOptions {
  readonly maxConcurrentStreams: number;
  /** Our receive windows: per stream (SETTINGS_INITIAL_WINDOW_SIZE) and for the connection. */
  readonly streamWindowBytes: number;
  readonly connectionWindowBytes: number;
  /** SETTINGS_MAX_HEADER_LIST_SIZE: larger request header lists are refused. */
  readonly maxHeaderListBytes: number;
  /** The server's response budget, shared by its connections (response-budget.ts); none: unlimited. */
  readonly responseBudget?: ResponseBudget;
}

export interface ConnectionHooks {
  /** A new stream with its request headers; set `stream.listener` before returning to hear of it. */
  stream(stream: H2Stream, headers: HeaderMap): void;
  /** A stream's header list was larger than maxHeaderListBytes; the hook answers it (the headers are not given). */
  oversizedHeaders(stream: H2Stream, listBytes: number): void;
  /** Any stream closed (after its listener heard streamClosed). */
  streamClosed(): void;
  /** The socket closed; every stream has been closed before. */
  closed(): void;
}

interface PendingPing {
  readonly payload: Buffer;
  readonly callback: (err: Error | null) => void;
}

export class H2Connection implements FrameSink, StreamHost, OutputHost {
  private readonly streams = new Map<number, H2Stream>();
  private readonly reader = new FrameReader(this);
  private readonly out: H2Output;
  private readonly decoder = new HpackDecoder();
  private lastStreamId = 0;
  private settingsSeen = false;
  /** A header block being continued: its stream, the HEADERS flags, the fragments so far. */
  private continued: { id: number; flags: number; parts: Buffer[]; bytes: number; frames: number; selfDependent: boolean } | undefined;

  private peerInitialWindow = DEFAULT_WINDOW;
  /** Received on the connection since we last replenished its window. */
  private recvUnacked = 0;

  /** GOAWAY sent: no new streams; the socket ends once the streams are done. */
  private goingAway = false;
  private ended = false;
  private socketClosed = false;
  private resetTokens = RESET_BURST;
  private resetTokensAt = performance.now();
  /** Our windows as advertised (clamped to the protocol's maximum). */
  private readonly streamWindow: number;
  private readonly connectionWindow: number;
  private pings: PendingPing[] = [];
  private pingCount = 0;

  constructor(
    private readonly socket: net.Socket,
    private readonly opts: ConnectionOptions,
    private readonly hooks: ConnectionHooks,
  ) {
    this.out = new H2Output(socket, this, opts.responseBudget ?? unlimitedBudget());
    this.streamWindow = Math.min(MAX_WINDOW, opts.streamWindowBytes);
    this.connectionWindow = Math.max(DEFAULT_WINDOW, Math.min(MAX_WINDOW, opts.connectionWindowBytes));
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.received(chunk));
    socket.on('drain', () => {
      if (this.out.drained() && !this.ended) socket.resume();
      this.out.pumpAll();
    });
    socket.on('error', () => {
      // 'close' follows.
    });
    socket.on('close', () => this.socketGone());
    this.out.settings([
      [SETTINGS_MAX_CONCURRENT_STREAMS, opts.maxConcurrentStreams],
      [SETTINGS_INITIAL_WINDOW_SIZE, this.streamWindow],
      [SETTINGS_MAX_HEADER_LIST_SIZE, opts.maxHeaderListBytes],
    ]);
    const extra = this.connectionWindow - DEFAULT_WINDOW;
    if (extra > 0) this.out.windowUpdate(0, extra);
    socket.resume();
  }

  /** Open streams. */
  get streamCount(): number {
    return this.streams.size;
  }

  /** GOAWAY was sent or the connection is gone. */
  get closed(): boolean {
    return this.goingAway || this.ended;
  }

  /** The socket is closed. */
  get destroyed(): boolean {
    return this.socketClosed;
  }

  // --- reading ---

  private received(chunk: Buffer): void {
    if (this.ended) return;
    try {
      this.reader.push(chunk);
    } catch (e) {
      // A bug of ours must end this connection, not the process (this runs in a socket listener).
      this.connectionError(H2_INTERNAL_ERROR, `internal error: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** @internal FrameSink */
  badPreface(): void {
    this.socket.destroy();
  }

  /** @internal FrameSink */
  frameTooLarge(length: number): void {
    this.connectionError(H2_FRAME_SIZE_ERROR, `frame of ${length} bytes, over SETTINGS_MAX_FRAME_SIZE ${MAX_FRAME_IN}`);
  }

  /** @internal FrameSink: one frame from the client. */
  frame(type: number, flags: number, id: number, buf: Buffer, start: number, end: number): void {
    if (!this.settingsSeen) {
      if (type !== SETTINGS || (flags & FLAG_ACK) !== 0) {
        this.connectionError(H2_PROTOCOL_ERROR, 'the first frame must be SETTINGS');
        return;
      }
      this.settingsSeen = true;
    }
    if (this.continued !== undefined && type !== CONTINUATION) {
      this.connectionError(H2_PROTOCOL_ERROR, 'a header block was interrupted by another frame');
      return;
    }
    switch (type) {
      case DATA:
        return this.dataIn(flags, id, buf, start, end);
      case HEADERS:
        return this.headersIn(flags, id, buf, start, end);
      case CONTINUATION:
        return this.continuationIn(flags, id, buf, start, end);
      case SETTINGS:
        return this.settingsIn(flags, id, buf, start, end);
      case PING:
        return this.pingIn(flags, id, buf, start, end);
      case WINDOW_UPDATE:
        return this.windowUpdateIn(id, buf, start, end);
      case RST_STREAM:
        return this.rstStreamIn(id, buf, start, end);
      case GOAWAY:
        if (id !== 0) return this.connectionError(H2_PROTOCOL_ERROR, 'GOAWAY on a stream');
        if (end - start < 8) return this.connectionError(H2_FRAME_SIZE_ERROR, 'GOAWAY payload shorter than 8 bytes');
        // The client will open no more streams; the connection ends with the last of them.
        this.goingAway = true;
        this.endIfDone();
        return;
      case PRIORITY:
        if (id === 0) return this.connectionError(H2_PROTOCOL_ERROR, 'PRIORITY on stream 0');
        if (end - start !== 5) {
          if (this.streams.has(id)) this.streamError(id, H2_FRAME_SIZE_ERROR);
          else this.connectionError(H2_FRAME_SIZE_ERROR, 'PRIORITY payload must be 5 bytes');
        } else if ((buf.readUInt32BE(start) & 0x7fffffff) === id) {
          this.streamError(id, H2_PROTOCOL_ERROR);
        }
        return;
      case PUSH_PROMISE:
        return this.connectionError(H2_PROTOCOL_ERROR, 'a client sent PUSH_PROMISE');
      default:
        // Unknown frame types are ignored (RFC 9113 §4.1).
        return;
    }
  }

  /** The payload of a padded frame without its padding, or undefined (after a connection error) if the padding is impossible. */
  private unpad(flags: number, buf: Buffer, start: number, end: number): number | undefined {
    if ((flags & FLAG_PADDED) === 0) return end;
    if (start >= end || buf[start]! >= end - start) {
      this.connectionError(H2_PROTOCOL_ERROR, 'padding longer than the frame');
      return undefined;
    }
    return end - buf[start]!;
  }

  private dataIn(flags: number, id: number, buf: Buffer, start: number, end: number): void {
    if (id === 0) return this.connectionError(H2_PROTOCOL_ERROR, 'DATA on stream 0');
    const length = end - start;
    // Flow control counts the whole frame, padding included, whatever becomes of the stream.
    this.sendWindowUpdates(length);
    const stream = this.streams.get(id);
    if (stream === undefined) {
      if (id > this.lastStreamId) return this.connectionError(H2_PROTOCOL_ERROR, `DATA on idle stream ${id}`);
      return; // A stream we closed or reset; the client may not know yet.
    }
    if (stream.remoteEnded) return this.streamError(id, H2_STREAM_CLOSED);
    stream.recvWindow -= length;
    if (stream.recvWindow < 0) return this.streamError(id, H2_FLOW_CONTROL_ERROR);
    const dataEnd = this.unpad(flags, buf, start, end);
    if (dataEnd === undefined) return;
    const dataStart = (flags & FLAG_PADDED) !== 0 ? start + 1 : start;
    const endStream = (flags & FLAG_END_STREAM) !== 0;
    if (!endStream) {
      stream.recvUnacked += length;
      if (stream.recvUnacked >= this.streamWindow / 2) {
        this.out.windowUpdate(id, stream.recvUnacked);
        stream.recvWindow += stream.recvUnacked;
        stream.recvUnacked = 0;
      }
    }
    if (dataEnd > dataStart) stream.listener?.data(buf.subarray(dataStart, dataEnd));
    if (endStream) this.remoteEnd(stream);
  }

  private sendWindowUpdates(length: number): void {
    this.recvUnacked += length;
    if (this.recvUnacked >= this.connectionWindow / 2) {
      this.out.windowUpdate(0, this.recvUnacked);
      this.recvUnacked = 0;
    }
  }

  private remoteEnd(stream: H2Stream): void {
    if (stream.closed) return;
    stream.remoteEnded = true;
    stream.listener?.requestEnded();
    if (stream.localEnded && stream.queue.length === 0 && stream.trailers === undefined) this.closeStream(stream);
  }

  private headersIn(flags: number, id: number, buf: Buffer, start: number, end: number): void {
    if (id === 0 || id % 2 === 0) return this.connectionError(H2_PROTOCOL_ERROR, `HEADERS on stream ${id}`);
    const dataEnd = this.unpad(flags, buf, start, end);
    if (dataEnd === undefined) return;
    let fragmentStart = (flags & FLAG_PADDED) !== 0 ? start + 1 : start;
    if ((flags & FLAG_PRIORITY) !== 0) fragmentStart += 5;
    if (fragmentStart > dataEnd) return this.connectionError(H2_FRAME_SIZE_ERROR, 'HEADERS too short for its fields');
    // A stream cannot depend on itself (RFC 9113 §5.3.1): a stream error, once the block is decoded.
    const selfDependent = (flags & FLAG_PRIORITY) !== 0 && (buf.readUInt32BE(fragmentStart - 5) & 0x7fffffff) === id;
    const fragment = buf.subarray(fragmentStart, dataEnd);
    if ((flags & FLAG_END_HEADERS) === 0) {
      // Copied: the socket's buffer is not kept across reads.
      this.continued = { id, flags, parts: [Buffer.from(fragment)], bytes: fragment.length, frames: 1, selfDependent };
      return;
    }
    this.headerBlock(id, flags, fragment, selfDependent);
  }

  private continuationIn(flags: number, id: number, buf: Buffer, start: number, end: number): void {
    const c = this.continued;
    if (c === undefined || c.id !== id) return this.connectionError(H2_PROTOCOL_ERROR, 'CONTINUATION without a header block to continue');
    if (end > start) c.parts.push(Buffer.from(buf.subarray(start, end)));
    c.bytes += end - start;
    // An encoded block cannot be much larger than the list it decodes to; refuse endless ones early
    // (empty CONTINUATION frames included).
    if (c.bytes > 4 * this.opts.maxHeaderListBytes + 65_536 || ++c.frames > MAX_CONTINUATIONS) {
      return this.connectionError(H2_ENHANCE_YOUR_CALM, 'header block too large');
    }
    if ((flags & FLAG_END_HEADERS) === 0) return;
    this.continued = undefined;
    this.headerBlock(id, c.flags, Buffer.concat(c.parts), c.selfDependent);
  }

  private headerBlock(id: number, flags: number, block: Buffer, dependsOnItself: boolean): void {
    let headers: HeaderMap;
    try {
      headers = this.decoder.decode(block);
    } catch (e) {
      if (e instanceof HpackError) return this.connectionError(H2_COMPRESSION_ERROR, e.message);
      throw e;
    }
    const listBytes = this.decoder.listBytes;
    const endStream = (flags & FLAG_END_STREAM) !== 0;
    const existing = this.streams.get(id);
    if (existing !== undefined) {
      // Trailers from the client: they must end the stream, and carry no pseudo-header.
      if (existing.remoteEnded) return this.streamError(id, H2_STREAM_CLOSED);
      if (!endStream || this.decoder.pseudoFields > 0 || this.decoder.malformed !== undefined)
        return this.streamError(id, H2_PROTOCOL_ERROR);
      this.remoteEnd(existing);
      return;
    }
    // A stream that has closed (we answered or reset it; the client may not know yet): ignored,
    // its block having been decoded to keep the HPACK table in step.
    if (id <= this.lastStreamId) return;
    this.lastStreamId = id;
    // A malformed request (RFC 9113 §8.1.1): reset, before anything serves it.
    const path = headers[':path'];
    if (
      this.decoder.malformed !== undefined ||
      headers[':method'] === undefined ||
      headers[':scheme'] === undefined ||
      path === undefined ||
      path === '' ||
      dependsOnItself
    ) {
      this.out.rstStream(id, H2_PROTOCOL_ERROR);
      return;
    }
    if (this.goingAway || this.streams.size >= this.opts.maxConcurrentStreams) {
      this.out.rstStream(id, H2_REFUSED_STREAM);
      return;
    }
    const stream = new H2Stream(id, this, this.out.budget, this.peerInitialWindow, this.streamWindow);
    this.streams.set(id, stream);
    // A request that ends with its headers is known to have ended before it is answered
    // (an answer then needs no RST_STREAM to stop the client sending).
    if (endStream) stream.remoteEnded = true;
    if (listBytes > this.opts.maxHeaderListBytes) this.hooks.oversizedHeaders(stream, listBytes);
    else this.hooks.stream(stream, headers);
    if (endStream && !stream.closed) stream.listener?.requestEnded();
  }

  private settingsIn(flags: number, id: number, buf: Buffer, start: number, end: number): void {
    if (id !== 0) return this.connectionError(H2_PROTOCOL_ERROR, 'SETTINGS on a stream');
    if ((flags & FLAG_ACK) !== 0) {
      if (end !== start) this.connectionError(H2_FRAME_SIZE_ERROR, 'SETTINGS ACK with a payload');
      return;
    }
    if ((end - start) % 6 !== 0) return this.connectionError(H2_FRAME_SIZE_ERROR, 'SETTINGS payload not a multiple of 6');
    let initialWindow: number | undefined;
    for (let p = start; p < end; p += 6) {
      const key = buf.readUInt16BE(p);
      const value = buf.readUInt32BE(p + 2);
      if (key === SETTINGS_HEADER_TABLE_SIZE) {
        // Our blocks use no dynamic table, but a change of its allowed size must still be
        // acknowledged by a size update at the start of our next block (RFC 7541 §4.2).
        this.out.headerTableSizeChanged();
      } else if (key === SETTINGS_ENABLE_PUSH && value > 1) {
        return this.connectionError(H2_PROTOCOL_ERROR, 'SETTINGS_ENABLE_PUSH must be 0 or 1');
      } else if (key === SETTINGS_INITIAL_WINDOW_SIZE) {
        if (value > MAX_WINDOW) return this.connectionError(H2_FLOW_CONTROL_ERROR, 'SETTINGS_INITIAL_WINDOW_SIZE over 2^31-1');
        initialWindow = value;
      } else if (key === SETTINGS_MAX_FRAME_SIZE) {
        if (value < 16_384 || value > 16_777_215)
          return this.connectionError(H2_PROTOCOL_ERROR, `SETTINGS_MAX_FRAME_SIZE ${value} out of range`);
        this.out.peerMaxFrame = value;
      }
      // MAX_CONCURRENT_STREAMS: we open none. MAX_HEADER_LIST_SIZE: our response header lists
      // are small. Others: ignored (§6.5.2).
    }
    // Only the last INITIAL_WINDOW_SIZE of a frame counts: the streams are adjusted once.
    if (initialWindow !== undefined && initialWindow !== this.peerInitialWindow) {
      const delta = initialWindow - this.peerInitialWindow;
      this.peerInitialWindow = initialWindow;
      for (const s of this.streams.values()) {
        s.sendWindow += delta;
        if (s.sendWindow > MAX_WINDOW) return this.connectionError(H2_FLOW_CONTROL_ERROR, 'a stream window grew over 2^31-1');
      }
      this.out.settingsAck();
      if (delta > 0) for (const s of this.streams.values()) if (s.queue.length > 0) this.out.pump(s);
      return;
    }
    this.out.settingsAck();
  }

  private pingIn(flags: number, id: number, buf: Buffer, start: number, end: number): void {
    if (id !== 0) return this.connectionError(H2_PROTOCOL_ERROR, 'PING on a stream');
    if (end - start !== 8) return this.connectionError(H2_FRAME_SIZE_ERROR, 'PING payload must be 8 bytes');
    const payload = buf.subarray(start, end);
    if ((flags & FLAG_ACK) === 0) {
      this.out.ping(true, payload);
      return;
    }
    const i = this.pings.findIndex((p) => p.payload.equals(payload));
    if (i < 0) return;
    const [ping] = this.pings.splice(i, 1);
    ping!.callback(null);
  }

  private windowUpdateIn(id: number, buf: Buffer, start: number, end: number): void {
    if (end - start !== 4) return this.connectionError(H2_FRAME_SIZE_ERROR, 'WINDOW_UPDATE payload must be 4 bytes');
    const increment = buf.readUInt32BE(start) & 0x7fffffff;
    if (id === 0) {
      if (increment === 0) return this.connectionError(H2_PROTOCOL_ERROR, 'WINDOW_UPDATE of 0');
      this.out.sendWindow += increment;
      if (this.out.sendWindow > MAX_WINDOW) return this.connectionError(H2_FLOW_CONTROL_ERROR, 'connection window over 2^31-1');
      this.out.pumpAll();
      return;
    }
    const stream = this.streams.get(id);
    if (stream === undefined) {
      if (id > this.lastStreamId) this.connectionError(H2_PROTOCOL_ERROR, `WINDOW_UPDATE on idle stream ${id}`);
      return;
    }
    if (increment === 0) return this.streamError(id, H2_PROTOCOL_ERROR);
    stream.sendWindow += increment;
    if (stream.sendWindow > MAX_WINDOW) return this.streamError(id, H2_FLOW_CONTROL_ERROR);
    this.out.pump(stream);
  }

  private rstStreamIn(id: number, buf: Buffer, start: number, end: number): void {
    if (id === 0) return this.connectionError(H2_PROTOCOL_ERROR, 'RST_STREAM on stream 0');
    if (end - start !== 4) return this.connectionError(H2_FRAME_SIZE_ERROR, 'RST_STREAM payload must be 4 bytes');
    const stream = this.streams.get(id);
    if (stream === undefined) {
      if (id > this.lastStreamId) this.connectionError(H2_PROTOCOL_ERROR, `RST_STREAM on idle stream ${id}`);
      return;
    }
    const now = performance.now();
    this.resetTokens = Math.min(RESET_BURST, this.resetTokens + ((now - this.resetTokensAt) / 1000) * RESETS_PER_SECOND);
    this.resetTokensAt = now;
    if (this.resetTokens < 1) return this.connectionError(H2_ENHANCE_YOUR_CALM, 'too many stream resets');
    this.resetTokens--;
    this.closeStream(stream);
  }

  // --- streams ---

  /** @internal A stream error: reset the stream, keep the connection. */
  private streamError(id: number, code: number): void {
    const stream = this.streams.get(id);
    if (stream !== undefined) this.resetStream(stream, code);
    else this.out.rstStream(id, code);
  }

  /** @internal */
  resetStream(stream: H2Stream, code: number): void {
    if (stream.closed) return;
    this.out.rstStream(stream.id, code);
    this.closeStream(stream);
  }

  private closeStream(stream: H2Stream): void {
    if (stream.closed) return;
    stream.closed = true;
    stream.queue = [];
    this.out.budget.adjust(-stream.queuedBytes);
    stream.queuedBytes = 0;
    stream.trailers = undefined;
    this.streams.delete(stream.id);
    this.out.forget(stream);
    stream.listener?.streamClosed();
    this.hooks.streamClosed();
    this.endIfDone();
  }

  /** @internal Our END_STREAM went out (headers-only response, or trailers after the data). */
  localEndSent(stream: H2Stream): void {
    // Ending while the client still sends: tell it to stop ("early server closure").
    if (!stream.remoteEnded) this.out.rstStream(stream.id, H2_NO_ERROR);
    this.closeStream(stream);
  }

  /** @internal StreamHost */
  sendHeaders(stream: H2Stream, block: Buffer, endStream: boolean): void {
    this.out.headers(stream.id, block, endStream);
  }

  /** @internal StreamHost */
  pump(stream: H2Stream): void {
    this.out.pump(stream);
  }

  /** @internal StreamHost */
  sendWhole(stream: H2Stream, headers: Buffer, part1: Buffer, part2: Buffer, trailers: Buffer): boolean {
    return this.out.sendWhole(stream, headers, part1, part2, trailers);
  }

  // --- connection ---

  /** Sends a PING; `callback` hears null when its ACK arrives. False if the connection is closing. */
  ping(callback: (err: Error | null) => void): boolean {
    if (this.ended) return false;
    const payload = Buffer.alloc(8);
    payload.writeUInt32BE(++this.pingCount, 4);
    this.pings.push({ payload, callback });
    this.out.ping(false, payload);
    return true;
  }

  /** Graceful close: GOAWAY now; streams already open finish; the socket ends after the last. */
  close(): void {
    if (this.goingAway || this.ended) return;
    this.goingAway = true;
    this.out.goAway(this.lastStreamId, H2_NO_ERROR, '');
    this.endIfDone();
  }

  /** Closes at once: GOAWAY with `code`, every stream closed (their calls cancelled), the socket destroyed. */
  destroy(code = H2_CANCEL): void {
    if (this.socketClosed) return;
    if (this.ended) {
      // Already ending (GOAWAY sent, waiting for the peer to read it): stop waiting.
      this.socket.destroy();
      return;
    }
    this.out.goAway(this.lastStreamId, code, '');
    this.finish(true);
  }

  private connectionError(code: number, message: string): void {
    if (this.ended) return;
    this.out.goAway(this.lastStreamId, code, message);
    this.finish(false);
  }

  private endIfDone(): void {
    if (this.goingAway && !this.ended && this.streams.size === 0) this.finish(false);
  }

  /** Ends the connection: flushes what is queued, closes every stream, then ends (or destroys) the socket. */
  private finish(destroy: boolean): void {
    this.ended = true;
    this.reader.stop();
    this.out.flush();
    for (const s of [...this.streams.values()]) this.closeStream(s);
    this.failPings();
    if (destroy) {
      this.socket.destroy();
      return;
    }
    const socket = this.socket;
    socket.end(() => socket.destroy());
    // A peer that no longer reads would keep the socket (and a shutdown waiting for it) forever.
    setTimeout(() => socket.destroy(), CLOSE_TIMEOUT_MILLIS).unref();
  }

  private socketGone(): void {
    this.socketClosed = true;
    this.ended = true;
    this.reader.stop();
    this.out.socketGone();
    for (const s of [...this.streams.values()]) this.closeStream(s);
    this.failPings();
    this.hooks.closed();
  }

  private failPings(): void {
    const pings = this.pings;
    this.pings = [];
    for (const p of pings) p.callback(new Error('the connection closed'));
  }
}
