import { describe, expect, it } from 'vitest';
import { classifySegment, datePathAt, detectDelimiter, outOfOrder, splitKey, startsWithHost } from './key-shape.js';

const kind = (s: string): string => classifySegment(s).kind;

describe('key shape', () => {
  it('tells timestamps of every common form from numbers', () => {
    for (const s of [
      '2023-05-01T12:00:00Z',
      '2023-05-01T12:00:00.123Z',
      '2023-05-01',
      '2023-05',
      '20230501',
      '20230501T120000Z',
      '1682942400',
      '1682942400000',
      '1682942400000000',
    ]) {
      expect(kind(s), s).toBe('timestamp');
    }
    expect(classifySegment('1682942400000').detail).toBe('epoch milliseconds');
    expect(classifySegment('018f2b1c-7a3e-7c1d-9f00-5a1b2c3d4e5f').detail).toBe('UUIDv7 (time-ordered)');
    // Ids, padded numbers, out-of-range "epochs".
    expect(kind('42')).toBe('decimal');
    expect(kind('00042')).toBe('padded');
    expect(kind('9999999999')).toBe('decimal');
    expect(kind('20231399')).toBe('decimal');
  });

  it('recognises latest-first timestamps (MAX - t), zero-padded', () => {
    const ms = Date.UTC(2023, 4, 1);
    expect(kind(String(9223372036854775807n - BigInt(ms)))).toBe('reversed-timestamp');
    expect(kind(String(9999999999999 - ms).padStart(13, '0'))).toBe('reversed-timestamp');
  });

  it('recognises hashes, random UUIDs and base64, and not words', () => {
    expect(classifySegment('9f86d081884c7d659a2feaa0c55ad015').detail).toBe('hex');
    expect(classifySegment('f47ac10b-58cc-4372-a567-0e02b2c3d479').detail).toBe('UUIDv4');
    expect(classifySegment('q3Xb9LpZ2rT8vKmW0yHs').detail).toBe('base64');
    for (const s of ['sensor123', 'SensorReadingTemperature', 'deadbeef', 'user']) expect(kind(s), s).toBe('text');
  });

  it('recognises host names both ways round', () => {
    expect(kind('www.example.com')).toBe('host');
    expect(kind('com.example.www')).toBe('reversed-host');
    expect(startsWithHost('www.example.com/a')).toBe(true);
    expect(startsWithHost('com.example.www/a')).toBe(false);
  });

  it('finds the delimiter outside timestamps and host names', () => {
    expect(detectDelimiter(['2023-05-01T12:00:00Z#sensor1', '2023-05-01T12:00:01Z#sensor2'])).toBe('#');
    expect(detectDelimiter(['www.example.com/a', 'shop.example.org/b/c'])).toBe('/');
    expect(detectDelimiter(['user:42:post', 'user:43:post'])).toBe(':');
    expect(detectDelimiter(['abc', 'def'])).toBe('#');
  });

  it('keeps ISO timestamps whole when the delimiter is a colon, and sees dates over segments', () => {
    expect(splitKey('sensor:2023-05-01T12:00:00Z:temp', ':')).toEqual(['sensor', '2023-05-01T12:00:00Z', 'temp']);
    expect(splitKey('a#b:c', '#')).toEqual(['a', 'b:c']);
    expect(classifySegment('1682942400.25').detail).toBe('epoch seconds');
    expect(datePathAt(['2023', '05', '01', 'sensor1'], 0)).toBe(3);
    expect(datePathAt(['2023', '05', 'sensor1'], 0)).toBe(2);
    expect(datePathAt(['2023', '13', 'x'], 0)).toBe(0);
  });

  it('orders numbers: unpadded out of order, fractions of seconds in order', () => {
    expect(outOfOrder('item10', 'item9')).toBe(true);
    expect(outOfOrder('item09', 'item10')).toBe(false);
    expect(outOfOrder('s#12:00:00.123Z', 's#12:00:00.5Z')).toBe(false);
  });
});
