import type { ByteString } from '../bytes.js';
import type { ByteRegex } from './byte-regex-contract.js';

/**
 * Shortcuts for the regexes clients send most: exact names (the Node client
 * sends `column: 'name'` as the regex `name`; the Java client's exactMatch
 * escapes punctuation, `my\-col`) and prefixes (`user#.*`, `user#\C*`). A call
 * into RE2 costs about a microsecond; a string comparison costs nanoseconds.
 *
 * `literalShape` reads a pattern that RE2 has already accepted and returns
 * its shape when it is one of:
 *   - exact:  a literal, e.g. `abc`, `a\.b`, `\x00\xff`;
 *   - prefix: a literal followed by `.*` (the rest has no `\n`) or `\C*`
 *             (anything).
 * Anything else (classes, alternation, flags, other escapes) is undefined and
 * stays with RE2. Literal characters: any byte except the metacharacters
 * `\ . ^ $ | ? * + ( ) [ ] { }`; escapes: `\` before an ASCII character that
 * is not a letter or digit, `\a \f \t \n \r \v`, and `\xHH`.
 */
export type LiteralShape =
  | { readonly kind: 'exact'; readonly text: ByteString }
  | { readonly kind: 'prefix'; readonly text: ByteString; readonly restMayHaveNewline: boolean };

const META = new Set(['\\', '.', '^', '$', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}']);
const CONTROL_ESCAPES: Readonly<Record<string, string>> = { a: '\x07', f: '\x0c', t: '\t', n: '\n', r: '\r', v: '\x0b' };

export function literalShape(pattern: ByteString): LiteralShape | undefined {
  let text = '';
  let i = 0;
  const n = pattern.length;
  while (i < n) {
    const ch = pattern[i]!;
    if (!META.has(ch)) {
      text += ch;
      i++;
      continue;
    }
    if (ch !== '\\' || i + 1 >= n) break;
    const next = pattern[i + 1]!;
    const code = next.charCodeAt(0);
    if (code < 0x80 && !/[A-Za-z0-9]/.test(next)) {
      text += next;
      i += 2;
    } else if (CONTROL_ESCAPES[next] !== undefined) {
      text += CONTROL_ESCAPES[next];
      i += 2;
    } else if (next === 'x' && /^[0-9A-Fa-f]{2}$/.test(pattern.slice(i + 2, i + 4))) {
      text += String.fromCharCode(parseInt(pattern.slice(i + 2, i + 4), 16));
      i += 4;
    } else {
      break;
    }
  }
  const rest = pattern.slice(i);
  if (rest === '') return { kind: 'exact', text };
  if (rest === '.*') return { kind: 'prefix', text, restMayHaveNewline: false };
  if (rest === '\\C*') return { kind: 'prefix', text, restMayHaveNewline: true };
  return undefined;
}

/** A matcher for `pattern` without RE2, or undefined when its shape is not a shortcut. */
export function shortcutMatcher(pattern: ByteString): ByteRegex | undefined {
  const shape = literalShape(pattern);
  if (shape === undefined) return undefined;
  return shape.kind === 'exact' ? new ExactMatcher(shape.text) : new PrefixMatcher(shape.text, shape.restMayHaveNewline);
}

class ExactMatcher implements ByteRegex {
  readonly costly = false;
  private readonly bytes: Uint8Array;
  constructor(private readonly text: ByteString) {
    this.bytes = Buffer.from(text, 'latin1');
  }
  test(subject: ByteString): boolean {
    return subject === this.text;
  }
  testBytes(subject: Uint8Array): boolean {
    return subject.byteLength === this.bytes.byteLength && startsWith(subject, this.bytes);
  }
}

class PrefixMatcher implements ByteRegex {
  readonly costly = false;
  private readonly bytes: Uint8Array;
  constructor(
    private readonly text: ByteString,
    /** `\C*`: anything may follow; `.*`: anything but a newline. */
    private readonly restMayHaveNewline: boolean,
  ) {
    this.bytes = Buffer.from(text, 'latin1');
  }
  test(subject: ByteString): boolean {
    return subject.startsWith(this.text) && (this.restMayHaveNewline || subject.indexOf('\n', this.text.length) < 0);
  }
  testBytes(subject: Uint8Array): boolean {
    return (
      subject.byteLength >= this.bytes.byteLength &&
      startsWith(subject, this.bytes) &&
      (this.restMayHaveNewline || subject.indexOf(0x0a, this.bytes.byteLength) < 0)
    );
  }
}

function startsWith(subject: Uint8Array, prefix: Uint8Array): boolean {
  for (let i = 0; i < prefix.byteLength; i++) if (subject[i] !== prefix[i]) return false;
  return true;
}
