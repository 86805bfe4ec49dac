import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type EchoServer, startEchoServer } from '../testing/echo-transport.js';
import {
  H2_COMPRESSION_ERROR,
  H2_ENHANCE_YOUR_CALM,
  H2_FLOW_CONTROL_ERROR,
  H2_FRAME_SIZE_ERROR,
  H2_PROTOCOL_ERROR,
  H2_REFUSED_STREAM,
} from './connection.js';
import { RawClient, frame, grpcMessage, requestHeaders, settings, u32 } from './testing/raw-h2.js';

/**
 * tabletop's HTTP/2 layer frame by frame, through a raw socket: what the
 * official clients never do on purpose (odd frame splits, padding, tiny
 * windows, protocol violations) but a peer may.
 */

let server: EchoServer | undefined;
afterEach(async () => {
  await server?.stop(0);
  server = undefined;
});

describe('h2 connection: frames', () => {
  it("opens with its SETTINGS, acknowledges the client's, and answers PING with the same payload", async () => {
    server = await startEchoServer({}, { maxConcurrentStreams: 77 });
    const c = await RawClient.connect(server.port);
    const s = await c.until((f) => f.type === 4 && f.flags === 0);
    const values = new Map<number, number>();
    for (let p = 0; p < s!.payload.length; p += 6) values.set(s!.payload.readUInt16BE(p), s!.payload.readUInt32BE(p + 2));
    expect(values.get(3)).toBe(77);
    expect(await c.until((f) => f.type === 4 && f.flags === 1)).toBeDefined();
    c.send(frame(6, 0, 0, Buffer.from('12345678')));
    const pong = await c.until((f) => f.type === 6);
    expect(pong).toMatchObject({ flags: 1, id: 0 });
    expect(pong!.payload.toString()).toBe('12345678');
    c.close();
  });

  it('reads a request however it is framed: padding, priority, CONTINUATION, DATA split byte by byte', async () => {
    server = await startEchoServer({ unary: (req) => Buffer.concat([Buffer.from('echo:'), req]) });
    const c = await RawClient.connect(server.port);
    const block = requestHeaders();
    const half = Math.floor(block.length / 2);
    // HEADERS with PADDED (3 bytes of padding) and PRIORITY, ending in a CONTINUATION.
    const first = Buffer.concat([Buffer.from([3]), Buffer.from([0, 0, 0, 0, 16]), block.subarray(0, half), Buffer.alloc(3)]);
    const body = grpcMessage(Buffer.from('hello'));
    const bytes = Buffer.concat([
      frame(1, 0x8 | 0x20, 1, first),
      frame(9, 0x4, 1, block.subarray(half)),
      frame(0, 0x8, 1, Buffer.concat([Buffer.from([2]), body.subarray(0, 4), Buffer.alloc(2)])),
      frame(0, 0x1, 1, body.subarray(4)),
    ]);
    for (const byte of bytes) c.send(Buffer.from([byte]));
    await c.until((f) => f.id === 1 && (f.flags & 1) !== 0);
    const r = c.stream(1);
    expect(r.headers[0]).toMatchObject({ ':status': '200' });
    expect(r.data.subarray(5).toString()).toBe('echo:hello');
    expect(r.headers[1]).toMatchObject({ 'grpc-status': '0' });
    c.close();
  });

  it("sends no more than the client's windows allow, and the rest once they open", async () => {
    const big = Buffer.alloc(40_000, 7);
    server = await startEchoServer({ unary: () => big });
    // Stream windows of 1,000 bytes.
    const c = await RawClient.connect(server.port, settings([[4, 1000]]));
    c.send(frame(1, 0x4, 1, requestHeaders()), frame(0, 0x1, 1, grpcMessage(Buffer.from('x'))));
    await c.until((f) => f.id === 1 && f.type === 0);
    await sleep(100);
    expect(c.stream(1).data.length).toBe(1000);
    expect(c.stream(1).ended).toBe(false);
    // Opening the stream window: the connection window (65,535) is the limit now.
    c.send(frame(8, 0, 1, u32(100_000)));
    await sleep(100);
    expect(c.stream(1).data.length).toBe(40_005);
    expect(c.stream(1).ended).toBe(true);
    // DATA frames never exceed the default SETTINGS_MAX_FRAME_SIZE.
    expect(Math.max(...c.frames.filter((f) => f.type === 0).map((f) => f.payload.length))).toBeLessThanOrEqual(16_384);
    c.close();
  });

  it('refuses streams past MAX_CONCURRENT_STREAMS with REFUSED_STREAM and serves the others', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    server = await startEchoServer({ unary: async (req) => (await gate, req) }, { maxConcurrentStreams: 1 });
    const c = await RawClient.connect(server.port);
    const msg = frame(0, 0x1, 1, grpcMessage(Buffer.from('a')));
    c.send(frame(1, 0x4, 1, requestHeaders()), msg, frame(1, 0x4, 3, requestHeaders()));
    const rst = await c.until((f) => f.type === 3 && f.id === 3);
    expect(rst!.payload.readUInt32BE(0)).toBe(H2_REFUSED_STREAM);
    release();
    await c.until((f) => f.id === 1 && (f.flags & 1) !== 0 && f.type === 1);
    expect(c.stream(1).headers[1]).toMatchObject({ 'grpc-status': '0' });
    c.close();
  });

  it('answers an oversized header list with RESOURCE_EXHAUSTED and keeps the connection', async () => {
    server = await startEchoServer({}, { maxHeaderListBytes: 1000 });
    const c = await RawClient.connect(server.port);
    c.send(frame(1, 0x4, 1, requestHeaders('Unary', [['x-big', 'v'.repeat(2000)]])), frame(0, 0x1, 1, grpcMessage(Buffer.from('a'))));
    await c.until((f) => f.id === 1 && f.type === 1);
    expect(c.stream(1).headers[0]).toMatchObject({ 'grpc-status': '8' });
    c.send(frame(1, 0x4, 3, requestHeaders()), frame(0, 0x1, 3, grpcMessage(Buffer.from('b'))));
    await c.until((f) => f.id === 3 && (f.flags & 1) !== 0);
    expect(c.stream(3).data.subarray(5).toString()).toBe('b');
    c.close();
  });
});

