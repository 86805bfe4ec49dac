import fc from 'fast-check';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { isTabletopError } from '../../model/errors.js';
import type { Expr } from './ast.js';
import { MAX_NESTING, MAX_QUERY_LENGTH, parse } from './parse.js';
import { positions, summarize } from './summary.js';
import { readGoldenFile, REWRITE_GOLDEN, rewriteGoldenFile } from './testing/golden-file.js';

const GOLDEN = fileURLToPath(new URL('./testdata/parse.txt', import.meta.url));

/** What a case prints: the tree's summary (`parse`) or its positions (`positions`), or `error: <message>`. */
function run(directive: string, query: string): string {
  try {
    const statement = parse(query);
    if (directive === 'parse') return summarize(statement);
    if (directive === 'positions') return positions(statement);
    throw new Error(`unknown directive ${directive}`);
  } catch (e) {
    if (!isTabletopError(e, 'InvalidArgument')) throw e;
    return `error: ${e.message}`;
  }
}

describe('parse (testdata/parse.txt; UPDATE_SQL_GOLDEN=1 rewrites the expected outputs)', () => {
  const cases = readGoldenFile(GOLDEN);
  const actual = new Map<number, string>();
  cases.forEach((c, k) => {
    it(`line ${c.line}: ${c.input.split('\n')[0]!.slice(0, 80)}`, () => {
      const out = run(c.directive, c.input);
      actual.set(k, out);
      if (!REWRITE_GOLDEN) expect(out).toBe(c.expected);
    });
  });
  afterAll(() => {
    if (REWRITE_GOLDEN && actual.size === cases.length) rewriteGoldenFile(GOLDEN, cases, actual);
  });
});

/** The one expression of `SELECT <literal>`. */
function literal(text: string): Expr {
  const item = parse(`SELECT ${text}`).items[0]!;
  if (item.kind !== 'expr') throw new Error('not an expression');
  return item.expr;
}

describe('literals round-trip', () => {
  it('reads back any string written with escapes, in any quoting', () => {
    const escape = (s: string): string =>
      [...s]
        .map((c) =>
          c === '\\' || c === "'" || c === '"'
            ? `\\${c}`
            : c.codePointAt(0)! < 0x20 || c.codePointAt(0)! > 0x7e
              ? `\\U${c.codePointAt(0)!.toString(16).padStart(8, '0')}`
              : c,
        )
        .join('');
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.constantFrom("'", '"', "'''", '"""'), (s, q) => {
        expect(literal(`${q}${escape(s)}${q}`)).toMatchObject({ kind: 'string', value: s });
      }),
      { numRuns: 300, seed: 23 },
    );
  });

  it('reads back any bytes written as hex or octal escapes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.boolean(), (b, octal) => {
        const body = [...b].map((x) => (octal ? `\\${x.toString(8).padStart(3, '0')}` : `\\x${x.toString(16).padStart(2, '0')}`)).join('');
        const e = literal(`b'${body}'`);
        expect(e.kind === 'bytes' && Buffer.from(e.value).equals(Buffer.from(b))).toBe(true);
      }),
      { numRuns: 300, seed: 23 },
    );
  });

  it('reads back every INT64, in decimal and in hex, and no integer outside INT64', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 64n), max: 1n << 64n }), fc.boolean(), (n, hex) => {
        const text = hex ? `${n < 0n ? '-' : ''}0x${(n < 0n ? -n : n).toString(16)}` : n.toString();
        const inRange = n >= -(1n << 63n) && n < 1n << 63n;
        if (inRange) expect(literal(text)).toMatchObject({ kind: 'int', value: n });
        else expect(rejection(`SELECT ${text}`)).toMatch(/out of range for INT64/);
      }),
      { numRuns: 500, seed: 23 },
    );
    expect(literal('-9223372036854775808')).toMatchObject({ value: -(1n << 63n) });
  });
});

/** Parses `query`, expecting an InvalidArgument; returns its message. */
function rejection(query: string): string {
  try {
    parse(query);
  } catch (e) {
    if (isTabletopError(e, 'InvalidArgument')) return e.message;
    throw e;
  }
  throw new Error(`parsed: ${query.slice(0, 60)}`);
}

