import http2 from 'node:http2';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DATA,
  FLAG_END_HEADERS,
  FLAG_END_STREAM,
  HEADERS,
  MAX_WINDOW,
  SETTINGS_INITIAL_WINDOW_SIZE,
  encodeFrame,
  encodeSettings,
  encodeWindowUpdate,
} from './h2/frame-codec.js';
import { encodeHeaderBlock } from './h2/hpack.js';
import { type EchoServer, SERVICE, callUnary, startEchoServer } from './testing/echo-transport.js';

/**
 * Flow control end to end: a 200 MiB response streamed to a client that
 * stops reading for a while (the handler must be held back, not buffer the
 * lot), a large request uploaded through the server's receive windows, and
 * the server-wide bound on buffered response bytes.
 */

let server: EchoServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const MiB = 1024 * 1024;

describe('h2 transport: flow control', () => {
  it('streams a 200 MiB response with backpressure: a paused client holds the handler back', async () => {
    const messages = 200;
    let produced = 0;
    let waits = 0;
    server = await startEchoServer({
      stream: async (_req, out) => {
        for (let i = 0; i < messages; i++) {
          const m = Buffer.alloc(MiB, i & 0xff);
          m.writeUInt32BE(i, 0);
          produced++;
          const w = out.write(m);
          if (w instanceof Promise) {
            waits++;
            if (!(await w)) return;
          } else if (!w) return;
        }
      },
    });
    // A raw HTTP/2 client with default (64 KiB) windows, so that the server's buffering is what is tested.
    const session = http2.connect(`http://${server.address}`);
    const req = session.request({ ':method': 'POST', ':path': `/${SERVICE}/Stream`, 'content-type': 'application/grpc', te: 'trailers' });
    req.end(Buffer.from([0, 0, 0, 0, 0]));
    req.pause();
    await new Promise((r) => setTimeout(r, 500));
    // Paused: the client's 64 KiB window fills, the first 1 MiB message stays queued past the
    // write high-water mark, and the handler waits instead of producing the other 199.
    expect(produced).toBeLessThanOrEqual(2);

    let bytes = 0;
    let pending: Buffer = Buffer.alloc(0);
    let nextIndex = 0;
    let ok = true;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (pending.length >= 5) {
        const len = pending.readUInt32BE(1);
        if (pending.length < 5 + len) break;
        const msg = pending.subarray(5, 5 + len);
        if (len !== MiB || msg.readUInt32BE(0) !== nextIndex || msg[MiB - 1] !== (nextIndex & 0xff)) ok = false;
        nextIndex++;
        pending = pending.subarray(5 + len);
      }
    });
    const trailers = new Promise<http2.IncomingHttpHeaders>((resolve) => req.on('trailers', resolve));
    req.resume();
    expect((await trailers)['grpc-status']).toBe('0');
    session.close();
    expect(ok).toBe(true);
    expect(nextIndex).toBe(messages);
    expect(bytes).toBe(messages * (MiB + 5));
    expect(waits).toBeGreaterThan(messages / 2);
  }, 120_000);

  it('receives a 64 MiB request through its flow-control windows', async () => {
    server = await startEchoServer({ unary: (req) => Buffer.from(`${req.length}:${req[0]}:${req[req.length - 1]}`) });
    const big = Buffer.alloc(64 * MiB, 7);
    const started = performance.now();
    const r = await callUnary(server.client, big);
    const seconds = (performance.now() - started) / 1000;
    expect(r.response?.toString()).toBe(`${64 * MiB}:7:7`);
    // Loopback moves this in well under a second when the windows are large; a stall shows as seconds.
    expect(seconds).toBeLessThan(20);
  }, 60_000);
});

describe('h2 transport: the server-wide response budget', () => {
  it('bounds what peers that never read hold, serves a reader that keeps up meanwhile, and gives every byte back', async () => {
    const message = 64 * 1024;
    const perStream = 400; // 25 MiB each, were nothing held back
    const budget = 2 * MiB;
    let produced = 0;
    server = await startEchoServer(
      {
        stream: async (_req, out) => {
          for (let i = 0; i < perStream; i++) {
            produced++;
            const w = out.write(Buffer.alloc(message, i & 0xff));
            if (w instanceof Promise ? !(await w) : !w) return;
          }
        },
      },
      { maxBufferedResponseBytes: budget },
    );
    const s = server;
    // Peers that open the stream with the largest windows HTTP/2 allows and never read a byte.
    const silent: net.Socket[] = [];
    const peers = 20;
    for (let i = 0; i < peers; i++) {
      const sock = net.connect(s.port, '127.0.0.1');
      sock.on('error', () => {});
      sock.write(
        Buffer.concat([
          PREFACE,
          encodeSettings([[SETTINGS_INITIAL_WINDOW_SIZE, MAX_WINDOW]]),
          encodeWindowUpdate(0, MAX_WINDOW - 65_535),
          encodeFrame(HEADERS, FLAG_END_HEADERS, 1, STREAM_HEADERS),
          encodeFrame(DATA, FLAG_END_STREAM, 1, Buffer.from([0, 0, 0, 0, 0])),
        ]),
      );
      sock.pause();
      silent.push(sock);
    }
    await expect.poll(() => s.metrics.inFlight(SERVICE, 'Stream'), { timeout: 10_000 }).toBe(peers);
    await sleep(1000);
    const held = s.transport.bufferedResponseBytes;
    // The budget, then at most what one write leaves queued and one socket write per peer (output.ts MAX_UNFLUSHED).
    expect(held).toBeLessThanOrEqual(budget + peers * (message + 256 * 1024 + message));
    expect(produced).toBeLessThan(peers * perStream);
    // Past the budget, a client that reads still gets everything, at once.
    const fast = await streamAll(s.newClient(), 30_000);
    expect(fast).toEqual({ code: 0, messages: perStream, bytes: perStream * message });
    for (const sock of silent) sock.destroy();
    await expect.poll(() => s.metrics.inFlight(SERVICE, 'Stream'), { timeout: 10_000 }).toBe(0);
    await expect.poll(() => s.transport.bufferedResponseBytes, { timeout: 10_000 }).toBe(0);
  }, 60_000);
});

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const STREAM_HEADERS = encodeHeaderBlock([
  [':method', 'POST'],
  [':scheme', 'http'],
  [':path', `/${SERVICE}/Stream`],
  [':authority', 'x'],
  ['content-type', 'application/grpc'],
  ['te', 'trailers'],
]);

/** A server stream read to its end through grpc-js: its status, message count and bytes. */
function streamAll(client: grpc.Client, deadlineMillis: number): Promise<{ code: number; messages: number; bytes: number }> {
  return new Promise((resolve) => {
    const id = (b: Buffer): Buffer => b;
    const call = client.makeServerStreamRequest(`/${SERVICE}/Stream`, id, id, Buffer.alloc(0), { deadline: Date.now() + deadlineMillis });
    let messages = 0;
    let bytes = 0;
    call.on('data', (m: Buffer) => {
      messages++;
      bytes += m.length;
    });
    call.on('error', () => {});
    call.on('status', (st: grpc.StatusObject) => resolve({ code: st.code, messages, bytes }));
  });
}
