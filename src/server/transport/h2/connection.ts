import type net from 'node:net';
import { type HeaderMap, HpackDecoder, HpackError } from './hpack.js';

/**
 * The server side of one HTTP/2 connection (RFC 9113) on a TCP socket,
 * written for gRPC: cleartext with prior knowledge, client-initiated streams
 * only, no server push, no priorities. It replaces node:http2, whose
 * per-stream objects and event machinery cost about 45 µs of server CPU per
 * unary call on our machines (bench/profile.ts --floor, against a server on
 * this layer).
 *
 * What it does:
 *  - frames: parses the client's frames from the socket, enforcing the frame
 *    size we advertise, stream-id order and the frame rules of RFC 9113 §6;
 *    protocol violations end the connection with GOAWAY and the error code;
 *  - headers: HPACK-decodes header blocks (HEADERS + CONTINUATION) with one
 *    decoder per connection; response blocks are pre-encoded by the caller;
 *  - flow control, both ways: our receive windows (SETTINGS_INITIAL_WINDOW_SIZE
 *    and a connection window) are replenished as data is handed on; data we
 *    send waits in its stream while the peer's windows are closed, and sending
 *    pauses while the socket's buffer is full;
 *  - streams: REFUSED_STREAM past MAX_CONCURRENT_STREAMS or after GOAWAY; a
 *    stream we end while the client is still sending is reset with NO_ERROR;
 *    RST_STREAM from the client closes the stream (its call is cancelled);
 *  - connection: SETTINGS and their ACK, PING answers and our own pings
 *    (keepalive), graceful GOAWAY (close) and immediate close (destroy).
 *
 * Output is batched: frames produced by one piece of work (a socket read
 * and the frames it carried, or the promise jobs of a handler) leave in one
 * socket write, flushed from process.nextTick.
 *
 * A peer that stops reading cannot make the server buffer without bound:
 * DATA waits in its stream while the socket's buffer is full, and while that
 * buffer holds more than OUTPUT_PAUSE bytes (answers to PINGs, SETTINGS or
 * refused streams the peer keeps sending) the connection stops reading from
 * it. Client resets are rate-limited as nghttp2 does (a burst of 1,000, then
 * 33 per second; past that, GOAWAY ENHANCE_YOUR_CALM), so that opening and
 * cancelling streams in a loop cannot start handlers without limit.
 */

const DATA = 0x0;
const HEADERS = 0x1;
const PRIORITY = 0x2;
const RST_STREAM = 0x3;
const SETTINGS = 0x4;
const PUSH_PROMISE = 0x5;
const PING = 0x6;
const GOAWAY = 0x7;
const WINDOW_UPDATE = 0x8;
const CONTINUATION = 0x9;

const FLAG_END_STREAM = 0x1;
const FLAG_ACK = 0x1;
const FLAG_END_HEADERS = 0x4;
const FLAG_PADDED = 0x8;
const FLAG_PRIORITY = 0x20;

/** HTTP/2 error codes (RFC 9113 §7). */
export const H2_NO_ERROR = 0x0;
export const H2_PROTOCOL_ERROR = 0x1;
export const H2_INTERNAL_ERROR = 0x2;
export const H2_FLOW_CONTROL_ERROR = 0x3;
export const H2_STREAM_CLOSED = 0x5;
export const H2_FRAME_SIZE_ERROR = 0x6;
export const H2_REFUSED_STREAM = 0x7;
export const H2_CANCEL = 0x8;
export const H2_COMPRESSION_ERROR = 0x9;
export const H2_ENHANCE_YOUR_CALM = 0xb;

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const DEFAULT_WINDOW = 65_535;
const MAX_WINDOW = 2 ** 31 - 1;
/** The largest frame payload we accept (SETTINGS_MAX_FRAME_SIZE, the protocol's default). */
const MAX_FRAME_IN = 16_384;
/** DATA payloads up to this size are copied into one buffer with their frame header; larger ones are sent as they are. */
const COPY_BELOW = 1024;
/** A flush of up to this many bytes is joined into one buffer; larger ones are written as a vector. */
const JOIN_BELOW = 16 * 1024;
/** While the socket holds more than this many unsent bytes, the connection reads nothing more from its peer. */
const OUTPUT_PAUSE = 1024 * 1024;
/** Client stream resets: a token bucket (nghttp2's defaults). */
const RESET_BURST = 1000;
const RESETS_PER_SECOND = 33;
/** A header block may take at most this many CONTINUATION frames. */
const MAX_CONTINUATIONS = 1024;
/** A connection that has sent GOAWAY or failed is destroyed if its socket has not closed after this long. */
const CLOSE_TIMEOUT_MILLIS = 5000;
const EMPTY = Buffer.alloc(0);
const TABLE_SIZE_ZERO = Buffer.from([0x20]);

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

