import { BYTES, INT64, STRING, type SqlType, type SqlValue } from '../types.js';
import { evalError } from '../values/errors.js';
import { type ScalarFunction, defineFunction } from './registry.js';

/**
 * Character codes, base32, SOUNDEX, TRANSLATE, INSTR and Unicode normalization. STRING positions count
 * characters (code points), BYTES count bytes.
 */

const INT64_ARRAY: SqlType = { kind: 'ARRAY', element: INT64 };
const isBytes = (v: SqlValue): v is Uint8Array => v instanceof Uint8Array;
/** A STRING as its characters, BYTES as one-byte latin1 "characters" (so both index the same way). */
const unitsOf = (v: SqlValue): string[] => (isBytes(v) ? Array.from(Buffer.from(v).toString('latin1')) : Array.from(v as string));
const back = (parts: string[], bytes: boolean): SqlValue =>
  bytes ? new Uint8Array(Buffer.from(parts.join(''), 'latin1')) : parts.join('');

/** ASCII: the code of the first character (or byte); 0 for an empty value. */
export const ASCII = defineFunction({
  name: 'ASCII',
  signatures: [
    { params: [STRING], result: INT64 },
    { params: [BYTES], result: INT64 },
  ],
  eval: ([v]) => {
    if (isBytes(v!)) return BigInt(v[0] ?? 0);
    const c = (v as string).codePointAt(0) ?? 0;
    if (c > 0x7f) throw evalError(`ASCII: the first character of '${v as string}' is not ASCII`);
    return BigInt(c);
  },
});

/** UNICODE: the code point of the first character; 0 for ''. */
export const UNICODE = defineFunction({
  name: 'UNICODE',
  signatures: [{ params: [STRING], result: INT64 }],
  eval: ([v]) => BigInt((v as string).codePointAt(0) ?? 0),
});

function codePoint(n: bigint): string {
  if (n < 0n || n > 0x10ffffn || (n >= 0xd800n && n <= 0xdfffn)) throw evalError(`Invalid code point ${n}`);
  return String.fromCodePoint(Number(n));
}

/** CHR: the character of a code point; CHR(0) is ''. */
export const CHR = defineFunction({
  name: 'CHR',
  signatures: [{ params: [INT64], result: STRING }],
  eval: ([n]) => ((n as bigint) === 0n ? '' : codePoint(n as bigint)),
});

export const CODE_POINTS_TO_BYTES = defineFunction({
  name: 'CODE_POINTS_TO_BYTES',
  signatures: [{ params: [INT64_ARRAY], result: BYTES }],
  eval: ([a]) => {
    const list = a as readonly SqlValue[];
    if (list.some((x) => x === null)) return null;
    return Uint8Array.from(list, (x) => {
      const n = x as bigint;
      if (n < 0n || n > 255n) throw evalError(`CODE_POINTS_TO_BYTES: ${n} is not in [0, 255]`);
      return Number(n);
    });
  },
});

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export const TO_BASE32 = defineFunction({
  name: 'TO_BASE32',
  signatures: [{ params: [BYTES], result: STRING }],
  eval: ([b]) => {
    let out = '';
    let bits = 0;
    let acc = 0;
    for (const byte of b as Uint8Array) {
      acc = ((acc << 8) | byte) & 0xffff;
      bits += 8;
      while (bits >= 5) {
        out += BASE32[(acc >> (bits - 5)) & 31];
        bits -= 5;
      }
    }
    if (bits > 0) out += BASE32[(acc << (5 - bits)) & 31];
    return out + '='.repeat((8 - (out.length % 8)) % 8);
  },
});

export const FROM_BASE32 = defineFunction({
  name: 'FROM_BASE32',
  signatures: [{ params: [STRING], result: BYTES }],
  eval: ([s]) => {
    const t = (s as string).replace(/=+$/, '').toUpperCase();
    if (/[^A-Z2-7]/.test(t) || [1, 3, 6].includes(t.length % 8))
      throw evalError(`Failed to decode invalid base32 string: '${s as string}'`);
    const out: number[] = [];
    let bits = 0;
    let acc = 0;
    for (const ch of t) {
      acc = ((acc << 5) | BASE32.indexOf(ch)) & 0xfff;
      bits += 5;
      if (bits >= 8) {
        out.push((acc >> (bits - 8)) & 0xff);
        bits -= 8;
      }
    }
    return Uint8Array.from(out);
  },
});

const SOUNDEX_CODES: Readonly<Record<string, string>> = {};
for (const [letters, code] of [
  ['BFPV', '1'],
  ['CGJKQSXZ', '2'],
  ['DT', '3'],
  ['L', '4'],
  ['MN', '5'],
  ['R', '6'],
  ['AEIOUY', '0'],
  ['HW', ''],
] as const)
  for (const l of letters) (SOUNDEX_CODES as Record<string, string>)[l] = code;

