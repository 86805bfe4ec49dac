import { describe, expect, it } from 'vitest';
import { examplesFor, firstKeyQuery, prefixParam, queryParamNames, quoteIdent } from './examples.js';

const b64 = (s: string, encoding: BufferEncoding = 'utf8') => Buffer.from(s, encoding).toString('base64');

describe('the query box examples', () => {
  it('quote table and family names GoogleSQL would not read bare', () => {
    expect(quoteIdent('events')).toBe('events');
    expect(quoteIdent('sensor-readings')).toBe('`sensor-readings`');
    expect(quoteIdent('select')).toBe('`select`');
    expect(quoteIdent('a`b')).toBe('`a\\`b`');
    expect(firstKeyQuery('my-table')).toBe('SELECT _key FROM `my-table` LIMIT 1');
  });

  it('offer first rows, a key prefix and a family’s columns for the first tables', () => {
    const examples = examplesFor([
      { tableId: 'users', families: [{ name: 'profile' }] },
      { tableId: 'no-families' },
      { tableId: 'c' },
      { tableId: 'd' },
    ]);
    expect(examples.map((x) => `${x.table}: ${x.label}`)).toEqual([
      'users: first rows',
      'users: key prefix',
      'users: columns of profile',
      'no-families: first rows',
      'no-families: key prefix',
      'c: first rows',
      'c: key prefix',
    ]);
    expect(examples[1]).toMatchObject({ query: 'SELECT * FROM users\nWHERE STARTS_WITH(_key, @prefix)\nLIMIT 10', needsPrefix: true });
    expect(examples[2]!.query).toBe('SELECT _key, MAP_KEYS(profile) AS columns FROM users LIMIT 10');
  });

  it('take a prefix of the first key: up to its first separator, else half; base64 when not text', () => {
    expect(prefixParam(b64('user#42#x'))).toEqual({ name: 'prefix', type: 'BYTES', value: 'user#' });
    expect(prefixParam(b64('com.example/a'))).toEqual({ name: 'prefix', type: 'BYTES', value: 'com.example/' });
    expect(prefixParam(b64('abcdef'))).toEqual({ name: 'prefix', type: 'BYTES', value: 'abc' });
    expect(prefixParam(b64('\x00\x01\xff\xfe', 'latin1'))).toEqual({ name: 'prefix', type: 'BYTES', value: 'AAE=', bytesForm: 'base64' });
    expect(prefixParam(undefined)).toEqual({ name: 'prefix', type: 'BYTES', value: '' });
  });

  it('find the @parameters a query uses, not those in strings, quoted names or comments', () => {
    const query = `SELECT @a, '@s', "@d", \`@q\`, r'''@r
@r''' -- @c1
# @c2
/* @c3 */ FROM t WHERE x = @b AND y = @a AND z = @@system`;
    expect(queryParamNames(query)).toEqual(['a', 'b']);
    expect(queryParamNames("SELECT 'it''s' , @x")).toEqual(['x']);
  });
});