export interface ConnectionOptions {
  readonly maxConcurrentStreams: number;
  /** Our receive windows: per stream (SETTINGS_INITIAL_WINDOW_SIZE) and for the connection. */
  readonly streamWindowBytes: number;
  readonly connectionWindowBytes: number;
  /** SETTINGS_MAX_HEADER_LIST_SIZE: larger request header lists are refused. */
  readonly maxHeaderListBytes: number;
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

/** One stream: the request side feeds its listener; the response side is written through it. */
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
  /** @internal */ sendWindow: number;
  /** @internal */ recvWindow: number;
  /** @internal */ recvUnacked = 0;
  /** @internal */ queue: Buffer[] = [];
  /** @internal */ trailers: Buffer | undefined = undefined;
  /** Tell the listener drain() once the queue is empty. */
  wantDrain = false;

  constructor(
    readonly id: number,
    private readonly conn: H2Connection,
    sendWindow: number,
    recvWindow: number,
  ) {
    this.sendWindow = sendWindow;
    this.recvWindow = recvWindow;
  }

  /** Sends response headers (`block` is an HPACK block), ending the stream if `endStream`. */
  headers(block: Buffer, endStream: boolean): void {
    if (this.closed || this.localEnded) return;
    this.conn.sendHeaders(this.id, block, endStream);
    if (endStream) {
      this.localEnded = true;
      this.conn.localEndSent(this);
    }
  }

