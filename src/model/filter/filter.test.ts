import { describe, expect, it } from 'vitest';
import type { RowFilter } from './ast.js';
import { compileFilter } from './compile.js';
import { F, closed, open } from './testing/builders.js';
import { outputOrder, renderCell, row } from './testing/cells.js';

/**
 * Data-driven evaluation tests: one row, many filters, the expected output
 * cells. Families were created fam2 then fam1, so output order lists fam2
 * first although "fam1" < "fam2".
 */
const ORDER = outputOrder(['fam2', 'fam1', 'bin']);

const ROW = row(
  'row1',
  'fam2:a@3000=a3', // 0
  'fam2:a@2000=a2', // 1
  'fam2:a@1000=a1', // 2
  'fam2:b@1000=b1', // 3
  'fam1:x@5000=x5', // 4
  'fam1:x@4000=x4', // 5
  'fam1:y@1000=yy', // 6
);
const ALL = ROW.cells.map(renderCell);
const only = (...indices: number[]): string[] => indices.map((i) => ALL[i]!);
const labelled = (label: string, ...indices: number[]): string[] => indices.map((i) => `${ALL[i]} [${label}]`);
const stripped = (...indices: number[]): string[] => indices.map((i) => ALL[i]!.replace(/=.*$/, '='));
const allIndices = ALL.map((_, i) => i);

interface Case {
  readonly name: string;
  readonly filter: RowFilter;
  readonly expected: readonly string[];
}

