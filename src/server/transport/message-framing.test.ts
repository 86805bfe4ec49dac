import { describe, expect, it } from 'vitest';
import { FramingError, MessageDecoder, framedMessage, joinMessage, messageHeader } from './message-framing.js';

const frame = (flag: number, body: string): Buffer => {
  const b = Buffer.from(body, 'latin1');
  const h = Buffer.alloc(5);
  h[0] = flag;
  h.writeUInt32BE(b.length, 1);
  return Buffer.concat([h, b]);
};

/** The FramingError `fn` throws (fails the test if it throws nothing or something else). */
function framingError(fn: () => unknown): FramingError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(FramingError);
    return e as FramingError;
  }
  throw new Error('expected a FramingError');
}

const decodeAll = (d: MessageDecoder, chunks: Buffer[]): string[] =>
  chunks.flatMap((c) => d.push(c)).map((m) => `${m.compressed ? 'z' : ''}${joinMessage(m).toString('latin1')}`);

describe('MessageDecoder', () => {
  const stream = Buffer.concat([frame(0, 'hello'), frame(0, ''), frame(1, 'zipped'), frame(0, 'x'.repeat(300))]);
  const expected = ['hello', '', 'zzipped', 'x'.repeat(300)];

  it('splits a stream into messages wherever the chunk boundaries fall', () => {
    for (let cut = 0; cut <= stream.length; cut++) {
      for (const second of [cut, Math.min(stream.length, cut + 3), Math.min(stream.length, cut + 7)]) {
        const d = new MessageDecoder(1024);
        const got = decodeAll(d, [stream.subarray(0, cut), stream.subarray(cut, second), stream.subarray(second)]);
        expect(got, `cuts at ${cut}, ${second}`).toEqual(expected);
        expect(d.partial).toBe(false);
      }
    }
  });

  it('takes the stream one byte at a time', () => {
    const d = new MessageDecoder(1024);
    const got = decodeAll(
      d,
      [...stream].map((b) => Buffer.from([b])),
    );
    expect(got).toEqual(expected);
  });

  it('reports a message cut short as partial', () => {
    const d = new MessageDecoder(1024);
    expect(d.push(frame(0, 'hello').subarray(0, 7))).toEqual([]);
    expect(d.partial).toBe(true);
    const h = new MessageDecoder(1024);
    h.push(Buffer.from([0, 0]));
    expect(h.partial).toBe(true);
  });

  it('rejects a declared length over the maximum from the header alone (RESOURCE_EXHAUSTED)', () => {
    const d = new MessageDecoder(10);
    expect(d.push(frame(0, '0123456789'))).toHaveLength(1);
    const e = framingError(() => d.push(messageHeader(11)));
    expect(e.code).toBe(8);
    expect(e.message).toBe('Received message larger than max (11 vs. 10)');
  });

  it('rejects a compressed flag other than 0 or 1 (INTERNAL)', () => {
    const two = framingError(() => new MessageDecoder(10).push(frame(2, 'a')));
    expect(two.code).toBe(13);
    expect(two.message).toMatch(/compressed flag is 2/);
    expect(framingError(() => new MessageDecoder(10).push(frame(0x80, 'a'))).code).toBe(13);
  });
});

describe('framing messages', () => {
  it('writes the 5-byte header of the worked example', () => {
    expect(framedMessage(Buffer.from([0x0a, 0x01, 0x61])).toString('hex')).toBe('00000000030a0161');
    expect(messageHeader(0x01020304).toString('hex')).toBe('0001020304');
  });
});
