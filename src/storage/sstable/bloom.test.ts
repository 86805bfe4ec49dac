import { describe, expect, it } from 'vitest';
import { fromUtf8 } from '../../model/bytes.js';
import { BloomFilter, bloomHash, buildBloomFilter, checkBloomFilter, murmur3 } from './bloom.js';
import { seededRandom } from '../../testing/random.js';

describe('bloom hash', () => {
  it('is MurmurHash3 x86_32 (reference vectors)', () => {
    expect(murmur3('', 0)).toBe(0);
    expect(murmur3('', 1)).toBe(0x514e28b7);
    expect(murmur3('', 0xffffffff)).toBe(0x81f16f39);
    expect(murmur3('\x00\x00\x00\x00', 0)).toBe(0x2362f9de);
    expect(murmur3('\x21\x43\x65\x87', 0)).toBe(0xf55b516b);
    expect(murmur3('\x21\x43\x65', 0)).toBe(0x7e4a8634);
    expect(murmur3('\x21\x43', 0)).toBe(0xa0f7b07a);
    expect(murmur3('\x21', 0)).toBe(0x72661cf4);
    expect(murmur3('\xff\xff\xff\xff', 0)).toBe(0x76293b50);
    expect(murmur3(fromUtf8('The quick brown fox jumps over the lazy dog'), 0x9747b28c)).toBe(0x2fa826cd);
  });

  it('uses the seed 0xbc9f1d34', () => {
    expect(bloomHash('row1')).toBe(murmur3('row1', 0xbc9f1d34));
  });
});

function filterFor(keys: readonly string[], bitsPerKey: number): BloomFilter {
  const hashes = Uint32Array.from(keys, bloomHash);
  const block = buildBloomFilter(hashes, keys.length, bitsPerKey);
  expect(checkBloomFilter(block)).toBeUndefined();
  return new BloomFilter(block);
}

describe('bloom filter', () => {
  it('never rejects a key it holds', () => {
    const keys = Array.from({ length: 5000 }, (_, i) => `user#${i}`);
    const f = filterFor(keys, 10);
    expect(keys.filter((k) => !f.mayContain(k))).toEqual([]);
  });

  it('has about 0.8% false positives at 10 bits per key (the theoretical rate), and about 15% at 4', () => {
    const rand = seededRandom(7);
    const key = (): string => String.fromCharCode(...Array.from({ length: 16 }, () => Math.floor(rand() * 256)));
    const keys = Array.from({ length: 20_000 }, key);
    const held = new Set(keys);
    const probes = Array.from({ length: 100_000 }, key).filter((k) => !held.has(k));
    const rate = (f: BloomFilter): number => probes.filter((k) => f.mayContain(k)).length / probes.length;
    const at10 = rate(filterFor(keys, 10));
    expect(at10).toBeGreaterThan(0.005);
    expect(at10).toBeLessThan(0.011);
    const at4 = rate(filterFor(keys, 4));
    expect(at4).toBeGreaterThan(0.1);
    expect(at4).toBeLessThan(0.2);
  });

  it('has at least 64 bits and the probe count in its last byte', () => {
    const block = buildBloomFilter(new Uint32Array(0), 0, 10);
    expect(block.length).toBe(9);
    expect(block[8]).toBe(7);
    expect(new BloomFilter(block).mayContain('anything')).toBe(false);
  });

  it('rejects malformed filter blocks', () => {
    expect(checkBloomFilter(Buffer.alloc(3))).toMatch(/at least 9/);
    expect(checkBloomFilter(Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0]))).toMatch(/0 probes/);
    expect(checkBloomFilter(Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 31]))).toMatch(/31 probes/);
  });
});
