import fc from 'fast-check';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { DATA, loaderMethod } from '../testing/loader-codecs.js';
import { readModifyWriteRequestFromProto } from './data-requests.js';
import { decodeReadModifyWriteRowRequest } from './rmw-decoder.js';

const method = loaderMethod(DATA, 'ReadModifyWriteRow');
const TABLE = 'projects/p/instances/i/tables/t';

describe('decodeReadModifyWriteRowRequest', () => {
  it('decodes what the generic decoder decodes, for any request', () => {
    const rule = fc.record(
      {
        familyName: fc.constantFrom('cf', 'fäm', ''),
        columnQualifier: fc.uint8Array({ maxLength: 6 }).map((a) => Buffer.from(a)),
        kind: fc.oneof(
          fc.record({ appendValue: fc.uint8Array({ maxLength: 20 }).map((a) => Buffer.from(a)) }),
          fc.record({ incrementAmount: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String) }),
          fc.constant({}),
        ),
      },
      { requiredKeys: ['kind'] },
    );
    fc.assert(
      fc.property(
        fc.record(
          {
            tableName: fc.constant(TABLE),
            rowKey: fc.uint8Array({ maxLength: 10 }).map((a) => Buffer.from(a)),
            appProfileId: fc.constantFrom('', 'default'),
            authorizedViewName: fc.constantFrom('', `${TABLE}/authorizedViews/v`),
          },
          { requiredKeys: [] },
        ),
        fc.array(rule, { maxLength: 4 }),
        (fields, rules) => {
          const bytes = method.requestSerialize({ ...fields, rules: rules.map(({ kind, ...r }) => ({ ...r, ...kind })) });
          expect(decodeReadModifyWriteRowRequest(bytes)).toEqual(method.requestDeserialize(bytes));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps the last member of the rule oneof, skips unknown fields and feeds the same validation', () => {
    const W = protobuf.Writer;
    const rule = W.create()
      .uint32((1 << 3) | 2)
      .string('cf')
      .uint32((2 << 3) | 2)
      .bytes(Buffer.from('q'))
      .uint32((3 << 3) | 2)
      .bytes(Buffer.from('x'))
      .uint32((4 << 3) | 0)
      .int64(5)
      .uint32((99 << 3) | 0)
      .uint64(7)
      .finish();
    const bytes = Buffer.from(
      W.create()
        .uint32((1 << 3) | 2)
        .string(TABLE)
        .uint32((2 << 3) | 2)
        .bytes(Buffer.from('k'))
        .uint32((3 << 3) | 2)
        .bytes(rule)
        .uint32((50 << 3) | 2)
        .string('junk')
        .finish(),
    );
    const decoded = decodeReadModifyWriteRowRequest(bytes);
    expect(decoded.rules).toEqual([{ familyName: 'cf', columnQualifier: Buffer.from('q'), incrementAmount: '5', rule: 'incrementAmount' }]);
    expect(readModifyWriteRequestFromProto(decoded).rules).toEqual([{ kind: 'increment', family: 'cf', qualifier: 'q', amount: 5n }]);
    expect(() => decodeReadModifyWriteRowRequest(bytes.subarray(0, bytes.length - 3))).toThrow();
  });
});
