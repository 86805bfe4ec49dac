import type net from 'node:net';
import {
  CONTINUATION,
  DATA,
  DEFAULT_MAX_FRAME,
  DEFAULT_WINDOW,
  FLAG_ACK,
  FLAG_END_HEADERS,
  FLAG_END_STREAM,
  FRAME_HEADER_BYTES,
  HEADERS,
  PING,
  SETTINGS,
  encodeFrame,
  encodeGoAway,
  encodeRstStream,
  encodeSettings,
  encodeWindowUpdate,
  writeFrameHeader,
} from './frame-codec.js';
import type { ResponseBudget } from './response-budget.js';
import type { H2Stream } from './stream.js';

/**
 * What leaves one HTTP/2 connection, and when (Go's http2 has it as its write
 * scheduler and outflow): frames are queued and leave in one socket write per
 * piece of work, flushed from process.nextTick; response data waits in its
 * stream while the peer's windows (the connection's here, each stream's in
 * the stream) are closed or the socket's buffer is full, and is pumped on
 * again by WINDOW_UPDATE, a larger SETTINGS_INITIAL_WINDOW_SIZE or the
 * socket's 'drain'.
 *
 * A peer that stops reading cannot make the server buffer without bound:
 * DATA waits in its stream while the socket's buffer is full or MAX_UNFLUSHED
 * bytes are already on their way to it (however large the peer's windows),
 * and while that buffer holds more than OUTPUT_PAUSE bytes (answers to PINGs,
 * SETTINGS or refused streams the peer keeps sending) the socket is paused
 * (reading nothing more from the peer) until it drains. What waits in the
 * streams and in the socket's buffer counts against the server's
 * ResponseBudget (response-budget.ts).
 */

/** DATA payloads up to this size are copied into one buffer with their frame header; larger ones are sent as they are. */
const COPY_BELOW = 1024;
/** A flush of up to this many bytes is joined into one buffer; larger ones are written as a vector. */
const JOIN_BELOW = 16 * 1024;
/** While the socket holds more than this many unsent bytes, the connection reads nothing more from its peer. */
const OUTPUT_PAUSE = 1024 * 1024;
/** DATA stops moving from the streams to the socket once this many bytes wait for the next flush (or for 'drain'). */
const MAX_UNFLUSHED = 256 * 1024;
const EMPTY = Buffer.alloc(0);
const TABLE_SIZE_ZERO = Buffer.from([0x20]);

/** What the output tells its connection. */
export interface OutputHost {
  /** A stream's END_STREAM was queued by the output (its trailers after its data, or a whole response). */
  localEndSent(stream: H2Stream): void;
}

export class H2Output {
  /** The peer's connection window (the streams' windows are in the streams). */
  sendWindow = DEFAULT_WINDOW;
  /** The peer's SETTINGS_MAX_FRAME_SIZE. */
  peerMaxFrame = DEFAULT_MAX_FRAME;
  /** The client changed SETTINGS_HEADER_TABLE_SIZE: our next header block starts with a table size update. */
  private tableSizeUpdate = false;
  /** Streams with data or trailers waiting for the connection window or the socket. */
  private readonly blocked = new Set<H2Stream>();
  private out: Buffer[] = [];
  private outBytes = 0;
  private flushScheduled = false;
  private socketFull = false;
  private readPaused = false;
  private socketClosed = false;
  /** Bytes of this connection's socket buffer counted in the budget when it was last measured. */
  private socketCounted = 0;
  private pumpScheduled = false;

  constructor(
    private readonly socket: net.Socket,
    private readonly host: OutputHost,
    readonly budget: ResponseBudget,
  ) {}

  /** The socket closed: nothing more is queued. */
  socketGone(): void {
    this.socketClosed = true;
    this.out = [];
    this.outBytes = 0;
    this.budget.adjust(-this.socketCounted);
    this.socketCounted = 0;
  }

  /** The socket's 'drain': writes may go on. Returns whether reading was paused for the socket's buffer (the caller resumes it). */
  drained(): boolean {
    this.socketFull = false;
    this.countSocket();
    const paused = this.readPaused;
    this.readPaused = false;
    return paused;
  }

  /** The client changed SETTINGS_HEADER_TABLE_SIZE. */
  headerTableSizeChanged(): void {
    this.tableSizeUpdate = true;
  }

  /** A closed stream waits for nothing any more. */
  forget(stream: H2Stream): void {
    this.blocked.delete(stream);
  }

  // --- flow control ---

