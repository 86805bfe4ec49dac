import { describe, expect, it } from 'vitest';
import { isTabletopError } from '../errors.js';
import { compileByteRegex, RegexSyntaxError, translatePattern } from './byte-regex.js';

/**
 * [pattern, subject, full match?] — patterns and subjects are byte strings
 * (one char per byte), written with \xNN escapes for non-ASCII bytes.
 */
const MATCHES: readonly (readonly [string, string, boolean])[] = [
  // full-match anchoring
  ['abc', 'abc', true],
  ['abc', 'xabc', false],
  ['abc', 'abcx', false],
  ['b', 'abc', false],
  ['a|ab', 'ab', true], // some alternative must cover the whole subject
  ['a|b', 'ab', false],
  ['', '', true],
  ['', 'a', false],
  ['(?m)a$', 'a\n', false], // flags stay inside the group: anchors are \A and \z
  ['a$', 'a\n', false],
  ['.*', 'anything', true],
  // `.` is one byte except \n; \C is any byte
  ['.', '\xff', true],
  ['.', '\n', false],
  ['\\C', '\n', true],
  ['\\C', '\xff', true],
  ['\\C', '\xff\xfe', false],
  ['\\C{3}', '\xff\n\x00', true],
  ['\\C{2}', '\xff\n\x00', false],
  ['\\C*', '\x00\n\xff\x80', true],
  ['a\\C+b', 'a\n\nb', true],
  ['(?s).', '\n', true],
  ['[^a]', '\n', true], // negated classes include \n
  // one escape is one byte
  ['\\xff', '\xff', true],
  ['\\x{ff}', '\xff', true],
  ['\\xff\\C\\x00', '\xff\n\x00', true],
  ['\\xff.\\x00', '\xff\n\x00', false],
  ['\xe9', '\xe9', true], // a raw byte in the pattern is that byte
  ['\xc3\xa9', '\xc3\xa9', true], // UTF-8 "é" pattern bytes match UTF-8 "é" key bytes
  ['[\xc3\xa9]', '\xa9', true], // ...but a class of them is two single bytes (Latin-1 mode)
  ['.', '\xc3\xa9', false], // a two-byte UTF-8 char is two bytes
  ['..', '\xc3\xa9', true],
  ['[\\x80-\\xff]+', '\x80\xc3\xff', true],
  ['[\\x00-\\x7f]', '\x80', false],
  ['a\x00b', 'a\x00b', true], // NUL is a literal
  ['a\x00b', 'ab', false],
  ['\\x00', '\x00', true],
  // escapes and classes that must not be rewritten
  ['\\\\C', '\\C', true], // an escaped backslash followed by C
  ['\\\\\\C', '\\\xff', true], // \\ then \C
  ['[]a]', ']', true], // leading ] is a literal in a class
  ['[^]a]', 'b', true],
  ['[[:alpha:]]+', 'abc', true],
  ['[[:alpha:]C]', 'C', true],
  ['\\pL', '\xe9', true], // Unicode classes agree with Latin-1 below U+0100
  ['\\p{Greek}', 'a', false],
  ['(?i)\xe9', '\xc9', true], // case folding of Latin-1 letters
  ['(?i)K', 'k', true],
  ['(?P<name>a)b', 'ab', true],
  ['(?<name>a)b', 'ab', true],
  ['a/b', 'a/b', true],
  ['[/]', '/', true],
  // \Q...\E quoting
  ['\\Qa.b\\E', 'a.b', true],
  ['\\Qa.b\\E', 'axb', false],
  ['\\Qa/b\\E', 'a/b', true],
  ['\\Qa\\Cb\\E', 'a\\Cb', true], // \C is literal inside \Q...\E
  ['\\Qa)|(b', 'a)|(b', true], // an unterminated \Q quotes to the end, anchors intact
  ['\\Qa\\\\E', 'a\\', true], // the first \E ends the quote
  ['x\\Q\\E', 'x', true],
  ['\\Q\xff\n\\E', '\xff\n', true],
];

