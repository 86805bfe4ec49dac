import { describe, expect, it } from 'vitest';
import { parseSqlType } from './sql-type.js';
import { compactText, cutText, printableUtf8, showBytes } from './show-value.js';

const bytes = (s: string, encoding: BufferEncoding = 'utf8') => ({ base64: Buffer.from(s, encoding).toString('base64') });

describe('result values as shown', () => {
  it('BYTES: text when printable UTF-8, else hex (or always hex or base64)', () => {
    expect(showBytes(bytes('user#42'), 'text')).toEqual({ text: 'user#42', encoded: false });
    expect(showBytes(bytes('café\tok\n'), 'text')).toEqual({ text: 'café\tok\n', encoded: false });
    expect(showBytes(bytes('a\x00\xff', 'latin1'), 'text')).toEqual({ text: '0x6100ff', encoded: true });
    expect(showBytes(bytes('\x01', 'latin1'), 'text')).toEqual({ text: '0x01', encoded: true });
    expect(showBytes(bytes('user#42'), 'hex')).toEqual({ text: '0x75736572233432', encoded: true });
    expect(showBytes(bytes('user#42'), 'base64')).toEqual({ text: 'dXNlciM0Mg==', encoded: true });
    expect(showBytes(bytes(''), 'text')).toEqual({ text: '', encoded: false });
    // Invalid UTF-8 (a lone continuation byte), C1 controls and DEL are not text.
    for (const raw of ['\x80', '\x7f', 'x\u0085'])
      expect(printableUtf8(bytes(raw, raw === 'x\u0085' ? 'utf8' : 'latin1').base64)).toBeUndefined();
  });

  it('inside arrays, structs and maps: one line, strings quoted, bytes b"..." or encoded, NULL', () => {
    const t = parseSqlType('STRUCT<a INT64, ARRAY<STRING>, m MAP<BYTES, BYTES>>');
    const v = { a: '5', 1: ['x', null], m: [[bytes('q'), bytes('\x00', 'latin1')]] };
    expect(compactText(v, t, 'text')).toBe('{a: 5, ["x", NULL], m: {b"q": 0x00}}');
    expect(compactText(v, t, 'base64')).toBe('{a: 5, ["x", NULL], m: {cQ==: AA==}}');
    expect(compactText([1.5, 'NaN', null], parseSqlType('ARRAY<FLOAT64>'), 'text')).toBe('[1.5, NaN, NULL]');
    expect(compactText({ x: 1 }, undefined, 'text')).toBe('{"x":1}');
  });

  it('long text is cut with an ellipsis', () => {
    expect(cutText('abcdef', 4)).toEqual({ text: 'abc…', cut: true });
    expect(cutText('abcd', 4)).toEqual({ text: 'abcd', cut: false });
  });
});
