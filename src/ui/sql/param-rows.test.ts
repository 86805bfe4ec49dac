import { describe, expect, it } from 'vitest';
import { type ParamRow, paramsOf } from './param-rows.js';

const row = (id: number, change: Partial<ParamRow>): ParamRow => ({
  id,
  name: 'p',
  type: 'STRING',
  value: '',
  bytesForm: 'text',
  isNull: false,
  ...change,
});

describe('the query box parameter rows', () => {
  it('make the request params: typed values, BYTES as text or base64, NULL', () => {
    expect(
      paramsOf([
        row(1, { name: '@id', value: 'user1' }),
        row(2, { name: 'n', type: 'INT64', value: '3' }),
        row(3, { name: 'k', type: 'BYTES', value: 'AAE=', bytesForm: 'base64' }),
        row(4, { name: 't', type: 'BYTES', value: 'AAE=' }),
        row(5, { name: 'gone', type: 'TIMESTAMP', value: 'not read', isNull: true }),
        row(6, { name: 'keys', type: 'ARRAY<BYTES>', value: '["AAE=", null]', bytesForm: 'base64' }),
      ]),
    ).toEqual({
      params: {
        id: { type: 'STRING', value: 'user1' },
        n: { type: 'INT64', value: '3' },
        k: { type: 'BYTES', value: { base64: 'AAE=' } },
        t: { type: 'BYTES', value: { base64: 'QUFFPQ==' } },
        gone: { type: 'TIMESTAMP', value: null },
        keys: { type: 'ARRAY<BYTES>', value: [{ base64: 'AAE=' }, null] },
      },
      errors: new Map(),
    });
  });

  it('name each row’s problem: no name, a bad name, the same name twice, a bad value', () => {
    const { params, errors } = paramsOf([
      row(1, { name: '' }),
      row(2, { name: '2x' }),
      row(3, { name: 'a', value: 'x' }),
      row(4, { name: '@a', value: 'y' }),
      row(5, { name: 'd', type: 'DATE', value: '2024-13-01' }),
    ]);
    expect(params).toEqual({ a: { type: 'STRING', value: 'x' } });
    expect([...errors]).toEqual([
      [1, 'give the parameter a name (the query says @name)'],
      [2, '"2x" is not a parameter name (letters, digits and _, as in @name)'],
      [4, '@a is given twice'],
      [5, '"2024-13-01" is not a DATE (YYYY-MM-DD, e.g. 2024-06-01)'],
    ]);
  });
});
