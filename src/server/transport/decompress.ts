import { Status } from '../status-codes.js';
import zlib from 'node:zlib';
import { FramingError } from './message-framing.js';

/**
 * Message decompression for requests sent with `grpc-encoding` gzip or deflate
 * (deflate is the zlib format, RFC 1950, as gRPC uses it). Runs on libuv's
 * thread pool, so a large message does not stall the event loop, and stops at
 * `maxBytes` of output: a small compressed message may not expand past the
 * receive limit.
 */

/** Encodings tabletop accepts, for `grpc-accept-encoding`. */
export const ACCEPTED_ENCODINGS = 'identity,deflate,gzip';

export type MessageEncoding = 'identity' | 'gzip' | 'deflate';

export function isSupportedEncoding(encoding: string): encoding is MessageEncoding {
  return encoding === 'identity' || encoding === 'gzip' || encoding === 'deflate';
}

export function decompress(encoding: 'gzip' | 'deflate', compressed: Buffer, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, out: Buffer): void => {
      if (err === null) return resolve(out);
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        reject(
          new FramingError(Status.RESOURCE_EXHAUSTED, `Received message that decompresses to more than the maximum of ${maxBytes} bytes`),
        );
      } else {
        reject(new FramingError(Status.INTERNAL, `Failed to decompress the ${encoding} request message: ${err.message}`));
      }
    };
    const opts = { maxOutputLength: Math.max(1, maxBytes) };
    if (encoding === 'gzip') zlib.gunzip(compressed, opts, done);
    else zlib.inflate(compressed, opts, done);
  });
}
