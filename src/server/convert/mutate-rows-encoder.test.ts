import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DATA, loaderMethod } from '../testing/loader-codecs.js';
import { encodeMutateRowsResponse } from './mutate-rows-encoder.js';

const mutateRows = loaderMethod(DATA, 'MutateRows');

describe('encodeMutateRowsResponse', () => {
  it('encodes an OK entry with a present, empty status', () => {
    expect(encodeMutateRowsResponse({ entries: [{ index: 0, code: 0, message: '' }] }).toString('hex')).toBe('0a021200');
  });

  it('matches protobufjs for mixed statuses (property)', () => {
    const entry = fc.record({
      index: fc.nat({ max: 2 ** 40 }),
      code: fc.integer({ min: 0, max: 16 }),
      message: fc.string({ maxLength: 30, unit: 'grapheme' }),
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 20 }), (entries) => {
        const mine = encodeMutateRowsResponse({ entries });
        const reference = mutateRows.responseSerialize({
          entries: entries.map((e) => ({
            ...(e.index !== 0 ? { index: String(e.index) } : {}),
            status: { ...(e.code !== 0 ? { code: e.code } : {}), ...(e.message !== '' ? { message: e.message } : {}) },
          })),
        }) as Buffer;
        expect(mine.equals(reference)).toBe(true);
        const decoded = mutateRows.responseDeserialize(mine) as {
          entries?: { index?: string; status?: { code?: number; message?: string } }[];
        };
        expect((decoded.entries ?? []).map((e) => [Number(e.index ?? 0), e.status?.code ?? 0, e.status?.message ?? ''])).toEqual(
          entries.map((e) => [e.index, e.code, e.message]),
        );
      }),
    );
  });
});
