import type { RequestMetadata } from '../rpc.js';
import type { HeaderMap } from './h2/hpack.js';

/**
 * Request metadata read lazily from the HTTP/2 request headers: nothing is
 * copied or decoded until a handler asks for a key.
 *
 * Values of keys ending in "-bin" are base64 (padded or not, PROTOCOL-HTTP2.md,
 * "Custom-Metadata"), possibly several joined with ","; they are returned
 * decoded, one Buffer per value. Other values are returned as sent; a header
 * repeated in the request gives one value per occurrence.
 */
export class HeaderMetadata implements RequestMetadata {
  constructor(private readonly headers: HeaderMap) {}

  get(key: string): (string | Buffer)[] {
    const k = key.toLowerCase();
    if (k.startsWith(':')) return [];
    const v = this.headers[k];
    if (v === undefined) return [];
    const values = Array.isArray(v) ? v : [v];
    if (!k.endsWith('-bin')) return values;
    const out: Buffer[] = [];
    for (const joined of values) for (const part of joined.split(',')) out.push(Buffer.from(part.trim(), 'base64'));
    return out;
  }
}
