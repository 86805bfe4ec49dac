import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SqlTimestamp } from '../types.js';
import { castValue, floatToInt64, formatFloat, parseFloat64 } from './cast.js';
import { compareValues, groupKey, sqlEquals } from './compare.js';
import { MAX_TIMESTAMP_MICROS, MIN_TIMESTAMP_MICROS, formatTimestamp, parseTimestamp } from './time.js';

describe('ordering and equality', () => {
  it('orders NULL first, then NaN, then the numbers, -0 equal to +0', () => {
    const values = [3, null, -Infinity, NaN, 0, -0, Infinity, -1.5];
    const sorted = [...values].sort(compareValues);
    expect(sorted.slice(0, 3)).toEqual([null, NaN, -Infinity]);
    expect(sorted.slice(-2)).toEqual([3, Infinity]);
    expect(compareValues(0, -0)).toBe(0);
  });

  it('NaN equals nothing; NULL makes equality unknown; groups put NaNs and NULLs together', () => {
    expect(sqlEquals(NaN, NaN)).toBe(false);
    expect(sqlEquals(null, 1n)).toBe(null);
    expect(groupKey(NaN)).toBe(groupKey(NaN));
    expect(groupKey(0)).toBe(groupKey(-0));
    expect(groupKey(null)).not.toBe(groupKey(0n));
  });

  it('orders strings by code point and bytes unsigned', () => {
    expect(compareValues('\u{1F600}', '\uFFFF')).toBeGreaterThan(0);
    expect(compareValues(new Uint8Array([0x80]), new Uint8Array([0x7f]))).toBeGreaterThan(0);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        const byCodePoint = Math.sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
        expect(Math.sign(compareValues(a, b))).toBe(byCodePoint);
      }),
    );
  });

  it('compares INT64 with FLOAT64 exactly', () => {
    expect(compareValues(2n ** 53n + 1n, 2 ** 53)).toBeGreaterThan(0);
    expect(compareValues(1n, 1.5)).toBeLessThan(0);
  });
});

describe('casts', () => {
  it('rounds floats half away from zero to INT64 and refuses what does not fit', () => {
    expect(floatToInt64(2.5)).toBe(3n);
    expect(floatToInt64(-2.5)).toBe(-3n);
    expect(() => floatToInt64(NaN)).toThrow();
    expect(() => floatToInt64(1e19)).toThrow();
  });

  it('prints floats so that they read back the same', () => {
    fc.assert(
      fc.property(fc.double(), (f) => {
        const back = parseFloat64(formatFloat(f));
        expect(Object.is(back, f) || (Number.isNaN(back) && Number.isNaN(f))).toBe(true);
      }),
    );
  });

  it('round-trips INT64 through STRING', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (n) => {
        const INT64 = { kind: 'INT64' } as const;
        const STRING = { kind: 'STRING' } as const;
        expect(castValue(castValue(n, INT64, STRING), STRING, INT64)).toBe(n);
      }),
    );
  });

  it('round-trips timestamps through their canonical text', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: MIN_TIMESTAMP_MICROS, max: MAX_TIMESTAMP_MICROS }), (micros) => {
        expect(parseTimestamp(formatTimestamp(new SqlTimestamp(micros))).micros).toBe(micros);
      }),
    );
  });
});
