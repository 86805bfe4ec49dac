import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type SqlType, typeText } from '../../sql/types.js';
import { parseSqlType } from './sql-type.js';

const scalar = fc.constantFrom<SqlType>(
  ...(['INT64', 'FLOAT32', 'FLOAT64', 'BOOL', 'STRING', 'BYTES', 'TIMESTAMP', 'DATE', 'JSON'] as const).map(
    (kind) => ({ kind }) as SqlType,
  ),
);
const sqlType: fc.Arbitrary<SqlType> = fc.letrec<{ t: SqlType }>((tie) => ({
  t: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    tie('t').map((element) => ({ kind: 'ARRAY', element }) as SqlType),
    fc
      .tuple(fc.constantFrom<SqlType>({ kind: 'BYTES' }, { kind: 'STRING' }, { kind: 'INT64' }), tie('t'))
      .map(([key, value]) => ({ kind: 'MAP', key, value }) as SqlType),
    fc
      .array(fc.record({ name: fc.constantFrom('', 'a', 'b_2', 'x y'), type: tie('t') }), { minLength: 1, maxLength: 3 })
      .map((fields) => ({ kind: 'STRUCT', fields }) as SqlType),
  ),
})).t;

describe('result column types from their text', () => {
  it('parse back what the engine writes (typeText), nested to any depth', () => {
    fc.assert(
      fc.property(sqlType, (t) => {
        expect(parseSqlType(typeText(t))).toEqual(t);
      }),
    );
  });

  it('answer undefined for text they do not know', () => {
    for (const text of ['NUMERIC', 'ARRAY<INT64', 'MAP<BYTES>', 'STRUCT<a NOPE>', 'ARRAY<INT64>>', ''])
      expect(parseSqlType(text)).toBeUndefined();
  });
});
