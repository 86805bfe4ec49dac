import type { Pos } from './ast.js';
import { SourceText } from './source-text.js';

/**
 * GoogleSQL's lexical structure: identifiers (unquoted, case kept; backquoted with escapes), keywords (the
 * parser tells them from identifiers: `upper`), integer (decimal, `0x` hex) and floating-point literals,
 * string and bytes literals (quoted with ', ", ''' or """; prefixes r, b, rb, br in any case), `@param`,
 * operators and punctuation. Whitespace and comments (`--` and `#` to the end of the line, `/* ... *\/`) are
 * skipped. A malformed token is an InvalidArgument naming its line and column.
 */

export type TokenKind = 'ident' | 'quotedIdent' | 'int' | 'float' | 'string' | 'bytes' | 'param' | 'op' | 'eof';

export interface Token {
  readonly kind: TokenKind;
  /** Where the token starts, and the offset just past it. */
  readonly pos: Pos;
  readonly end: number;
  /** The source text of the token (for `op`: the operator, `<>` given as `!=`). */
  readonly text: string;
  /** For `ident`: the text upper-cased (keywords are matched on it). */
  readonly upper: string;
  /** ident/quotedIdent/param: the name; string: the value; int: decimal digits or 0x..; float: as written. */
  readonly value: string;
  /** For `bytes`: the value. */
  readonly bytes: Uint8Array | null;
  /** Whether whitespace or a comment separates it from the previous token. */
  readonly spaceBefore: boolean;
}

const OPERATORS = [
  '<<',
  '>>',
  '<=',
  '>=',
  '<>',
  '!=',
  '||',
  '=>',
  '->',
  '(',
  ')',
  '[',
  ']',
  ',',
  '.',
  ';',
  '*',
  '+',
  '-',
  '/',
  '|',
  '&',
  '^',
  '~',
  '=',
  '<',
  '>',
  '?',
  ':',
  '{',
  '}',
];

const isIdentStart = (c: string): boolean => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
const isDigit = (c: string): boolean => c >= '0' && c <= '9';
const isIdentPart = (c: string): boolean => isIdentStart(c) || isDigit(c);
const isHex = (c: string): boolean => isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');

/** Splits `query` into tokens, ending with one `eof` token. */
export function lex(src: SourceText): Token[] {
  return new Lexer(src).run();
}

class Lexer {
  private i = 0;
  private readonly s: string;
  private readonly tokens: Token[] = [];

  constructor(private readonly src: SourceText) {
    this.s = src.text;
  }

  run(): Token[] {
    for (;;) {
      const spaced = this.skipSpaceAndComments();
      const start = this.i;
      if (start >= this.s.length) {
        this.push('eof', start, '', '', null, spaced);
        return this.tokens;
      }
      this.token(start, spaced);
    }
  }

  private token(start: number, spaced: boolean): void {
    const c = this.s[start]!;
    const next = this.s[start + 1] ?? '';
    const quoteAt = this.literalQuote(start);
    if (quoteAt >= 0) return this.stringLiteral(start, quoteAt, spaced);
    if (isIdentStart(c)) {
      let j = start + 1;
      while (j < this.s.length && isIdentPart(this.s[j]!)) j++;
      this.i = j;
      const text = this.s.slice(start, j);
      this.push('ident', start, text, text, null, spaced);
      return;
    }
    if (c === '`') {
      const name = this.quoted(start, '`', false, false);
      if (name.length === 0) throw this.src.error(start, 'Syntax error: an identifier in backquotes cannot be empty');
      this.push('quotedIdent', start, this.s.slice(start, this.i), decodeUtf8(this.src, start, name), null, spaced);
      return;
    }
    if (isDigit(c) || (c === '.' && isDigit(next) && !this.afterPathPart())) return this.number(start, spaced);
    if (c === '@') return this.param(start, spaced);
    for (const op of OPERATORS) {
      if (this.s.startsWith(op, start)) {
        this.i = start + op.length;
        this.push('op', start, op === '<>' ? '!=' : op, '', null, spaced);
        return;
      }
    }
    const cp = String.fromCodePoint(this.s.codePointAt(start)!);
    throw this.src.error(start, `Syntax error: unexpected character ${JSON.stringify(cp)}`);
  }

  /** `.5` after an identifier or `)`/`]` is a field access on a path, not a number (`a.5` is an error later). */
  private afterPathPart(): boolean {
    const prev = this.tokens[this.tokens.length - 1];
    if (prev === undefined || prev.end !== this.i) return false;
    return prev.kind === 'ident' || prev.kind === 'quotedIdent' || prev.text === ')' || prev.text === ']';
  }

