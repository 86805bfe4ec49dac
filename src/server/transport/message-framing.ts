import { Status } from '../status-codes.js';

/**
 * gRPC length-prefixed messages (PROTOCOL-HTTP2.md, "Length-Prefixed-Message"):
 *
 *   Length-Prefixed-Message := Compressed-Flag Message-Length Message
 *   Compressed-Flag         := 0x00 | 0x01                (1 byte)
 *   Message-Length          := uint32, big endian         (4 bytes)
 *   Message                 := Message-Length bytes
 *
 * DATA frame boundaries bear no relation to message boundaries: a message
 * may span many chunks and a chunk may hold several messages.
 *
 * Worked example: the 3-byte message 0a 01 61, uncompressed, is framed as
 *   00 00 00 00 03 0a 01 61
 */

export const HEADER_BYTES = 5;

/**
 * One received message: its bytes as sent, in the pieces they arrived in
 * (views of the DATA frames; joinMessage joins them), and whether the sender
 * compressed them.
 */
export interface RawMessage {
  readonly compressed: boolean;
  readonly parts: readonly Buffer[];
}

/** A message's bytes in one buffer (its only piece, or a copy of its pieces joined). */
export function joinMessage(m: RawMessage): Buffer {
  const parts = m.parts;
  return parts.length === 1 ? parts[0]! : parts.length === 0 ? EMPTY : Buffer.concat(parts);
}

/** A violation of the framing; `code` is the gRPC status it is reported with. */
export class FramingError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const EMPTY = Buffer.alloc(0);

/**
 * Splits a stream of chunks into messages. A declared length above
 * `maxMessageBytes` fails at once, before any of the message is buffered.
 */
export class MessageDecoder {
  /** Header bytes of the message being read (only while fewer than 5 have arrived). */
  private header: Buffer | undefined;
  private headerFill = 0;
  /** Body parts of the message being read, and how many bytes are still missing. */
  private parts: Buffer[] = [];
  private missing = 0;
  private compressed = false;
  private inBody = false;

  constructor(private readonly maxMessageBytes: number) {}

  /** True when a message has started but not finished (a truncated stream, if input ends now). */
  get partial(): boolean {
    return this.inBody || this.headerFill > 0;
  }

  /** Feeds a chunk; returns the messages it completed (throws FramingError). */
  push(chunk: Buffer): RawMessage[] {
    const out: RawMessage[] = [];
    let pos = 0;
    const n = chunk.length;
    while (pos < n) {
      if (!this.inBody) {
        // Fast path: a whole header inside this chunk.
        if (this.headerFill === 0 && n - pos >= HEADER_BYTES) {
          this.startBody(chunk[pos]!, chunk.readUInt32BE(pos + 1));
          pos += HEADER_BYTES;
        } else {
          this.header ??= Buffer.allocUnsafe(HEADER_BYTES);
          const take = Math.min(HEADER_BYTES - this.headerFill, n - pos);
          chunk.copy(this.header, this.headerFill, pos, pos + take);
          this.headerFill += take;
          pos += take;
          if (this.headerFill < HEADER_BYTES) break;
          this.headerFill = 0;
          this.startBody(this.header[0]!, this.header.readUInt32BE(1));
        }
        if (this.missing === 0) {
          out.push(this.finish());
          continue;
        }
      }
      const take = Math.min(this.missing, n - pos);
      this.parts.push(take === n && pos === 0 ? chunk : chunk.subarray(pos, pos + take));
      this.missing -= take;
      pos += take;
      if (this.missing === 0) out.push(this.finish());
    }
    return out;
  }

  private startBody(flag: number, length: number): void {
    if (flag > 1) throw new FramingError(Status.INTERNAL, `Invalid gRPC message: compressed flag is ${flag}, must be 0 or 1`);
    if (length > this.maxMessageBytes) {
      throw new FramingError(Status.RESOURCE_EXHAUSTED, `Received message larger than max (${length} vs. ${this.maxMessageBytes})`);
    }
    this.compressed = flag === 1;
    this.missing = length;
    this.inBody = true;
  }

  private finish(): RawMessage {
    const parts = this.parts;
    this.parts = [];
    this.inBody = false;
    return { compressed: this.compressed, parts };
  }
}

/** The 5-byte header of an uncompressed message of `length` bytes. */
export function messageHeader(length: number): Buffer {
  const h = Buffer.allocUnsafe(HEADER_BYTES);
  h[0] = 0;
  h.writeUInt32BE(length, 1);
  return h;
}

/** An uncompressed message with its header, in one buffer (copies the payload). */
export function framedMessage(payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(HEADER_BYTES + payload.length);
  out[0] = 0;
  out.writeUInt32BE(payload.length, 1);
  out.set(payload, HEADER_BYTES);
  return out;
}