/**
 * SOUNDEX: the first Latin letter, then up to three digits of the following letters' codes (adjacent equal
 * codes once; H and W do not separate them, vowels do), padded with 0; '' when there is no Latin letter.
 */
export const SOUNDEX = defineFunction({
  name: 'SOUNDEX',
  signatures: [{ params: [STRING], result: STRING }],
  eval: ([v]) => {
    const letters = Array.from(v as string)
      .map((c) => c.toUpperCase())
      .filter((c) => /^[A-Z]$/.test(c));
    if (letters.length === 0) return '';
    let out = letters[0]!;
    let last = SOUNDEX_CODES[letters[0]!]!;
    for (const l of letters.slice(1)) {
      const code = SOUNDEX_CODES[l]!;
      if (code === '') continue;
      if (code !== '0' && code !== last) out += code;
      last = code;
      if (out.length === 4) break;
    }
    return out.padEnd(4, '0');
  },
});

/** TRANSLATE: each character of `source` in `from` becomes the one at the same place in `to`, or goes. */
export const TRANSLATE = defineFunction({
  name: 'TRANSLATE',
  signatures: [
    { params: [STRING, STRING, STRING], result: STRING },
    { params: [BYTES, BYTES, BYTES], result: BYTES },
  ],
  eval: ([v, from, to]) => {
    const src = unitsOf(from!);
    const dst = unitsOf(to!);
    const map = new Map<string, string>();
    for (const [i, c] of src.entries()) {
      if (map.has(c)) throw evalError(`TRANSLATE: duplicate character '${c}' in the source characters`);
      map.set(c, dst[i] ?? '');
    }
    return back(
      unitsOf(v!).map((c) => map.get(c) ?? c),
      isBytes(v!),
    );
  },
});

/**
 * INSTR(value, search [, position [, occurrence]]): the 1-based place of the occurrence-th match at or after
 * position (from the end, searching backwards, when position is negative); 0 when there is none.
 */
export const INSTR = defineFunction({
  name: 'INSTR',
  signatures: [
    { params: [STRING, STRING, INT64, INT64], optionalFrom: 2, result: INT64 },
    { params: [BYTES, BYTES, INT64, INT64], optionalFrom: 2, result: INT64 },
  ],
  eval: ([v, s, p, o]) => {
    const pos = (p as bigint | undefined) ?? 1n;
    const occurrence = (o as bigint | undefined) ?? 1n;
    if (pos === 0n) throw evalError('INSTR: the position must not be 0');
    if (occurrence < 1n) throw evalError('INSTR: the occurrence must be at least 1');
    const hay = unitsOf(v!);
    const needle = unitsOf(s!);
    const matchAt = (i: number): boolean => needle.every((c, k) => hay[i + k] === c);
    let seen = 0n;
    if (pos > 0n) {
      for (let i = Number(pos) - 1; i + needle.length <= hay.length; i++) if (matchAt(i) && ++seen === occurrence) return BigInt(i + 1);
    } else {
      for (let i = Math.min(hay.length + Number(pos), hay.length - needle.length); i >= 0; i--)
        if (matchAt(i) && ++seen === occurrence) return BigInt(i + 1);
    }
    return 0n;
  },
});

/** The normalization forms NORMALIZE takes (written as names: NORMALIZE(s, NFKC)). */
export const NORMALIZATION_MODES = ['NFC', 'NFKC', 'NFD', 'NFKD'];

function normalizeFn(name: string, fold: boolean): ScalarFunction {
  return defineFunction({
    name,
    signatures: [{ params: [STRING, STRING], optionalFrom: 1, result: STRING }],
    eval: ([v, mode]) => {
      const m = ((mode as string | undefined) ?? 'NFC').toUpperCase();
      if (!NORMALIZATION_MODES.includes(m)) throw evalError(`${name}: unknown normalization mode ${m}`);
      const n = (v as string).normalize(m);
      // Case folding as full lower-casing, then normalized again (JavaScript has no Unicode case fold).
      return fold ? n.toLowerCase().normalize(m) : n;
    },
  });
}

export const CODE_POINT_FUNCTIONS: readonly ScalarFunction[] = [
  ASCII,
  UNICODE,
  CHR,
  CODE_POINTS_TO_BYTES,
  TO_BASE32,
  FROM_BASE32,
  SOUNDEX,
  TRANSLATE,
  INSTR,
  normalizeFn('NORMALIZE', false),
  normalizeFn('NORMALIZE_AND_CASEFOLD', true),
];
