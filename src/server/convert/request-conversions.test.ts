import { describe, expect, it } from 'vitest';
import type { RowFilter } from '../../model/filter/index.js';
import { DATA, loaderMethod } from '../testing/loader-codecs.js';
import { latin1Buffer as b, thrownCode as code, viaWire } from './testing/converter-checks.js';
import {
  checkAndMutateRequestFromProto,
  readModifyWriteRequestFromProto,
  readRowsRequestFromProto,
  dataTargetOf,
} from './data-requests.js';
import { durationToMicros, int64ToBigInt, int64ToNumber, microsToDuration } from './int64.js';
import type { PRowFilter } from './proto-types.js';
import { rowFilterFromProto } from './row-filter.js';
import { rowSetFromProto } from './row-set.js';

const readRows = loaderMethod(DATA, 'ReadRows');
const wire = viaWire(readRows);
const TABLE = 'projects/p/instances/i/tables/t';
const filterOf = (f: PRowFilter): RowFilter => readRowsRequestFromProto(wire({ tableName: TABLE, filter: f })).filter!;

describe('int64 fields', () => {
  it('converts exactly or rejects', () => {
    expect(int64ToNumber('9007199254740991', 'x')).toBe(Number.MAX_SAFE_INTEGER);
    expect(int64ToNumber('-5', 'x')).toBe(-5);
    expect(int64ToNumber(undefined, 'x')).toBe(0);
    expect(code(() => int64ToNumber('9007199254740992', 'x'))).toBe('InvalidArgument');
    expect(int64ToBigInt('-9223372036854775808', 'x')).toBe(-(2n ** 63n));
    expect(code(() => int64ToBigInt('9223372036854775808', 'x'))).toBe('InvalidArgument');
    expect(durationToMicros({ seconds: '86400', nanos: 5000 }, 'd')).toBe(86_400_000_005);
    expect(code(() => durationToMicros({ seconds: '1', nanos: 1 }, 'd'))).toBe('InvalidArgument');
    expect(microsToDuration(1_500_000)).toEqual({ seconds: '1', nanos: 500_000_000 });
  });
});

describe('row sets', () => {
  it('normalises every bound kind, and treats an empty end key as unbounded', () => {
    const set = rowSetFromProto(
      wire<{ rows: object }>({
        rows: {
          rowKeys: [b('k\xff')],
          rowRanges: [{}, { startKeyOpen: b('a'), endKeyClosed: b('b') }, { startKeyClosed: b('c'), endKeyOpen: b('') }],
        },
      }).rows,
    );
    expect(set.keys).toEqual(['k\xff']);
    expect(set.ranges).toEqual([
      { start: { kind: 'unbounded' }, end: { kind: 'unbounded' } },
      { start: { kind: 'open', key: 'a' }, end: { kind: 'closed', key: 'b' } },
      { start: { kind: 'closed', key: 'c' }, end: { kind: 'unbounded' } },
    ]);
    expect(rowSetFromProto(undefined)).toEqual({ keys: [], ranges: [] });
  });
});

describe('row filters', () => {
  const cases: [string, PRowFilter, RowFilter][] = [
    [
      'chain',
      { chain: { filters: [{ passAllFilter: true }, { blockAllFilter: true }] } },
      { kind: 'chain', filters: [{ kind: 'passAll' }, { kind: 'blockAll' }] },
    ],
    ['empty chain', { chain: {} }, { kind: 'chain', filters: [] }],
    ['interleave', { interleave: { filters: [{ sink: true }] } }, { kind: 'interleave', filters: [{ kind: 'sink' }] }],
    [
      'condition',
      { condition: { predicateFilter: { stripValueTransformer: true }, falseFilter: { applyLabelTransformer: 'x' } } },
      { kind: 'condition', predicate: { kind: 'stripValue' }, trueFilter: undefined, falseFilter: { kind: 'applyLabel', label: 'x' } },
    ],
    ['row key regex', { rowKeyRegexFilter: b('a\xff.*') }, { kind: 'rowKeyRegex', pattern: 'a\xff.*' }],
    ['row sample', { rowSampleFilter: 0.25 }, { kind: 'rowSample', probability: 0.25 }],
    ['family regex', { familyNameRegexFilter: 'cf.*' }, { kind: 'familyRegex', pattern: 'cf.*' }],
    ['qualifier regex', { columnQualifierRegexFilter: b('') }, { kind: 'qualifierRegex', pattern: '' }],
    [
      'column range',
      { columnRangeFilter: { familyName: 'f', startQualifierOpen: b('a'), endQualifierClosed: b('z') } },
      { kind: 'columnRange', family: 'f', start: { kind: 'open', value: 'a' }, end: { kind: 'closed', value: 'z' } },
    ],
    [
      'column range unbounded',
      { columnRangeFilter: { familyName: 'f' } },
      { kind: 'columnRange', family: 'f', start: { kind: 'unbounded' }, end: { kind: 'unbounded' } },
    ],
    [
      'timestamp range',
      { timestampRangeFilter: { startTimestampMicros: '1000' } },
      { kind: 'timestampRange', start: 1000, end: undefined },
    ],
    [
      'timestamp range bounded',
      { timestampRangeFilter: { startTimestampMicros: '1000', endTimestampMicros: '3000' } },
      { kind: 'timestampRange', start: 1000, end: 3000 },
    ],
    ['value regex', { valueRegexFilter: b('v') }, { kind: 'valueRegex', pattern: 'v' }],
    [
      'value range',
      { valueRangeFilter: { startValueClosed: b(''), endValueOpen: b('\xff') } },
      { kind: 'valueRange', start: { kind: 'closed', value: '' }, end: { kind: 'open', value: '\xff' } },
    ],
    ['cells per row offset', { cellsPerRowOffsetFilter: 3 }, { kind: 'cellsPerRowOffset', offset: 3 }],
    ['cells per row limit', { cellsPerRowLimitFilter: 0 }, { kind: 'cellsPerRowLimit', limit: 0 }],
    ['cells per column limit', { cellsPerColumnLimitFilter: -2 }, { kind: 'cellsPerColumnLimit', limit: -2 }],
    ['value bitmask', { valueBitmaskFilter: { mask: b('\x0f') } }, { kind: 'valueBitmask', mask: new Uint8Array([15]) }],
  ];
  it.each(cases)('%s', (_name, proto, expected) => {
    expect(filterOf(proto)).toEqual(expected);
  });

  it('reads a filter with no kind as pass-all; rejects false booleans and hostile nesting', () => {
    expect(filterOf({})).toEqual({ kind: 'passAll' });
    expect(filterOf({ chain: { filters: [{}, { blockAllFilter: true }] } })).toEqual({
      kind: 'chain',
      filters: [{ kind: 'passAll' }, { kind: 'blockAll' }],
    });
    expect(code(() => filterOf({ sink: false }))).toBe('InvalidArgument');
    expect(code(() => filterOf({ passAllFilter: false }))).toBe('InvalidArgument');
    let deep: PRowFilter = { passAllFilter: true };
    for (let i = 0; i < 90; i++) deep = { chain: { filters: [deep] } };
    expect(code(() => rowFilterFromProto(deep))).toBe('InvalidArgument');
  });
});

