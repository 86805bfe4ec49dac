import http2 from 'node:http2';
import * as grpc from '@grpc/grpc-js';

/**
 * How the load generator puts pre-encoded requests on the wire.
 *
 * - `grpc-js`: @grpc/grpc-js's generic client with identity (de)serializers.
 * - `http2`: gRPC framed by hand over node:http2 (a 5-byte message header,
 *   `te: trailers`, grpc-status from the trailers). It skips grpc-js's call
 *   machinery: measured here, half the client CPU per call, so the server
 *   rather than the client is more likely to be the limit on a small machine.
 *
 * Both count the bytes of the response messages (gRPC frame headers excluded).
 */

export type TransportKind = 'grpc-js' | 'http2';
export const TRANSPORT_KINDS: readonly TransportKind[] = ['grpc-js', 'http2'];

export interface Transport {
  /** Bytes a request buffer carries before the message (the gRPC frame header, for http2). */
  readonly headerBytes: number;
  /** A request buffer ready to send: header (if any) then the message. */
  frame(message: Buffer): Buffer;
  /** Sends one request on connection `lane % connections`; resolves with the response message bytes. */
  call(lane: number, method: string, request: Buffer): Promise<number>;
  close(): void;
}

export function openTransport(kind: TransportKind, address: string, connections: number): Transport {
  return kind === 'grpc-js' ? grpcJsTransport(address, connections) : http2Transport(address, connections);
}

const identity = (b: Buffer): Buffer => b;

function grpcJsTransport(address: string, connections: number): Transport {
  const options = {
    'grpc.use_local_subchannel_pool': 1, // one connection per client, not one shared
    'grpc.max_receive_message_length': -1,
    'grpc.max_send_message_length': -1,
  };
  const clients = Array.from({ length: connections }, () => new grpc.Client(address, grpc.credentials.createInsecure(), options));
  return {
    headerBytes: 0,
    frame: (message) => Buffer.from(message),
    call: (lane, method, request) =>
      new Promise((resolve, reject) => {
        let bytes = 0;
        const call = (clients[lane % connections] as grpc.Client).makeServerStreamRequest(method, identity, identity, request);
        call.on('data', (b: Buffer) => {
          bytes += b.length;
        });
        call.on('error', (err: Error) => reject(new Error(`${method}: ${err.message}`)));
        call.on('status', (s: grpc.StatusObject) => {
          if (s.code === grpc.status.OK) resolve(bytes);
        });
      }),
    close: () => {
      for (const c of clients) c.close();
    },
  };
}

const WINDOW_BYTES = 16 * 1024 * 1024;

function http2Transport(address: string, connections: number): Transport {
  const sessions = Array.from({ length: connections }, () => {
    const s = http2.connect(`http://${address}`, { settings: { initialWindowSize: WINDOW_BYTES }, maxSessionMemory: 256 });
    s.on('connect', () => s.setLocalWindowSize(WINDOW_BYTES));
    s.on('error', () => undefined); // each stream reports its own failure
    return s;
  });
  return {
    headerBytes: 5,
    frame: (message) => {
      const b = Buffer.allocUnsafe(5 + message.length);
      b[0] = 0; // not compressed
      b.writeUInt32BE(message.length, 1);
      message.copy(b, 5);
      return b;
    },
    call: (lane, method, request) =>
      new Promise((resolve, reject) => {
        const stream = (sessions[lane % connections] as http2.ClientHttp2Session).request({
          ':method': 'POST',
          ':path': method,
          'content-type': 'application/grpc',
          te: 'trailers',
        });
        const counter = new MessageCounter();
        let status: string | undefined;
        let message = '';
        const onHeaders = (h: http2.IncomingHttpHeaders): void => {
          const s = h['grpc-status'];
          if (typeof s === 'string') {
            status = s;
            message = String(h['grpc-message'] ?? '');
          }
        };
        stream.on('response', (h) => {
          if (h[':status'] !== 200) reject(new Error(`${method}: HTTP status ${h[':status']}`));
          onHeaders(h); // a "trailers-only" response carries the status here
        });
        stream.on('trailers', onHeaders);
        stream.on('data', (chunk: Buffer) => counter.push(chunk));
        stream.on('error', (e: Error) => reject(new Error(`${method}: ${e.message}`)));
        stream.on('end', () => {
          if (status === '0') resolve(counter.bytes);
          else
            reject(
              new Error(
                `${method}: ${status === undefined ? 'no grpc-status in the response' : `grpc-status ${status} ${decodeURIComponent(message)}`}`,
              ),
            );
        });
        stream.end(request);
      }),
    close: () => {
      for (const s of sessions) s.close();
    },
  };
}

/** Sums the lengths of the gRPC messages in a response body, across chunk boundaries. */
class MessageCounter {
  bytes = 0;
  private header = Buffer.alloc(5);
  private headerHave = 0;
  private bodyLeft = 0;

  push(chunk: Buffer): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.bodyLeft > 0) {
        const take = Math.min(this.bodyLeft, chunk.length - i);
        this.bodyLeft -= take;
        i += take;
        continue;
      }
      const take = Math.min(5 - this.headerHave, chunk.length - i);
      chunk.copy(this.header, this.headerHave, i, i + take);
      this.headerHave += take;
      i += take;
      if (this.headerHave === 5) {
        this.headerHave = 0;
        this.bodyLeft = this.header.readUInt32BE(1);
        this.bytes += this.bodyLeft;
      }
    }
  }
}
