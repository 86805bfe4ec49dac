import { loadRe2, type RE2 } from '../../model/filter/re2-addon.js';
import { BOOL, BYTES, STRING, type SqlValue } from '../types.js';
import { evalError } from '../values/errors.js';
import { type ScalarFunction, defineFunction } from './registry.js';

/** Regular expressions (RE2 syntax, as GoogleSQL): REGEXP_CONTAINS, REGEXP_EXTRACT, REGEXP_REPLACE on STRING or BYTES. */

const cache = new Map<string, RE2>();

function compile(pattern: SqlValue, global: boolean): RE2 {
  const bytes = pattern instanceof Uint8Array;
  const source = bytes ? Buffer.from(pattern).toString('latin1') : (pattern as string);
  const key = `${bytes ? 'b' : 's'}${global ? 'g' : ''}${source}`;
  let re = cache.get(key);
  if (re === undefined) {
    const Re2 = loadRe2();
    try {
      re = bytes ? new Re2(Buffer.from(pattern), global ? 'g' : '') : new Re2(source, global ? 'gu' : 'u');
    } catch (e) {
      throw evalError(`Cannot parse regular expression: ${(e as Error).message}`);
    }
    if (cache.size > 1000) cache.clear();
    cache.set(key, re);
  }
  re.lastIndex = 0;
  return re;
}

const subject = (v: SqlValue): string | Buffer => (v instanceof Uint8Array ? Buffer.from(v) : (v as string));
const result = (like: SqlValue, s: string | Buffer): SqlValue => (like instanceof Uint8Array ? new Uint8Array(s as Buffer) : s);

export const REGEXP_CONTAINS = defineFunction({
  name: 'REGEXP_CONTAINS',
  signatures: [
    { params: [STRING, STRING], result: BOOL },
    { params: [BYTES, BYTES], result: BOOL },
  ],
  eval: ([v, p]) => compile(p!, false).test(subject(v!) as string),
});

export const REGEXP_EXTRACT = defineFunction({
  name: 'REGEXP_EXTRACT',
  signatures: [
    { params: [STRING, STRING], result: STRING },
    { params: [BYTES, BYTES], result: BYTES },
  ],
  eval: ([v, p]) => {
    const re = compile(p!, false);
    const m = re.exec(subject(v!) as string) as unknown as (string | Buffer | undefined)[] | null;
    if (m === null) return null;
    const groups = m.length - 1;
    if (groups > 1) throw evalError('REGEXP_EXTRACT: the regular expression may have at most one capturing group');
    const hit = groups === 1 ? m[1] : m[0];
    return hit === undefined ? null : result(v!, hit);
  },
});

export const REGEXP_REPLACE = defineFunction({
  name: 'REGEXP_REPLACE',
  signatures: [
    { params: [STRING, STRING, STRING], result: STRING },
    { params: [BYTES, BYTES, BYTES], result: BYTES },
  ],
  eval: ([v, p, r]) => {
    // GoogleSQL writes groups as \1; RE2's replace takes $1.
    const replacement = (r instanceof Uint8Array ? Buffer.from(r).toString('latin1') : (r as string))
      .replace(/\$/g, '$$$$')
      .replace(/\\(\d)/g, '$$$1');
    const out = compile(p!, true).replace(subject(v!) as string, replacement) as string | Buffer;
    return v instanceof Uint8Array ? new Uint8Array(typeof out === 'string' ? Buffer.from(out, 'latin1') : out) : out;
  },
});

/** REGEXP_EXTRACT_ALL: every non-overlapping match (its capturing group's text, when it has one), in order. */
export const REGEXP_EXTRACT_ALL = defineFunction({
  name: 'REGEXP_EXTRACT_ALL',
  signatures: [
    { params: [STRING, STRING], result: { kind: 'ARRAY', element: STRING } },
    { params: [BYTES, BYTES], result: { kind: 'ARRAY', element: BYTES } },
  ],
  eval: ([v, p]) => {
    const re = compile(p!, true);
    const s = subject(v!);
    const out: SqlValue[] = [];
    for (let m = re.exec(s as string) as unknown as (string | Buffer | undefined)[] | null; m !== null;) {
      if (m.length > 2) throw evalError('REGEXP_EXTRACT_ALL: the regular expression may have at most one capturing group');
      const hit = m.length === 2 ? m[1] : m[0];
      out.push(hit === undefined ? null : result(v!, hit));
      // An empty match moves on by one character (one byte for BYTES) so that the scan ends.
      if ((m[0] ?? '').length === 0) re.lastIndex += typeof s === 'string' ? ((s.codePointAt(re.lastIndex) ?? 0) > 0xffff ? 2 : 1) : 1;
      if (re.lastIndex > s.length) break;
      m = re.exec(s as string) as unknown as (string | Buffer | undefined)[] | null;
    }
    return out;
  },
});

export const REGEX_FUNCTIONS: readonly ScalarFunction[] = [REGEXP_CONTAINS, REGEXP_EXTRACT, REGEXP_REPLACE, REGEXP_EXTRACT_ALL];
