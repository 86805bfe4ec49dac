import { describe, expect, it } from 'vitest';
import { formatBytes, formatNumber, formatSeconds, formatShare, formatValue } from './format.js';

describe('format', () => {
  it('sizes in binary units, unknown as a dash', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(20_500_000)).toBe('19.6 MiB');
    expect(formatBytes(1536)).toBe('1.50 KiB');
    expect(formatBytes(undefined)).toBe('—');
  });

  it('numbers with separators, fractions to three digits', () => {
    expect(formatNumber(120000)).toBe('120,000');
    expect(formatNumber(0.012345)).toBe('0.0123');
    expect(formatNumber(12.345)).toBe('12.3');
    expect(formatNumber(null)).toBe('—');
  });

  it('values in their unit', () => {
    expect(formatValue(1290, 'ops/s')).toBe('1,290 ops/s');
    expect(formatValue(2048, 'bytes/s')).toBe('2.00 KiB/s');
    expect(formatValue(null, 'ms')).toBe('no data');
    expect(formatSeconds(0.5)).toBe('0.5 s');
    expect(formatSeconds(600)).toBe('10 min');
  });

  it('shares as percentages to one decimal', () => {
    expect(formatShare(0.4234)).toBe('42.3%');
    expect(formatShare(1)).toBe('100%');
    expect(formatShare(0)).toBe('0%');
    expect(formatShare(0.0004)).toBe('0.0%');
    expect(formatShare(undefined)).toBe('—');
  });
});
