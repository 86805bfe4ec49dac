import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EchoServer, startEchoServer } from '../testing/echo-transport.js';
import { PREFACE, RawClient, frame, grpcMessage, requestHeaders, settings, u32 } from './testing/raw-h2.js';
import { encodeHeaderBlock } from './hpack.js';
import { H2_COMPRESSION_ERROR, H2_FLOW_CONTROL_ERROR, H2_FRAME_SIZE_ERROR, H2_PROTOCOL_ERROR, H2_STREAM_CLOSED } from './connection.js';

/**
 * HTTP/2 conformance, case by case, modelled on h2spec's suites (RFC 9113
 * with the section each case comes from, and RFC 7541 for HPACK): h2spec
 * itself cannot be installed here. Each case sends what a peer may send,
 * and names what the server must do: end the connection with GOAWAY and an
 * error code, reset the stream with one (a stream error; a connection error
 * with the same code is also allowed where RFC 9113 allows it), or ignore
 * the frame and go on (a PING after it is answered, nothing is reset).
 */

const DATA = 0;
const HEADERS = 1;
const PRIORITY = 2;
const RST_STREAM = 3;
const SETTINGS = 4;
const PING = 6;
const GOAWAY = 7;
const WINDOW_UPDATE = 8;
const CONTINUATION = 9;
const END_STREAM = 0x1;
const ACK = 0x1;
const END_HEADERS = 0x4;
const PADDED = 0x8;
const PRIORITY_FLAG = 0x20;

type Expected =
  | { readonly connection: number }
  | { readonly stream: number; readonly orConnection?: boolean }
  | { readonly ignored: true }
  | { readonly closed: true };

interface Case {
  readonly section: string;
  readonly what: string;
  readonly send: (c: RawClient) => void;
  readonly expected: Expected;
  /** Instead of the preface and an empty SETTINGS frame. */
  readonly opening?: Buffer;
}

const headers = (fields: [string, string][]): Buffer => encodeHeaderBlock(fields);
const base: [string, string][] = [
  [':method', 'POST'],
  [':scheme', 'http'],
  [':path', '/test.Echo/Unary'],
  [':authority', 'localhost'],
  ['content-type', 'application/grpc'],
  ['te', 'trailers'],
];
const without = (name: string): [string, string][] => base.filter(([n]) => n !== name);
const open = (id = 1): Buffer => frame(HEADERS, END_HEADERS, id, requestHeaders());
/** A whole request on stream 1 (its handler takes 300 ms: the stream is half-closed (remote) meanwhile). */
const request = (): Buffer[] => [open(), frame(DATA, END_STREAM, 1, grpcMessage(Buffer.from('x')))];
const setting = (key: number, value: number): Buffer => settings([[key, value]]);
const PING_PAYLOAD = Buffer.from('h2spec!!');