const CASES: readonly Case[] = [
  // ---- leaves ----
  { name: 'pass_all returns every cell', filter: F.pass, expected: ALL },
  { name: 'block_all returns nothing', filter: F.block, expected: [] },
  { name: 'a top-level sink returns every cell', filter: F.sink, expected: ALL },
  { name: 'row key regex, full match', filter: F.key('row1'), expected: ALL },
  { name: 'row key regex is anchored at the end', filter: F.key('row'), expected: [] },
  { name: 'row key regex is anchored at the start', filter: F.key('ow1'), expected: [] },
  { name: 'row key regex with a class', filter: F.key('row[0-9]'), expected: ALL },
  { name: 'row key regex is case sensitive', filter: F.key('ROW1'), expected: [] },
  { name: 'row key regex with (?i)', filter: F.key('(?i)ROW1'), expected: ALL },
  { name: 'family regex', filter: F.family('fam1'), expected: only(4, 5, 6) },
  { name: 'family regex is a full match', filter: F.family('am1'), expected: [] },
  { name: 'family regex with a wildcard', filter: F.family('fam.'), expected: ALL },
  { name: 'family regex with a class', filter: F.family('fam[2]'), expected: only(0, 1, 2, 3) },
  { name: 'qualifier regex', filter: F.column('a'), expected: only(0, 1, 2) },
  { name: 'qualifier regex with a class', filter: F.column('[ax]'), expected: only(0, 1, 2, 4, 5) },
  { name: 'empty qualifier regex matches only the empty qualifier', filter: F.column(''), expected: [] },
  { name: 'column range [a, b) in fam2', filter: F.columnRange('fam2', closed('a'), open('b')), expected: only(0, 1, 2) },
  { name: 'column range (a, +inf) in fam2', filter: F.columnRange('fam2', open('a')), expected: only(3) },
  { name: 'column range [y, y] in fam1', filter: F.columnRange('fam1', closed('y'), closed('y')), expected: only(6) },
  { name: 'column range (a, b] in fam2', filter: F.columnRange('fam2', open('a'), closed('b')), expected: only(3) },
  { name: 'unbounded column range selects the family', filter: F.columnRange('fam1'), expected: only(4, 5, 6) },
  { name: 'column range of another family', filter: F.columnRange('other'), expected: [] },
  { name: 'timestamp range [2000, 4000)', filter: F.time(2000, 4000), expected: only(0, 1) },
  { name: 'timestamp range [4000, +inf)', filter: F.time(4000), expected: only(4, 5) },
  { name: 'timestamp range [0, 2000)', filter: F.time(0, 2000), expected: only(2, 3, 6) },
  { name: 'timestamp range end 0 is unbounded', filter: F.time(0, 0), expected: ALL },
  { name: 'timestamp range end is exclusive', filter: F.time(1000, 1001), expected: only(2, 3, 6) },
  { name: 'value regex', filter: F.value('x.'), expected: only(4, 5) },
  { name: 'value regex is a full match', filter: F.value('x'), expected: [] },
  { name: 'value regex with \\d', filter: F.value('a\\d'), expected: only(0, 1, 2) },
  { name: 'value range [a2, b1]', filter: F.valueRange(closed('a2'), closed('b1')), expected: only(0, 1, 3) },
  { name: 'value range (a2, b1)', filter: F.valueRange(open('a2'), open('b1')), expected: only(0) },
  { name: 'value range [v, +inf)', filter: F.valueRange(closed('v')), expected: only(4, 5, 6) },
  { name: 'value range ["", a2)', filter: F.valueRange(undefined, open('a2')), expected: only(2) },
  { name: 'cells per row offset 5', filter: F.rowOffset(5), expected: only(5, 6) },
  { name: 'cells per row offset past the end drops the row', filter: F.rowOffset(7), expected: [] },
  { name: 'cells per row offset 0', filter: F.rowOffset(0), expected: ALL },
  { name: 'cells per row limit 2 (families in creation order)', filter: F.rowLimit(2), expected: only(0, 1) },
  { name: 'cells per row limit above the row size', filter: F.rowLimit(100), expected: ALL },
  { name: 'cells per column limit 1', filter: F.columnLimit(1), expected: only(0, 3, 4, 6) },
  { name: 'cells per column limit 2', filter: F.columnLimit(2), expected: only(0, 1, 3, 4, 5, 6) },
  { name: 'strip value', filter: F.strip, expected: stripped(...allIndices) },
  { name: 'apply label', filter: F.label('l1'), expected: labelled('l1', ...allIndices) },
  { name: 'row sample always passes whole rows when drawn under p', filter: F.sample(0.75), expected: ALL },
  { name: 'row sample drops whole rows when drawn over p', filter: F.sample(0.25), expected: [] },

  // ---- chain ----
  { name: 'chain narrows in order', filter: F.chain(F.family('fam2'), F.columnLimit(2), F.strip), expected: stripped(0, 1, 3) },
  { name: 'chain with a row key regex', filter: F.chain(F.key('row1'), F.column('y')), expected: only(6) },
  { name: 'chain with a rejecting row key regex', filter: F.chain(F.column('y'), F.key('nope')), expected: [] },
  { name: 'chain offset then limit', filter: F.chain(F.rowOffset(1), F.rowLimit(1)), expected: only(1) },
  { name: 'chain limit then offset', filter: F.chain(F.rowLimit(1), F.rowOffset(1)), expected: [] },
  {
    name: 'chain strip then value regex sees the stripped value',
    filter: F.chain(F.strip, F.value('')),
    expected: stripped(...allIndices),
  },
  { name: 'chain value regex then strip', filter: F.chain(F.value(''), F.strip), expected: [] },
  { name: 'chain of pass_all', filter: F.chain(F.pass, F.pass), expected: ALL },
  { name: 'chain with block_all', filter: F.chain(F.pass, F.block), expected: [] },
  {
    name: 'nested chains are one chain',
    filter: F.chain(F.chain(F.family('fam2'), F.strip), F.chain(F.column('a'), F.label('z'))),
    expected: stripped(0, 1, 2).map((c) => `${c} [z]`),
  },
  { name: 'chain limit per column then per row', filter: F.chain(F.columnLimit(1), F.rowLimit(3)), expected: only(0, 3, 4) },
  { name: 'chain label after a filter', filter: F.chain(F.column('y'), F.label('yes')), expected: labelled('yes', 6) },

  // ---- interleave ----
  {
    name: 'interleave merges outputs in output order',
    filter: F.interleave(F.column('a'), F.chain(F.family('fam1'), F.column('x'), F.label('lx'))),
    expected: [...only(0, 1, 2), ...labelled('lx', 4, 5)],
  },
  {
    name: 'interleave keeps duplicates (earlier sub-filter first)',
    filter: F.interleave(F.column('b'), F.chain(F.column('b'), F.label('dup'))),
    expected: [...only(3), ...labelled('dup', 3)],
  },
  {
    name: 'interleave of pass_all twice doubles every cell',
    filter: F.interleave(F.pass, F.pass),
    expected: allIndices.flatMap((i) => only(i, i)),
  },
  { name: 'interleave of block_all', filter: F.interleave(F.block, F.block), expected: [] },
  { name: 'interleave with block_all is the other filter', filter: F.interleave(F.block, F.column('y')), expected: only(6) },
  {
    name: 'interleave merges by column then timestamp',
    filter: F.interleave(F.chain(F.label('l2'), F.columnLimit(1)), F.rowLimit(1)),
    expected: [`${ALL[0]} [l2]`, ALL[0]!, `${ALL[3]} [l2]`, `${ALL[4]} [l2]`, `${ALL[6]} [l2]`],
  },
  { name: 'cells per row limit counts duplicates', filter: F.chain(F.interleave(F.pass, F.pass), F.rowLimit(3)), expected: only(0, 0, 1) },
  {
    name: 'cells per row offset counts duplicates',
    filter: F.chain(F.interleave(F.pass, F.pass), F.rowOffset(11)),
    expected: only(5, 6, 6),
  },
  {
    name: 'cells per column limit counts duplicates',
    filter: F.chain(F.interleave(F.pass, F.pass), F.columnLimit(1)),
    expected: only(0, 3, 4, 6),
  },
  {
    name: 'cells per column limit 3 over duplicates',
    filter: F.chain(F.interleave(F.pass, F.pass), F.columnLimit(3)),
    expected: only(0, 0, 1, 3, 3, 4, 4, 5, 6, 6),
  },
  {
    name: 'interleave of labelled branches in a chain with another filter',
    filter: F.chain(F.interleave(F.chain(F.column('y'), F.label('a')), F.chain(F.column('b'), F.label('b'))), F.strip),
    expected: ['fam2:b@1000= [b]', 'fam1:y@1000= [a]'],
  },

  // ---- condition ----
  { name: 'condition true branch', filter: F.condition(F.column('y'), F.family('fam1'), F.column('a')), expected: only(4, 5, 6) },
  { name: 'condition false branch', filter: F.condition(F.column('zz'), F.family('fam1'), F.column('a')), expected: only(0, 1, 2) },
  { name: 'condition true with no true filter outputs nothing', filter: F.condition(F.column('y'), undefined, F.pass), expected: [] },
  { name: 'condition false with no false filter outputs nothing', filter: F.condition(F.column('zz'), F.pass), expected: [] },
  {
    name: 'condition without a predicate is true on any cell',
    filter: F.condition(undefined, F.label('t'), F.label('f')),
    expected: labelled('t', ...allIndices),
  },
  {
    name: 'condition predicate output is not returned',
    filter: F.condition(F.chain(F.value('yy'), F.strip), F.rowLimit(1)),
    expected: only(0),
  },
  {
    name: 'condition branches see the whole input row',
    filter: F.chain(F.family('fam1'), F.condition(F.column('y'), F.columnLimit(1))),
    expected: only(4, 6),
  },
  { name: 'condition on a row key', filter: F.condition(F.key('row1'), F.strip, F.block), expected: stripped(...allIndices) },

  // ---- sink ----
  {
    name: 'sink: the data.proto example',
    filter: F.chain(F.family('fam2'), F.interleave(F.pass, F.chain(F.label('foo'), F.sink)), F.column('b')),
    expected: [...labelled('foo', 0, 1, 2), ALL[3]!, `${ALL[3]} [foo]`],
  },
  { name: 'sink then block_all still outputs', filter: F.chain(F.sink, F.block), expected: ALL },
  { name: 'filters after a sink get nothing', filter: F.chain(F.column('a'), F.sink, F.strip), expected: only(0, 1, 2) },
  {
    name: 'two sinks merge in output order',
    filter: F.interleave(F.chain(F.label('s1'), F.sink), F.chain(F.column('y'), F.label('s2'), F.sink)),
    expected: [...labelled('s1', 0, 1, 2, 3, 4, 5, 6), `${ALL[6]} [s2]`],
  },
  {
    name: 'sink output bypasses later filters of the parent',
    filter: F.chain(F.interleave(F.chain(F.rowLimit(1), F.sink), F.column('b')), F.strip),
    expected: [ALL[0]!, ...stripped(3)],
  },
  { name: 'sink escapes a row key regex later in the chain', filter: F.chain(F.interleave(F.sink, F.pass), F.key('nope')), expected: ALL },
  { name: 'a sink before a rejecting row key regex', filter: F.chain(F.sink, F.key('nope')), expected: ALL },
  { name: 'a rejecting row key regex before a sink', filter: F.chain(F.key('nope'), F.sink), expected: [] },
];

