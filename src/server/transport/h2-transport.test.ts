import { setTimeout as sleep } from 'node:timers/promises';
import zlib from 'node:zlib';
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { invalidArgument } from '../../model/errors.js';
import {
  type EchoHandlers,
  type EchoServer,
  SERVICE,
  callUnary,
  frame,
  rawRequest,
  rawStatus,
  startEchoServer,
} from './testing/echo-transport.js';
import type { ServerTuning } from '../server-config.js';

let server: EchoServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function start(handlers: EchoHandlers, tuning: Partial<ServerTuning> = {}): Promise<EchoServer> {
  server = await startEchoServer(handlers, tuning);
  return server;
}

const b = (s: string): Buffer => Buffer.from(s, 'latin1');
const UNARY = `/${SERVICE}/Unary`;

describe('h2 transport: calls', () => {
  it('answers a unary call with headers, one message and OK trailers', async () => {
    const s = await start({ unary: (req) => Buffer.concat([b('echo:'), req]) });
    await expect(callUnary(s.client, b('hi'))).resolves.toEqual({ code: 0, details: '', response: b('echo:hi') });
    const raw = await rawRequest(s.address, { ':path': UNARY }, [frame(b('raw'))]);
    expect(raw.headers[':status']).toBe(200);
    expect(raw.headers['content-type']).toBe('application/grpc+proto');
    expect(raw.data).toEqual(frame(b('echo:raw')));
    expect(raw.trailers?.['grpc-status']).toBe('0');
    expect(s.metrics.count(SERVICE, 'Unary', 'OK')).toBe(2);
  });

  it('passes metadata: text values as sent, -bin values base64-decoded (padded or not, comma-joined)', async () => {
    const s = await start({
      unary: (_req, ctx) => {
        const text = ctx.metadata.get('x-text');
        const bin = ctx.metadata.get('x-blob-bin');
        return b(
          JSON.stringify({
            text,
            bin: bin.map((v) => (v as Buffer).toString('hex')),
            none: ctx.metadata.get('absent'),
            path: ctx.metadata.get(':path'),
          }),
        );
      },
    });
    const md = new grpc.Metadata();
    md.set('x-text', 'hello world');
    md.set('x-blob-bin', Buffer.from([0, 1, 0xff]));
    const r = await callUnary(s.client, b(''), { metadata: md });
    expect(JSON.parse(r.response!.toString())).toEqual({ text: ['hello world'], bin: ['0001ff'], none: [], path: [] });
    const raw = await rawRequest(s.address, { ':path': UNARY, 'x-text': 'a', 'x-blob-bin': 'AAH/,AQ' }, [frame(b(''))]);
    expect(JSON.parse(raw.data.subarray(5).toString())).toEqual({ text: ['a'], bin: ['0001ff', '01'], none: [], path: [] });
  });

  it('streams messages, then OK; an empty stream is trailers-only', async () => {
    const s = await start({
      stream: async (req, out) => {
        for (let i = 0; i < Number(req.toString()); i++) {
          const w = out.write(b(`m${i}`));
          if (w instanceof Promise) await w;
        }
      },
    });
    const three = await rawRequest(s.address, { ':path': `/${SERVICE}/Stream` }, [frame(b('3'))]);
    expect(three.data).toEqual(Buffer.concat([frame(b('m0')), frame(b('m1')), frame(b('m2'))]));
    expect(rawStatus(three).code).toBe(0);
    expect(three.trailers).toBeDefined();
    const none = await rawRequest(s.address, { ':path': `/${SERVICE}/Stream` }, [frame(b('0'))]);
    expect(none.trailers).toBeUndefined();
    expect(none.headers['grpc-status']).toBe('0');
    expect(none.data.length).toBe(0);
  });

  it('reports a handler error as its status, with grpc-message percent-encoded', async () => {
    const details = 'bad key "k%1" — é\nnext line';
    const s = await start({ unary: () => Promise.reject(invalidArgument(details)) });
    await expect(callUnary(s.client, b('x'))).resolves.toEqual({ code: grpc.status.INVALID_ARGUMENT, details });
    const raw = await rawRequest(s.address, { ':path': UNARY }, [frame(b('x'))]);
    expect(raw.headers['grpc-status']).toBe('3'); // trailers-only: nothing was sent before the error
    expect(raw.headers['grpc-message']).toBe('bad key "k%251" %E2%80%94 %C3%A9%0Anext line');
  });

  it('reports an error after streamed messages in the trailers', async () => {
    const s = await start({
      stream: (_req, out) => {
        out.write(b('one'));
        throw invalidArgument('stopped');
      },
    });
    const raw = await rawRequest(s.address, { ':path': `/${SERVICE}/Stream` }, [frame(b(''))]);
    expect(raw.data).toEqual(frame(b('one')));
    expect(raw.trailers).toMatchObject({ 'grpc-status': '3', 'grpc-message': 'stopped' });
  });

  it('answers UNIMPLEMENTED for unknown services and methods, and rejecting handlers at once', async () => {
    const s = await start({});
    const unknownMethod = await rawRequest(s.address, { ':path': `/${SERVICE}/Nope` }, [frame(b(''))]);
    expect(rawStatus(unknownMethod)).toEqual({ code: 12, message: 'Unknown method Nope for service test.Echo' });
    const unknownService = await rawRequest(s.address, { ':path': '/other.Svc/Unary' }, [frame(b(''))]);
    expect(rawStatus(unknownService)).toEqual({ code: 12, message: 'Unknown service other.Svc' });
    const malformed = await rawRequest(s.address, { ':path': '/nothing' }, [frame(b(''))]);
    expect(rawStatus(malformed).code).toBe(12);
    // A client-streaming method with an UNIMPLEMENTED handler answers before the client finishes sending.
    const open = await rawRequest(s.address, { ':path': `/${SERVICE}/ClientStream` }, [frame(b('a'))], { endStream: false });
    expect(rawStatus(open)).toEqual({ code: 12, message: 'ClientStream (this RPC) is not implemented by tabletop yet' });
  });

  it('answers HTTP 415 to other content types and 405 to other methods', async () => {
    const s = await start({});
    for (const ct of ['application/json', 'application/grpc-web', 'text/plain']) {
      const r = await rawRequest(s.address, { ':path': UNARY, 'content-type': ct }, [frame(b(''))]);
      expect(r.headers[':status'], ct).toBe(415);
    }
    for (const ct of ['application/grpc', 'application/grpc+proto', 'application/grpc;charset=utf-8']) {
      const r = await rawRequest(s.address, { ':path': UNARY, 'content-type': ct }, [frame(b(''))]);
      expect(rawStatus(r).code, ct).toBe(0);
    }
    const get = await rawRequest(s.address, { ':path': UNARY, ':method': 'GET' }, []);
    expect(get.headers[':status']).toBe(405);
  });
});

