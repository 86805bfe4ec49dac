/**
 * HTTP/2 frames on the wire (RFC 9113 §4, §6), as Go's http2 Framer: the
 * frame types, flags and limits (the error codes are in error-codes.ts);
 * FrameReader, which cuts the client's byte stream (after the connection
 * preface) into whole frames; and the encoders of the control frames the
 * server sends. What a frame
 * means is the connection's business (connection.ts); when frames leave,
 * the output's (output.ts).
 */

export const DATA = 0x0;
export const HEADERS = 0x1;
export const PRIORITY = 0x2;
export const RST_STREAM = 0x3;
export const SETTINGS = 0x4;
export const PUSH_PROMISE = 0x5;
export const PING = 0x6;
export const GOAWAY = 0x7;
export const WINDOW_UPDATE = 0x8;
export const CONTINUATION = 0x9;

export const FLAG_END_STREAM = 0x1;
export const FLAG_ACK = 0x1;
export const FLAG_END_HEADERS = 0x4;
export const FLAG_PADDED = 0x8;
export const FLAG_PRIORITY = 0x20;

/** SETTINGS parameters (RFC 9113 §6.5.2). */
export const SETTINGS_HEADER_TABLE_SIZE = 0x1;
export const SETTINGS_ENABLE_PUSH = 0x2;
export const SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
export const SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
export const SETTINGS_MAX_FRAME_SIZE = 0x5;
export const SETTINGS_MAX_HEADER_LIST_SIZE = 0x6;

/** The frame header's size. */
export const FRAME_HEADER_BYTES = 9;
/** The windows and frame size every connection starts with (RFC 9113 §6.5.2, §6.9.2). */
export const DEFAULT_WINDOW = 65_535;
export const DEFAULT_MAX_FRAME = 16_384;
export const MAX_WINDOW = 2 ** 31 - 1;
/** The largest frame payload we accept (SETTINGS_MAX_FRAME_SIZE, the protocol's default). */
export const MAX_FRAME_IN = DEFAULT_MAX_FRAME;

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/** Where FrameReader's frames go. */
export interface FrameSink {
  /**
   * One whole frame: its payload is `buf[start, end)`, a view of the socket's
   * buffer that is valid only during the call (copy what must be kept).
   */
  frame(type: number, flags: number, id: number, buf: Buffer, start: number, end: number): void;
  /** A frame larger than MAX_FRAME_IN: a connection error of the reader's stream (nothing more is read). */
  frameTooLarge(length: number): void;
  /** The bytes did not start with the client connection preface. */
  badPreface(): void;
}

/**
 * Cuts the client's byte stream into frames: the connection preface first,
 * then frame after frame. Whole frames are handed on where they lie in the
 * socket's buffer; only a frame split across reads is joined (that one frame,
 * not the rest of the read).
 */
export class FrameReader {
  private prefaceSeen = false;
  private stopped = false;
  /** A frame (or the preface) begun in an earlier read: its pieces, their bytes, and the frame's whole size once its header is in (0 before). */
  private pendingParts: Buffer[] = [];
  private pendingBytes = 0;
  private pendingNeed = 0;

  constructor(private readonly sink: FrameSink) {}

  /** Reads no more (the connection ended); drops a partial frame. */
  stop(): void {
    this.stopped = true;
    this.clearPending();
  }

