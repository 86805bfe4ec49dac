import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { createHll, parseHll, type HllSketch } from './hll.js';
import { HLL_VALUE_TYPE, decodeHllState, encodeHllState } from './hll-state.js';
import { fingerprint2011 } from './fingerprint.js';
import { int64LittleEndian, toBigInt } from './u64.js';
import { isTabletopError } from '../errors.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const fromHex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'));

function sketchOf(values: Iterable<bigint>, options: { precision?: number; sparsePrecision?: number } = {}): HllSketch {
  const s = createHll(HLL_VALUE_TYPE.int64, options);
  for (const v of values) s.addInt64(v);
  return s;
}

function* range(from: number, to: number): Generator<bigint> {
  for (let i = from; i < to; i++) yield BigInt(i);
}

function relativeError(estimate: number, truth: number): number {
  return Math.abs(estimate - truth) / truth;
}

function merged(a: HllSketch, b: HllSketch): HllSketch {
  const m = parseHll(a.serialize());
  m.merge(b);
  return m;
}

describe('HLL++ state codec', () => {
  it('writes the documented worked example byte for byte', () => {
    const bytes = encodeHllState({
      numValues: 1n,
      valueType: HLL_VALUE_TYPE.int64,
      precision: 15,
      sparsePrecision: 20,
      data: undefined,
      sparseValues: [0x123],
    });
    expect(hex(bytes)).toBe('087010011802200482070a1001180f20143202a302');
    const back = decodeHllState(bytes);
    expect(back).toMatchObject({ numValues: 1n, valueType: 4, precision: 15, sparsePrecision: 20, sparseValues: [0x123] });
  });

  it('stores the sparse value ZetaSketch derives from the Fingerprint2011 of the value', () => {
    // Independent BigInt derivation of the (p=15, sp=20) sparse encoding of int64 42.
    const h = toBigInt(fingerprint2011(int64LittleEndian(42n)));
    expect(h).toBe(0x583b2b9df8e0eb60n);
    const sparseIndex = Number(h >> 44n);
    const rest = (h << 20n) & ((1n << 64n) - 1n);
    let rho = 1;
    for (let bit = 63n; bit >= 0n && ((rest >> bit) & 1n) === 0n; bit--) rho++;
    const expected = (sparseIndex & 0x1f) !== 0 ? sparseIndex : 2 ** 21 + (sparseIndex >> 5) * 64 + rho;
    const state = decodeHllState(sketchOf([42n]).serialize());
    expect(state.sparseValues).toEqual([expected]);
    expect(state.numValues).toBe(1n);
  });

  it('round-trips sparse and normal states exactly', () => {
    for (const n of [0, 1, 100, 5_000, 40_000]) {
      const bytes = sketchOf(range(0, n)).serialize();
      expect(hex(parseHll(bytes).serialize())).toBe(hex(bytes));
    }
  });

  it('rejects states that are not HLL++ states, with InvalidArgument', () => {
    const good = decodeHllState(sketchOf([1n, 2n]).serialize());
    const cases: Array<[string, Uint8Array]> = [
      ['empty', new Uint8Array()],
      ['garbage', fromHex('ffffffff')],
      ['truncated', sketchOf([1n]).serialize().subarray(0, 12)],
      ['sum aggregator type', fromHex('0864100018 02')],
      ['precision 9', encodeHllState({ ...good, precision: 9, sparsePrecision: 20 })],
      ['precision 25', encodeHllState({ ...good, precision: 25, sparsePrecision: 25, sparseValues: [] })],
      ['sparse precision below precision', encodeHllState({ ...good, sparsePrecision: 14, sparseValues: [] })],
      ['short register data', encodeHllState({ ...good, data: new Uint8Array(100), sparseValues: undefined })],
      ['register beyond 65 - p', encodeHllState({ ...good, data: new Uint8Array(2 ** 15).fill(51), sparseValues: undefined })],
      ['sparse data without sparse precision', encodeHllState({ ...good, sparsePrecision: 0 })],
      ['rho-encoded value with rho 0', encodeHllState({ ...good, sparseValues: [2 ** 21 + 64] })],
    ];
    for (const [name, bytes] of cases) {
      let caught: unknown;
      try {
        parseHll(bytes);
      } catch (e) {
        caught = e;
      }
      expect(isTabletopError(caught, 'InvalidArgument'), name).toBe(true);
    }
  });

  it('skips unknown fields of every wire type, inside and outside the HLL++ message', () => {
    const plain = sketchOf([1n, 2n, 3n]).serialize();
    // Outer: field 9 fixed64, field 10 a 10-byte varint, field 11 fixed32, field 12 bytes.
    const unknown = fromHex('49 0102030405060708' + '50 ffffffffffffffffff01' + '5d 01020304' + '62 03 616263');
    expect(hex(parseHll(new Uint8Array([...unknown, ...plain])).serialize())).toBe(hex(plain));
    // Inner: a legacy value type (field 7) that some encoders write.
    const at = hex(plain).indexOf('8207') / 2;
    const length = plain[at + 2]!;
    const inner = plain.subarray(at + 3);
    expect(inner.length).toBe(length);
    const withLegacy = new Uint8Array([...plain.subarray(0, at), 0x82, 0x07, length + 2, 0x38, 0x02, ...inner]);
    expect(hex(parseHll(withLegacy).serialize())).toBe(hex(plain));
  });

  it('sorts and de-duplicates sparse data written out of order', () => {
    const e = decodeHllState(sketchOf([1n]).serialize());
    const v = e.sparseValues![0]!;
    // Differences are unsigned varints, so an unsorted list can only appear as duplicates here.
    const state = encodeHllState({ ...e, sparseValues: [v, v, v] });
    expect(decodeHllState(state).sparseValues).toEqual([v]);
  });
});