describe('h2 connection: protocol errors end the connection with GOAWAY, and the server keeps serving', () => {
  const cases: [string, (c: RawClient) => void, number][] = [
    ['a frame larger than SETTINGS_MAX_FRAME_SIZE', (c) => c.send(frame(0, 0, 1, Buffer.alloc(16_385))), H2_FRAME_SIZE_ERROR],
    ['HEADERS on an even stream', (c) => c.send(frame(1, 0x4, 2, requestHeaders())), H2_PROTOCOL_ERROR],
    ['a header block the decoder rejects', (c) => c.send(frame(1, 0x4, 1, Buffer.from([0x80]))), H2_COMPRESSION_ERROR],
    ['DATA on a stream never opened', (c) => c.send(frame(0, 0, 5, Buffer.from('x'))), H2_PROTOCOL_ERROR],
    [
      'a frame between HEADERS and its CONTINUATION',
      (c) => c.send(frame(1, 0, 1, requestHeaders()), frame(6, 0, 0, Buffer.alloc(8))),
      H2_PROTOCOL_ERROR,
    ],
    ['a WINDOW_UPDATE past 2^31-1', (c) => c.send(frame(8, 0, 0, u32(0x7fffffff))), H2_FLOW_CONTROL_ERROR],
    ['PUSH_PROMISE from a client', (c) => c.send(frame(5, 0x4, 1, Buffer.alloc(4))), H2_PROTOCOL_ERROR],
  ];
  for (const [what, send, code] of cases) {
    it(what, async () => {
      server ??= await startEchoServer({});
      const c = await RawClient.connect(server.port);
      send(c);
      expect(await c.goAwayCode()).toBe(code);
      await c.until(() => false);
      expect(c.closed).toBe(true);
      // Another connection is served.
      const ok = await RawClient.connect(server.port);
      ok.send(frame(1, 0x4, 1, requestHeaders()), frame(0, 0x1, 1, grpcMessage(Buffer.from('still here'))));
      await ok.until((f) => f.id === 1 && (f.flags & 1) !== 0);
      expect(ok.stream(1).data.subarray(5).toString()).toBe('still here');
      ok.close();
    });
  }

  it('a first frame other than SETTINGS', async () => {
    server = await startEchoServer({});
    const c = await RawClient.connect(server.port, frame(6, 0, 0, Buffer.alloc(8)));
    expect(await c.goAwayCode()).toBe(H2_PROTOCOL_ERROR);
  });
});

