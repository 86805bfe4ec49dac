import { describe, expect, it } from 'vitest';
import { positivePercentile, rampIndex } from './scale.js';

describe('positivePercentile', () => {
  it('ranks the positive values only, nearest rank', () => {
    const values = [[0, null, 1, 2], [3, 4, 0], Array.from({ length: 94 }, (_, i) => i + 5), [1000]];
    // 99 positive values, 1..98 and 1000 (zeros and nulls left out): p=98 is rank ceil(97.02) = 98.
    expect(positivePercentile(values, 100)).toBe(1000);
    expect(positivePercentile(values, 98)).toBe(98);
    expect(positivePercentile(values, 0)).toBe(1);
  });

  it('is 0 when nothing is positive', () => {
    expect(positivePercentile([[0, null], []], 99)).toBe(0);
  });
});

describe('rampIndex', () => {
  const linear = { ceiling: 100, mode: 'linear' as const, brightness: 1 };
  it('maps zero and below to black, the ceiling and above to the top, linearly between', () => {
    expect(rampIndex(0, linear)).toBe(0);
    expect(rampIndex(-5, linear)).toBe(0);
    expect(rampIndex(100, linear)).toBe(255);
    expect(rampIndex(1e9, linear)).toBe(255);
    expect(rampIndex(50, linear)).toBe(128);
  });

  it('keeps tiny positive values off black', () => {
    expect(rampIndex(1e-9, linear)).toBe(1);
  });

  it('spreads three decades below the ceiling over the ramp in log mode', () => {
    const log = { ...linear, mode: 'log' as const };
    expect(rampIndex(100, log)).toBe(255);
    expect(rampIndex(10, log)).toBe(170);
    expect(rampIndex(1, log)).toBe(85);
    expect(rampIndex(0.1, log)).toBe(1);
  });

  it('brightness lifts dim values (gamma) and leaves the ends', () => {
    const bright = { ...linear, brightness: 2 };
    expect(rampIndex(25, bright)).toBe(128);
    expect(rampIndex(25, { ...linear, brightness: 0.5 })).toBe(16);
    expect(rampIndex(100, bright)).toBe(255);
  });

  it('draws everything black without a ceiling (nothing positive in view)', () => {
    expect(rampIndex(5, { ...linear, ceiling: 0 })).toBe(0);
  });
});
