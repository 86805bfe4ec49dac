import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { fingerprint2011, murmurHash64 } from './fingerprint.js';
import { add, fromBigInt, int64LittleEndian, mul, rotr, shl, shr, toBigInt, toSignedBigInt } from './u64.js';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const fp = (b: Uint8Array): bigint => toSignedBigInt(fingerprint2011(b));
const ufp = (b: Uint8Array): bigint => toBigInt(fingerprint2011(b));

describe('u64 arithmetic agrees with BigInt modulo 2^64', () => {
  const u64Arb = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
  const mask = (1n << 64n) - 1n;
  it('mul, add', () => {
    fc.assert(
      fc.property(u64Arb, u64Arb, (a, b) => {
        expect(toBigInt(mul(fromBigInt(a), fromBigInt(b)))).toBe((a * b) & mask);
        expect(toBigInt(add(fromBigInt(a), fromBigInt(b)))).toBe((a + b) & mask);
      }),
      { numRuns: 2000 },
    );
  });
  it('shifts and rotations', () => {
    fc.assert(
      fc.property(u64Arb, fc.integer({ min: 0, max: 63 }), (a, n) => {
        const x = fromBigInt(a);
        const nb = BigInt(n);
        expect(toBigInt(shr(x, n))).toBe(a >> nb);
        expect(toBigInt(shl(x, n))).toBe((a << nb) & mask);
        expect(toBigInt(rotr(x, n))).toBe(((a >> nb) | (a << (64n - nb))) & mask);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('fingerprint2011', () => {
  it('matches ZetaSketch HashTest vectors (bytes, strings, int64 as 8 little-endian bytes)', () => {
    expect(ufp(new Uint8Array())).toBe(0x23ad7c904aa665e3n);
    expect(ufp(utf8('foobar'))).toBe(0x36a1e57a138e4467n);
    expect(ufp(utf8('foo'))).toBe(0xd0bcbfe261b36504n);
    expect(ufp(utf8('Z\u00fcrich'))).toBe(0x27efc00f7d2ce548n);
    expect(ufp(utf8('Zu\u0308rich'))).toBe(0x7dfa3067e55c7e8an);
    expect(ufp(int64LittleEndian(0n))).toBe(0x853a22bd6e14a48fn);
    expect(ufp(int64LittleEndian(42n))).toBe(0x583b2b9df8e0eb60n);
    expect(ufp(int64LittleEndian(-15n))).toBe(0x539414f287f11e37n);
  });

  it('matches Guava Fingerprint2011Test vectors for 4, 32 and 256 bytes', () => {
    expect(fp(utf8('test'))).toBe(8473225671271759044n);
    expect(fp(utf8('test'.repeat(8)))).toBe(7345148637025587076n);
    expect(fp(utf8('test'.repeat(64)))).toBe(4904844928629814570n);
  });

  it('matches the seeded murmur vectors', () => {
    expect(toSignedBigInt(murmurHash64(utf8('test'), 1n))).toBe(1618900948208871284n);
    expect(toBigInt(murmurHash64(utf8('test test test'), 1n))).toBe(12313169684067793560n);
  });

  it('matches the C++ original over every length up to 3200 bytes (Guava testMultipleLengths)', () => {
    const iterations = 800;
    const buf = new Uint8Array(iterations * 4);
    let len = 0;
    let h = 0n;
    const remix = (x: bigint): bigint => {
      x = BigInt.asUintN(64, x ^ (x >> 41n));
      return BigInt.asUintN(64, x * 949921979n);
    };
    const nextChar = (x: bigint): number => 0x61 + Number((x & 0xfffffn) % 26n);
    const at = (n: number): bigint => ufp(buf.subarray(0, n));
    for (let i = 0; i < iterations; ++i) {
      h = remix(h ^ at(i));
      buf[len++] = nextChar(h);
      h = remix(h ^ at((i * i) % len));
      buf[len++] = nextChar(h);
      h = remix(h ^ at((i * i * i) % len));
      buf[len++] = nextChar(h);
      h = remix(h ^ at(len));
      buf[len++] = nextChar(h);
      const x0 = buf[len - 1]!;
      const x1 = buf[len - 2]!;
      const x2 = buf[len - 3]!;
      const x3 = buf[Math.floor(len / 2)]!;
      const j = ((x0 << 16) + (x1 << 8) + x2) % len;
      buf[j] = buf[j]! ^ x3;
      const k = ((x1 << 16) + (x2 << 8) + x3) % len;
      buf[k] = buf[k]! ^ (i % 256);
    }
    expect(h).toBe(0xeaa3b1c985261632n);
  });
});
