import { describe, expect, it } from 'vitest';
import { formatBytes, formatCount, formatMillis } from './units.js';

describe('units', () => {
  it('formats sizes in binary units, durations and counts', () => {
    expect([0, 1023, 1024, 1536, 32 * 1024 ** 2, 3 * 1024 ** 3].map(formatBytes)).toEqual([
      '0 B',
      '1023 B',
      '1.0 KiB',
      '1.5 KiB',
      '32.0 MiB',
      '3.0 GiB',
    ]);
    expect([0.4, 999.4, 1000, 12_345].map(formatMillis)).toEqual(['0 ms', '999 ms', '1.0 s', '12.3 s']);
    expect(formatCount(1234567.2)).toBe('1,234,567');
  });
});