describe('HLL++ estimates', () => {
  it('is 0 for an empty sketch and exact for a handful of values', () => {
    expect(createHll(HLL_VALUE_TYPE.bytes).estimate()).toBe(0);
    expect(sketchOf(range(0, 10)).estimate()).toBe(10);
  });

  it('ignores duplicates (the state changes only in num_values)', () => {
    const once = decodeHllState(sketchOf(range(0, 3000)).serialize());
    const twice = decodeHllState(sketchOf([...range(0, 3000), ...range(0, 3000)]).serialize());
    expect(twice.numValues).toBe(6000n);
    expect(twice.sparseValues).toEqual(once.sparseValues);
  });

  it('stays within 1% at 10k distinct values (sparse form)', () => {
    const s = sketchOf(range(0, 10_000));
    expect(s.isSparse).toBe(true);
    expect(relativeError(s.estimate(), 10_000)).toBeLessThan(0.01);
  });

  it('stays within 3% at 100k and 1M distinct values (normal form)', () => {
    for (const n of [100_000, 1_000_000]) {
      const s = sketchOf(range(0, n));
      expect(s.isSparse).toBe(false);
      expect(relativeError(s.estimate(), n)).toBeLessThan(0.03);
    }
  });

  it('corrects the bias of the raw estimate across the range without tables (normal form only)', () => {
    // p = 12: standard error 1.04/64, about 1.6%; allow three of them.
    for (const n of [50, 500, 3_000, 8_000, 12_000, 30_000, 200_000]) {
      const s = sketchOf(range(n * 7, n * 8), { precision: 12, sparsePrecision: 0 });
      expect(relativeError(s.estimate(), n), `n = ${n}`).toBeLessThan(0.05);
    }
  });

  it('hashes byte strings: 50k distinct strings within 3%', () => {
    const s = createHll(HLL_VALUE_TYPE.bytes);
    const enc = new TextEncoder();
    for (let i = 0; i < 50_000; i++) s.addBytes(enc.encode(`user-${i}@example.com`));
    expect(relativeError(s.estimate(), 50_000)).toBeLessThan(0.03);
  });

  it('leaves the sparse form before the sparse data exceeds 3/4 of the normal size', () => {
    const s = createHll(HLL_VALUE_TYPE.int64);
    let switchedAt = -1;
    for (let i = 0; i < 40_000; i++) {
      s.addInt64(BigInt(i));
      if (i % 500 === 0) {
        const state = s.serialize();
        if (s.isSparse) expect(state.length).toBeLessThan(0.75 * 2 ** 15 + 40);
        else if (switchedAt < 0) switchedAt = i;
      }
    }
    expect(switchedAt).toBeGreaterThan(5_000);
    expect(s.serialize().length).toBeLessThan(2 ** 15 + 40);
  });
});

