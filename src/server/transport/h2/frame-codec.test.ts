import { describe, expect, it } from 'vitest';
import {
  DATA,
  FLAG_END_HEADERS,
  FLAG_END_STREAM,
  FrameReader,
  type FrameSink,
  GOAWAY,
  HEADERS,
  MAX_FRAME_IN,
  SETTINGS,
  WINDOW_UPDATE,
  encodeFrame,
  encodeGoAway,
  encodeRstStream,
  encodeSettings,
  encodeWindowUpdate,
} from './frame-codec.js';
import { H2_ENHANCE_YOUR_CALM, H2_REFUSED_STREAM } from './error-codes.js';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

interface Seen {
  readonly frames: { type: number; flags: number; id: number; payload: string }[];
  tooLarge: number | undefined;
  badPreface: boolean;
}

/** A reader whose sink records what it hears; `onFrame` may act on the reader mid-read. */
function recorder(onFrame?: (reader: FrameReader) => void): { reader: FrameReader; seen: Seen } {
  const seen: Seen = { frames: [], tooLarge: undefined, badPreface: false };
  const sink: FrameSink = {
    frame(type, flags, id, buf, start, end) {
      seen.frames.push({ type, flags, id, payload: buf.subarray(start, end).toString('hex') });
      onFrame?.(reader);
    },
    frameTooLarge(length) {
      seen.tooLarge = length;
    },
    badPreface() {
      seen.badPreface = true;
    },
  };
  const reader = new FrameReader(sink);
  return { reader, seen };
}

const frames = [
  encodeSettings([[4, 1 << 20]]),
  encodeFrame(HEADERS, FLAG_END_HEADERS, 1, Buffer.from('abc')),
  encodeFrame(DATA, FLAG_END_STREAM, 1, Buffer.alloc(3000, 7)),
  encodeWindowUpdate(0, 12345),
  encodeFrame(DATA, 0, 3, Buffer.alloc(0)),
];
const stream = Buffer.concat([PREFACE, ...frames]);

describe('FrameReader', () => {
  it('hands on the same frames however the bytes are split across reads', () => {
    const whole = recorder();
    whole.reader.push(stream);
    expect(whole.seen.frames.map((f) => f.type)).toEqual([SETTINGS, HEADERS, DATA, WINDOW_UPDATE, DATA]);
    expect(whole.seen.frames[1]).toEqual({ type: HEADERS, flags: FLAG_END_HEADERS, id: 1, payload: Buffer.from('abc').toString('hex') });
    for (const size of [1, 2, 7, 9, 10, 100, 1000]) {
      const split = recorder();
      for (let p = 0; p < stream.length; p += size) split.reader.push(stream.subarray(p, p + size));
      expect(split.seen.frames, `reads of ${size} bytes`).toEqual(whole.seen.frames);
    }
  });

  it('reports a connection that does not start with the preface', () => {
    const { reader, seen } = recorder();
    reader.push(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    expect(seen.badPreface).toBe(true);
    expect(seen.frames).toEqual([]);
  });

  it('stops at a frame over MAX_FRAME_IN, whole or split at its header', () => {
    const big = Buffer.alloc(9);
    big.writeUIntBE(MAX_FRAME_IN + 1, 0, 3);
    for (const cut of [0, 4]) {
      const { reader, seen } = recorder();
      const bytes = Buffer.concat([PREFACE, frames[0]!, big, frames[1]!]);
      const at = PREFACE.length + frames[0]!.length + cut;
      reader.push(bytes.subarray(0, at));
      reader.push(bytes.subarray(at));
      expect(seen.tooLarge).toBe(MAX_FRAME_IN + 1);
      expect(seen.frames.map((f) => f.type)).toEqual([SETTINGS]);
    }
  });

  it('reads nothing more once stopped, not even the rest of the read', () => {
    const { reader, seen } = recorder((r) => r.stop());
    reader.push(stream);
    reader.push(frames[1]!);
    expect(seen.frames.map((f) => f.type)).toEqual([SETTINGS]);
  });
});

describe('frame encoders', () => {
  it('write the header (length, type, flags, stream) and payload of RFC 9113 §4.1', () => {
    expect(encodeRstStream(5, H2_REFUSED_STREAM).toString('hex')).toBe('000004' + '03' + '00' + '00000005' + '00000007');
    expect(encodeWindowUpdate(0, 65_536).toString('hex')).toBe('000004' + '08' + '00' + '00000000' + '00010000');
    expect(
      encodeSettings([
        [3, 100],
        [4, 65_535],
      ]).toString('hex'),
    ).toBe('00000c' + '04' + '00' + '00000000' + '0003' + '00000064' + '0004' + '0000ffff');
    expect(encodeGoAway(7, H2_ENHANCE_YOUR_CALM, 'é').toString('hex')).toBe(
      '00000a' + '07' + '00' + '00000000' + '00000007' + '0000000b' + 'c3a9',
    );
    expect(encodeFrame(GOAWAY, 0, 0, Buffer.alloc(0)).length).toBe(9);
  });
});
