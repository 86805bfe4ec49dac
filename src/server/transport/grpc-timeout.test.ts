import { describe, expect, it } from 'vitest';
import { parseGrpcTimeout } from './grpc-timeout.js';

describe('parseGrpcTimeout', () => {
  const cases: [string, number | undefined][] = [
    ['1S', 1000],
    ['250m', 250],
    ['2M', 120_000],
    ['1H', 3_600_000],
    ['1500u', 1.5],
    ['2000000n', 2],
    ['0m', 0],
    ['99999999S', 99_999_999_000],
    ['123456789S', undefined], // 9 digits
    ['S', undefined],
    ['10', undefined],
    ['10s', undefined],
    ['1.5S', undefined],
    ['-1S', undefined],
    [' 1S', undefined],
    ['', undefined],
  ];
  for (const [value, millis] of cases) {
    it(`"${value}" → ${String(millis)}`, () => {
      expect(parseGrpcTimeout(value)).toBe(millis);
    });
  }
});