/** Draws fixed at 0.5: row_sample(p) passes when 0.5 < p. */
const half = (): number => 0.5;

describe('RowFilter evaluation', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, { filter, expected }) => {
    const compiled = compileFilter(filter, { random: half });
    expect(compiled.apply(ROW, ORDER).map(renderCell)).toEqual(expected);
    // Repeatable: per-stage caches must not leak between rows.
    expect(compiled.apply(ROW, ORDER).map(renderCell)).toEqual(expected);
  });

  it('does not modify the input row', () => {
    const before = ROW.cells.map(renderCell);
    const snapshot = [...ROW.cells];
    for (const c of CASES) compileFilter(c.filter, { random: half }).apply(ROW, ORDER);
    expect(ROW.cells).toEqual(snapshot);
    expect(ROW.cells.map(renderCell)).toEqual(before);
  });

  it('returns nothing for a row without cells', () => {
    expect(compileFilter(F.sink).apply({ key: 'k', cells: [] }, ORDER)).toEqual([]);
  });
});

describe('cells per column limit', () => {
  it('tells apart same-named qualifiers of adjacent families', () => {
    const r = row('k', 'fam2:q@2000=a', 'fam2:q@1000=b', 'fam1:q@2000=c', 'fam1:q@1000=d');
    expect(compileFilter(F.columnLimit(1)).apply(r, ORDER).map(renderCell)).toEqual(['fam2:q@2000=a', 'fam1:q@2000=c']);
  });
});