describe('data requests', () => {
  it('reads ReadRows options', () => {
    const cmd = readRowsRequestFromProto(
      wire({ tableName: TABLE, rowsLimit: '10', reversed: true, requestStatsView: 'REQUEST_STATS_FULL' }),
    );
    expect(cmd).toMatchObject({
      table: { project: 'p', instance: 'i', table: 't' },
      limit: 10,
      reversed: true,
      fullStats: true,
      filter: undefined,
    });
    expect(readRowsRequestFromProto(wire({ tableName: TABLE })).limit).toBeUndefined();
    expect(code(() => readRowsRequestFromProto(wire({ tableName: TABLE, rowsLimit: '-1' })))).toBe('InvalidArgument');
    expect(code(() => readRowsRequestFromProto(wire({})))).toBe('InvalidArgument');
    expect(code(() => readRowsRequestFromProto(wire({ tableName: 'projects/p/tables/t' })))).toBe('InvalidArgument');
  });

  it('targets the table of an authorized view, and refuses two names or a malformed view name', () => {
    expect(dataTargetOf('ReadRows', { authorizedViewName: `${TABLE}/authorizedViews/v` })).toEqual({
      table: { project: 'p', instance: 'i', table: 't' },
      view: 'v',
    });
    expect(dataTargetOf('ReadRows', { tableName: TABLE })).toEqual({ table: { project: 'p', instance: 'i', table: 't' }, view: undefined });
    expect(code(() => dataTargetOf('ReadRows', { tableName: TABLE, authorizedViewName: `${TABLE}/authorizedViews/v` }))).toBe(
      'InvalidArgument',
    );
    expect(code(() => dataTargetOf('ReadRows', { authorizedViewName: `${TABLE}/views/v` }))).toBe('InvalidArgument');
    expect(code(() => dataTargetOf('ReadRows', { materializedViewName: 'projects/p/instances/i/materializedViews/m' }))).toBe(
      'Unimplemented',
    );
  });

  it('needs at least one mutation in CheckAndMutateRow and one rule in ReadModifyWriteRow', () => {
    expect(code(() => checkAndMutateRequestFromProto({ tableName: TABLE, rowKey: b('k') }))).toBe('InvalidArgument');
    const cmd = checkAndMutateRequestFromProto({ tableName: TABLE, rowKey: b('k'), falseMutations: [{ deleteFromRow: {} }] });
    expect(cmd).toMatchObject({
      key: 'k',
      predicate: undefined,
      trueMutations: [],
      falseMutations: [{ kind: 'deleteFromRow' }],
      sentTrue: 0,
      sentFalse: 1,
    });
    expect(code(() => readModifyWriteRequestFromProto({ tableName: TABLE, rowKey: b('k'), rules: [] }))).toBe('InvalidArgument');
    expect(code(() => readModifyWriteRequestFromProto({ tableName: TABLE, rowKey: b('k'), rules: [{ familyName: 'f' }] }))).toBe(
      'InvalidArgument',
    );
    expect(
      readModifyWriteRequestFromProto({
        tableName: TABLE,
        rowKey: b('k'),
        rules: [{ familyName: 'f', columnQualifier: b('q'), incrementAmount: '-3' }],
      }).rules,
    ).toEqual([{ kind: 'increment', family: 'f', qualifier: 'q', amount: -3n }]);
  });
});