  /** Feeds the next bytes read from the socket. */
  push(chunk: Buffer): void {
    if (this.stopped) return;
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
        this.sink.badPreface();
        return;
      }
      this.prefaceSeen = true;
      this.parse(buf, PREFACE.length);
      return;
    }
    let pos = 0;
    if (this.pendingBytes > 0) {
      pos = this.completePending(chunk);
      if (pos < 0 || this.stopped) return;
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
      const take = Math.min(FRAME_HEADER_BYTES - this.pendingBytes, chunk.length);
      this.pendingParts.push(chunk.subarray(0, take));
      this.pendingBytes += take;
      pos = take;
      if (this.pendingBytes < FRAME_HEADER_BYTES) return -1;
      const header = Buffer.concat(this.pendingParts, FRAME_HEADER_BYTES);
      this.pendingParts = [header];
      const length = (header[0]! << 16) | (header[1]! << 8) | header[2]!;
      if (length > MAX_FRAME_IN) {
        this.clearPending();
        this.sink.frameTooLarge(length);
        return -1;
      }
      this.pendingNeed = FRAME_HEADER_BYTES + length;
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
    while (n - pos >= FRAME_HEADER_BYTES && !this.stopped) {
      const length = (buf[pos]! << 16) | (buf[pos + 1]! << 8) | buf[pos + 2]!;
      if (length > MAX_FRAME_IN) {
        this.sink.frameTooLarge(length);
        return;
      }
      if (n - pos < FRAME_HEADER_BYTES + length) {
        this.pendingNeed = FRAME_HEADER_BYTES + length;
        break;
      }
      const type = buf[pos + 3]!;
      const flags = buf[pos + 4]!;
      const id = buf.readUInt32BE(pos + 5) & 0x7fffffff;
      const start = pos + FRAME_HEADER_BYTES;
      pos = start + length;
      this.sink.frame(type, flags, id, buf, start, pos);
    }
    if (pos < n && !this.stopped) {
      this.pendingParts = [buf.subarray(pos)];
      this.pendingBytes = n - pos;
    } else this.pendingNeed = 0;
  }
}

/** Writes a frame header at `out[at]`; returns where its payload starts. */
export function writeFrameHeader(out: Buffer, at: number, length: number, type: number, flags: number, id: number): number {
  out[at] = length >>> 16;
  out[at + 1] = (length >>> 8) & 0xff;
  out[at + 2] = length & 0xff;
  out[at + 3] = type;
  out[at + 4] = flags;
  out.writeUInt32BE(id, at + 5);
  return at + FRAME_HEADER_BYTES;
}

/** A frame with a copy of `payload`, in one buffer. */
export function encodeFrame(type: number, flags: number, id: number, payload: Buffer): Buffer {
  const n = payload.length;
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + n);
  writeFrameHeader(out, 0, n, type, flags, id);
  payload.copy(out, FRAME_HEADER_BYTES);
  return out;
}

/** A frame whose payload is one 32-bit value (RST_STREAM's error code, WINDOW_UPDATE's increment). */
function u32Frame(type: number, id: number, value: number): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + 4);
  writeFrameHeader(out, 0, 4, type, 0, id);
  out.writeUInt32BE(value, FRAME_HEADER_BYTES);
  return out;
}

export function encodeRstStream(id: number, code: number): Buffer {
  return u32Frame(RST_STREAM, id, code);
}

export function encodeWindowUpdate(id: number, increment: number): Buffer {
  return u32Frame(WINDOW_UPDATE, id, increment);
}

/** SETTINGS with the given [parameter, value] pairs. */
export function encodeSettings(settings: readonly (readonly [number, number])[]): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + 6 * settings.length);
  let p = writeFrameHeader(out, 0, 6 * settings.length, SETTINGS, 0, 0);
  for (const [key, value] of settings) {
    out.writeUInt16BE(key, p);
    out.writeUInt32BE(value, p + 2);
    p += 6;
  }
  return out;
}

/** GOAWAY: the last stream we handle, the error code, and a debug message. */
export function encodeGoAway(lastStreamId: number, code: number, message: string): Buffer {
  const debugBytes = Buffer.byteLength(message, 'utf8');
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + 8 + debugBytes);
  let p = writeFrameHeader(out, 0, 8 + debugBytes, GOAWAY, 0, 0);
  out.writeUInt32BE(lastStreamId, p);
  out.writeUInt32BE(code, p + 4);
  p += 8;
  out.write(message, p, 'utf8');
  return out;
}
