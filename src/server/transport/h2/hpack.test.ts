import { describe, expect, it } from 'vitest';
import { HpackDecoder, HpackError, encodeHeaderBlock, huffmanDecode } from './hpack.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('HPACK decoder', () => {
  // RFC 7541 Appendix C.3: requests without Huffman coding, sharing one dynamic table.
  it('decodes the RFC 7541 C.3 requests (literals, indexing, dynamic table)', () => {
    const d = new HpackDecoder();
    expect(d.decode(hex('8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d'))).toEqual({
      ':method': 'GET',
      ':scheme': 'http',
      ':path': '/',
      ':authority': 'www.example.com',
    });
    expect(d.decode(hex('8286 84be 5808 6e6f 2d63 6163 6865'))).toEqual({
      ':method': 'GET',
      ':scheme': 'http',
      ':path': '/',
      ':authority': 'www.example.com',
      'cache-control': 'no-cache',
    });
    expect(d.decode(hex('8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65'))).toEqual({
      ':method': 'GET',
      ':scheme': 'https',
      ':path': '/index.html',
      ':authority': 'www.example.com',
      'custom-key': 'custom-value',
    });
  });

  // RFC 7541 Appendix C.4: the same requests with Huffman-coded strings.
  it('decodes the RFC 7541 C.4 requests (Huffman-coded strings)', () => {
    const d = new HpackDecoder();
    expect(d.decode(hex('8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff'))[':authority']).toBe('www.example.com');
    expect(d.decode(hex('8286 84be 5886 a8eb 1064 9cbf'))['cache-control']).toBe('no-cache');
    expect(d.decode(hex('8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf'))).toEqual({
      ':method': 'GET',
      ':scheme': 'https',
      ':path': '/index.html',
      ':authority': 'www.example.com',
      'custom-key': 'custom-value',
    });
  });

  it('evicts the oldest entries when the table is full, and honours size updates', () => {
    const d = new HpackDecoder(64);
    // Literal with indexing, new name "a" (1) value 30 x's: 1 + 30 + 32 = 63 bytes, fits.
    const big = (v: string): Buffer => Buffer.concat([Buffer.from([0x40, 1]), Buffer.from('a'), Buffer.from([v.length]), Buffer.from(v)]);
    d.decode(big('x'.repeat(30)));
    expect(d.decode(hex('be'))).toEqual({ a: 'x'.repeat(30) });
    // A second one evicts the first.
    d.decode(big('y'.repeat(30)));
    expect(d.decode(hex('be'))).toEqual({ a: 'y'.repeat(30) });
    expect(() => d.decode(hex('bf'))).toThrow(HpackError);
    // Size update to 0 empties the table; one over the advertised limit is an error.
    d.decode(hex('20'));
    expect(() => d.decode(hex('be'))).toThrow(HpackError);
    expect(() => d.decode(hex('3f22'))).toThrow(/over the limit/);
    // A size update after a field is an error.
    expect(() => d.decode(hex('8220'))).toThrow(/after the first/);
  });

  it('collects repeated names in order, and measures the decoded list', () => {
    const d = new HpackDecoder();
    const block = encodeHeaderBlock([
      ['x-a', '1'],
      ['x-a', '2'],
      ['x-a', '3'],
    ]);
    expect(d.decode(block)).toEqual({ 'x-a': ['1', '2', '3'] });
    expect(d.listBytes).toBe(3 * (3 + 1 + 32));
  });

  it('rejects malformed blocks: index 0, truncated integers and strings, bad Huffman padding, EOS', () => {
    const d = new HpackDecoder();
    expect(() => d.decode(hex('80'))).toThrow(HpackError);
    expect(() => d.decode(hex('ff'))).toThrow(HpackError);
    expect(() => d.decode(hex('0003 61'))).toThrow(HpackError);
    // "a" is 00011 (5 bits); padding with zeros is invalid, with ones valid.
    expect(huffmanDecode(hex('1f'), 0, 1)).toBe('a');
    expect(() => huffmanDecode(hex('18'), 0, 1)).toThrow(/padding/);
    // 8 or more bits of padding are invalid.
    expect(() => huffmanDecode(hex('1fff'), 0, 2)).toThrow(/padding/);
    // EOS is thirty one-bits.
    expect(() => huffmanDecode(hex('ffff fffc'), 0, 4)).toThrow(/EOS/);
  });
});

describe('HPACK encoding of response blocks', () => {
  it('round-trips through the decoder, using the static table where it can', () => {
    const fields: [string, string][] = [
      [':status', '200'],
      ['content-type', 'application/grpc+proto'],
      ['grpc-status', '0'],
      [':status', '415'],
    ];
    const block = encodeHeaderBlock(fields);
    expect(block[0]).toBe(0x88);
    expect(new HpackDecoder().decode(block)).toEqual({
      ':status': ['200', '415'],
      'content-type': 'application/grpc+proto',
      'grpc-status': '0',
    });
    const long = 'v'.repeat(300);
    expect(new HpackDecoder().decode(encodeHeaderBlock([['grpc-message', long]]))).toEqual({ 'grpc-message': long });
  });
});
