import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { applyReadModifyWrite } from './read-modify-write.js';
import { decodeInt64, encodeInt64, INT64_MAX, INT64_MIN } from './aggregate/index.js';
import type { ReadModifyWriteRule } from './mutation.js';
import { isTabletopError } from './errors.js';
import { LIMITS } from './limits.js';

const inc = (amount: bigint): ReadModifyWriteRule => ({ kind: 'increment', family: 'links', qualifier: 'golang.org', amount });
const app = (text: string): ReadModifyWriteRule => ({ kind: 'append', family: 'f', qualifier: 'q', value: new TextEncoder().encode(text) });
const text = (b: Uint8Array): string => new TextDecoder().decode(b);

describe('append', () => {
  it('concatenates, or starts from the rule value when the column is empty', () => {
    expect(text(applyReadModifyWrite(app('lo'), undefined))).toBe('lo');
    expect(text(applyReadModifyWrite(app('lo'), new TextEncoder().encode('hel')))).toBe('hello');
    expect(text(applyReadModifyWrite(app(''), new TextEncoder().encode('x')))).toBe('x');
  });

  it('never aliases its inputs', () => {
    const rule = app('abc');
    const out = applyReadModifyWrite(rule, undefined);
    out[0] = 0x7a;
    expect(text((rule as { value: Uint8Array }).value)).toBe('abc');
  });

  it('refuses to grow a value past 100 MiB', () => {
    const big = new Uint8Array(LIMITS.maxValueBytes);
    let caught: unknown;
    try {
      applyReadModifyWrite(app('!'), big);
    } catch (e) {
      caught = e;
    }
    expect(isTabletopError(caught, 'InvalidArgument')).toBe(true);
    expect(applyReadModifyWrite(app(''), big).byteLength).toBe(LIMITS.maxValueBytes);
  });
});

describe('increment', () => {
  it('treats an absent cell as 0 and adds to 8-byte big-endian values', () => {
    expect(decodeInt64(applyReadModifyWrite(inc(5n), undefined))).toBe(5n);
    expect(decodeInt64(applyReadModifyWrite(inc(-7n), encodeInt64(5n)))).toBe(-2n);
    expect(Buffer.from(applyReadModifyWrite(inc(1n), encodeInt64(255n))).toString('hex')).toBe('0000000000000100');
  });

  it('wraps around on overflow', () => {
    expect(decodeInt64(applyReadModifyWrite(inc(1n), encodeInt64(INT64_MAX)))).toBe(INT64_MIN);
    expect(decodeInt64(applyReadModifyWrite(inc(-1n), encodeInt64(INT64_MIN)))).toBe(INT64_MAX);
  });

  it('fails with FAILED_PRECONDITION and production wording on a value that is not 8 bytes', () => {
    for (const value of [new TextEncoder().encode('1'), new Uint8Array(), new Uint8Array(9)]) {
      let caught: unknown;
      try {
        applyReadModifyWrite(inc(1n), value);
      } catch (e) {
        caught = e;
      }
      expect(isTabletopError(caught, 'FailedPrecondition')).toBe(true);
    }
    expect(() => applyReadModifyWrite(inc(1n), new TextEncoder().encode('1'))).toThrow(
      "Cannot increment value '1' (family=links, qualifier=golang.org). The increment operation can only be performed on 64-bit values",
    );
  });

  it('rejects an amount outside int64', () => {
    expect(() => applyReadModifyWrite(inc(1n << 63n), undefined)).toThrow(/does not fit in int64/);
  });

  it('increments compose: a then b equals a + b with wrap-around (property)', () => {
    const int64 = fc.bigInt({ min: INT64_MIN, max: INT64_MAX });
    fc.assert(
      fc.property(int64, int64, int64, (start, a, b) => {
        const twice = applyReadModifyWrite(inc(b), applyReadModifyWrite(inc(a), encodeInt64(start)));
        expect(decodeInt64(twice)).toBe(BigInt.asIntN(64, start + a + b));
      }),
    );
  });
});
