import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { addToAggregate, aggregateResult, hllEstimate, mergeAggregate, validateAggregateInput, validateMergeInput } from './aggregate.js';
import { decodeInt64, encodeInt64, INT64_MAX, INT64_MIN } from './int64.js';
import { createHll, parseHll } from './hll.js';
import { HLL_VALUE_TYPE } from './hll-state.js';
import type { Aggregator, ValueType } from '../value-type.js';
import { BYTES_TYPE } from '../value-type.js';
import type { AggregateInput } from '../mutation.js';
import { isTabletopError, type ErrorCode } from '../errors.js';

const intType = (aggregator: Exclude<Aggregator, 'hll'>): ValueType => ({ kind: 'aggregate', aggregator, input: 'int64' });
const HLL_BYTES: ValueType = { kind: 'aggregate', aggregator: 'hll', input: 'bytes' };
const HLL_INTS: ValueType = { kind: 'aggregate', aggregator: 'hll', input: 'int64' };
const int = (value: bigint): AggregateInput => ({ kind: 'int', value });
const bytes = (...b: number[]): AggregateInput => ({ kind: 'bytes', value: Uint8Array.from(b) });

function fold(type: ValueType, inputs: readonly bigint[]): Uint8Array | undefined {
  let cell: Uint8Array | undefined;
  for (const v of inputs) cell = addToAggregate(type, cell, int(v));
  return cell;
}

function codeOf(f: () => unknown): ErrorCode | undefined {
  try {
    f();
  } catch (e) {
    if (isTabletopError(e)) return e.code;
    throw e;
  }
  return undefined;
}

/**
 * AddToCell / MergeToCell sequences at one timestamp and the cell production
 * returned (recorded by jayfeng0625/better-bttest's parity suite against Cloud
 * Bigtable). A NULL AddToCell input reaches the model as 0.
 */
const PARITY: ReadonlyArray<{ name: string; aggregator: Exclude<Aggregator, 'hll'>; inputs: bigint[]; cell: string }> = [
  { name: 'sum merges at one timestamp', aggregator: 'sum', inputs: [456n, 123n], cell: '0000000000000243' },
  { name: 'sum merges a third input', aggregator: 'sum', inputs: [456n, 123n, 789n], cell: '0000000000000558' },
  { name: 'sum of negative values is signed', aggregator: 'sum', inputs: [-3n, 5n], cell: '0000000000000002' },
  { name: 'sum, NULL input on 456', aggregator: 'sum', inputs: [456n, 0n], cell: '00000000000001c8' },
  { name: 'min keeps the minimum', aggregator: 'min', inputs: [456n, 123n, 789n], cell: '000000000000007b' },
  { name: 'min compares signed', aggregator: 'min', inputs: [-3n, 5n], cell: 'fffffffffffffffd' },
  { name: 'min, NULL input on 456 is min(456, 0)', aggregator: 'min', inputs: [456n, 0n], cell: '0000000000000000' },
  { name: 'max keeps the maximum', aggregator: 'max', inputs: [456n, 123n, 789n], cell: '0000000000000315' },
  { name: 'max compares signed', aggregator: 'max', inputs: [-3n, 5n], cell: '0000000000000005' },
  { name: 'max, NULL input on 456', aggregator: 'max', inputs: [456n, 0n], cell: '00000000000001c8' },
  { name: 'max, NULL input on an empty cell', aggregator: 'max', inputs: [0n], cell: '0000000000000000' },
];

describe('int64 aggregates (sum, min, max)', () => {
  for (const c of PARITY) {
    it(`AddToCell: ${c.name}`, () => {
      expect(Buffer.from(fold(intType(c.aggregator), c.inputs)!).toString('hex')).toBe(c.cell);
    });
    it(`MergeToCell: ${c.name}`, () => {
      let cell: Uint8Array | undefined;
      for (const v of c.inputs) cell = mergeAggregate(intType(c.aggregator), cell, encodeInt64(v));
      expect(Buffer.from(cell!).toString('hex')).toBe(c.cell);
    });
  }

  it('sums wrap around at the int64 boundary', () => {
    expect(decodeInt64(fold(intType('sum'), [INT64_MAX, 1n])!)).toBe(INT64_MIN);
    expect(decodeInt64(fold(intType('sum'), [INT64_MIN, -1n])!)).toBe(INT64_MAX);
  });

  it('an empty MergeToCell state changes nothing and creates no cell', () => {
    const existing = encodeInt64(456n);
    expect(mergeAggregate(intType('sum'), existing, new Uint8Array())).toBe(existing);
    expect(mergeAggregate(intType('sum'), undefined, new Uint8Array())).toBeUndefined();
  });

  it('a MergeToCell state that is not 8 bytes is a family type mismatch', () => {
    for (const n of [3, 7, 9]) {
      expect(() => mergeAggregate(intType('min'), encodeInt64(1n), new Uint8Array(n))).toThrow(
        /^Column family type mismatch: .* got \d bytes$/,
      );
      expect(codeOf(() => validateMergeInput(intType('max'), new Uint8Array(n)))).toBe('InvalidArgument');
    }
  });

  it('AddToCell takes int_value only', () => {
    expect(() => addToAggregate(intType('sum'), undefined, bytes(1, 2))).toThrow("Error in field 'input' : must use `int_value`");
    expect(codeOf(() => validateAggregateInput(intType('sum'), int(1n << 63n)))).toBe('InvalidArgument');
    expect(codeOf(() => validateAggregateInput(intType('sum'), int(INT64_MIN)))).toBeUndefined();
  });

  it('a plain family is not an aggregate', () => {
    expect(() => addToAggregate(BYTES_TYPE, undefined, int(1n))).toThrow(/^Column family type mismatch/);
    expect(() => mergeAggregate(BYTES_TYPE, undefined, encodeInt64(1n))).toThrow(/^Column family type mismatch/);
  });

  it('an existing cell that is not 8 bytes is corruption (DataLoss)', () => {
    expect(codeOf(() => addToAggregate(intType('sum'), new Uint8Array(5), int(1n)))).toBe('DataLoss');
  });

  const int64 = fc.bigInt({ min: INT64_MIN, max: INT64_MAX });

  it('sum with wrap-around is associative and commutative; AddToCell and MergeToCell agree (property)', () => {
    fc.assert(
      fc.property(fc.array(int64, { minLength: 1, maxLength: 20 }), fc.integer({ min: 0, max: 20 }), (xs, split) => {
        const t = intType('sum');
        const whole = decodeInt64(fold(t, xs)!);
        expect(decodeInt64(fold(t, xs.toReversed())!)).toBe(whole);
        const k = Math.min(split, xs.length - 1);
        const left = fold(t, xs.slice(0, k + 1))!;
        const right = xs.length > k + 1 ? fold(t, xs.slice(k + 1)) : undefined;
        const merged = right === undefined ? left : mergeAggregate(t, left, right)!;
        expect(decodeInt64(merged)).toBe(whole);
        expect(whole).toBe(
          BigInt.asIntN(
            64,
            xs.reduce((a, b) => a + b, 0n),
          ),
        );
      }),
    );
  });

  it('min and max are order-independent and idempotent (property)', () => {
    fc.assert(
      fc.property(fc.array(int64, { minLength: 1, maxLength: 20 }), (xs) => {
        const lo = xs.reduce((a, b) => (a < b ? a : b));
        const hi = xs.reduce((a, b) => (a > b ? a : b));
        expect(decodeInt64(fold(intType('min'), [...xs, ...xs.toReversed()])!)).toBe(lo);
        expect(decodeInt64(fold(intType('max'), [...xs, ...xs.toReversed()])!)).toBe(hi);
      }),
    );
  });

  it('aggregateResult reads the int64', () => {
    expect(aggregateResult(intType('sum'), encodeInt64(-42n))).toBe(-42n);
  });
});

