import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shortestSeparator, shortSuccessor } from './separator.js';

const bytes = fc.array(fc.constantFrom(0, 1, 0x61, 0x62, 0x63, 0xfe, 0xff), { maxLength: 8 }).map((c) => String.fromCharCode(...c));

describe('separators', () => {
  it('shortestSeparator(a, b) lies in [a, b) and is no longer than a', () => {
    fc.assert(
      fc.property(bytes, bytes, (x, y) => {
        fc.pre(x !== y);
        const [a, b] = x < y ? [x, y] : [y, x];
        const s = shortestSeparator(a, b);
        expect(s >= a && s < b).toBe(true);
        expect(s.length).toBeLessThanOrEqual(a.length);
      }),
      { numRuns: 2000 },
    );
  });

  it('shortens where it can', () => {
    expect(shortestSeparator('apricot', 'banana')).toBe('b');
    expect(shortestSeparator('user#000123', 'user#000200')).toBe('user#0002');
    expect(shortestSeparator('abc1zzz', 'abd0')).toBe('abd');
    expect(shortestSeparator('abc1zzz', 'abd')).toBe('abc2');
    expect(shortestSeparator('abc', 'abcd')).toBe('abc');
    expect(shortestSeparator('ab\xff\xff\xff', 'ac')).toBe('ab\xff\xff\xff');
  });

  it('shortSuccessor(a) >= a and is no longer', () => {
    fc.assert(
      fc.property(bytes, (a) => {
        const s = shortSuccessor(a);
        expect(s >= a).toBe(true);
        expect(s.length).toBeLessThanOrEqual(a.length);
      }),
    );
    expect(shortSuccessor('banana')).toBe('c');
    expect(shortSuccessor('\xff\xffz')).toBe('\xff\xffz');
    expect(shortSuccessor('\xff\xffab')).toBe('\xff\xffb');
  });
});
