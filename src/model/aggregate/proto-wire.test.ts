import { describe, expect, it } from 'vitest';
import { WIRE_LENGTH_DELIMITED, WireReader, WireWriter } from './proto-wire.js';

const read = (bytes: number[]): WireReader => new WireReader(Uint8Array.from(bytes), 'test message');

describe('protobuf wire on the one ByteReader and ByteWriter', () => {
  it('writes and reads back tags, varints (a negative int64 in 10 bytes) and length-delimited fields', () => {
    const bytes = new WireWriter()
      .varintField(1, 150)
      .varintField(2, -1n)
      .bytesField(3, Uint8Array.from([7, 8]))
      .finish();
    expect(Buffer.from(bytes).toString('hex')).toBe('089601' + '10ffffffffffffffffff01' + '1a020708');
    expect(bytes).toBeInstanceOf(Uint8Array);
    const r = new WireReader(bytes, 'test message');
    expect(r.tag()).toEqual([1, 0]);
    expect(r.varint31()).toBe(150);
    expect(r.tag()).toEqual([2, 0]);
    expect(BigInt.asIntN(64, r.varint64())).toBe(-1n);
    expect(r.tag()).toEqual([3, WIRE_LENGTH_DELIMITED]);
    expect([...r.bytes()]).toEqual([7, 8]);
    expect(r.atEnd).toBe(true);
  });

  it('refuses a 31-bit varint that is too large, longer than 5 bytes or cut short, as InvalidArgument', () => {
    expect(read([0xff, 0xff, 0xff, 0xff, 0x07]).varint31()).toBe(2 ** 31 - 1);
    for (const bytes of [[0x80, 0x80, 0x80, 0x80, 0x08], [0x80, 0x80, 0x80, 0x80, 0x80, 0x00], [0x80]]) {
      expect(() => read(bytes).varint31()).toThrow(
        expect.objectContaining({ code: 'InvalidArgument', message: expect.stringMatching(/^Invalid test message: varint at 0/) }),
      );
    }
    expect(() => read([0x02, 0x01]).bytes()).toThrow(/field at 1 \(2 bytes\) runs past the end/);
    expect(() => read([0x01]).skip(3)).toThrow(/unsupported wire type 3/);
  });
});