/** [pattern, expected message fragment] — patterns RE2 rejects. */
const INVALID: readonly (readonly [string, string])[] = [
  ['(', 'missing )'],
  ['a)|(b', 'unexpected )'],
  ['[a', 'missing ]'],
  ['a**', 'bad repetition operator'],
  ['abc\\', 'trailing \\'],
  ['a{1001}', 'invalid repetition size'],
  ['\\q', 'invalid escape sequence: \\q'],
  ['[\\C]', 'invalid escape sequence: \\C'],
  ['\\E', 'invalid escape sequence: \\E'],
  // JavaScript-only syntax that node-re2 would otherwise translate
  ['\\u0041', 'invalid escape sequence: \\u'],
  ['\\u{41}', 'invalid escape sequence: \\u'],
  ['\\cA', 'invalid escape sequence: \\c'],
  ['[\\cA]', 'invalid escape sequence: \\c'],
  ['\\p{Letter}', 'invalid character class range: \\p{Letter}'],
  ['\\P{^Uppercase_Letter}', 'invalid character class range'],
  ['\\p{Script=Greek}', 'invalid character class range'],
  ['\\p{sc=Greek}', 'invalid character class range'],
];

const show = (s: string): string => JSON.stringify(s);

describe('compileByteRegex: RE2 full match over raw bytes (Latin-1)', () => {
  it.each(MATCHES.map(([p, s, m]) => [show(p), show(s), m, p, s] as const))('%s on %s → %s', (_p, _s, expected, pattern, subject) => {
    expect(compileByteRegex(pattern, 'f').test(subject)).toBe(expected);
  });

  it.each(INVALID.map(([p, m]) => [show(p), m, p] as const))('rejects %s (%s)', (_p, fragment, pattern) => {
    let caught: unknown;
    try {
      compileByteRegex(pattern, 'chain.filters[1].value_regex_filter');
    } catch (e) {
      caught = e;
    }
    expect(isTabletopError(caught, 'InvalidArgument')).toBe(true);
    const message = (caught as Error).message;
    expect(message).toContain(`Error in field 'chain.filters[1].value_regex_filter'`);
    expect(message).toContain(fragment);
  });

  it('names the pattern printably in the error, as the user wrote it', () => {
    expect(() => compileByteRegex('\xff(', 'row_key_regex_filter')).toThrow(
      `Error in field 'row_key_regex_filter' : "\\xff(" is not a valid RE2 regex: missing ): \\xff(`,
    );
    // RE2 saw `((?s:.)`, the user wrote `(\C`.
    expect(() => compileByteRegex('(\\C', 'f')).toThrow(`"(\\C" is not a valid RE2 regex: missing ): (\\C`);
  });

  it('compiles a pattern once and serves it again, and still rejects an invalid pattern every time with its field', () => {
    const first = compileByteRegex('c[a-z]+\\d', 'f');
    expect(compileByteRegex('c[a-z]+\\d', 'g')).toBe(first);
    expect(first.test('cab7')).toBe(true);
    for (const field of ['a', 'b']) expect(() => compileByteRegex('(', field)).toThrow(`Error in field '${field}'`);
    // Many patterns later the first is evicted and compiled afresh, with the same behaviour.
    for (let i = 0; i < 300; i++) compileByteRegex(`p${i}x*`, 'f');
    const again = compileByteRegex('c[a-z]+\\d', 'f');
    expect(again).not.toBe(first);
    expect(again.test('cab7')).toBe(true);
  });

  it('is reusable across subjects (no lastIndex state)', () => {
    const re = compileByteRegex('a+', 'f');
    expect([re.test('aaa'), re.test('aaa'), re.test('b'), re.test('a')]).toEqual([true, true, false, true]);
  });
});

describe('translatePattern', () => {
  it.each([
    ['\\C', '(?s:.)'],
    ['a\\C*b', 'a(?s:.)*b'],
    ['\\\\C', '\\\\C'],
    ['[\\\\C]', '[\\\\C]'],
    ['\\Qa.\\E', 'a\\x{2e}'],
    ['\\Q\xff', '\\x{ff}'],
  ])('%s → %s', (input, output) => {
    expect(translatePattern(input)).toBe(output);
  });

  it('rejects chars beyond one byte', () => {
    expect(() => translatePattern('\u0100')).toThrow(RegexSyntaxError);
  });
});
