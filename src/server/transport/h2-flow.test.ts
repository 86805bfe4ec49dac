import http2 from 'node:http2';
import { afterEach, describe, expect, it } from 'vitest';
import { type EchoServer, SERVICE, callUnary, startEchoServer } from './testing/echo-transport.js';

/**
 * Flow control end to end: a 200 MiB response streamed to a client that
 * stops reading for a while (the handler must be held back, not buffer the
 * lot), and a large request uploaded through the server's receive windows.
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
