import fc from 'fast-check';
import type { ByteString } from '../../../model/bytes.js';
import type { SSTableWriterOptions } from '../sstable-writer.js';
import { sortedEntries, type Entry } from './tables.js';

/** Non-empty binary keys, biased to share prefixes (as row keys do) and to hit 0x00/0xff. */
export const keyArb: fc.Arbitrary<ByteString> = fc.oneof(
  fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 12 }).map((c) => String.fromCharCode(...c)),
  fc
    .tuple(
      fc.constantFrom('user#', 'user#00', 'a', '\xff\xff', '\x00'),
      fc.array(fc.constantFrom(0, 1, 0x30, 0x31, 0x7f, 0x80, 0xfe, 0xff), { maxLength: 6 }),
    )
    .map(([p, c]) => p + String.fromCharCode(...c)),
  fc.integer({ min: 0, max: 5000 }).map((n) => `row${String(n).padStart(6, '0')}`),
  fc.integer({ min: 200, max: 600 }).chain((n) => fc.constantFrom('k'.repeat(n), 'k'.repeat(n) + '\x01')),
);

/** Values: empty, small binary, compressible, and now and then bigger than a block. */
export const valueArb: fc.Arbitrary<Uint8Array> = fc.oneof(
  { weight: 6, arbitrary: fc.uint8Array({ maxLength: 40 }) },
  {
    weight: 3,
    arbitrary: fc.tuple(fc.integer({ min: 1, max: 3000 }), fc.integer({ min: 0, max: 255 })).map(([n, b]) => Buffer.alloc(n, `v${b}-`)),
  },
  { weight: 1, arbitrary: fc.integer({ min: 5000, max: 70_000 }).map((n) => Buffer.alloc(n, 'big value ')) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 1000, maxLength: 9000 }) },
);

export const entriesArb = (maxLength = 120): fc.Arbitrary<Entry[]> =>
  fc.array(fc.tuple(keyArb, valueArb), { maxLength, size: 'max' }).map((es) => sortedEntries(es));

export const optionsArb: fc.Arbitrary<SSTableWriterOptions> = fc.record({
  blockSize: fc.constantFrom(64, 256, 1024, 4096, 32 * 1024),
  restartInterval: fc.constantFrom(1, 2, 3, 16),
  bloomBitsPerKey: fc.constantFrom(0, 4, 10),
  compression: fc.constantFrom('lz4' as const, 'none' as const),
});
