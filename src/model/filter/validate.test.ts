import { describe, expect, it } from 'vitest';
import { isTabletopError } from '../errors.js';
import type { RowFilter } from './ast.js';
import { compileFilter } from './compile.js';
import { encodedFilterSize } from './encoded-size.js';
import { F, closed, open } from './testing/builders.js';

/** `depth` chains around pass_all: the innermost filter has `depth` enclosing filters. */
function nested(depth: number): RowFilter {
  let f = F.pass;
  for (let i = 0; i < depth; i++) f = F.chain(f, F.pass);
  return f;
}

/** [description, filter, message fragment]: each must be rejected with InvalidArgument. */
const INVALID: readonly (readonly [string, RowFilter, string])[] = [
  // chain / interleave arity
  ['empty chain', F.chain(), `Error in field 'chain' : Chain must contain at least two RowFilters, got 0`],
  ['one-filter chain', F.chain(F.pass), 'Chain must contain at least two RowFilters, got 1'],
  ['empty interleave', F.interleave(), `Error in field 'interleave' : Interleave must contain at least two RowFilters, got 0`],
  ['one-filter interleave', F.interleave(F.pass), 'Interleave must contain at least two RowFilters, got 1'],
  ['nested one-filter chain', F.chain(F.pass, F.chain(F.strip)), `Error in field 'chain.filters[1].chain' :`],
  // sink placement
  [
    'sink as a predicate',
    F.condition(F.sink, F.pass),
    `Error in field 'condition.predicate_filter.sink' : sink cannot be nested in a condition filter`,
  ],
  ['sink in a true filter', F.condition(F.pass, F.chain(F.pass, F.sink)), `Error in field 'condition.true_filter.chain.filters[1].sink'`],
  [
    'sink in a false filter',
    F.condition(F.pass, undefined, F.interleave(F.sink, F.pass)),
    `'condition.false_filter.interleave.filters[0].sink'`,
  ],
  [
    'sink in a nested condition',
    F.chain(F.pass, F.condition(F.pass, F.condition(F.pass, F.sink))),
    `'chain.filters[1].condition.true_filter.condition.true_filter.sink'`,
  ],
  // labels
  [
    'two labels in a chain',
    F.chain(F.label('a'), F.strip, F.label('b')),
    'at most one sub-filter that applies a label (apply_label_transformer), because a cell cannot carry two labels; found 2: filters[0], filters[2]',
  ],
  [
    'labels in an interleave and after it',
    F.chain(F.interleave(F.label('a'), F.label('b')), F.label('c')),
    'found 2: filters[0], filters[1]',
  ],
  ['labels in a condition branch and after it', F.chain(F.condition(F.pass, F.label('a')), F.label('b')), 'found 2'],
  ['a label in a predicate counts', F.chain(F.condition(F.label('a'), F.pass), F.label('b')), 'found 2'],
  [
    'two labels in a nested chain',
    F.chain(F.pass, F.chain(F.label('a'), F.label('b'))),
    `Error in field 'chain.filters[1].chain' : a Chain may have at most one`,
  ],
  [
    'label with upper case',
    F.label('Upper'),
    `Error in field 'apply_label_transformer' : label "Upper" must match [a-z0-9\\-]+ and be at most 15 characters`,
  ],
  ['label with a space', F.label('a b'), 'must match'],
  ['empty label', F.label(''), 'must match'],
  ['16-character label', F.label('abcdefghijklmnop'), 'at most 15 characters'],
  ['label with underscore', F.label('a_b'), 'must match'],
  // row sample
  ['row sample 0', F.sample(0), `Error in field 'row_sample_filter' : probability must be greater than 0 and less than 1, got 0`],
  ['row sample 1', F.sample(1), 'got 1'],
  ['row sample negative', F.sample(-0.1), 'got -0.1'],
  ['row sample above 1', F.sample(1.5), 'got 1.5'],
  ['row sample NaN', F.sample(Number.NaN), 'got NaN'],
  // family regex
  ['family regex with a colon', F.family('fam:x'), `Error in field 'family_name_regex_filter' : the regex must not contain ':'`],
  ['family regex with an escaped colon', F.family('fam\\:'), `must not contain ':'`],
  // column range
  [
    'column range without a family',
    F.columnRange(''),
    `Error in field 'column_range_filter.family_name' : "" is not a valid column family name`,
  ],
  ['column range with a bad family', F.columnRange('fam:1'), 'is not a valid column family name'],
  ['column range with a long family', F.columnRange('f'.repeat(65)), 'is not a valid column family name'],
  [
    'column range start after end',
    F.columnRange('f', closed('b'), closed('a')),
    `Error in field 'column_range_filter' : the qualifier range ["b", "a"] is empty`,
  ],
  ['column range [a, a)', F.columnRange('f', closed('a'), open('a')), 'is empty'],
  ['column range (a, a]', F.columnRange('f', open('a'), closed('a')), 'is empty'],
  ['column range (a, a)', F.columnRange('f', open('a'), open('a')), 'is empty'],
  ['column range ["", "")', F.columnRange('f', undefined, open('')), 'the qualifier range ["", "") is empty'],
  // value range
  [
    'value range start after end',
    F.valueRange(closed('\xff'), open('\x00')),
    `Error in field 'value_range_filter' : the value range ["\\xff", "\\x00") is empty`,
  ],
  ['value range (v, v)', F.valueRange(open('v'), open('v')), 'is empty'],
  // timestamp range
  ['timestamp range start after end', F.time(5000, 4000), `Error in field 'timestamp_range_filter' : the range [5000, 4000) is empty`],
  ['timestamp range start equals end', F.time(4000, 4000), 'is empty'],
  [
    'negative start timestamp',
    F.time(-1000),
    `Error in field 'timestamp_range_filter.start_timestamp_micros' : must be a non-negative integer, got -1000`,
  ],
  ['negative end timestamp', F.time(0, -1), `'timestamp_range_filter.end_timestamp_micros'`],
  ['fractional timestamp', F.time(0.5), 'must be a non-negative integer'],
  // counts
  ['negative offset', F.rowOffset(-1), `Error in field 'cells_per_row_offset_filter' : must be a non-negative integer, got -1`],
  ['fractional offset', F.rowOffset(1.5), 'got 1.5'],
  ['offset beyond int32', F.rowOffset(2 ** 31), 'must be a non-negative integer'],
  ['zero cells per row', F.rowLimit(0), `Error in field 'cells_per_row_limit_filter' : must be a positive integer, got 0`],
  ['negative cells per row', F.rowLimit(-3), 'got -3'],
  ['zero cells per column', F.columnLimit(0), `Error in field 'cells_per_column_limit_filter' : must be a positive integer, got 0`],
  ['negative cells per column', F.columnLimit(-1), 'got -1'],
  // value bitmask
  ['empty bitmask', F.bitmask(), `Error in field 'value_bitmask_filter.mask' : the mask is required and must not be empty`],
  // regex syntax, named by path
  ['bad row key regex', F.key('('), `Error in field 'row_key_regex_filter' : "(" is not a valid RE2 regex: missing )`],
  [
    'bad nested value regex',
    F.interleave(F.pass, F.value('a**')),
    `Error in field 'interleave.filters[1].value_regex_filter' : "a**" is not a valid RE2 regex: bad repetition operator`,
  ],
  ['bad family regex', F.family('fam['), `Error in field 'family_name_regex_filter' : "fam[" is not a valid RE2 regex: missing ]`],
  [
    'bad qualifier regex in a predicate',
    F.condition(F.column('\\u0041'), F.pass),
    `Error in field 'condition.predicate_filter.column_qualifier_regex_filter'`,
  ],
  ['bad regex deep in a chain', F.chain(F.pass, F.chain(F.strip, F.key('\\'))), `'chain.filters[1].chain.filters[1].row_key_regex_filter'`],
  // nesting and size
  ['21 levels of nesting', nested(21), 'row filters may be nested at most 20 levels deep'],
  ['20,481 bytes', F.key('a'.repeat(20477)), 'Row filter is 20481 bytes when serialized; the limit is 20480 bytes'],
];

