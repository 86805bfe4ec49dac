import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteReader } from './byte-reader.js';
import { ByteWriter, putVarint, varintLength } from './byte-writer.js';

const fail = (why: string): never => {
  throw new Error(why);
};
const reader = (bytes: readonly number[] | Buffer): ByteReader => {
  const buf = Buffer.from(bytes);
  return new ByteReader(buf, 0, buf.length, fail);
};

describe('ByteReader and ByteWriter', () => {
  it('round-trip every kind of field, reading views of the buffer', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ u8: fc.integer({ min: 0, max: 255 }) }),
            fc.record({ varint: fc.oneof(fc.nat(300), fc.maxSafeNat()) }),
            fc.record({ varint64: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }) }),
            fc.record({ bytes: fc.uint8Array({ maxLength: 40 }) }),
            fc.record({ str: fc.string({ unit: fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c)), maxLength: 40 }) }),
          ),
          { maxLength: 30 },
        ),
        (fields) => {
          const w = new ByteWriter(1);
          for (const f of fields) {
            if ('u8' in f) w.u8(f.u8);
            else if ('varint' in f) w.varint(f.varint);
            else if ('varint64' in f) w.varint64(f.varint64);
            else if ('bytes' in f) w.bytes(f.bytes);
            else w.str(f.str);
          }
          const r = reader(w.view());
          for (const f of fields) {
            if ('u8' in f) expect(r.u8()).toBe(f.u8);
            else if ('varint' in f) expect(r.varint()).toBe(f.varint);
            else if ('varint64' in f) expect(r.varint64()).toBe(f.varint64);
            else if ('bytes' in f) expect([...r.lengthPrefixed()]).toEqual([...f.bytes]);
            else expect(r.str()).toBe(f.str);
          }
          expect(r.done).toBe(true);
        },
      ),
    );
  });

  it('write varints in LevelDB and protobuf form, as long as varintLength says', () => {
    const hex = (v: number): string => {
      const b = Buffer.alloc(10);
      const n = putVarint(b, 0, v);
      expect(n).toBe(varintLength(v));
      return b.subarray(0, n).toString('hex');
    };
    expect(hex(0)).toBe('00');
    expect(hex(127)).toBe('7f');
    expect(hex(128)).toBe('8001');
    expect(hex(300)).toBe('ac02');
    expect(hex(2 ** 53 - 1)).toBe('ffffffffffffff0f');
    const w = new ByteWriter();
    w.varint64(2n ** 64n - 1n);
    expect(w.view().toString('hex')).toBe('ffffffffffffffffff01');
  });

  it('refuse what runs past the end, naming what and where', () => {
    expect(() => reader([]).u8('tag')).toThrow('tag at 0 runs past the end');
    expect(() => reader([0x80]).varint('count')).toThrow('count at 0 runs past the end');
    expect(() => reader([0x05, 1, 2]).lengthPrefixed('value')).toThrow('value at 1 (5 bytes) runs past the end');
    expect(() => reader([0x03, 0x61]).str('family')).toThrow('family at 1 (3 bytes) runs past the end');
    expect(() => reader([0x80, 0x80]).varint64()).toThrow('varint at 0 runs past the end');
    const r = reader([1, 2, 3]);
    r.skip(2);
    expect(() => r.skip(2)).toThrow('bytes at 2 (2 bytes) runs past the end');
  });

  it('take at most 8 bytes and a safe integer for varint(), 10 bytes for varint64()', () => {
    expect(reader([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f]).varint()).toBe(2 ** 53 - 1);
    expect(() => reader([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x10]).varint()).toThrow('varint at 0 is out of range');
    expect(() => reader([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]).varint()).toThrow('varint at 0 is longer than 8 bytes');
    expect(reader([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]).varint64()).toBe(0n);
    expect(() => reader([...Array<number>(10).fill(0x80), 0x00]).varint64()).toThrow('varint at 0 is longer than 10 bytes');
  });

  it('read within [pos, end) and start afresh on reset', () => {
    const buf = Buffer.from([9, 1, 2, 9]);
    const r = new ByteReader(buf, 1, 3, fail);
    expect(r.varint()).toBe(1);
    expect(r.varint()).toBe(2);
    expect(r.done).toBe(true);
    expect(() => r.u8()).toThrow('byte at 3 runs past the end');
    r.reset(buf, 0, 1);
    expect(r.u8()).toBe(9);
  });
});