describe('h2 transport: malformed framing', () => {
  it('rejects a message cut short by the end of the stream', async () => {
    const s = await start({});
    const r = await rawRequest(s.address, { ':path': UNARY }, [frame(b('abc'), { length: 10 })]);
    expect(rawStatus(r)).toEqual({ code: 13, message: 'Truncated request: the stream ended inside a message (Echo/Unary)' });
    const header = await rawRequest(s.address, { ':path': UNARY }, [Buffer.from([0, 0])]);
    expect(rawStatus(header).code).toBe(13);
  });

  it('rejects a compressed flag other than 0 or 1, and a compressed message without grpc-encoding', async () => {
    const s = await start({});
    const bad = await rawRequest(s.address, { ':path': UNARY }, [frame(b('abc'), { flag: 7 })]);
    expect(rawStatus(bad)).toEqual({ code: 13, message: 'Invalid gRPC message: compressed flag is 7, must be 0 or 1' });
    const undeclared = await rawRequest(s.address, { ':path': UNARY }, [frame(zlib.gzipSync(b('abc')), { flag: 1 })]);
    expect(rawStatus(undeclared).code).toBe(13);
    expect(rawStatus(undeclared).message).toMatch(/compressed flag set, but the call declared no grpc-encoding/);
  });

  it('rejects zero or several request messages for a unary call', async () => {
    const s = await start({});
    const none = await rawRequest(s.address, { ':path': UNARY }, []);
    expect(rawStatus(none)).toEqual({ code: 13, message: 'Echo/Unary takes exactly one request message; the client sent none' });
    const two = await rawRequest(s.address, { ':path': UNARY }, [frame(b('a')), frame(b('b'))]);
    expect(rawStatus(two)).toEqual({ code: 13, message: 'Echo/Unary takes exactly one request message; the client sent more' });
    expect(s.metrics.count(SERVICE, 'Unary', 'OK')).toBe(0);
  });

  it('rejects a malformed grpc-timeout', async () => {
    const s = await start({});
    const r = await rawRequest(s.address, { ':path': UNARY, 'grpc-timeout': '1.5S' }, [frame(b(''))]);
    expect(rawStatus(r)).toEqual({ code: 13, message: 'Malformed grpc-timeout "1.5S"' });
  });
});