/** Filters on the edge of a rule, which must be accepted. */
const VALID: readonly (readonly [string, RowFilter])[] = [
  ['two-filter chain', F.chain(F.pass, F.pass)],
  ['labels in separate interleave branches', F.interleave(F.label('a'), F.label('b'))],
  ['labels inside one sub-filter of a chain', F.chain(F.interleave(F.label('a'), F.label('b')), F.strip)],
  ['nested chain with one label', F.chain(F.chain(F.label('a'), F.strip), F.strip)],
  ['15-character label', F.label('abcdefghijklmno')],
  ['label with digits and dashes', F.label('a-1-b')],
  ['sink outside conditions', F.chain(F.interleave(F.sink, F.pass), F.sink)],
  ['condition without branches', F.condition(F.pass)],
  ['condition without a predicate', F.condition(undefined, F.pass)],
  ['row sample near 0', F.sample(Number.MIN_VALUE)],
  ['row sample near 1', F.sample(1 - Number.EPSILON)],
  ['column range [a, a]', F.columnRange('f', closed('a'), closed('a'))],
  ['column range ["", ""]', F.columnRange('f', undefined, closed(''))],
  ['column range of a 64-character family', F.columnRange('f'.repeat(64))],
  ['value range (a, b)', F.valueRange(open('a'), open('b'))],
  ['timestamp range with end 0 (unbounded)', F.time(5000, 0)],
  ['timestamp range [0, 1)', F.time(0, 1)],
  ['timestamp range ending at int64 max', F.time(1000, 9223372036854775807)],
  ['offset 0', F.rowOffset(0)],
  ['largest int32 limit', F.rowLimit(2 ** 31 - 1)],
  ['one-byte zero bitmask', F.bitmask(0)],
  ['family regex without a colon', F.family('[a-z]+')],
  ['20 levels of nesting', nested(20)],
  ['20,480 bytes', F.key('a'.repeat(20476))],
];

describe('filter validation', () => {
  it.each(INVALID.map(([d, f, m]) => [d, f, m] as const))('rejects %s', (_d, filter, fragment) => {
    let caught: unknown;
    try {
      compileFilter(filter);
    } catch (e) {
      caught = e;
    }
    expect(isTabletopError(caught, 'InvalidArgument'), String(caught)).toBe(true);
    expect((caught as Error).message).toContain(fragment);
  });

  it.each(VALID.map(([d, f]) => [d, f] as const))('accepts %s', (_d, filter) => {
    expect(() => compileFilter(filter)).not.toThrow();
  });

  it('measures the edge cases exactly', () => {
    expect(encodedFilterSize(F.key('a'.repeat(20476)))).toBe(20480);
    expect(encodedFilterSize(F.key('a'.repeat(20477)))).toBe(20481);
  });

  it('checks nesting before size, so a hostile tree cannot exhaust the stack', () => {
    let f = F.pass;
    for (let i = 0; i < 100_000; i++) f = F.chain(f, F.pass);
    expect(() => compileFilter(f)).toThrow(/nested at most 20 levels deep/);
  });
});