describe('h2 connection: hostile and broken peers', () => {
  it('takes header names that are Object.prototype properties as plain names', async () => {
    server = await startEchoServer({});
    const c = await RawClient.connect(server.port);
    c.send(
      frame(
        1,
        0x4,
        1,
        requestHeaders('Unary', [
          ['constructor', 'x'],
          ['__proto__', 'y'],
          ['constructor', 'z'],
          ['tostring', 'w'],
        ]),
      ),
      frame(0, 0x1, 1, grpcMessage(Buffer.from('alive'))),
    );
    await c.until((f) => f.id === 1 && (f.flags & 1) !== 0);
    expect(c.stream(1).data.subarray(5).toString()).toBe('alive');
    c.close();
  });

  it('stops reading from a peer that floods PINGs and never reads the answers', async () => {
    server = await startEchoServer({});
    const c = await RawClient.connect(server.port);
    c.socket.pause();
    const ping = frame(6, 0, 0, Buffer.alloc(8));
    const flood = Buffer.concat(Array.from({ length: 1_500_000 }, () => ping)); // 25.5 MB
    await sleep(50);
    const before = process.memoryUsage();
    c.socket.write(flood);
    await sleep(1500);
    const after = process.memoryUsage();
    // Each unread answer kept would cost ~100 bytes of heap and buffers: 150 MB for all of them.
    expect(after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers)).toBeLessThan(60 * 1024 * 1024);
    // The server stopped taking the flood: most of it is still in this client's socket.
    expect(c.socket.writableLength).toBeGreaterThan(flood.length / 2);
    c.close();
  });

  it('shuts down within the grace period even when a peer stopped reading a large response', async () => {
    server = await startEchoServer({
      stream: async (_req, out) => {
        for (let i = 0; i < 64; i++) {
          const w = out.write(Buffer.alloc(1024 * 1024, i));
          if (w instanceof Promise ? !(await w) : !w) return;
        }
      },
    });
    const c = await RawClient.connect(server.port, settings([[4, 0x7fffffff]]));
    c.socket.pause();
    c.send(
      frame(8, 0, 0, u32(0x7fffffff - 65_535)),
      frame(1, 0x4, 1, requestHeaders('Stream')),
      frame(0, 0x1, 1, grpcMessage(Buffer.alloc(0))),
    );
    await sleep(300);
    const started = Date.now();
    await server.stop(300);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(server.transport.connections).toBe(0);
    c.close();
  });

  it('ends a header block of endless empty CONTINUATION frames with ENHANCE_YOUR_CALM', async () => {
    server = await startEchoServer({});
    const c = await RawClient.connect(server.port);
    const empty = frame(9, 0, 1, Buffer.alloc(0));
    c.send(frame(1, 0, 1, requestHeaders()), Buffer.concat(Array.from({ length: 5000 }, () => empty)));
    expect(await c.goAwayCode()).toBe(H2_ENHANCE_YOUR_CALM);
  });

  it('ends a connection that opens and resets streams in a loop (rapid reset) with ENHANCE_YOUR_CALM', async () => {
    let started = 0;
    server = await startEchoServer({
      unary: async (req) => {
        started++;
        await sleep(1000);
        return req;
      },
    });
    const c = await RawClient.connect(server.port);
    const parts: Buffer[] = [];
    for (let id = 1; id < 2 * 5000; id += 2) {
      parts.push(frame(1, 0x4, id, requestHeaders()), frame(0, 0x1, id, grpcMessage(Buffer.from('x'))), frame(3, 0, id, u32(0x8)));
    }
    c.send(Buffer.concat(parts));
    expect(await c.goAwayCode()).toBe(H2_ENHANCE_YOUR_CALM);
    expect(started).toBeLessThan(1100);
  });

  it('starts its header blocks with a table size update after the client changes SETTINGS_HEADER_TABLE_SIZE', async () => {
    server = await startEchoServer({});
    const c = await RawClient.connect(server.port, settings([[1, 0]]));
    c.send(frame(1, 0x4, 1, requestHeaders()), frame(0, 0x1, 1, grpcMessage(Buffer.from('a'))));
    await c.until((f) => f.id === 1 && (f.flags & 1) !== 0);
    const blocks = c.frames.filter((f) => f.type === 1);
    expect(blocks[0]!.payload[0]).toBe(0x20);
    // Only the first block after the change carries it.
    expect(blocks[1]!.payload[0]).not.toBe(0x20);
    expect(c.stream(1).headers[1]).toMatchObject({ 'grpc-status': '0' });
    c.close();
  });

  it('answers a request that ended with its headers without resetting the stream', async () => {
    server = await startEchoServer({});
    const c = await RawClient.connect(server.port);
    // An unknown method is refused at once, while the headers are being handled.
    c.send(frame(1, 0x4 | 0x1, 1, requestHeaders('Nope')));
    await c.until((f) => f.id === 1 && (f.flags & 1) !== 0);
    expect(c.stream(1).headers[0]).toMatchObject({ 'grpc-status': '12' });
    await sleep(100);
    expect(c.frames.some((f) => f.type === 3)).toBe(false);
    c.close();
  });
});