describe('remembered regex answers', () => {
  it('stay correct past the memo bounds (many qualifiers, long qualifiers and values)', () => {
    const cells = Array.from({ length: 5000 }, (_, i) => `bin:q${String(i).padStart(4, '0')}@1=${i % 3 === 0 ? 'x' : 'y'.repeat(i % 100)}`);
    cells.push(`bin:${'q'.repeat(300)}@1=x`, `bin:${'r'.repeat(300)}@1=${'x'.repeat(100)}`);
    const big = row('k', ...cells);
    const compiled = compileFilter(F.interleave(F.column('q[0-9]*[05]|q+'), F.chain(F.value('x+'), F.label('x'))));
    for (let round = 0; round < 2; round++) {
      const out = compiled.apply(big, ORDER);
      const plain = out.filter((c) => c.labels.length === 0).map((c) => c.qualifier);
      const labelledX = out.filter((c) => c.labels.length > 0).map((c) => c.qualifier);
      expect(plain).toEqual(big.cells.map((c) => c.qualifier).filter((q) => /^(q[0-9]*[05]|q+)$/.test(q)));
      expect(labelledX).toEqual(big.cells.filter((c) => /^x+$/.test(Buffer.from(c.value).toString('latin1'))).map((c) => c.qualifier));
    }
  });
});

describe('value bitmask: (value & mask) == mask, same length', () => {
  const BITS = row('b', 'bin:0f@1=\x0f', 'bin:1f@1=\x1f', 'bin:ff@1=\xff', 'bin:0a@1=\x0a', 'bin:two@1=\x0f\x0f', 'bin:empty@1=');
  const names = (filter: RowFilter): string[] =>
    compileFilter(filter)
      .apply(BITS, ORDER)
      .map((c) => c.qualifier);
  it.each([
    [[0x0f], ['0f', '1f', 'ff']],
    [[0x00], ['0f', '1f', 'ff', '0a']],
    [[0xf0], ['ff']],
    [[0x0f, 0x0f], ['two']],
    [[0x0f, 0x00], ['two']],
    [[0x0f, 0x0f, 0x00], []],
  ])('mask %j keeps %j', (mask, expected) => {
    expect(names(F.bitmask(...mask))).toEqual(expected);
  });
});

