import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SourceText } from '../../sql/syntax/source-text.js';
import { errorExcerpt, offsetOf, parseErrorPosition } from './error-position.js';

describe("a query error's position", () => {
  it('is read from the engine’s message form', () => {
    expect(parseErrorPosition('line 2, column 14: Unrecognized name: nope')).toEqual({
      line: 2,
      column: 14,
      message: 'Unrecognized name: nope',
    });
    expect(parseErrorPosition('Table "t" not found')).toBeUndefined();
  });

  it('maps back to the offset the engine counted it from (line ends \\n, \\r\\n, \\r; columns in code points)', () => {
    const char = fc.constantFrom('a', ' ', '\n', '\r', '\r\n', '\t', 'é', '😀', '#');
    fc.assert(
      fc.property(
        fc.array(char, { maxLength: 40 }).map((cs) => cs.join('')),
        fc.nat(),
        (query, n) => {
          // Offsets the engine reports: token starts, never inside a surrogate pair or between \r and \n.
          const offsets = [...query.matchAll(/\r\n|[\s\S]/gu)].map((m) => m.index).concat(query.length);
          const offset = offsets[n % offsets.length]!;
          const pos = new SourceText(query).pos(offset);
          expect(offsetOf(query, pos.line, pos.column)).toBe(offset);
        },
      ),
    );
  });

  it('a column past the line ends at the line end; a line past the query at its end', () => {
    expect(offsetOf('ab\ncd', 1, 9)).toBe(2);
    expect(offsetOf('ab\ncd', 7, 1)).toBe(5);
  });

  it('marks the token there: a word, a parameter, a quoted string or name, or one character', () => {
    expect(errorExcerpt('SELECT nope, 1\nFROM t', 1, 8)).toEqual({ before: 'SELECT ', token: 'nope', after: ', 1' });
    expect(errorExcerpt('SELECT 1\nFROM t WHERE x = @p2', 2, 18)).toEqual({ before: 'FROM t WHERE x = ', token: '@p2', after: '' });
    expect(errorExcerpt("SELECT 'abc", 1, 8)).toEqual({ before: 'SELECT ', token: "'abc", after: '' });
    expect(errorExcerpt('SELECT `a b` FROM t', 1, 8)?.token).toBe('`a b`');
    expect(errorExcerpt('SELECT 😀x, (', 1, 8)).toEqual({ before: 'SELECT ', token: '😀', after: 'x, (' });
    expect(errorExcerpt('SELECT 😀x, (', 1, 12)).toEqual({ before: 'SELECT 😀x, ', token: '(', after: '' });
    expect(errorExcerpt('SELECT', 1, 7)).toEqual({ before: 'SELECT', token: '', after: '' });
    expect(errorExcerpt('SELECT', 3, 1)).toBeUndefined();
  });
});
