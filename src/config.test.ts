import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, resolveConfig } from './config.js';

describe('resolveConfig', () => {
  it('gives the defaults, with overrides applied and undefined ignored', () => {
    expect(resolveConfig()).toEqual(DEFAULT_CONFIG);
    const c = resolveConfig({ gcSweepIntervalMillis: 5, samplePieceBytes: undefined });
    expect(c.gcSweepIntervalMillis).toBe(5);
    expect(c.samplePieceBytes).toBe(DEFAULT_CONFIG.samplePieceBytes);
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('rejects nonsense', () => {
    expect(() => resolveConfig({ gcSweepIntervalMillis: -1 })).toThrow(/gcSweepIntervalMillis/);
    expect(() => resolveConfig({ memtableBytes: Number.NaN })).toThrow(/memtableBytes/);
    expect(() => resolveConfig({ samplePieceBytes: 0 })).toThrow(/samplePieceBytes/);
    for (const insightBucketMillis of [0, 99, 500.5]) expect(() => resolveConfig({ insightBucketMillis })).toThrow(/insightBucketMillis/);
    expect(resolveConfig({ insightBucketMillis: 500 }).insightBucketMillis).toBe(500);
    for (const nodes of [0, 2.5, 1001])
      expect(() => resolveConfig({ nodes })).toThrow(/config.nodes must be a whole number from 1 to 1000/);
  });
});
