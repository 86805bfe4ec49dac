import http2 from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { listenGuarded } from '../../connection-guard.js';
import { memoryLogger } from '../../../testing/memory-logger.js';
import { MethodTable, serverStream, serviceMethods, unary } from '../../method-table.js';
import { Metrics, observeCalls } from '../../metrics.js';
import type { AnyMethod } from '../../protos.js';
import type { StreamHandler, UnaryHandler } from '../../rpc.js';
import { DEFAULT_SERVER_TUNING, type ServerTuning } from '../../server-config.js';
import { type H2Transport, createH2Transport } from '../h2-server.js';

/**
 * A test service on tabletop's HTTP/2 transport, with Buffer messages (identity
 * codecs) so that tests control handlers and bytes exactly:
 *   /test.Echo/Unary         unary
 *   /test.Echo/Stream        server streaming
 *   /test.Echo/ClientStream  client streaming (not implemented: UNIMPLEMENTED)
 * and clients that speak to it: a grpc-js client with identity serializers,
 * and a raw node:http2 client for framing the transport must reject.
 */

export const SERVICE = 'test.Echo';

function method(name: string, requestStream: boolean, responseStream: boolean): AnyMethod {
  const id = (b: Buffer): Buffer => b;
  return {
    path: `/${SERVICE}/${name}`,
    requestStream,
    responseStream,
    requestSerialize: id,
    requestDeserialize: id,
    responseSerialize: id,
    responseDeserialize: id,
    originalName: name,
  };
}

export interface EchoHandlers {
  readonly unary?: UnaryHandler<Buffer, Buffer>;
  readonly stream?: StreamHandler<Buffer, Buffer>;
}

export interface EchoServer {
  readonly address: string;
  readonly port: number;
  readonly transport: H2Transport;
  readonly metrics: Metrics;
  readonly log: string[];
  readonly client: grpc.Client;
  /** A new grpc-js client (own connection); closed by stop(). */
  newClient(options?: grpc.ChannelOptions): grpc.Client;
  stop(graceMillis?: number): Promise<void>;
}

export async function startEchoServer(handlers: EchoHandlers, tuning: Partial<ServerTuning> = {}): Promise<EchoServer> {
  const t: ServerTuning = { ...DEFAULT_SERVER_TUNING, ...tuning };
  const logger = memoryLogger();
  const metrics = new Metrics();
  const protos = {
    Unary: method('Unary', false, false),
    Stream: method('Stream', false, true),
    ClientStream: method('ClientStream', true, false),
  };
  const none = () => undefined;
  const spec = {
    service: SERVICE,
    methods: {
      Unary: unary({ resource: none }, handlers.unary ?? ((req) => req)),
      Stream: serverStream({ resource: none }, handlers.stream ?? (() => {})),
    },
  };
  const methods = new MethodTable(serviceMethods(spec, protos, { observe: observeCalls(metrics, logger, 0), logger }));
  const transport = createH2Transport({
    methods,
    logger,
    maxMessageBytes: t.maxMessageBytes,
    maxConcurrentStreams: t.maxConcurrentStreams,
    maxHeaderListBytes: t.maxHeaderListBytes,
    keepaliveTimeMillis: t.keepaliveTimeMillis,
    keepaliveTimeoutMillis: t.keepaliveTimeoutMillis,
    maxConnectionIdleMillis: t.maxConnectionIdleMillis,
    streamWindowBytes: t.streamWindowBytes,
    connectionWindowBytes: t.connectionWindowBytes,
    highWaterBytes: t.writeHighWaterBytes,
    maxBufferedResponseBytes: t.maxBufferedResponseBytes,
  });
  const listener = await listenGuarded((s) => transport.accept(s), '127.0.0.1', 0, {
    prefaceTimeoutMillis: t.prefaceTimeoutMillis,
    maxConnections: t.maxConnections,
  });
  const address = `127.0.0.1:${listener.port}`;
  const clients: grpc.Client[] = [];
  const newClient = (options: grpc.ChannelOptions = {}): grpc.Client => {
    const c = new grpc.Client(address, grpc.credentials.createInsecure(), {
      'grpc.max_receive_message_length': -1,
      'grpc.max_send_message_length': -1,
      'grpc.use_local_subchannel_pool': 1,
      ...options,
    });
    clients.push(c);
    return c;
  };
  const client = newClient();
  let stopped: Promise<void> | undefined;
  return {
    address,
    port: listener.port,
    transport,
    metrics,
    log: logger.lines,
    client,
    newClient,
    stop(graceMillis = 1000): Promise<void> {
      stopped ??= (async () => {
        const closed = listener.close();
        await transport.shutdown(graceMillis);
        await closed;
        for (const c of clients) c.close();
      })();
      return stopped;
    },
  };
}

const id = (b: Buffer): Buffer => b;

export interface CallOutcome {
  readonly code: number;
  readonly details: string;
  readonly response?: Buffer;
}

/** A unary call through grpc-js; resolves with its status (and response when OK). */
export function callUnary(
  client: grpc.Client,
  request: Buffer,
  options: { deadlineMillis?: number; metadata?: grpc.Metadata } = {},
): Promise<CallOutcome> {
  return new Promise((resolve) => {
    const callOptions = options.deadlineMillis === undefined ? {} : { deadline: Date.now() + options.deadlineMillis };
    client.makeUnaryRequest(`/${SERVICE}/Unary`, id, id, request, options.metadata ?? new grpc.Metadata(), callOptions, (err, res) => {
      if (err) resolve({ code: err.code, details: err.details });
      else resolve({ code: 0, details: '', ...(res === undefined ? {} : { response: res }) });
    });
  });
}

/** A raw HTTP/2 request: headers plus body bytes as given; collects the response headers, data and trailers. */
export interface RawResponse {
  readonly headers: http2.IncomingHttpHeaders;
  readonly data: Buffer;
  readonly trailers: http2.IncomingHttpHeaders | undefined;
  /** The RST_STREAM code the stream closed with (0 when it ended normally). */
  readonly rstCode: number;
}

export function rawRequest(
  address: string,
  headers: http2.OutgoingHttpHeaders,
  body: Buffer[],
  options: { endStream?: boolean } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://${address}`);
    session.on('error', reject);
    const req = session.request({ ':method': 'POST', 'content-type': 'application/grpc', te: 'trailers', ...headers });
    let responseHeaders: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders | undefined;
    const chunks: Buffer[] = [];
    req.on('response', (h) => (responseHeaders = h));
    req.on('trailers', (h) => (trailers = h));
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => {});
    req.on('close', () => {
      session.close();
      resolve({ headers: responseHeaders, data: Buffer.concat(chunks), trailers, rstCode: req.rstCode ?? 0 });
    });
    for (const b of body) req.write(b);
    if (options.endStream !== false) req.end();
  });
}

/** A gRPC frame: flag, length, bytes (length may lie, for tests of truncation). */
export function frame(bytes: Buffer, options: { flag?: number; length?: number } = {}): Buffer {
  const h = Buffer.alloc(5);
  h[0] = options.flag ?? 0;
  h.writeUInt32BE(options.length ?? bytes.length, 1);
  return Buffer.concat([h, bytes]);
}

/** grpc-status of a raw response: from the trailers, or from the headers of a trailers-only response. */
export function rawStatus(r: RawResponse): { code: number | undefined; message: string | undefined } {
  const h = r.trailers ?? r.headers;
  const code = h['grpc-status'];
  const message = h['grpc-message'];
  return { code: code === undefined ? undefined : Number(code), message: typeof message === 'string' ? message : undefined };
}
