import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { HpackDecoder, encodeHeaderBlock } from '../hpack.js';

/**
 * A raw HTTP/2 client for tests of tabletop's HTTP/2 layer: frames built
 * byte by byte, what the server sends read back as frames. Official
 * clients never send most of what these tests send.
 */

/** The echo test service (../../testing/echo-transport.ts), named here so that this file imports nothing outside h2/. */
const SERVICE = 'test.Echo';

export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

export interface Frame {
  readonly type: number;
  readonly flags: number;
  readonly id: number;
  readonly payload: Buffer;
}

export function frame(type: number, flags: number, id: number, payload: Buffer | number[] = []): Buffer {
  const p = Buffer.from(payload);
  const h = Buffer.alloc(9);
  h.writeUIntBE(p.length, 0, 3);
  h[3] = type;
  h[4] = flags;
  h.writeUInt32BE(id, 5);
  return Buffer.concat([h, p]);
}

export const u32 = (v: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(v);
  return b;
};
export const settings = (pairs: [number, number][] = []): Buffer =>
  frame(
    4,
    0,
    0,
    Buffer.concat(
      pairs.map(([k, v]) => {
        const b = Buffer.alloc(6);
        b.writeUInt16BE(k);
        b.writeUInt32BE(v, 2);
        return b;
      }),
    ),
  );
export const grpcMessage = (body: Buffer): Buffer => Buffer.concat([Buffer.from([0]), u32(body.length), body]);
export const requestHeaders = (method = 'Unary', extra: [string, string][] = []): Buffer =>
  encodeHeaderBlock([
    [':method', 'POST'],
    [':scheme', 'http'],
    [':path', `/${SERVICE}/${method}`],
    [':authority', 'localhost'],
    ['content-type', 'application/grpc'],
    ['te', 'trailers'],
    ...extra,
  ]);

/** A raw HTTP/2 client: writes bytes, reads frames. */
export class RawClient {
  readonly frames: Frame[] = [];
  closed = false;
  private buf = Buffer.alloc(0);
  private waiters: (() => void)[] = [];

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buf = Buffer.concat([this.buf, chunk]);
      while (this.buf.length >= 9) {
        const len = this.buf.readUIntBE(0, 3);
        if (this.buf.length < 9 + len) break;
        this.frames.push({
          type: this.buf[3]!,
          flags: this.buf[4]!,
          id: this.buf.readUInt32BE(5) & 0x7fffffff,
          payload: this.buf.subarray(9, 9 + len),
        });
        this.buf = this.buf.subarray(9 + len);
      }
      this.wake();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  static async connect(port: number, clientSettings: Buffer = settings()): Promise<RawClient> {
    const socket = await new Promise<net.Socket>((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1', () => resolve(s));
      s.once('error', reject);
    });
    const c = new RawClient(socket);
    socket.write(Buffer.concat([PREFACE, clientSettings]));
    return c;
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  send(...bufs: Buffer[]): void {
    this.socket.write(Buffer.concat(bufs));
  }

  /** Waits until a frame matching `pred` has arrived (or the socket closed, or 5 s). */
  async until(pred: (f: Frame) => boolean): Promise<Frame | undefined> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const f = this.frames.find(pred);
      if (f !== undefined || this.closed || Date.now() > deadline) return f;
      await Promise.race([new Promise<void>((r) => this.waiters.push(r)), sleep(100)]);
    }
  }

  /** The GOAWAY error code the server closed with. */
  async goAwayCode(): Promise<number | undefined> {
    const f = await this.until((x) => x.type === 7);
    return f?.payload.readUInt32BE(4);
  }

  /** Frames of one stream, decoded: header blocks (in order) and the DATA bytes. */
  stream(id: number): { headers: Record<string, string | string[]>[]; data: Buffer; ended: boolean } {
    const decoder = new HpackDecoder();
    const headers: Record<string, string | string[]>[] = [];
    const data: Buffer[] = [];
    let ended = false;
    for (const f of this.frames) {
      // Every header block goes through the decoder (its table is connection state).
      if (f.type === 1) {
        const block = decoder.decode(f.payload);
        if (f.id === id) headers.push(block);
      }
      if (f.id !== id) continue;
      if (f.type === 0) data.push(f.payload);
      if ((f.type === 0 || f.type === 1) && (f.flags & 1) !== 0) ended = true;
    }
    return { headers, data: Buffer.concat(data), ended };
  }

  close(): void {
    this.socket.destroy();
  }
}
