import { loadRe2, type RE2 } from './re2-addon.js';
import { type ByteString, fromBytes } from '../bytes.js';
import { invalidArgument } from '../errors.js';
import type { ByteRegex } from './byte-regex-contract.js';
import { shortcutMatcher } from './regex-shortcuts.js';

/**
 * Bigtable regex filters: RE2 syntax, evaluated in Latin-1 ("raw byte") mode
 * as full matches.
 *
 * node-re2 matches a JS string over its UTF-8 encoding. Because a byte string
 * (see ../bytes.ts) holds one char per byte, every char is a code point in
 * U+0000..U+00FF, and RE2 in UTF-8 mode over such a string behaves exactly as
 * RE2 in Latin-1 mode over the bytes: `.` is one byte other than `\n`,
 * `\xff` is byte 0xff, classes, case folding and `\pL` agree on code points
 * below 0x100. Three things differ and are fixed by `translatePattern`:
 *  - `\C` matches one UTF-8 byte, i.e. half of a char >= 0x80: it becomes
 *    `(?s:.)` (any single char, newline included);
 *  - node-re2 rewrites some JavaScript-only syntax before RE2 sees it
 *    (`\uXXXX`, `\cX`, long Unicode class names such as `\p{Letter}`), which
 *    RE2 itself rejects: we reject them too, with RE2's wording;
 *  - node-re2's rewriting does not know `\Q...\E`, so quoted text is turned
 *    into escaped literals here, and an unterminated `\Q` cannot swallow the
 *    full-match anchors.
 * Full-match semantics: the translated pattern is compiled alone (to report
 * syntax errors, and so `a)|(b` cannot escape the anchors), then anchored as
 * `\A(?:...)\z`.
 */

/** A pattern RE2 would reject; `message` uses RE2's wording. */
export class RegexSyntaxError extends Error {
  override readonly name = 'RegexSyntaxError';
}

/**
 * Compiles `pattern` (a byte string) for full matching over byte strings.
 * Throws TabletopError('InvalidArgument') naming `field` when the pattern is
 * not valid RE2.
 */
export function compileByteRegex(pattern: ByteString, field: string): ByteRegex {
  // Compiled regexes are immutable and shared: a filter sent with every request (a
  // check-and-mutate predicate, a scan's column filter) is compiled once, not per call.
  const cached = COMPILED.get(pattern);
  if (cached !== undefined) {
    COMPILED.delete(pattern);
    COMPILED.set(pattern, cached);
    return cached;
  }
  const compiled = compileUncached(pattern, field);
  if (pattern.length <= CACHE_MAX_PATTERN) {
    COMPILED.set(pattern, compiled);
    if (COMPILED.size > CACHE_ENTRIES) COMPILED.delete(COMPILED.keys().next().value as ByteString);
  }
  return compiled;
}

/** Recently compiled patterns (least recently used first), for patterns up to CACHE_MAX_PATTERN bytes. */
const COMPILED = new Map<ByteString, ByteRegex>();
const CACHE_ENTRIES = 256;
const CACHE_MAX_PATTERN = 1024;

function compileUncached(pattern: ByteString, field: string): ByteRegex {
  const Re2 = loadRe2();
  let translated: string | undefined;
  try {
    translated = translatePattern(pattern);
    new Re2(translated, 'u'); // alone first: syntax errors, unbalanced groups
    // Only once RE2 has accepted the pattern: a shortcut never changes which patterns are valid.
    return shortcutMatcher(pattern) ?? new Re2Matcher(new Re2('\\A(?:' + translated + ')\\z', 'u'));
  } catch (e) {
    let reason = e instanceof Error ? e.message : String(e);
    // RE2 quotes the offending text; when that is the whole (translated) pattern, show the user's.
    if (translated !== undefined && reason.endsWith(': ' + translated)) reason = reason.slice(0, -translated.length) + pattern;
    throw invalidArgument(`Error in field '${field}' : "${showPattern(pattern)}" is not a valid RE2 regex: ${showPattern(reason)}`);
  }
}

/**
 * Rewrites a Bigtable (RE2, Latin-1) pattern into an equivalent pattern for
 * node-re2 over byte strings. Throws RegexSyntaxError for escapes RE2 rejects
 * but node-re2 would silently accept.
 */
