import http2 from 'node:http2';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { type EchoServer, callUnary, startEchoServer } from './testing/echo-transport.js';

/** Connections over time: graceful shutdown, keepalive, the idle limit, and sockets that never speak HTTP/2. */

let server: EchoServer | undefined;
afterEach(async () => {
  await server?.stop(0);
  server = undefined;
});

const b = (s: string): Buffer => Buffer.from(s, 'latin1');
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const EMPTY_SETTINGS = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]);

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
}

/** Resolves with how long the socket stayed open once it closes. */
function closedAfter(s: net.Socket, since: number): Promise<number> {
  return new Promise((resolve) => (s.destroyed ? resolve(Date.now() - since) : s.once('close', () => resolve(Date.now() - since))));
}

describe('h2 transport: graceful shutdown', () => {
  it('lets a call in flight finish, refuses new calls, then closes', async () => {
    let release: () => void = () => {};
    const s = (server = await startEchoServer({
      unary: async (req) => {
        await new Promise<void>((r) => (release = r));
        return Buffer.concat([b('done:'), req]);
      },
    }));
    const inFlight = callUnary(s.client, b('a'));
    await expect.poll(() => s.metrics.inFlight('test.Echo', 'Unary')).toBe(1);
    let stopped = false;
    const stopping = s.stop(10_000).then(() => (stopped = true));
    await sleep(100);
    expect(stopped).toBe(false);
    // The connection is going away: a new call does not reach the handler.
    const late = await callUnary(s.client, b('b'), { deadlineMillis: 2000 });
    expect(late.code).not.toBe(0);
    release();
    await expect(inFlight).resolves.toEqual({ code: 0, details: '', response: b('done:a') });
    await stopping;
    expect(s.transport.connections).toBe(0);
  });

  it('cancels calls still running when the grace period ends', async () => {
    let sawCancel = false;
    const s = (server = await startEchoServer({
      unary: async (_req, ctx) => {
        while (!ctx.cancelled()) await sleep(5);
        sawCancel = true;
        return b('never sent');
      },
    }));
    const inFlight = callUnary(s.client, b('a'));
    await expect.poll(() => s.metrics.inFlight('test.Echo', 'Unary')).toBe(1);
    const started = Date.now();
    await s.stop(300);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(3000);
    const r = await inFlight;
    expect([grpc.status.CANCELLED, grpc.status.UNAVAILABLE, grpc.status.INTERNAL]).toContain(r.code);
    await expect.poll(() => sawCancel).toBe(true);
    expect(s.log).toContain('warn: calls still running after 300 ms; cancelling them');
  });
});

describe('h2 transport: keepalive and idle connections', () => {
  it('pings an idle connection and drops it when the ping is not answered', async () => {
    const s = (server = await startEchoServer({}, { keepaliveTimeMillis: 100, keepaliveTimeoutMillis: 100 }));
    // A raw client that completes the preface and SETTINGS, then never answers anything.
    const sock = await connect(s.port);
    sock.on('error', () => {});
    const frames: number[] = [];
    sock.on('data', (d: Buffer) => {
      for (let at = 0; at + 9 <= d.length; at += 9 + d.readUIntBE(at, 3)) frames.push(d[at + 3]!);
    });
    const started = Date.now();
    sock.write(Buffer.concat([PREFACE, EMPTY_SETTINGS]));
    const open = await closedAfter(sock, started);
    expect(frames).toContain(6); // PING
    expect(open).toBeGreaterThanOrEqual(190);
    expect(open).toBeLessThan(3000);
  });

  it('keeps a connection that answers pings', async () => {
    const s = (server = await startEchoServer({}, { keepaliveTimeMillis: 50, keepaliveTimeoutMillis: 100 }));
    const session = http2.connect(`http://${s.address}`);
    let pings = 0;
    session.on('ping', () => pings++);
    await sleep(600);
    expect(pings).toBeGreaterThanOrEqual(3);
    expect(session.closed || session.destroyed).toBe(false);
    session.close();
  });

  it('closes a connection idle for maxConnectionIdleMillis with GOAWAY; the client reconnects', async () => {
    const s = (server = await startEchoServer({}, { maxConnectionIdleMillis: 200 }));
    const session = http2.connect(`http://${s.address}`);
    const goaway = new Promise<number>((resolve) => session.once('goaway', (code: number) => resolve(code)));
    const started = Date.now();
    expect(await goaway).toBe(http2.constants.NGHTTP2_NO_ERROR);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    session.destroy();
    // grpc-js reconnects transparently after an idle close.
    await expect(callUnary(s.client, b('x'))).resolves.toMatchObject({ code: 0 });
    await sleep(400);
    await expect(callUnary(s.client, b('y'))).resolves.toMatchObject({ code: 0, response: b('y') });
  });

  it('does not count a connection with a call running as idle', async () => {
    const s = (server = await startEchoServer({ unary: async (req) => (await sleep(500), req) }, { maxConnectionIdleMillis: 100 }));
    const session = http2.connect(`http://${s.address}`);
    let goawayAt: number | undefined;
    session.on('goaway', () => (goawayAt ??= Date.now()));
    const req = session.request({ ':method': 'POST', ':path': '/test.Echo/Unary', 'content-type': 'application/grpc' });
    req.end(Buffer.from([0, 0, 0, 0, 1, 0x61]));
    req.resume();
    const callEnded = await new Promise<number>((resolve) => req.on('close', () => resolve(Date.now())));
    await expect.poll(() => goawayAt, { timeout: 2000 }).toBeDefined();
    expect(goawayAt!).toBeGreaterThanOrEqual(callEnded + 90);
    session.destroy();
  });
});

describe('h2 transport: connections that never speak HTTP/2 (slowloris)', () => {
  it('resets sockets that trickle the preface slower than the deadline, and serves real clients meanwhile', async () => {
    const s = (server = await startEchoServer({}, { prefaceTimeoutMillis: 300 }));
    const started = Date.now();
    const tricklers = await Promise.all(Array.from({ length: 20 }, () => connect(s.port)));
    const timers = tricklers.map((t, i) => {
      t.on('error', () => {});
      let at = 0;
      return setInterval(() => {
        if (at < PREFACE.length && !t.destroyed) t.write(PREFACE.subarray(at, ++at));
      }, 50 + i);
    });
    await expect(callUnary(s.client, b('real'))).resolves.toMatchObject({ code: 0, response: b('real') });
    const lifetimes = await Promise.all(tricklers.map((t) => closedAfter(t, started)));
    timers.forEach(clearInterval);
    expect(Math.max(...lifetimes)).toBeLessThan(3000);
    expect(Math.min(...lifetimes)).toBeGreaterThanOrEqual(250);
  });

  it('resets at once a socket whose first bytes are not the HTTP/2 preface', async () => {
    const s = (server = await startEchoServer({}, { prefaceTimeoutMillis: 10_000 }));
    const sock = await connect(s.port);
    sock.on('error', () => {});
    const started = Date.now();
    sock.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await closedAfter(sock, started)).toBeLessThan(1000);
  });
});
