import fc from 'fast-check';
import RE2 from 're2';
import { describe, expect, it } from 'vitest';
import { toBytes } from '../bytes.js';
import { compileByteRegex, translatePattern } from './byte-regex.js';
import { literalShape } from './regex-shortcuts.js';

describe('literalShape', () => {
  it.each([
    ['abc', { kind: 'exact', text: 'abc' }],
    ['', { kind: 'exact', text: '' }],
    ['my\\-col', { kind: 'exact', text: 'my-col' }],
    ['a\\.b\\ c\\_d', { kind: 'exact', text: 'a.b c_d' }],
    ['\\x00\\xff\xe9', { kind: 'exact', text: '\x00\xff\xe9' }],
    ['\\t\\n', { kind: 'exact', text: '\t\n' }],
    ['user#.*', { kind: 'prefix', text: 'user#', restMayHaveNewline: false }],
    ['user#\\C*', { kind: 'prefix', text: 'user#', restMayHaveNewline: true }],
    ['.*', { kind: 'prefix', text: '', restMayHaveNewline: false }],
    ['a\\.*', undefined], // zero or more dots
    ['ab*', undefined],
    ['ab?', undefined],
    ['a{2}', undefined],
    ['a|b', undefined],
    ['(?i)abc', undefined],
    ['[a]', undefined],
    ['a.', undefined],
    ['a.+', undefined],
    ['\\Qa\\E', undefined],
    ['\\x{41}', undefined],
    ['\\d', undefined],
    ['a$', undefined],
    ['^a', undefined],
  ] as const)('%j → %j', (pattern, shape) => {
    expect(literalShape(pattern)).toEqual(shape);
  });
});

/** Patterns built from pieces that exercise the shortcuts and their edges. */
const piece = fc.oneof(
  fc.constantFrom('a', 'b', '\n', '\x00', '\xff', '\xe9', '-', ' ', '#'),
  fc.constantFrom('\\.', '\\-', '\\_', '\\ ', '\\n', '\\t', '\\x00', '\\xff', '\\x41', '\\\\'),
);
const pattern = fc
  .tuple(fc.array(piece, { maxLength: 4 }), fc.constantFrom('', '.*', '\\C*', '*', '?', '.', '\\C'))
  .map(([pieces, tail]) => pieces.join('') + tail)
  .filter((p) => {
    try {
      new RE2(translatePattern(p), 'u');
      return true;
    } catch {
      return false;
    }
  });
const subject = fc
  .array(fc.constantFrom('a', 'b', '\n', '\x00', '\xff', '\xe9', '-', ' ', '#', '.', 'A', '\t', '\\', '_'), { maxLength: 6 })
  .map((cs) => cs.join(''));

describe('regex shortcuts agree with RE2', () => {
  it('on strings and on bytes', () => {
    fc.assert(
      fc.property(pattern, subject, (p, s) => {
        const viaRe2 = new RE2('\\A(?:' + translatePattern(p) + ')\\z', 'u').test(s);
        const compiled = compileByteRegex(p, 'f');
        expect(compiled.test(s)).toBe(viaRe2);
        expect(compiled.testBytes(toBytes(s))).toBe(viaRe2);
      }),
      { numRuns: 3000 },
    );
  });

  it('takes the shortcut for the shapes it knows', () => {
    expect(compileByteRegex('abc', 'f').costly).toBe(false);
    expect(compileByteRegex('ab.*', 'f').costly).toBe(false);
    expect(compileByteRegex('a[bc]', 'f').costly).toBe(true);
  });
});