export function translatePattern(pattern: ByteString): string {
  let out = '';
  let i = 0;
  const n = pattern.length;
  let inClass = false;
  let classBodyStart = 0;
  while (i < n) {
    const c = pattern.charCodeAt(i);
    if (c > 0xff) throw new RegexSyntaxError(`pattern is not a byte string (char U+${c.toString(16).padStart(4, '0')} at ${i})`);
    const ch = pattern[i]!;
    if (ch === '\\') {
      if (i + 1 >= n) {
        out += ch; // trailing backslash: RE2 reports it
        i++;
        continue;
      }
      const next = pattern[i + 1]!;
      if (next === 'Q' && !inClass) {
        const end = pattern.indexOf('\\E', i + 2);
        const stop = end < 0 ? n : end;
        for (let j = i + 2; j < stop; j++) out += literal(pattern.charCodeAt(j));
        i = end < 0 ? n : end + 2;
        continue;
      }
      if (next === 'C') {
        if (inClass) throw new RegexSyntaxError('invalid escape sequence: \\C');
        out += '(?s:.)';
        i += 2;
        continue;
      }
      if (next === 'u' || next === 'c') throw new RegexSyntaxError(`invalid escape sequence: \\${next}`);
      if ((next === 'p' || next === 'P') && pattern[i + 2] === '{') {
        const close = pattern.indexOf('}', i + 3);
        if (close >= 0) {
          const name = pattern.slice(i + 3, close);
          const bare = name.startsWith('^') ? name.slice(1) : name;
          if (bare.includes('=') || LONG_CATEGORY_NAMES.has(bare)) {
            throw new RegexSyntaxError(`invalid character class range: ${pattern.slice(i, close + 1)}`);
          }
        }
      }
      out += ch + next;
      i += 2;
      continue;
    }
    if (inClass) {
      if (ch === '[' && pattern[i + 1] === ':') {
        const close = pattern.indexOf(':]', i + 2);
        if (close >= 0) {
          out += pattern.slice(i, close + 2);
          i = close + 2;
          continue;
        }
      }
      if (ch === ']' && i > classBodyStart) inClass = false;
      out += ch;
      i++;
      continue;
    }
    out += ch;
    i++;
    if (ch === '[') {
      inClass = true;
      if (pattern[i] === '^') {
        out += '^';
        i++;
      }
      classBodyStart = i; // a `]` right here is a literal
    }
  }
  return out;
}

class Re2Matcher implements ByteRegex {
  readonly costly = true;
  constructor(private readonly re: RE2) {}
  test(subject: ByteString): boolean {
    return this.re.test(subject);
  }
  testBytes(subject: Uint8Array): boolean {
    return this.re.test(fromBytes(subject));
  }
}

/**
 * A pattern for messages: bytes outside printable ASCII as `\xNN`, backslashes
 * as written, so the text reads as the same RE2 pattern.
 */
function showPattern(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out += c >= 0x20 && c < 0x7f ? s[i] : `\\x${c.toString(16).padStart(2, '0')}`;
  }
  return out;
}

/** A char of quoted (`\Q...\E`) text as an RE2 literal. */
function literal(code: number): string {
  const isAlnum = (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
  return isAlnum ? String.fromCharCode(code) : `\\x{${code.toString(16)}}`;
}

/**
 * Long general-category names (Unicode PropertyValueAliases). RE2 knows only
 * the short forms (`\p{L}`); node-re2 would translate these.
 */
const LONG_CATEGORY_NAMES: ReadonlySet<string> = new Set([
  'Letter',
  'Cased_Letter',
  'Uppercase_Letter',
  'Lowercase_Letter',
  'Titlecase_Letter',
  'Modifier_Letter',
  'Other_Letter',
  'Mark',
  'Nonspacing_Mark',
  'Spacing_Mark',
  'Enclosing_Mark',
  'Number',
  'Decimal_Number',
  'Letter_Number',
  'Other_Number',
  'Punctuation',
  'Connector_Punctuation',
  'Dash_Punctuation',
  'Open_Punctuation',
  'Close_Punctuation',
  'Initial_Punctuation',
  'Final_Punctuation',
  'Other_Punctuation',
  'Symbol',
  'Math_Symbol',
  'Currency_Symbol',
  'Modifier_Symbol',
  'Other_Symbol',
  'Separator',
  'Space_Separator',
  'Line_Separator',
  'Paragraph_Separator',
  'Other',
  'Control',
  'Format',
  'Surrogate',
  'Private_Use',
  'Unassigned',
]);
