import { describe, expect, it } from 'vitest';
import { SqlParamError, paramFromText, paramName, parseParamFlag } from './sql-params.js';

const value = (type: string, text: string, form?: 'text' | 'base64' | 'hex') => paramFromText(type, text, form).value;
const error = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(SqlParamError);
    return (e as Error).message;
  }
  throw new Error('no error');
};

describe('SQL parameters from text', () => {
  it('INT64: exact decimal strings over the whole range, anything else named', () => {
    expect(value('INT64', ' 3 ')).toBe('3');
    expect(value('int64', '+9223372036854775807')).toBe('9223372036854775807');
    expect(value('INT64', '-9223372036854775808')).toBe('-9223372036854775808');
    expect(error(() => value('INT64', '9223372036854775808'))).toBe(
      '"9223372036854775808" is not an INT64 (a whole number from -9223372036854775808 to 9223372036854775807)',
    );
    expect(error(() => value('INT64', '1.5'))).toMatch(/^"1.5" is not an INT64/);
    expect(error(() => value('INT64', ''))).toMatch(/^"" is not an INT64/);
  });

  it('FLOAT64 and FLOAT32: numbers, NaN and the infinities as the API writes them', () => {
    expect(value('FLOAT64', '1.5')).toBe(1.5);
    expect(value('FLOAT64', '-2e-3')).toBe(-0.002);
    expect(value('FLOAT64', '.5')).toBe(0.5);
    expect(value('FLOAT32', 'nan')).toBe('NaN');
    expect(value('FLOAT64', 'inf')).toBe('Infinity');
    expect(value('FLOAT64', '-Infinity')).toBe('-Infinity');
    expect(error(() => value('FLOAT64', '1,5'))).toMatch(/^"1,5" is not a FLOAT64/);
    expect(error(() => value('FLOAT64', '1e999'))).toMatch(/is not a FLOAT64/);
    expect(error(() => value('FLOAT64', ''))).toMatch(/is not a FLOAT64/);
  });

  it('BOOL, STRING, DATE', () => {
    expect(value('BOOL', 'TRUE')).toBe(true);
    expect(value('BOOL', 'false')).toBe(false);
    expect(error(() => value('BOOL', '1'))).toBe('"1" is not a BOOL (true or false)');
    expect(value('STRING', ' a b ')).toBe(' a b ');
    expect(value('STRING', '')).toBe('');
    expect(value('DATE', '2024-02-29')).toBe('2024-02-29');
    expect(error(() => value('DATE', '2023-02-29'))).toMatch(/^"2023-02-29" is not a DATE \(YYYY-MM-DD/);
    expect(error(() => value('DATE', '2024-6-1'))).toMatch(/is not a DATE/);
  });

  it('BYTES: UTF-8 text, base64 (standard or URL-safe, padding optional) or hex', () => {
    expect(value('BYTES', 'café')).toEqual({ base64: 'Y2Fmw6k=' });
    expect(value('BYTES', '')).toEqual({ base64: '' });
    expect(value('BYTES', 'AAH/', 'base64')).toEqual({ base64: 'AAH/' });
    expect(value('BYTES', 'AAH_', 'base64')).toEqual({ base64: 'AAH/' });
    expect(value('BYTES', 'YQ', 'base64')).toEqual({ base64: 'YQ==' });
    expect(value('BYTES', '0x00 01ff', 'hex')).toEqual({ base64: 'AAH/' });
    expect(error(() => value('BYTES', 'a*b', 'base64'))).toBe('"a*b" is not base64 (e.g. AAEC/w==)');
    expect(error(() => value('BYTES', 'abcde', 'base64'))).toMatch(/is not base64/);
    expect(error(() => value('BYTES', '0g', 'hex'))).toMatch(/^"0g" is not hex/);
    expect(error(() => value('BYTES', 'abc', 'hex'))).toMatch(/is not hex/);
  });

  it('TIMESTAMP: RFC 3339 and GoogleSQL forms, UTC without a zone, calendar and clock checked', () => {
    expect(value('TIMESTAMP', '2024-06-01T12:00:00Z')).toBe('2024-06-01T12:00:00Z');
    expect(value('TIMESTAMP', '2024-06-01 12:00:00.123456')).toBe('2024-06-01T12:00:00.123456Z');
    expect(value('TIMESTAMP', '2024-06-01 12:30+02')).toBe('2024-06-01T12:30:00+02:00');
    expect(value('TIMESTAMP', '2024-06-01T12:00:00-0530')).toBe('2024-06-01T12:00:00-05:30');
    expect(value('TIMESTAMP', '2024-06-01 UTC')).toBe('2024-06-01T00:00:00Z');
    expect(value('TIMESTAMP', '2024-06-01')).toBe('2024-06-01T00:00:00Z');
    for (const bad of ['2024-06-01T24:00:00Z', '2024-02-30', 'yesterday', '2024-06-01T12:00:00+15:00', '1717243200']) {
      expect(error(() => value('TIMESTAMP', bad))).toMatch(/is not a TIMESTAMP \(e\.g\. 2024-06-01T12:00:00Z/);
    }
  });

  it('ARRAY<T>: a JSON array of text forms, numbers, booleans and nulls', () => {
    expect(paramFromText('array<int64>', '[1, "2", null]')).toEqual({ type: 'ARRAY<INT64>', value: ['1', '2', null] });
    expect(paramFromText('ARRAY < BYTES >', '["AAE="]', 'base64')).toEqual({ type: 'ARRAY<BYTES>', value: [{ base64: 'AAE=' }] });
    expect(value('ARRAY<BOOL>', '[true, "false"]')).toEqual([true, false]);
    expect(error(() => value('ARRAY<INT64>', '1,2'))).toBe('"1,2" is not a JSON array (an ARRAY<INT64> is written like ["a","b"])');
    expect(error(() => value('ARRAY<INT64>', '[9007199254740993]'))).toMatch(/^element 0: .* write large INT64 values as strings/);
    expect(error(() => value('ARRAY<DATE>', '["2024-01-01", "x"]'))).toMatch(/^element 1: "x" is not a DATE/);
    expect(error(() => value('ARRAY<STRING>', '[["a"]]'))).toBe('element 0: ["a"] is not a STRING');
  });

  it('types and names are checked', () => {
    expect(error(() => paramFromText('BLOB', 'x'))).toBe(
      '"BLOB" is not a parameter type: one of INT64, FLOAT64, FLOAT32, BOOL, STRING, BYTES, TIMESTAMP, DATE, or ARRAY<...> of one',
    );
    expect(error(() => paramFromText('ARRAY<ARRAY<INT64>>', '[]'))).toMatch(/is not a parameter type/);
    expect(paramName('@user_id')).toBe('user_id');
    expect(error(() => paramName('1x'))).toBe('"1x" is not a parameter name (letters, digits and _, as in @name)');
  });
});

describe('--param name=TYPE:value', () => {
  it('splits at the first = and the first : after it; the value keeps every character', () => {
    expect(parseParamFlag('id=STRING:user1')).toEqual({ name: 'id', param: { type: 'STRING', value: 'user1' } });
    expect(parseParamFlag('@q=string:a=b:c')).toEqual({ name: 'q', param: { type: 'STRING', value: 'a=b:c' } });
    expect(parseParamFlag('n=INT64:3')).toEqual({ name: 'n', param: { type: 'INT64', value: '3' } });
    expect(parseParamFlag('s=STRING:')).toEqual({ name: 's', param: { type: 'STRING', value: '' } });
  });

  it('BYTES takes its form first: base64:, hex:, text: (for text that starts like a form)', () => {
    expect(parseParamFlag('b=BYTES:base64:AAEC')).toEqual({ name: 'b', param: { type: 'BYTES', value: { base64: 'AAEC' } } });
    expect(parseParamFlag('b=bytes:hex:ff')).toEqual({ name: 'b', param: { type: 'BYTES', value: { base64: '/w==' } } });
    expect(parseParamFlag('b=BYTES:user#1')).toEqual({ name: 'b', param: { type: 'BYTES', value: { base64: 'dXNlciMx' } } });
    expect(parseParamFlag('b=BYTES:text:hex:ff').param.value).toEqual({ base64: 'aGV4OmZm' });
    expect(parseParamFlag('b=ARRAY<BYTES>:hex:["00","ff"]').param.value).toEqual([{ base64: 'AA==' }, { base64: '/w==' }]);
    // Only BYTES reads a form: a STRING keeps it.
    expect(parseParamFlag('s=STRING:hex:ff').param.value).toBe('hex:ff');
  });

  it('a flag without a type or value says how to write one', () => {
    for (const bad of ['id', 'id=STRING', 'id:STRING=x']) {
      expect(error(() => parseParamFlag(bad))).toMatch(/^write it name=TYPE:value, e\.g\. --param id=STRING:user1/);
    }
    expect(error(() => parseParamFlag('=STRING:x'))).toMatch(/^"" is not a parameter name/);
  });
});