describe('HLL++ aggregates', () => {
  it('AddToCell builds the same state as a sketch fed the same values', () => {
    let cell: Uint8Array | undefined;
    const sketch = createHll(HLL_VALUE_TYPE.bytes);
    for (let i = 0; i < 300; i++) {
      const v = new TextEncoder().encode(`visitor-${i % 120}`);
      cell = addToAggregate(HLL_BYTES, cell, { kind: 'bytes', value: v });
      sketch.addBytes(v);
    }
    expect(Buffer.from(cell!).equals(Buffer.from(sketch.serialize()))).toBe(true);
    expect(hllEstimate(cell!)).toBe(120);
    expect(aggregateResult(HLL_BYTES, cell!)).toBe(120n);
  });

  it('int64-input families hash integers and take int_value', () => {
    let cell: Uint8Array | undefined;
    for (let i = 0; i < 50; i++) cell = addToAggregate(HLL_INTS, cell, int(BigInt(i % 10)));
    expect(hllEstimate(cell!)).toBe(10);
    expect(parseHll(cell!).numValues).toBe(50n);
    expect(() => addToAggregate(HLL_INTS, cell, bytes(1))).toThrow('must use `int_value`');
    expect(() => addToAggregate(HLL_BYTES, undefined, int(1n))).toThrow('must use `bytes_value`');
  });

  it('MergeToCell merges states; merge(a, b) estimates the union (commutative)', () => {
    const a = createHll(HLL_VALUE_TYPE.bytes);
    const b = createHll(HLL_VALUE_TYPE.bytes);
    for (let i = 0; i < 20_000; i++) a.addBytes(new TextEncoder().encode(`k${i}`));
    for (let i = 10_000; i < 50_000; i++) b.addBytes(new TextEncoder().encode(`k${i}`));
    const ab = mergeAggregate(HLL_BYTES, a.serialize(), b.serialize())!;
    const ba = mergeAggregate(HLL_BYTES, b.serialize(), a.serialize())!;
    expect(Buffer.from(ab).equals(Buffer.from(ba))).toBe(true);
    expect(Math.abs(hllEstimate(ab) - 50_000) / 50_000).toBeLessThan(0.03);
    expect(parseHll(ab).numValues).toBe(60_000n);
  });

  it('MergeToCell onto no cell stores the incoming state; an empty state changes nothing', () => {
    const s = createHll(HLL_VALUE_TYPE.bytes, { precision: 12, sparsePrecision: 17 });
    s.addBytes(Uint8Array.of(7));
    const state = s.serialize();
    const cell = mergeAggregate(HLL_BYTES, undefined, state)!;
    expect(parseHll(cell).precision).toBe(12);
    expect(mergeAggregate(HLL_BYTES, cell, new Uint8Array())).toBe(cell);
  });

  it('rejects states that are not HLL++ states or hold another value type, as a type mismatch', () => {
    const ints = createHll(HLL_VALUE_TYPE.int64);
    ints.addInt64(1n);
    for (const state of [encodeInt64(5n), Uint8Array.of(1, 2, 3), ints.serialize()]) {
      expect(() => validateMergeInput(HLL_BYTES, state)).toThrow(/^Column family type mismatch: /);
    }
  });

  it('an existing cell that is not a state is corruption (DataLoss)', () => {
    expect(codeOf(() => addToAggregate(HLL_BYTES, Uint8Array.of(9, 9, 9), bytes(1)))).toBe('DataLoss');
    expect(codeOf(() => mergeAggregate(HLL_BYTES, Uint8Array.of(9, 9, 9), createHll(11).serialize()))).toBe('DataLoss');
  });
});