  /**
   * Queues response data and sends what the windows allow. Returns false when
   * the queue reached `highWater` bytes with this write and could not
   * all be sent (as a Writable's write() would); drain() follows once
   * everything queued has gone.
   */
  write(data: Buffer, highWater: number): boolean {
    if (this.closed || this.localEnded) return false;
    this.queue.push(data);
    this.queuedBytes += data.length;
    const over = this.queuedBytes >= highWater;
    this.conn.pump(this);
    if (this.queuedBytes === 0 || !over) return true;
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

interface PendingPing {
  readonly payload: Buffer;
  readonly callback: (err: Error | null) => void;
}

export class H2Connection {
  private readonly streams = new Map<number, H2Stream>();
  /** Streams with data or trailers waiting for a window or the socket. */
  private readonly blocked = new Set<H2Stream>();
  private readonly decoder = new HpackDecoder();
  private lastStreamId = 0;
  private prefaceSeen = false;
  private settingsSeen = false;
  /** A frame (or the preface) begun in an earlier read: its pieces, their bytes, and the frame's whole size once its header is in (0 before). */
  private pendingParts: Buffer[] = [];
  private pendingBytes = 0;
  private pendingNeed = 0;
  /** A header block being continued: its stream, the HEADERS flags, the fragments so far. */
  private continued: { id: number; flags: number; parts: Buffer[]; bytes: number; frames: number } | undefined;

  private peerInitialWindow = DEFAULT_WINDOW;
  private peerMaxFrame = 16_384;
  private sendWindow = DEFAULT_WINDOW;
  private recvUnacked = 0;

  private out: Buffer[] = [];
  private outBytes = 0;
  private flushScheduled = false;
  private socketFull = false;

  /** GOAWAY sent: no new streams; the socket ends once the streams are done. */
  private goingAway = false;
  private ended = false;
  private socketClosed = false;
  private readPaused = false;
  /** The client changed SETTINGS_HEADER_TABLE_SIZE: our next header block starts with a table size update. */
  private tableSizeUpdate = false;
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
    this.streamWindow = Math.min(MAX_WINDOW, opts.streamWindowBytes);
    this.connectionWindow = Math.max(DEFAULT_WINDOW, Math.min(MAX_WINDOW, opts.connectionWindowBytes));
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.received(chunk));
    socket.on('drain', () => {
      this.socketFull = false;
      if (this.readPaused) {
        this.readPaused = false;
        if (!this.ended) socket.resume();
      }
      this.pumpAll();
    });
    socket.on('error', () => {
      // 'close' follows.
    });
    socket.on('close', () => this.socketGone());
    const settings = Buffer.alloc(18);
    settings.writeUInt16BE(0x3, 0);
    settings.writeUInt32BE(opts.maxConcurrentStreams, 2);
    settings.writeUInt16BE(0x4, 6);
    settings.writeUInt32BE(this.streamWindow, 8);
    settings.writeUInt16BE(0x6, 12);
    settings.writeUInt32BE(opts.maxHeaderListBytes, 14);
    this.frame(SETTINGS, 0, 0, settings);
    const extra = this.connectionWindow - DEFAULT_WINDOW;
    if (extra > 0) this.windowUpdate(0, extra);
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
      this.receivedUnguarded(chunk);
    } catch (e) {
      // A bug of ours must end this connection, not the process (this runs in a socket listener).
      this.connectionError(H2_INTERNAL_ERROR, `internal error: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private receivedUnguarded(chunk: Buffer): void {
    let pos = 0;
    if (!this.prefaceSeen) {
      let buf = chunk;
      if (this.pendingBytes > 0) {
        buf = Buffer.concat([...this.pendingParts, chunk]);
        this.clearPending();
      }
      if (buf.length < PREFACE.length) {
        this.pendingParts = [buf];
        this.pendingBytes = buf.length;
        return;
      }
      if (buf.compare(PREFACE, 0, PREFACE.length, 0, PREFACE.length) !== 0) {
        this.socket.destroy();
        return;
      }
      this.prefaceSeen = true;
      this.parse(buf, PREFACE.length);
      return;
    }
    if (this.pendingBytes > 0) {
      pos = this.completePending(chunk);
      if (pos < 0 || this.ended) return;
    }
    this.parse(chunk, pos);
  }

  /**
   * Feeds the start of `chunk` to the frame begun in an earlier read; returns
   * where the rest of `chunk` starts once that frame is complete (and
   * handled), or -1 if it still is not. Only the one frame is joined: the rest
   * of the chunk is parsed where it lies.
   */
  private completePending(chunk: Buffer): number {
    let pos = 0;
    if (this.pendingNeed === 0) {
      const take = Math.min(9 - this.pendingBytes, chunk.length);
      this.pendingParts.push(chunk.subarray(0, take));
      this.pendingBytes += take;
      pos = take;
      if (this.pendingBytes < 9) return -1;
      const header = Buffer.concat(this.pendingParts, 9);
      this.pendingParts = [header];
      const length = (header[0]! << 16) | (header[1]! << 8) | header[2]!;
      if (length > MAX_FRAME_IN) {
        this.clearPending();
        this.connectionError(H2_FRAME_SIZE_ERROR, `frame of ${length} bytes, over SETTINGS_MAX_FRAME_SIZE ${MAX_FRAME_IN}`);
        return -1;
      }
      this.pendingNeed = 9 + length;
    }
    const take = Math.min(this.pendingNeed - this.pendingBytes, chunk.length - pos);
    if (take > 0) {
      this.pendingParts.push(chunk.subarray(pos, pos + take));
      this.pendingBytes += take;
      pos += take;
    }
    if (this.pendingBytes < this.pendingNeed) return -1;
    const frame = Buffer.concat(this.pendingParts, this.pendingNeed);
    this.clearPending();
    this.parse(frame, 0);
    return pos;
  }

  private clearPending(): void {
    this.pendingParts = [];
    this.pendingBytes = 0;
    this.pendingNeed = 0;
  }

  /** Handles the whole frames of `buf` from `pos`; keeps a trailing partial frame for the next read. */
  private parse(buf: Buffer, pos: number): void {
    const n = buf.length;
    while (n - pos >= 9 && !this.ended) {
      const length = (buf[pos]! << 16) | (buf[pos + 1]! << 8) | buf[pos + 2]!;
      if (length > MAX_FRAME_IN) {
        this.connectionError(H2_FRAME_SIZE_ERROR, `frame of ${length} bytes, over SETTINGS_MAX_FRAME_SIZE ${MAX_FRAME_IN}`);
        return;
      }
      if (n - pos < 9 + length) {
        this.pendingNeed = 9 + length;
        break;
      }
      const type = buf[pos + 3]!;
      const flags = buf[pos + 4]!;
      const id = buf.readUInt32BE(pos + 5) & 0x7fffffff;
      const start = pos + 9;
      pos = start + length;
      this.frameIn(type, flags, id, buf, start, pos);
    }
    if (pos < n && !this.ended) {
      this.pendingParts = [buf.subarray(pos)];
      this.pendingBytes = n - pos;
    } else this.pendingNeed = 0;
  }

  private frameIn(type: number, flags: number, id: number, buf: Buffer, start: number, end: number): void {
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
        this.windowUpdate(id, stream.recvUnacked);
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
      this.windowUpdate(0, this.recvUnacked);
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
    const fragment = buf.subarray(fragmentStart, dataEnd);
    if ((flags & FLAG_END_HEADERS) === 0) {
      // Copied: the socket's buffer is not kept across reads.
      this.continued = { id, flags, parts: [Buffer.from(fragment)], bytes: fragment.length, frames: 1 };
      return;
    }
    this.headerBlock(id, flags, fragment);
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
    this.headerBlock(id, c.flags, Buffer.concat(c.parts));
  }

  private headerBlock(id: number, flags: number, block: Buffer): void {
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
      // Trailers from the client: they must end the stream.
      if (existing.remoteEnded) return this.streamError(id, H2_STREAM_CLOSED);
      if (!endStream) return this.streamError(id, H2_PROTOCOL_ERROR);
      this.remoteEnd(existing);
      return;
    }
    // A stream that has closed (we answered or reset it; the client may not know yet): ignored,
    // its block having been decoded to keep the HPACK table in step.
    if (id <= this.lastStreamId) return;
    this.lastStreamId = id;
    if (this.goingAway || this.streams.size >= this.opts.maxConcurrentStreams) {
      this.rstStream(id, H2_REFUSED_STREAM);
      return;
    }
    const stream = new H2Stream(id, this, this.peerInitialWindow, this.streamWindow);
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
      if (key === 0x1) {
        // Our blocks use no dynamic table, but a change of its allowed size must still be
        // acknowledged by a size update at the start of our next block (RFC 7541 §4.2).
        this.tableSizeUpdate = true;
      } else if (key === 0x2 && value > 1) {
        return this.connectionError(H2_PROTOCOL_ERROR, 'SETTINGS_ENABLE_PUSH must be 0 or 1');
      } else if (key === 0x4) {
        if (value > MAX_WINDOW) return this.connectionError(H2_FLOW_CONTROL_ERROR, 'SETTINGS_INITIAL_WINDOW_SIZE over 2^31-1');
        initialWindow = value;
      } else if (key === 0x5) {
        if (value < 16_384 || value > 16_777_215) return this.connectionError(H2_PROTOCOL_ERROR, `SETTINGS_MAX_FRAME_SIZE ${value} out of range`);
        this.peerMaxFrame = value;
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
      this.frame(SETTINGS, FLAG_ACK, 0, EMPTY);
      if (delta > 0) for (const s of this.streams.values()) if (s.queue.length > 0) this.pump(s);
      return;
    }
    this.frame(SETTINGS, FLAG_ACK, 0, EMPTY);
  }

  private pingIn(flags: number, id: number, buf: Buffer, start: number, end: number): void {
    if (id !== 0) return this.connectionError(H2_PROTOCOL_ERROR, 'PING on a stream');
    if (end - start !== 8) return this.connectionError(H2_FRAME_SIZE_ERROR, 'PING payload must be 8 bytes');
    const payload = buf.subarray(start, end);
    if ((flags & FLAG_ACK) === 0) {
      this.frame(PING, FLAG_ACK, 0, Buffer.from(payload));
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
      this.sendWindow += increment;
      if (this.sendWindow > MAX_WINDOW) return this.connectionError(H2_FLOW_CONTROL_ERROR, 'connection window over 2^31-1');
      this.pumpAll();
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
    this.pump(stream);
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
    else this.rstStream(id, code);
  }

  /** @internal */
  resetStream(stream: H2Stream, code: number): void {
    if (stream.closed) return;
    this.rstStream(stream.id, code);
    this.closeStream(stream);
  }

  private closeStream(stream: H2Stream): void {
    if (stream.closed) return;
    stream.closed = true;
    stream.queue = [];
    stream.queuedBytes = 0;
    stream.trailers = undefined;
    this.streams.delete(stream.id);
    this.blocked.delete(stream);
    stream.listener?.streamClosed();
    this.hooks.streamClosed();
    this.endIfDone();
  }

  /** @internal Our END_STREAM went out (headers-only response, or trailers after the data). */
  localEndSent(stream: H2Stream): void {
    // Ending while the client still sends: tell it to stop ("early server closure").
    if (!stream.remoteEnded) this.rstStream(stream.id, H2_NO_ERROR);
    this.closeStream(stream);
  }

  /** @internal Sends what the windows and the socket allow of a stream's queue, then its trailers. */
  pump(stream: H2Stream): void {
    if (stream.closed) return;
    const q = stream.queue;
    while (q.length > 0) {
      if (stream.sendWindow <= 0) {
        // Waits for its own WINDOW_UPDATE (or a larger SETTINGS_INITIAL_WINDOW_SIZE), which pumps it.
        this.blocked.delete(stream);
        return;
      }
      const allowed = Math.min(this.sendWindow, stream.sendWindow, this.peerMaxFrame);
      if (allowed <= 0 || this.socketFull) {
        this.blocked.add(stream);
        return;
      }
      // One DATA frame of up to `allowed` bytes, from as many queued buffers as it takes.
      const head = q[0]!;
      let length: number;
      if (head.length >= allowed || q.length === 1) {
        length = Math.min(head.length, allowed);
        this.dataFrame(stream.id, length === head.length ? head : head.subarray(0, length));
        if (length === head.length) q.shift();
        else q[0] = head.subarray(length);
      } else {
        const parts: Buffer[] = [];
        length = 0;
        while (q.length > 0 && length < allowed) {
          const b = q[0]!;
          const take = Math.min(b.length, allowed - length);
          parts.push(take === b.length ? b : b.subarray(0, take));
          length += take;
          if (take === b.length) q.shift();
          else q[0] = b.subarray(take);
        }
        this.dataFrame(stream.id, parts.length === 1 ? parts[0]! : parts);
      }
      this.sendWindow -= length;
      stream.sendWindow -= length;
      stream.queuedBytes -= length;
    }
    this.blocked.delete(stream);
    if (stream.trailers !== undefined) {
      const t = stream.trailers;
      stream.trailers = undefined;
      this.sendHeaders(stream.id, t, true);
      this.localEndSent(stream);
      return;
    }
    if (stream.wantDrain) {
      stream.wantDrain = false;
      stream.listener?.drain();
    }
  }

  /** Pumps the streams waiting for the connection window or the socket, while both allow. */
  private pumpAll(): void {
    for (const s of this.blocked) {
      if (this.socketFull || this.sendWindow <= 0) return;
      this.pump(s);
    }
  }

  /** @internal Headers + one DATA payload + trailers in one buffer, if nothing waits and the windows allow. */
  sendWhole(stream: H2Stream, headers: Buffer, part1: Buffer, part2: Buffer, trailers: Buffer): boolean {
    const n = part1.length + part2.length;
    if (
      this.tableSizeUpdate ||
      stream.queue.length > 0 ||
      n > this.sendWindow ||
      n > stream.sendWindow ||
      n > this.peerMaxFrame ||
      n > JOIN_BELOW ||
      headers.length > this.peerMaxFrame ||
      trailers.length > this.peerMaxFrame
    ) {
      return false;
    }
    const out = Buffer.allocUnsafe(27 + headers.length + n + trailers.length);
    let p = writeFrameHeader(out, 0, headers.length, HEADERS, FLAG_END_HEADERS, stream.id);
    p += headers.copy(out, p);
    p = writeFrameHeader(out, p, n, DATA, 0, stream.id);
    p += part1.copy(out, p);
    p += part2.copy(out, p);
    p = writeFrameHeader(out, p, trailers.length, HEADERS, FLAG_END_HEADERS | FLAG_END_STREAM, stream.id);
    trailers.copy(out, p);
    this.sendWindow -= n;
    stream.sendWindow -= n;
    stream.localEnded = true;
    this.enqueue(out);
    this.localEndSent(stream);
    return true;
  }

  // --- connection ---

  /** Sends a PING; `callback` hears null when its ACK arrives. False if the connection is closing. */
  ping(callback: (err: Error | null) => void): boolean {
    if (this.ended) return false;
    const payload = Buffer.alloc(8);
    payload.writeUInt32BE(++this.pingCount, 4);
    this.pings.push({ payload, callback });
    this.frame(PING, 0, 0, payload);
    return true;
  }

  /** Graceful close: GOAWAY now; streams already open finish; the socket ends after the last. */
  close(): void {
    if (this.goingAway || this.ended) return;
    this.goingAway = true;
    this.goAway(H2_NO_ERROR, '');
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
    this.goAway(code, '');
    this.finish(true);
  }

  private connectionError(code: number, message: string): void {
    if (this.ended) return;
    this.goAway(code, message);
    this.finish(false);
  }

  private endIfDone(): void {
    if (this.goingAway && !this.ended && this.streams.size === 0) this.finish(false);
  }

  /** Ends the connection: flushes what is queued, closes every stream, then ends (or destroys) the socket. */
  private finish(destroy: boolean): void {
    this.ended = true;
    this.clearPending();
    this.flush();
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
    for (const s of [...this.streams.values()]) this.closeStream(s);
    this.failPings();
    this.hooks.closed();
  }

  private failPings(): void {
    const pings = this.pings;
    this.pings = [];
    for (const p of pings) p.callback(new Error('the connection closed'));
  }

  // --- writing frames ---

  private goAway(code: number, message: string): void {
    const debug = Buffer.from(message, 'utf8');
    const payload = Buffer.allocUnsafe(8 + debug.length);
    payload.writeUInt32BE(this.lastStreamId, 0);
    payload.writeUInt32BE(code, 4);
    debug.copy(payload, 8);
    this.frame(GOAWAY, 0, 0, payload);
  }

  private rstStream(id: number, code: number): void {
    const payload = Buffer.allocUnsafe(4);
    payload.writeUInt32BE(code, 0);
    this.frame(RST_STREAM, 0, id, payload);
  }

  private windowUpdate(id: number, increment: number): void {
    const payload = Buffer.allocUnsafe(4);
    payload.writeUInt32BE(increment, 0);
    this.frame(WINDOW_UPDATE, 0, id, payload);
  }

  /** @internal A header block, split into HEADERS + CONTINUATION frames when larger than the peer's frame size. */
  sendHeaders(id: number, block: Buffer, endStream: boolean): void {
    if (this.tableSizeUpdate) {
      // A dynamic table size update to 0: always within the client's limit.
      this.tableSizeUpdate = false;
      block = Buffer.concat([TABLE_SIZE_ZERO, block]);
    }
    const max = this.peerMaxFrame;
    const es = endStream ? FLAG_END_STREAM : 0;
    if (block.length <= max) {
      this.frame(HEADERS, FLAG_END_HEADERS | es, id, block);
      return;
    }
    this.frame(HEADERS, es, id, block.subarray(0, max));
    for (let p = max; p < block.length; p += max) {
      const last = p + max >= block.length;
      this.frame(CONTINUATION, last ? FLAG_END_HEADERS : 0, id, block.subarray(p, p + max));
    }
  }

  private frame(type: number, flags: number, id: number, payload: Buffer): void {
    if (this.socketClosed) return;
    const n = payload.length;
    const out = Buffer.allocUnsafe(9 + n);
    writeFrameHeader(out, 0, n, type, flags, id);
    payload.copy(out, 9);
    this.enqueue(out);
  }

  /** A DATA frame (no flags); payloads above COPY_BELOW go out as they are, behind their header, not copied. */
  private dataFrame(id: number, payload: Buffer | Buffer[]): void {
    if (this.socketClosed) return;
    if (!Array.isArray(payload)) {
      if (payload.length <= COPY_BELOW) return this.frame(DATA, 0, id, payload);
      const header = Buffer.allocUnsafe(9);
      writeFrameHeader(header, 0, payload.length, DATA, 0, id);
      this.enqueue(header);
      this.enqueue(payload);
      return;
    }
    let n = 0;
    for (const p of payload) n += p.length;
    const header = Buffer.allocUnsafe(9);
    writeFrameHeader(header, 0, n, DATA, 0, id);
    if (n <= COPY_BELOW) {
      this.enqueue(Buffer.concat([header, ...payload], 9 + n));
      return;
    }
    this.enqueue(header);
    for (const p of payload) this.enqueue(p);
  }

  private enqueue(b: Buffer): void {
    if (this.socketClosed) return;
    this.out.push(b);
    this.outBytes += b.length;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      process.nextTick(flushConnection, this);
    }
  }

  /** @internal Writes everything queued to the socket in one write. */
  flush(): void {
    this.flushScheduled = false;
    const out = this.out;
    if (out.length === 0 || this.socketClosed || this.socket.destroyed || this.socket.writableEnded) return;
    this.out = [];
    const bytes = this.outBytes;
    this.outBytes = 0;
    let ok: boolean;
    if (out.length === 1) ok = this.socket.write(out[0]!);
    else if (bytes <= JOIN_BELOW) ok = this.socket.write(Buffer.concat(out, bytes));
    else {
      this.socket.cork();
      for (const b of out) this.socket.write(b);
      this.socket.uncork();
      ok = this.socket.writableLength === 0 || !this.socket.writableNeedDrain;
    }
    if (!ok) this.socketFull = true;
    if (this.socket.writableLength > OUTPUT_PAUSE && !this.readPaused) {
      this.readPaused = true;
      this.socket.pause();
    }
  }
}

function flushConnection(c: H2Connection): void {
  c.flush();
}

function writeFrameHeader(out: Buffer, at: number, length: number, type: number, flags: number, id: number): number {
  out[at] = length >>> 16;
  out[at + 1] = (length >>> 8) & 0xff;
  out[at + 2] = length & 0xff;
  out[at + 3] = type;
  out[at + 4] = flags;
  out.writeUInt32BE(id, at + 5);
  return at + 9;
}