  /** Sends what the windows and the socket allow of a stream's queue, then its trailers. */
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
      if (allowed <= 0 || this.socketFull || this.outBytes >= MAX_UNFLUSHED) {
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
      // From the stream's queue to the socket's: counted again at the flush.
      this.budget.adjust(-length);
    }
    this.blocked.delete(stream);
    if (stream.trailers !== undefined) {
      const t = stream.trailers;
      stream.trailers = undefined;
      this.headers(stream.id, t, true);
      this.host.localEndSent(stream);
      return;
    }
    if (stream.wantDrain) {
      stream.wantDrain = false;
      stream.listener?.drain();
    }
  }

  /** Pumps the streams waiting for the connection window or the socket, while both allow. */
  pumpAll(): void {
    for (const s of this.blocked) {
      if (this.socketFull || this.sendWindow <= 0 || this.outBytes >= MAX_UNFLUSHED) return;
      this.pump(s);
    }
  }

  /** Headers + one DATA payload + trailers in one buffer, if nothing waits and the windows allow; false if not sent. */
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
    const out = Buffer.allocUnsafe(3 * FRAME_HEADER_BYTES + headers.length + n + trailers.length);
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
    this.host.localEndSent(stream);
    return true;
  }

  // --- frames ---

  /** A header block, split into HEADERS + CONTINUATION frames when larger than the peer's frame size. */
  headers(id: number, block: Buffer, endStream: boolean): void {
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

  settings(settings: readonly (readonly [number, number])[]): void {
    if (!this.socketClosed) this.enqueue(encodeSettings(settings));
  }

  settingsAck(): void {
    this.frame(SETTINGS, FLAG_ACK, 0, EMPTY);
  }

  /** A PING (its 8-byte payload is copied), or the ACK of one. */
  ping(ack: boolean, payload: Buffer): void {
    this.frame(PING, ack ? FLAG_ACK : 0, 0, payload);
  }

  rstStream(id: number, code: number): void {
    if (!this.socketClosed) this.enqueue(encodeRstStream(id, code));
  }

  windowUpdate(id: number, increment: number): void {
    if (!this.socketClosed) this.enqueue(encodeWindowUpdate(id, increment));
  }

  goAway(lastStreamId: number, code: number, message: string): void {
    if (!this.socketClosed) this.enqueue(encodeGoAway(lastStreamId, code, message));
  }

  private frame(type: number, flags: number, id: number, payload: Buffer): void {
    if (!this.socketClosed) this.enqueue(encodeFrame(type, flags, id, payload));
  }

  /** A DATA frame (no flags); payloads above COPY_BELOW go out as they are, behind their header, not copied. */
  private dataFrame(id: number, payload: Buffer | Buffer[]): void {
    if (this.socketClosed) return;
    if (!Array.isArray(payload)) {
      if (payload.length <= COPY_BELOW) return this.frame(DATA, 0, id, payload);
      const header = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
      writeFrameHeader(header, 0, payload.length, DATA, 0, id);
      this.enqueue(header);
      this.enqueue(payload);
      return;
    }
    let n = 0;
    for (const p of payload) n += p.length;
    const header = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
    writeFrameHeader(header, 0, n, DATA, 0, id);
    if (n <= COPY_BELOW) {
      this.enqueue(Buffer.concat([header, ...payload], FRAME_HEADER_BYTES + n));
      return;
    }
    this.enqueue(header);
    for (const p of payload) this.enqueue(p);
  }

  // --- the socket ---

  /** Queues bytes for the socket; they leave in the next flush (process.nextTick), with everything queued until then. */
  enqueue(b: Buffer): void {
    if (this.socketClosed) return;
    this.out.push(b);
    this.outBytes += b.length;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      process.nextTick(flushOutput, this);
    }
  }

  /** Writes everything queued to the socket in one write. */
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
    this.countSocket();
    if (this.socket.writableLength > OUTPUT_PAUSE && !this.readPaused) {
      this.readPaused = true;
      this.socket.pause();
    }
    // Streams held back by MAX_UNFLUSHED go on once this write is out of the way ('drain' does it when one comes).
    if (!this.socketFull && !this.socket.writableNeedDrain && this.blocked.size > 0 && !this.pumpScheduled) {
      this.pumpScheduled = true;
      setImmediate(pumpOutput, this);
    }
  }

  /** @internal */
  scheduledPump(): void {
    this.pumpScheduled = false;
    if (!this.socketClosed) this.pumpAll();
  }

  /** Counts what the socket's buffer holds now in the budget. */
  private countSocket(): void {
    if (this.socketClosed) return;
    const now = this.socket.writableLength;
    if (now !== this.socketCounted) {
      this.budget.adjust(now - this.socketCounted);
      this.socketCounted = now;
    }
  }
}

function flushOutput(o: H2Output): void {
  o.flush();
}

function pumpOutput(o: H2Output): void {
  o.scheduledPump();
}
