import { describe, expect, it } from 'vitest';
import { parseDuration } from './parse-duration.js';
import { parseSize } from './parse-size.js';

describe('parseSize', () => {
  it.each([
    ['4096', 4096],
    ['1KiB', 1024],
    ['64MiB', 64 * 1024 * 1024],
    ['64mb', 64 * 1024 * 1024],
    ['1.5GiB', 1.5 * 1024 ** 3],
    ['2G', 2 * 1024 ** 3],
    ['10B', 10],
  ])('%s is %d bytes', (text, bytes) => {
    expect(parseSize(text)).toBe(bytes);
  });

  it.each(['', 'MiB', '-1', '1XiB', '1 2', 'abc'])('rejects %j', (text) => {
    expect(() => parseSize(text)).toThrow(/must be a size such as/);
  });
});

describe('parseDuration', () => {
  it.each([
    ['0', 0],
    ['500ms', 500],
    ['30s', 30_000],
    ['1.5s', 1500],
    ['5m', 300_000],
    ['2h', 7_200_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '30', '-1s', '1d', 's', '1 min'])('rejects %j', (text) => {
    expect(() => parseDuration(text)).toThrow(/must be a duration such as/);
  });
});