describe('regex filters over raw bytes', () => {
  const BIN = row('\xfe\n', 'bin:\xe9@1000=\xff\n\x00');
  const count = (filter: RowFilter): number => compileFilter(filter).apply(BIN, ORDER).length;
  it.each([
    [F.value('\\xff\\C\\x00'), 1],
    [F.value('\\xff.\\x00'), 0],
    [F.value('\\C{3}'), 1],
    [F.value('\\C{2}'), 0],
    [F.value('\xff\n\x00'), 1],
    [F.key('\\xfe\\n'), 1],
    [F.key('\\xfe.'), 0],
    [F.key('\\xfe\\C'), 1],
    [F.key('\xfe\\s'), 1],
    [F.column('\\xe9'), 1],
    [F.column('\xe9'), 1],
    [F.column('.'), 1],
    [F.column('(?i)\xc9'), 1],
    [F.family('b.n'), 1],
    [F.valueRange(closed('\xff'), open('\xff\x0b')), 1],
    [F.valueRange(closed('\xff\x0b')), 0],
    [F.valueRange(closed('\xff\x0a\x00'), closed('\xff\x0a\x00')), 1],
    [F.columnRange('bin', open('\xe8'), open('\xea')), 1],
  ] as const)('%j matches %i cell(s)', (filter, expected) => {
    expect(count(filter)).toBe(expected);
  });
});

describe('row sample', () => {
  it('draws once per row from the injected source', () => {
    const draws = [0.1, 0.9, 0.49, 0.5];
    let i = 0;
    const compiled = compileFilter(F.sample(0.5), { random: () => draws[i++]! });
    const kept = draws.map(() => compiled.apply(ROW, ORDER).length > 0);
    expect(kept).toEqual([true, false, true, false]);
    expect(i).toBe(4);
  });

  it('passes whole rows, never parts', () => {
    const compiled = compileFilter(F.sample(0.3));
    for (let n = 0; n < 200; n++) expect([0, ALL.length]).toContain(compiled.apply(ROW, ORDER).length);
  });
});

describe('optimisation hints', () => {
  it('passesAll is true only for identity filters', () => {
    expect(compileFilter(F.pass).passesAll).toBe(true);
    expect(compileFilter(F.chain(F.pass, F.rowOffset(0))).passesAll).toBe(true);
    expect(compileFilter(F.sink).passesAll).toBe(false);
    expect(compileFilter(F.rowLimit(1)).passesAll).toBe(false);
  });

  it('returns the row cells themselves when nothing changes', () => {
    expect(compileFilter(F.pass).apply(ROW, ORDER)).toBe(ROW.cells);
    expect(compileFilter(F.chain(F.family('fam.'), F.time(0))).apply(ROW, ORDER)).toBe(ROW.cells);
  });

  it.each([
    [F.key('row1'), 'row1', true],
    [F.key('row1'), 'row2', false],
    [F.block, 'row1', false],
    [F.chain(F.column('a'), F.key('row1')), 'row2', false],
    [F.chain(F.sink, F.key('row1')), 'row2', true],
    [F.chain(F.key('row1'), F.sink), 'row2', false],
    [F.interleave(F.key('row1'), F.key('row2')), 'row2', true],
    [F.interleave(F.key('row1'), F.key('row2')), 'row3', false],
    [F.condition(F.key('row1'), F.pass), 'row2', false],
    [F.condition(F.key('row1'), F.pass, F.strip), 'row2', true],
    [F.condition(F.column('a'), F.key('row1'), F.key('row1')), 'row2', false],
    [F.sample(0.5), 'row1', true],
    [F.column('a'), 'row2', true],
  ] as const)('keyMayMatch(%j, %s) is %s', (filter, key, expected) => {
    const compiled = compileFilter(filter);
    expect(compiled.keyMayMatch(key)).toBe(expected);
    if (!expected) expect(compiled.apply({ key, cells: ROW.cells }, ORDER)).toEqual([]);
  });
});