describe('HLL++ merge', () => {
  it('merge(a, b) estimates the union', () => {
    const a = sketchOf(range(0, 60_000));
    const b = sketchOf(range(40_000, 120_000));
    expect(relativeError(merged(a, b).estimate(), 120_000)).toBeLessThan(0.03);
    const sa = sketchOf(range(0, 3_000));
    const sb = sketchOf(range(2_000, 6_000));
    const m = merged(sa, sb);
    expect(m.isSparse).toBe(true);
    expect(relativeError(m.estimate(), 6_000)).toBeLessThan(0.01);
    expect(m.numValues).toBe(7_000n);
  });

  it('equals the sketch of the union, byte for byte (except num_values)', () => {
    for (const [n, shift] of [
      [2_000, 700],
      [30_000, 11_000],
    ] as const) {
      const union = decodeHllState(sketchOf(range(0, n + shift)).serialize());
      const m = decodeHllState(merged(sketchOf(range(0, n)), sketchOf(range(shift, n + shift))).serialize());
      expect({ ...m, numValues: 0n }).toEqual({ ...union, numValues: 0n });
    }
  });

  const valueSets = fc.uniqueArray(fc.bigInt({ min: -(1n << 40n), max: 1n << 40n }), { maxLength: 1000 });

  it('is commutative and associative (property)', () => {
    // Small precisions: beyond ~800 values the sketch leaves the sparse form, so
    // sparse+sparse, sparse+normal and normal+normal merges all occur.
    const opts = { precision: 10, sparsePrecision: 12 };
    fc.assert(
      fc.property(valueSets, valueSets, valueSets, (x, y, z) => {
        const [a, b, c] = [sketchOf(x, opts), sketchOf(y, opts), sketchOf(z, opts)];
        expect(hex(merged(a, b).serialize())).toBe(hex(merged(b, a).serialize()));
        expect(hex(merged(merged(a, b), c).serialize())).toBe(hex(merged(a, merged(b, c)).serialize()));
      }),
      { numRuns: 60 },
    );
  });

  it('does not change the sketch merged in', () => {
    const a = sketchOf(range(0, 100));
    const b = sketchOf(range(50, 300));
    const before = hex(b.serialize());
    a.merge(b);
    expect(hex(b.serialize())).toBe(before);
  });

  it('downgrades to the lower precisions exactly as if built there (property)', () => {
    const settings = fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 }), fc.boolean());
    fc.assert(
      fc.property(valueSets, settings, (xs, [dp, dsp, normalOnly]) => {
        const high = sketchOf(xs, { precision: 13, sparsePrecision: normalOnly ? 0 : 17 });
        const low = { precision: 13 - dp, sparsePrecision: normalOnly ? 0 : 17 - dp - dsp };
        const viaMerge = createHll(HLL_VALUE_TYPE.int64, low);
        viaMerge.merge(high);
        expect(hex(viaMerge.serialize())).toBe(hex(sketchOf(xs, low).serialize()));
      }),
      { numRuns: 60 },
    );
  });

  it('downgrades normal registers exactly as if built at the lower precision', () => {
    const values = [...range(0, 20_000)];
    const high = sketchOf(values, { precision: 12, sparsePrecision: 0 });
    const low = createHll(HLL_VALUE_TYPE.int64, { precision: 10, sparsePrecision: 0 });
    low.merge(high);
    expect(hex(low.serialize())).toBe(hex(sketchOf(values, { precision: 10, sparsePrecision: 0 }).serialize()));
  });

  it('refuses to merge sketches of incompatible value types', () => {
    const bytes = createHll(HLL_VALUE_TYPE.bytes);
    bytes.addBytes(new Uint8Array([1]));
    const ints = sketchOf([1n]);
    expect(() => ints.merge(bytes)).toThrow(/value types 4 and 11/);
    const unknown = parseHll(encodeHllState({ ...decodeHllState(sketchOf([]).serialize()), valueType: 0 }));
    unknown.merge(bytes);
    expect(unknown.valueType).toBe(HLL_VALUE_TYPE.bytes);
  });
});