const cases: Case[] = [
  // 3.4 HTTP/2 connection preface
  {
    section: '3.4',
    what: 'an invalid connection preface',
    opening: Buffer.from('PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n'),
    send: () => {},
    expected: { closed: true },
  },
  // 4.1 Frame format
  {
    section: '4.1/1',
    what: 'a frame of unknown type',
    send: (c) => c.send(frame(0x20, 0, 0, Buffer.alloc(8))),
    expected: { ignored: true },
  },
  {
    section: '4.1/2',
    what: 'a PING with undefined flags',
    send: (c) => c.send(frame(PING, 0x16, 0, PING_PAYLOAD)),
    expected: { ignored: true },
  },
  {
    section: '4.1/3',
    what: 'a PING with the reserved bit of the stream identifier set',
    send: (c) => {
      const f = frame(PING, 0, 0, PING_PAYLOAD);
      f[5] = 0x80;
      c.send(f);
    },
    expected: { ignored: true },
  },
  // 4.2 Frame size
  {
    section: '4.2/1',
    what: 'a DATA frame larger than SETTINGS_MAX_FRAME_SIZE',
    send: (c) => c.send(open(), frame(DATA, 0, 1, Buffer.alloc(16_385))),
    expected: { connection: H2_FRAME_SIZE_ERROR },
  },
  {
    section: '4.2/2',
    what: 'a HEADERS frame larger than SETTINGS_MAX_FRAME_SIZE',
    send: (c) => c.send(frame(HEADERS, END_HEADERS, 1, Buffer.alloc(16_385))),
    expected: { connection: H2_FRAME_SIZE_ERROR },
  },
  // 4.3 Header compression and decompression
  {
    section: '4.3/1',
    what: 'an invalid header block fragment',
    send: (c) =>
      c.send(frame(HEADERS, END_HEADERS, 1, Buffer.from([0x00, 0x85, 0xf2, 0xb2, 0x4a, 0x87, 0xff, 0xff, 0xff, 0xfd, 0x25, 0x42, 0x7f]))),
    expected: { connection: H2_COMPRESSION_ERROR },
  },
  {
    section: '4.3/2',
    what: 'a PRIORITY frame inside a header block',
    send: (c) => c.send(frame(HEADERS, 0, 1, requestHeaders()), frame(PRIORITY, 0, 1, Buffer.from([0, 0, 0, 0, 16]))),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  {
    section: '4.3/3',
    what: 'a HEADERS frame of another stream inside a header block',
    send: (c) => c.send(frame(HEADERS, 0, 1, requestHeaders()), frame(HEADERS, END_HEADERS, 3, requestHeaders())),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  // 5.1 Stream states
  {
    section: '5.1/1',
    what: 'DATA on an idle stream',
    send: (c) => c.send(frame(DATA, 0, 1, Buffer.from('x'))),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  {
    section: '5.1/2',
    what: 'RST_STREAM on an idle stream',
    send: (c) => c.send(frame(RST_STREAM, 0, 1, u32(8))),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  {
    section: '5.1/3',
    what: 'WINDOW_UPDATE on an idle stream',
    send: (c) => c.send(frame(WINDOW_UPDATE, 0, 1, u32(100))),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  {
    section: '5.1/4',
    what: 'CONTINUATION on an idle stream',
    send: (c) => c.send(frame(CONTINUATION, END_HEADERS, 1, requestHeaders())),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  {
    section: '5.1/5',
    what: 'DATA on a half-closed (remote) stream',
    send: (c) => c.send(...request(), frame(DATA, 0, 1, Buffer.from('x'))),
    expected: { stream: H2_STREAM_CLOSED, orConnection: true },
  },
  {
    section: '5.1/6',
    what: 'HEADERS on a half-closed (remote) stream',
    send: (c) => c.send(...request(), frame(HEADERS, END_HEADERS | END_STREAM, 1, headers([['x-trailer', '1']]))),
    expected: { stream: H2_STREAM_CLOSED, orConnection: true },
  },
  {
    section: '5.1/7',
    what: 'CONTINUATION on a half-closed (remote) stream',
    send: (c) =>
      c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, requestHeaders()), frame(CONTINUATION, END_HEADERS, 1, headers([['x', '1']]))),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  // 5.1.1 Stream identifiers
  {
    section: '5.1.1/1',
    what: 'a stream with an even identifier',
    send: (c) => c.send(frame(HEADERS, END_HEADERS, 2, requestHeaders())),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  // 5.3.1 Stream dependencies
  {
    section: '5.3.1/1',
    what: 'HEADERS that depend on their own stream',
    send: (c) => c.send(frame(HEADERS, END_HEADERS | PRIORITY_FLAG, 1, Buffer.concat([Buffer.from([0, 0, 0, 1, 16]), requestHeaders()]))),
    expected: { stream: H2_PROTOCOL_ERROR, orConnection: true },
  },
  {
    section: '5.3.1/2',
    what: 'PRIORITY that depends on its own stream',
    send: (c) => c.send(frame(PRIORITY, 0, 1, Buffer.from([0, 0, 0, 1, 16]))),
    expected: { stream: H2_PROTOCOL_ERROR, orConnection: true },
  },
  // 5.5 Extending HTTP/2
  {
    section: '5.5/1',
    what: 'an extension frame',
    send: (c) => c.send(frame(0x16, 0, 0, Buffer.from('extension'))),
    expected: { ignored: true },
  },
  {
    section: '5.5/2',
    what: 'an extension frame inside a header block',
    send: (c) => c.send(frame(HEADERS, 0, 1, requestHeaders()), frame(0x16, 0, 1, Buffer.from('extension'))),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  // 6.1 DATA
  {
    section: '6.1/1',
    what: 'DATA on stream 0',
    send: (c) => c.send(frame(DATA, 0, 0, Buffer.from('x'))),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  {
    section: '6.1/2',
    what: 'DATA on a stream that is not open',
    send: (c) => c.send(...request(), frame(DATA, END_STREAM, 1, Buffer.from('x'))),
    expected: { stream: H2_STREAM_CLOSED, orConnection: true },
  },
  {
    section: '6.1/3',
    what: 'DATA with padding as long as the payload',
    send: (c) => c.send(open(), frame(DATA, PADDED, 1, Buffer.from([5, 0, 0, 0, 0]))),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  // 6.2 HEADERS
  {
    section: '6.2/1',
    what: 'HEADERS followed by a frame other than CONTINUATION',
    send: (c) => c.send(frame(HEADERS, 0, 1, requestHeaders()), frame(DATA, 0, 1, Buffer.from('x'))),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  {
    section: '6.2/2',
    what: 'HEADERS on stream 0',
    send: (c) => c.send(frame(HEADERS, END_HEADERS, 0, requestHeaders())),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  {
    section: '6.2/3',
    what: 'HEADERS with padding as long as the payload',
    send: (c) => c.send(frame(HEADERS, END_HEADERS | PADDED, 1, Buffer.concat([Buffer.from([255]), requestHeaders()]))),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  // 6.3 PRIORITY
  {
    section: '6.3/1',
    what: 'PRIORITY on stream 0',
    send: (c) => c.send(frame(PRIORITY, 0, 0, Buffer.from([0, 0, 0, 3, 16]))),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  {
    section: '6.3/2',
    what: 'PRIORITY of 4 bytes',
    send: (c) => c.send(open(), frame(PRIORITY, 0, 1, Buffer.from([0, 0, 0, 3]))),
    expected: { stream: H2_FRAME_SIZE_ERROR, orConnection: true },
  },
  // 6.4 RST_STREAM
  {
    section: '6.4/1',
    what: 'RST_STREAM on stream 0',
    send: (c) => c.send(frame(RST_STREAM, 0, 0, u32(8))),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  {
    section: '6.4/2',
    what: 'RST_STREAM on an idle stream',
    send: (c) => c.send(frame(RST_STREAM, 0, 3, u32(8))),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  {
    section: '6.4/3',
    what: 'RST_STREAM of 3 bytes',
    send: (c) => c.send(open(), frame(RST_STREAM, 0, 1, Buffer.from([0, 0, 8]))),
    expected: { connection: H2_FRAME_SIZE_ERROR },
  },
  // 6.5 SETTINGS
  {
    section: '6.5/1',
    what: 'a SETTINGS ACK with a payload',
    send: (c) => c.send(frame(SETTINGS, ACK, 0, Buffer.alloc(6))),
    expected: { connection: H2_FRAME_SIZE_ERROR },
  },
  {
    section: '6.5/2',
    what: 'SETTINGS on a stream',
    send: (c) => c.send(frame(SETTINGS, 0, 1, Buffer.alloc(6))),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  {
    section: '6.5/3',
    what: 'SETTINGS of a length not a multiple of 6',
    send: (c) => c.send(frame(SETTINGS, 0, 0, Buffer.alloc(3))),
    expected: { connection: H2_FRAME_SIZE_ERROR },
  },
  {
    section: '6.5.2/1',
    what: 'SETTINGS_ENABLE_PUSH of 2',
    send: (c) => c.send(setting(2, 2)),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  {
    section: '6.5.2/2',
    what: 'SETTINGS_INITIAL_WINDOW_SIZE over 2^31-1',
    send: (c) => c.send(setting(4, 2 ** 31)),
    expected: { connection: H2_FLOW_CONTROL_ERROR },
  },
  {
    section: '6.5.2/3',
    what: 'SETTINGS_MAX_FRAME_SIZE below 16,384',
    send: (c) => c.send(setting(5, 16_383)),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  {
    section: '6.5.2/4',
    what: 'SETTINGS_MAX_FRAME_SIZE over 2^24-1',
    send: (c) => c.send(setting(5, 2 ** 24)),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  { section: '6.5.2/5', what: 'an unknown setting', send: (c) => c.send(setting(0xff, 1)), expected: { ignored: true } },
  // 6.7 PING
  {
    section: '6.7/1',
    what: 'a PING ACK (not answered)',
    send: (c) => c.send(frame(PING, ACK, 0, PING_PAYLOAD)),
    expected: { ignored: true },
  },
  {
    section: '6.7/2',
    what: 'PING on a stream',
    send: (c) => c.send(frame(PING, 0, 1, PING_PAYLOAD)),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  {
    section: '6.7/3',
    what: 'PING of 6 bytes',
    send: (c) => c.send(frame(PING, 0, 0, Buffer.alloc(6))),
    expected: { connection: H2_FRAME_SIZE_ERROR },
  },
  // 6.8 GOAWAY
  {
    section: '6.8/1',
    what: 'GOAWAY on a stream',
    send: (c) => c.send(frame(GOAWAY, 0, 1, Buffer.alloc(8))),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  // 6.9 WINDOW_UPDATE
  {
    section: '6.9/1',
    what: 'a connection WINDOW_UPDATE of 0',
    send: (c) => c.send(frame(WINDOW_UPDATE, 0, 0, u32(0))),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  {
    section: '6.9/2',
    what: 'a stream WINDOW_UPDATE of 0',
    send: (c) => c.send(open(), frame(WINDOW_UPDATE, 0, 1, u32(0))),
    expected: { stream: H2_PROTOCOL_ERROR, orConnection: true },
  },
  {
    section: '6.9/3',
    what: 'WINDOW_UPDATE of 3 bytes',
    send: (c) => c.send(frame(WINDOW_UPDATE, 0, 0, Buffer.from([0, 0, 1]))),
    expected: { connection: H2_FRAME_SIZE_ERROR },
  },
  {
    section: '6.9.1/1',
    what: 'a connection window over 2^31-1',
    send: (c) => c.send(frame(WINDOW_UPDATE, 0, 0, u32(2 ** 31 - 1))),
    expected: { connection: H2_FLOW_CONTROL_ERROR },
  },
  {
    section: '6.9.1/2',
    what: 'a stream window over 2^31-1',
    send: (c) => c.send(open(), frame(WINDOW_UPDATE, 0, 1, u32(2 ** 31 - 1))),
    expected: { stream: H2_FLOW_CONTROL_ERROR, orConnection: true },
  },
  {
    section: '6.9.2/1',
    what: 'SETTINGS_INITIAL_WINDOW_SIZE that takes an open stream window over 2^31-1',
    send: (c) => c.send(open(), frame(WINDOW_UPDATE, 0, 1, u32(2 ** 31 - 1 - 65_535)), setting(4, 65_536)),
    expected: { connection: H2_FLOW_CONTROL_ERROR },
  },
  // 6.10 CONTINUATION
  {
    section: '6.10/1',
    what: 'a header block in many CONTINUATION frames (answered)',
    send: (c) => {
      const block = requestHeaders();
      const parts = [frame(HEADERS, 0, 1, block.subarray(0, 5))];
      for (let p = 5; p < block.length; p += 5)
        parts.push(frame(CONTINUATION, p + 5 >= block.length ? END_HEADERS : 0, 1, block.subarray(p, p + 5)));
      c.send(...parts, frame(DATA, END_STREAM, 1, grpcMessage(Buffer.from('ok'))));
    },
    expected: { ignored: true },
  },
  {
    section: '6.10/2',
    what: 'CONTINUATION after END_HEADERS',
    send: (c) => c.send(open(), frame(CONTINUATION, END_HEADERS, 1, headers([['x', '1']]))),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  {
    section: '6.10/3',
    what: 'CONTINUATION of another stream',
    send: (c) => c.send(frame(HEADERS, 0, 1, requestHeaders()), frame(CONTINUATION, END_HEADERS, 3, headers([['x', '1']]))),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  {
    section: '6.10/4',
    what: 'CONTINUATION on stream 0',
    send: (c) => c.send(frame(HEADERS, 0, 1, requestHeaders()), frame(CONTINUATION, END_HEADERS, 0, headers([['x', '1']]))),
    expected: { connection: H2_PROTOCOL_ERROR },
  },
  // 8.1 HTTP request/response exchange
  {
    section: '8.1/1',
    what: 'trailers without END_STREAM',
    send: (c) => c.send(open(), frame(HEADERS, END_HEADERS, 1, headers([['x-trailer', '1']]))),
    expected: { stream: H2_PROTOCOL_ERROR, orConnection: true },
  },
  // 8.2 / 8.3 HTTP fields, malformed requests (stream errors)
  {
    section: '8.2/1',
    what: 'an upper-case header name',
    send: (c) => c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, headers([...base, ['X-Upper', '1']]))),
    expected: { stream: H2_PROTOCOL_ERROR },
  },
  {
    section: '8.2.2/1',
    what: 'a connection-specific header (connection)',
    send: (c) => c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, headers([...base, ['connection', 'keep-alive']]))),
    expected: { stream: H2_PROTOCOL_ERROR },
  },
  {
    section: '8.2.2/2',
    what: 'TE other than trailers',
    send: (c) => c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, headers([...without('te'), ['te', 'trailers, deflate']]))),
    expected: { stream: H2_PROTOCOL_ERROR },
  },
  {
    section: '8.3/1',
    what: 'an unknown pseudo-header',
    send: (c) => c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, headers([...base, [':test', '1']]))),
    expected: { stream: H2_PROTOCOL_ERROR },
  },
  {
    section: '8.3/2',
    what: 'a response pseudo-header in a request',
    send: (c) => c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, headers([...base, [':status', '200']]))),
    expected: { stream: H2_PROTOCOL_ERROR },
  },
  {
    section: '8.3/3',
    what: 'a pseudo-header after a regular one',
    send: (c) => c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, headers([...without(':authority'), [':authority', 'localhost']]))),
    expected: { stream: H2_PROTOCOL_ERROR },
  },
  {
    section: '8.3/4',
    what: 'a pseudo-header in trailers',
    send: (c) => c.send(open(), frame(HEADERS, END_HEADERS | END_STREAM, 1, headers([[':method', 'POST']]))),
    expected: { stream: H2_PROTOCOL_ERROR },
  },
  {
    section: '8.3.1/1',
    what: 'no :method',
    send: (c) => c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, headers(without(':method')))),
    expected: { stream: H2_PROTOCOL_ERROR },
  },
  {
    section: '8.3.1/2',
    what: 'no :scheme',
    send: (c) => c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, headers(without(':scheme')))),
    expected: { stream: H2_PROTOCOL_ERROR },
  },
  {
    section: '8.3.1/3',
    what: 'no :path',
    send: (c) => c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, headers(without(':path')))),
    expected: { stream: H2_PROTOCOL_ERROR },
  },
  {
    section: '8.3.1/4',
    what: 'an empty :path',
    send: (c) =>
      c.send(
        frame(
          HEADERS,
          END_HEADERS | END_STREAM,
          1,
          headers([...without(':path').slice(0, 2), [':path', ''], ...without(':path').slice(2)]),
        ),
      ),
    expected: { stream: H2_PROTOCOL_ERROR },
  },
  {
    section: '8.3.1/5',
    what: 'a duplicated :method',
    send: (c) => c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, headers([[':method', 'POST'], ...base]))),
    expected: { stream: H2_PROTOCOL_ERROR },
  },
  // RFC 7541 (HPACK)
  {
    section: 'HPACK 2.3.3',
    what: 'an index past the end of the tables',
    send: (c) => c.send(frame(HEADERS, END_HEADERS, 1, Buffer.from([0xc6]))),
    expected: { connection: H2_COMPRESSION_ERROR },
  },
  {
    section: 'HPACK 4.2',
    what: 'a table size update over SETTINGS_HEADER_TABLE_SIZE',
    send: (c) => c.send(frame(HEADERS, END_HEADERS, 1, Buffer.from([0x3f, 0xe1, 0x3f]))),
    expected: { connection: H2_COMPRESSION_ERROR },
  },
  {
    section: 'HPACK 5.2/1',
    what: 'a Huffman string with EOS',
    send: (c) => c.send(frame(HEADERS, END_HEADERS, 1, Buffer.from([0x01, 0x84, 0xff, 0xff, 0xff, 0xff]))),
    expected: { connection: H2_COMPRESSION_ERROR },
  },
  {
    section: 'HPACK 5.2/2',
    what: 'Huffman padding longer than 7 bits',
    send: (c) => c.send(frame(HEADERS, END_HEADERS, 1, Buffer.from([0x01, 0x82, 0x1f, 0xff]))),
    expected: { connection: H2_COMPRESSION_ERROR },
  },
  {
    section: 'HPACK 5.2/3',
    what: 'Huffman padding of zeros',
    send: (c) => c.send(frame(HEADERS, END_HEADERS, 1, Buffer.from([0x01, 0x81, 0x18]))),
    expected: { connection: H2_COMPRESSION_ERROR },
  },
  {
    section: 'HPACK 6.1',
    what: 'index 0',
    send: (c) => c.send(frame(HEADERS, END_HEADERS, 1, Buffer.from([0x80]))),
    expected: { connection: H2_COMPRESSION_ERROR },
  },
  {
    section: 'HPACK 6.3',
    what: 'a table size update after a header field',
    send: (c) => c.send(frame(HEADERS, END_HEADERS, 1, Buffer.from([0x83, 0x20]))),
    expected: { connection: H2_COMPRESSION_ERROR },
  },
];

let server: EchoServer;
beforeAll(async () => {
  server = await startEchoServer({
    unary: async (req) => {
      await sleep(300);
      return req;
    },
  });
});
afterAll(async () => {
  await server.stop(0);
});

describe('HTTP/2 conformance (h2spec-style, RFC 9113 and RFC 7541)', () => {
  it.each(cases.map((c) => [`${c.section} ${c.what}`, c] as const))('%s', async (_name, tc) => {
    const c = await RawClient.connect(server.port, tc.opening ?? settings());
    try {
      if (tc.opening !== undefined) {
        await c.until(() => false);
        expect(c.closed).toBe(true);
        return;
      }
      tc.send(c);
      const e = tc.expected;
      if ('closed' in e) {
        await c.until(() => false);
        expect(c.closed).toBe(true);
      } else if ('connection' in e) {
        expect(await c.goAwayCode()).toBe(e.connection);
      } else if ('stream' in e) {
        const f = await c.until((x) => x.type === RST_STREAM || x.type === GOAWAY);
        expect(f, 'a RST_STREAM or GOAWAY').toBeDefined();
        if (f!.type === GOAWAY) {
          expect(e.orConnection, `GOAWAY ${f!.payload.readUInt32BE(4)} where a stream error was expected`).toBe(true);
          expect(f!.payload.readUInt32BE(4)).toBe(e.stream);
        } else {
          expect(f!.payload.readUInt32BE(0)).toBe(e.stream);
          // The connection goes on.
          c.send(frame(PING, 0, 0, PING_PAYLOAD));
          expect(await c.until((x) => x.type === PING && (x.flags & ACK) !== 0)).toBeDefined();
        }
      } else {
        c.send(frame(PING, 0, 0, PING_PAYLOAD));
        const ack = await c.until((x) => x.type === PING && (x.flags & ACK) !== 0 && x.payload.equals(PING_PAYLOAD));
        expect(ack, 'the PING sent after it is answered').toBeDefined();
        expect(c.frames.filter((x) => x.type === GOAWAY || x.type === RST_STREAM)).toEqual([]);
      }
    } finally {
      c.close();
    }
  });
});