describe('h2 transport: message size and compression', () => {
  it('rejects a request over maxMessageBytes with RESOURCE_EXHAUSTED before reading it, and keeps the connection', async () => {
    const s = await start({ unary: (req) => b(String(req.length)) }, { maxMessageBytes: 1024 });
    await expect(callUnary(s.client, Buffer.alloc(1024))).resolves.toMatchObject({ code: 0, response: b('1024') });
    const over = await callUnary(s.client, Buffer.alloc(64 * 1024));
    expect(over.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    // Only the header of the big message counts: a declared length alone is rejected.
    const declared = await rawRequest(s.address, { ':path': UNARY }, [frame(b(''), { length: 5000 })], { endStream: false });
    expect(rawStatus(declared)).toEqual({ code: 8, message: 'Received message larger than max (5000 vs. 1024)' });
    await expect(callUnary(s.client, b('after'))).resolves.toMatchObject({ code: 0, response: b('5') });
  });

  it('rejects a response over maxMessageBytes with RESOURCE_EXHAUSTED', async () => {
    const s = await start({ unary: () => Buffer.alloc(2048) }, { maxMessageBytes: 1024 });
    const r = await callUnary(s.client, b(''));
    expect(r.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(r.details).toMatch(/response message of 2048 bytes is larger than the maximum of 1024/);
  });

  it('decompresses gzip and deflate requests (grpc-js client compression)', async () => {
    const s = await start({ unary: (req) => b(`${req.length}:${req.subarray(0, 3).toString()}`) });
    const big = Buffer.concat([b('abc'), Buffer.alloc(100_000, 'z')]);
    for (const algorithm of [1, 2]) {
      const c = s.newClient({ 'grpc.default_compression_algorithm': algorithm });
      await expect(callUnary(c, big)).resolves.toMatchObject({ code: 0, response: b('100003:abc') });
    }
    for (const [encoding, zip] of [
      ['gzip', zlib.gzipSync],
      ['deflate', zlib.deflateSync],
    ] as const) {
      const r = await rawRequest(s.address, { ':path': UNARY, 'grpc-encoding': encoding }, [frame(zip(big), { flag: 1 })]);
      expect(r.data.subarray(5).toString(), encoding).toBe('100003:abc');
    }
  });

  it('stops decompressing at maxMessageBytes (a small compressed message cannot expand past the limit)', async () => {
    const s = await start({ unary: (req) => b(String(req.length)) }, { maxMessageBytes: 64 * 1024 });
    const fits = await rawRequest(s.address, { ':path': UNARY, 'grpc-encoding': 'gzip' }, [
      frame(zlib.gzipSync(Buffer.alloc(64 * 1024)), { flag: 1 }),
    ]);
    expect(fits.data.subarray(5).toString()).toBe(String(64 * 1024));
    const bomb = zlib.gzipSync(Buffer.alloc(10 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const r = await rawRequest(s.address, { ':path': UNARY, 'grpc-encoding': 'gzip' }, [frame(bomb, { flag: 1 })]);
    expect(rawStatus(r)).toEqual({ code: 8, message: `Received message that decompresses to more than the maximum of ${64 * 1024} bytes` });
    const corrupt = await rawRequest(s.address, { ':path': UNARY, 'grpc-encoding': 'gzip' }, [frame(b('not gzip'), { flag: 1 })]);
    expect(rawStatus(corrupt).code).toBe(13);
    expect(rawStatus(corrupt).message).toMatch(/^Failed to decompress the gzip request message/);
  });

  it('rejects an unknown grpc-encoding with UNIMPLEMENTED and the encodings it accepts', async () => {
    const s = await start({});
    const r = await rawRequest(s.address, { ':path': UNARY, 'grpc-encoding': 'snappy' }, [frame(b('x'), { flag: 1 })]);
    expect(rawStatus(r)).toEqual({ code: 12, message: 'Unsupported grpc-encoding "snappy": tabletop accepts identity,deflate,gzip' });
    expect(r.headers['grpc-accept-encoding']).toBe('identity,deflate,gzip');
  });
});

describe('h2 transport: deadlines and cancellation', () => {
  it('ends a call at its grpc-timeout with DEADLINE_EXCEEDED and tells the handler', async () => {
    let sawCancel = false;
    const s = await start({
      unary: async (_req, ctx) => {
        const until = Date.now() + 5000;
        while (!ctx.cancelled() && Date.now() < until) await sleep(5);
        sawCancel = ctx.cancelled();
        return b('late');
      },
    });
    // The server itself sends the status (a raw client has no deadline of its own).
    const started = Date.now();
    const raw = await rawRequest(s.address, { ':path': UNARY, 'grpc-timeout': '150m' }, [frame(b(''))]);
    expect(rawStatus(raw)).toEqual({ code: 4, message: 'Deadline exceeded' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(Date.now() - started).toBeLessThan(2000);
    await expect.poll(() => sawCancel).toBe(true);
    await expect.poll(() => s.metrics.count(SERVICE, 'Unary', 'CANCELLED')).toBe(1);
    // The same through grpc-js, whose deadline becomes grpc-timeout.
    const r = await callUnary(s.client, b(''), { deadlineMillis: 100 });
    expect(r.code).toBe(grpc.status.DEADLINE_EXCEEDED);
  });

  it('answers DEADLINE_EXCEEDED at once for a zero timeout', async () => {
    let ran = false;
    const s = await start({ unary: (req) => ((ran = true), req) });
    const raw = await rawRequest(s.address, { ':path': UNARY, 'grpc-timeout': '0n' }, [frame(b(''))]);
    expect(rawStatus(raw).code).toBe(4);
    expect(ran).toBe(false);
  });

  it('resets a stream whose deadline passes after messages were sent', async () => {
    let stopped = false;
    const s = await start({
      stream: async (_req, out, ctx) => {
        out.write(b('first'));
        while (!ctx.cancelled()) await sleep(5);
        stopped = true;
      },
    });
    const raw = await rawRequest(s.address, { ':path': `/${SERVICE}/Stream`, 'grpc-timeout': '100m' }, [frame(b(''))]);
    expect(raw.data).toEqual(frame(b('first')));
    expect(raw.trailers).toBeUndefined();
    expect(raw.rstCode).toBe(8); // CANCEL
    await expect.poll(() => stopped).toBe(true);
  });

  it('sees a client cancelling mid-stream: writes stop, the handler ends, the call counts as CANCELLED', async () => {
    let written = 0;
    let lastWrite: boolean | undefined;
    let handlerDone = false;
    const s = await start({
      stream: async (_req, out, ctx) => {
        const chunk = Buffer.alloc(64 * 1024, 1);
        while (!ctx.cancelled()) {
          const w = out.write(chunk);
          lastWrite = w instanceof Promise ? await w : w;
          if (!lastWrite) break;
          written++;
        }
        handlerDone = true;
      },
    });
    const call = s.client.makeServerStreamRequest(
      `/${SERVICE}/Stream`,
      (x: Buffer) => x,
      (x: Buffer) => x,
      b(''),
    );
    let received = 0;
    const status = new Promise<grpc.StatusObject>((resolve) => call.on('status', resolve));
    call.on('error', () => {});
    call.on('data', () => {
      if (++received === 20) call.cancel();
    });
    expect((await status).code).toBe(grpc.status.CANCELLED);
    await expect.poll(() => handlerDone).toBe(true);
    expect(lastWrite).toBe(false);
    expect(written).toBeGreaterThanOrEqual(20);
    // Backpressure bounded what was produced beyond what the client took.
    expect(written).toBeLessThan(20 + 400);
    await expect.poll(() => s.metrics.count(SERVICE, 'Stream', 'CANCELLED')).toBe(1);
  });
});

describe('h2 transport: concurrency', () => {
  it('serves many concurrent calls on one connection, beyond maxConcurrentStreams (the client queues)', async () => {
    const s = await start(
      { unary: async (req) => (await sleep(Math.random() * 20), Buffer.concat([req, req])) },
      { maxConcurrentStreams: 50 },
    );
    const n = 1000;
    const results = await Promise.all(Array.from({ length: n }, (_, i) => callUnary(s.client, b(String(i)))));
    results.forEach((r, i) => expect(r.response?.toString()).toBe(`${i}${i}`));
    expect(s.transport.connections).toBe(1);
    expect(s.log.filter((l) => l.startsWith('error'))).toEqual([]);
  });
});