  /** Returns where the opening quote of a string or bytes literal starting at `start` is, or -1. */
  private literalQuote(start: number): number {
    let j = start;
    const prefix = (ch: string | undefined): boolean => ch !== undefined && 'rRbB'.includes(ch);
    if (prefix(this.s[j])) {
      j++;
      if (prefix(this.s[j]) && this.s[j]!.toLowerCase() !== this.s[start]!.toLowerCase()) j++;
    }
    const q = this.s[j];
    return q === "'" || q === '"' ? j : -1;
  }

  private stringLiteral(start: number, quoteAt: number, spaced: boolean): void {
    const prefix = this.s.slice(start, quoteAt).toLowerCase();
    const raw = prefix.includes('r');
    const isBytes = prefix.includes('b');
    const q = this.s[quoteAt]!;
    const triple = this.s.startsWith(q.repeat(3), quoteAt);
    this.i = quoteAt;
    const bytes = this.quoted(start, triple ? q.repeat(3) : q, raw, isBytes);
    const text = this.s.slice(start, this.i);
    if (isBytes) this.push('bytes', start, text, '', Uint8Array.from(bytes), spaced);
    else this.push('string', start, text, decodeUtf8(this.src, start, bytes), null, spaced);
    this.checkSeparated();
  }

  /**
   * Reads a quoted body at `this.i` (which is at the opening quote) up to the closing `quote`, resolving escapes
   * unless `raw`; returns the bytes (UTF-8 for the characters). A single-quoted body cannot span lines.
   */
  private quoted(start: number, quote: string, raw: boolean, isBytes: boolean): number[] {
    const out: number[] = [];
    const multiline = quote.length === 3;
    let j = this.i + quote.length;
    for (;;) {
      if (j >= this.s.length) throw this.src.error(start, `Syntax error: unclosed ${describeQuoted(quote)}`);
      if (this.s.startsWith(quote, j)) {
        this.i = j + quote.length;
        return out;
      }
      const c = this.s[j]!;
      if ((c === '\n' || c === '\r') && !multiline) throw this.src.error(start, `Syntax error: unclosed ${describeQuoted(quote)}`);
      if (c === '\\') {
        const e = this.s[j + 1];
        if (e === undefined) throw this.src.error(start, `Syntax error: unclosed ${describeQuoted(quote)}`);
        if (raw) {
          // A raw literal keeps the backslash and the character after it (which so cannot close it).
          pushUtf8(out, '\\');
          j++;
          const cp = this.s.codePointAt(j)!;
          pushUtf8(out, String.fromCodePoint(cp));
          j += cp > 0xffff ? 2 : 1;
          continue;
        }
        j = this.escape(j, out, isBytes);
        continue;
      }
      // A run of plain characters is encoded at once (the run ends are ASCII: a surrogate pair is never split).
      let k = j + 1;
      while (k < this.s.length && !PLAIN_RUN_ENDS.has(this.s[k]!)) k++;
      pushUtf8(out, this.s.slice(j, k));
      j = k;
    }
  }