describe('parse bounds what a hostile query costs', () => {
  it('refuses a query longer than the limit, and accepts one at it', () => {
    const pad = (n: number): string => `SELECT 1 ${'-'.repeat(2)}${'x'.repeat(n - 11)}`;
    expect(pad(MAX_QUERY_LENGTH).length).toBe(MAX_QUERY_LENGTH);
    expect(summarize(parse(pad(MAX_QUERY_LENGTH)))).toBe('(select 1)');
    expect(rejection(pad(MAX_QUERY_LENGTH + 1))).toMatch(/^line 1, column 1: the query is too long/);
  });

  it('refuses deep nesting with InvalidArgument, never a RangeError: parentheses, calls, arrays, unary minus, subqueries', () => {
    expect(summarize(parse(`SELECT ${'('.repeat(150)}1${')'.repeat(150)}`))).toBe('(select 1)');
    const deep = 50_000;
    for (const [open, close] of [
      ['(', ')'],
      ['f(', ')'],
      ['[', ']'],
      ['CAST(', ' AS INT64)'],
      ['(SELECT ', ')'],
    ] as const) {
      expect(rejection(`SELECT ${open.repeat(deep)}1${close.repeat(deep)}`)).toMatch(/the query is nested too deeply/);
    }
    expect(rejection(`SELECT ${'- '.repeat(deep)}1`)).toMatch(/nested too deeply/);
    expect(rejection(`SELECT ${'NOT '.repeat(deep)}TRUE`)).toMatch(/nested too deeply/);
    expect(rejection(`SELECT CAST(x AS ${'ARRAY<'.repeat(deep)}INT64${'>'.repeat(deep)})`)).toMatch(/nested too deeply/);
  });

  it('refuses a chain of operators deeper than MAX_NESTING, and accepts one within it', () => {
    const chain = (n: number): string => `SELECT * FROM t WHERE ${Array.from({ length: n }, (_, k) => `_key = '${k}'`).join(' OR ')}`;
    expect(() => parse(chain(MAX_NESTING - 10))).not.toThrow();
    expect(rejection(chain(50_000))).toMatch(/nested too deeply \(more than 1000 levels of expressions\)/);
    expect(rejection(`SELECT ${'1 + '.repeat(100_000)}1`)).toMatch(/nested too deeply/);
  });

  it('answers every token soup with a tree or an InvalidArgument', () => {
    const words = [
      'SELECT',
      'FROM',
      'WHERE',
      'GROUP',
      'BY',
      'ORDER',
      'LIMIT',
      'AS',
      'AND',
      'OR',
      'NOT',
      'IN',
      'IS',
      'NULL',
      'CASE',
      'WHEN',
      'THEN',
      'END',
      'CAST',
      'ARRAY',
      'STRUCT',
      'UNNEST',
      'UNPACK',
      'INTERVAL',
      'EXTRACT',
      't',
      'cf',
      '_key',
      '`x y`',
      '@p',
      '1',
      '0x1F',
      '1.5e3',
      "'s'",
      'b"\\x00"',
      'r"\\d"',
      '(',
      ')',
      '[',
      ']',
      '<',
      '>',
      '>>',
      ',',
      '.',
      '*',
      '+',
      '-',
      '=',
      '=>',
      '||',
      ';',
      '--c\n',
      '/*c*/',
      '"',
      '\\',
      '#',
      'OFFSET',
      'SAFE_OFFSET',
      'DATE',
      'TIMESTAMP',
      'WITH',
      'JOIN',
      '\u00e9',
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...words), { maxLength: 30 }), fc.boolean(), (ws, prefix) => {
        const query = (prefix ? ['SELECT', ...ws] : ws).join(' ');
        try {
          parse(query);
        } catch (e) {
          if (!isTabletopError(e, 'InvalidArgument') || !/^line \d+, column \d+: /.test(e.message)) throw e;
        }
      }),
      { numRuns: 3000, seed: 23 },
    );
  });
});
