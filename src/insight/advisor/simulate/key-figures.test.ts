import { describe, expect, it } from 'vitest';
import { KeyFigures } from './key-figures.js';

const figures = new KeyFigures({
  keys: ['a', 'b', 'c', 'd'],
  bytes: [10, 10, 10, 10],
  reads: [1, 0, 0, 1],
  writes: [
    [0, 0, 0, 0],
    [0, 0, 8, 0],
  ],
  born: [-1, -1, 1, -1],
});

describe('KeyFigures', () => {
  it('sums bytes of the keys stored by a round, and reads, writes and ops over key ranges', () => {
    expect(figures.bytes(0, 4, undefined)).toBe(30);
    expect(figures.bytes(0, 4, 0)).toBe(30);
    expect(figures.bytes(0, 4, 1)).toBe(40);
    expect(figures.bytes(2, 3, 1)).toBe(10);
    expect(figures.reads(0, 4)).toBe(2);
    expect(figures.writes(0, 4, 1)).toBe(8);
    expect(figures.ops(1, 4, 1)).toBe(9);
    expect(figures.maxKeyShare(1)).toBe(0.8);
    expect(figures.maxKeyShare(0)).toBe(0.5);
  });

  it('samples keys every `step` bytes as the memory store does (skipping keys not stored yet)', () => {
    expect(figures.byteSamples(0, 4, 1, 20)).toEqual([{ key: 'c' }]);
    expect(figures.byteSamples(0, 4, 0, 20)).toEqual([{ key: 'd' }]);
    expect(figures.byteSamples(0, 4, 1, 10)).toEqual([{ key: 'b' }, { key: 'c' }, { key: 'd' }]);
  });

  it('samples requests in proportion to the ops on each key', () => {
    const samples = figures.requestSamples(0, 4, 1, 10);
    expect(samples.filter((k) => k === 'c')).toHaveLength(8);
    expect(samples.filter((k) => k === 'a')).toHaveLength(1);
    expect(samples.filter((k) => k === 'd')).toHaveLength(1);
    expect(figures.requestSamples(1, 2, 1, 3)).toEqual(['b', 'b', 'b']);
  });
});