  /** Resolves the escape sequence at `j` (a backslash) into `out`; returns the offset after it. */
  private escape(j: number, out: number[], isBytes: boolean): number {
    const e = this.s[j + 1]!;
    const simple: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92, '?': 63, '"': 34, "'": 39, '`': 96 };
    const code = simple[e];
    if (code !== undefined) {
      out.push(code);
      return j + 2;
    }
    if (e >= '0' && e <= '7') {
      const digits = this.s.slice(j + 1, j + 4);
      if (!/^[0-3][0-7]{2}$/.test(digits))
        throw this.src.error(j, 'Syntax error: an octal escape needs exactly 3 octal digits, at most \\377');
      out.push(parseInt(digits, 8));
      return j + 4;
    }
    if (e === 'x' || e === 'X') {
      const digits = this.s.slice(j + 2, j + 4);
      if (!/^[0-9a-fA-F]{2}$/.test(digits)) throw this.src.error(j, 'Syntax error: a hex escape \\x needs exactly 2 hex digits');
      out.push(parseInt(digits, 16));
      return j + 4;
    }
    if (e === 'u' || e === 'U') {
      const n = e === 'u' ? 4 : 8;
      if (isBytes) throw this.src.error(j, `Syntax error: \\${e} escapes are not allowed in bytes literals`);
      const digits = this.s.slice(j + 2, j + 2 + n);
      if (digits.length !== n || ![...digits].every(isHex))
        throw this.src.error(j, `Syntax error: a \\${e} escape needs exactly ${n} hex digits`);
      const cp = parseInt(digits, 16);
      if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        throw this.src.error(j, `Syntax error: \\${e}${digits} is not a Unicode scalar value`);
      pushUtf8(out, String.fromCodePoint(cp));
      return j + 2 + n;
    }
    throw this.src.error(j, `Syntax error: illegal escape sequence \\${e}`);
  }

  private number(start: number, spaced: boolean): void {
    const s = this.s;
    let j = start;
    if (s[j] === '0' && (s[j + 1] === 'x' || s[j + 1] === 'X') && isHex(s[j + 2] ?? '')) {
      j += 2;
      while (j < s.length && isHex(s[j]!)) j++;
      this.i = j;
      const text = s.slice(start, j);
      this.push('int', start, text, text, null, spaced);
      this.checkSeparated();
      return;
    }
    let isFloat = false;
    while (j < s.length && isDigit(s[j]!)) j++;
    if (s[j] === '.') {
      isFloat = true;
      j++;
      while (j < s.length && isDigit(s[j]!)) j++;
    }
    if (s[j] === 'e' || s[j] === 'E') {
      let k = j + 1;
      if (s[k] === '+' || s[k] === '-') k++;
      if (isDigit(s[k] ?? '')) {
        isFloat = true;
        j = k;
        while (j < s.length && isDigit(s[j]!)) j++;
      } else {
        throw this.src.error(start, 'Syntax error: a floating-point literal needs digits after its exponent');
      }
    }
    this.i = j;
    const text = s.slice(start, j);
    this.push(isFloat ? 'float' : 'int', start, text, text, null, spaced);
    this.checkSeparated();
  }

  /** A literal directly followed by an identifier character (`123abc`, `'a'b`) is an error, as in GoogleSQL. */
  private checkSeparated(): void {
    const c = this.s[this.i];
    if (c !== undefined && isIdentPart(c))
      throw this.src.error(this.i, 'Syntax error: missing whitespace between a literal and what follows');
  }

  private param(start: number, spaced: boolean): void {
    const c = this.s[start + 1] ?? '';
    if (c === '@') throw this.src.error(start, 'Syntax error: system variables (@@name) are not supported');
    if (c === '{') throw this.src.error(start, 'Syntax error: hints (@{...}) are not supported in GoogleSQL for Bigtable');
    if (c === '`') {
      this.i = start + 1;
      const name = this.quoted(start, '`', false, false);
      if (name.length === 0) throw this.src.error(start, 'Syntax error: a parameter name cannot be empty');
      this.push('param', start, this.s.slice(start, this.i), decodeUtf8(this.src, start, name), null, spaced);
      return;
    }
    if (!isIdentStart(c)) throw this.src.error(start, 'Syntax error: expected a parameter name after @');
    let j = start + 2;
    while (j < this.s.length && isIdentPart(this.s[j]!)) j++;
    this.i = j;
    this.push('param', start, this.s.slice(start, j), this.s.slice(start + 1, j), null, spaced);
  }

  /** Skips whitespace and comments; returns whether there were any. */
  private skipSpaceAndComments(): boolean {
    const s = this.s;
    const from = this.i;
    for (;;) {
      const c = s[this.i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v') {
        this.i++;
      } else if (c === '#' || (c === '-' && s[this.i + 1] === '-')) {
        while (this.i < s.length && s[this.i] !== '\n' && s[this.i] !== '\r') this.i++;
      } else if (c === '/' && s[this.i + 1] === '*') {
        const close = s.indexOf('*/', this.i + 2);
        if (close < 0) throw this.src.error(this.i, 'Syntax error: unclosed comment /* ... */');
        this.i = close + 2;
      } else {
        return this.i > from;
      }
    }
  }

  private push(kind: TokenKind, start: number, text: string, value: string, bytes: Uint8Array | null, spaced: boolean): void {
    this.tokens.push({
      kind,
      pos: this.src.pos(start),
      end: this.i,
      text,
      upper: kind === 'ident' ? text.toUpperCase() : '',
      value,
      bytes,
      spaceBefore: spaced,
    });
  }
}

function describeQuoted(quote: string): string {
  if (quote === '`') return 'identifier in backquotes';
  return `literal (${quote} ... ${quote})`;
}

/** Characters that end a run of plain characters in a quoted body (a quote, a backslash, a line break). */
const PLAIN_RUN_ENDS = new Set(["'", '"', '`', '\\', '\n', '\r']);
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

function pushUtf8(out: number[], s: string): void {
  const bytes = encoder.encode(s);
  for (let i = 0; i < bytes.length; i++) out.push(bytes[i]!);
}

function decodeUtf8(src: SourceText, start: number, bytes: number[]): string {
  try {
    return decoder.decode(Uint8Array.from(bytes));
  } catch {
    throw src.error(start, 'Syntax error: the escapes of this literal do not form valid UTF-8 (a bytes literal b"..." may hold any bytes)');
  }
}
