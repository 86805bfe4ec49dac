import { describe, expect, it } from 'vitest';
import { sizeSplitKey, sizeSplitStep } from './size-split.js';

describe('size splits', () => {
  it('samples at half the bytes once a tablet is past the split size, and not before', () => {
    expect(sizeSplitStep(100, 100)).toBeUndefined();
    expect(sizeSplitStep(101, 100)).toBe(50);
    expect(sizeSplitStep(3, 1)).toBe(1);
  });

  it('splits at the first sample strictly inside the range', () => {
    const samples = [{ key: 'a' }, { key: 'm' }, { key: 'x' }];
    expect(sizeSplitKey(samples, { start: '', end: undefined })).toBe('a');
    expect(sizeSplitKey(samples, { start: 'a', end: undefined })).toBe('m');
    expect(sizeSplitKey(samples, { start: 'b', end: 'm' })).toBeUndefined();
    expect(sizeSplitKey(samples, { start: 'n', end: 'z' })).toBe('x');
  });
});
