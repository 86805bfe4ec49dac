import { describe, expect, it } from 'vitest';
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
    expect(parseSize(text, '--x')).toBe(bytes);
  });

  it.each(['', 'MiB', '-1', '1XiB', '1 2', 'abc'])('rejects %j', (text) => {
    expect(() => parseSize(text, '--split-size')).toThrow(/--split-size must be a size/);
  });
});
