import { createRequire } from 'node:module';
import path from 'node:path';
import fc from 'fast-check';
import protobuf from 'protobufjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { toBytes } from '../bytes.js';
import type { ByteBound, RowFilter } from './ast.js';
import { encodedFilterSize } from './encoded-size.js';
import { anyFilter } from './testing/arbitraries.js';
import { F, closed, open } from './testing/builders.js';

/**
 * encodedFilterSize is computed by hand (the model has no protobuf); here it
 * is checked against protobufjs encoding google.bigtable.v2.RowFilter from the
 * pinned protos, on hand-picked and on random filters.
 */
let RowFilterType: protobuf.Type;

beforeAll(async () => {
  const require = createRequire(import.meta.url);
  const protoRoot = path.dirname(require.resolve('google-proto-files/package.json'));
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : path.join(protoRoot, target));
  await root.load('google/bigtable/v2/data.proto', { keepCase: true });
  RowFilterType = root.lookupType('google.bigtable.v2.RowFilter');
});

function toProto(f: RowFilter): Record<string, unknown> {
  const b = (bound: ByteBound, closedName: string, openName: string): Record<string, unknown> =>
    bound.kind === 'unbounded' ? {} : { [bound.kind === 'closed' ? closedName : openName]: toBytes(bound.value) };
  switch (f.kind) {
    case 'chain':
      return { chain: { filters: f.filters.map(toProto) } };
    case 'interleave':
      return { interleave: { filters: f.filters.map(toProto) } };
    case 'condition': {
      const c: Record<string, unknown> = {};
      if (f.predicate !== undefined) c.predicate_filter = toProto(f.predicate);
      if (f.trueFilter !== undefined) c.true_filter = toProto(f.trueFilter);
      if (f.falseFilter !== undefined) c.false_filter = toProto(f.falseFilter);
      return { condition: c };
    }
    case 'sink':
      return { sink: true };
    case 'passAll':
      return { pass_all_filter: true };
    case 'blockAll':
      return { block_all_filter: true };
    case 'rowKeyRegex':
      return { row_key_regex_filter: toBytes(f.pattern) };
    case 'rowSample':
      return { row_sample_filter: f.probability };
    case 'familyRegex':
      return { family_name_regex_filter: f.pattern };
    case 'qualifierRegex':
      return { column_qualifier_regex_filter: toBytes(f.pattern) };
    case 'columnRange':
      return {
        column_range_filter: {
          family_name: f.family,
          ...b(f.start, 'start_qualifier_closed', 'start_qualifier_open'),
          ...b(f.end, 'end_qualifier_closed', 'end_qualifier_open'),
        },
      };
    case 'timestampRange':
      return { timestamp_range_filter: { start_timestamp_micros: f.start, end_timestamp_micros: f.end ?? 0 } };
    case 'valueRegex':
      return { value_regex_filter: toBytes(f.pattern) };
    case 'valueRange':
      return {
        value_range_filter: { ...b(f.start, 'start_value_closed', 'start_value_open'), ...b(f.end, 'end_value_closed', 'end_value_open') },
      };
    case 'cellsPerRowOffset':
      return { cells_per_row_offset_filter: f.offset };
    case 'cellsPerRowLimit':
      return { cells_per_row_limit_filter: f.limit };
    case 'cellsPerColumnLimit':
      return { cells_per_column_limit_filter: f.limit };
    case 'stripValue':
      return { strip_value_transformer: true };
    case 'applyLabel':
      return { apply_label_transformer: f.label };
    case 'valueBitmask':
      return { value_bitmask_filter: { mask: f.mask } };
  }
}

const protobufSize = (f: RowFilter): number => RowFilterType.encode(RowFilterType.fromObject(toProto(f))).finish().length;

describe('encodedFilterSize', () => {
  it.each([
    ['pass_all', F.pass],
    ['sink', F.sink],
    ['strip', F.strip],
    ['row sample', F.sample(0.5)],
    ['limit 0 (a set oneof is written)', F.rowLimit(0)],
    ['negative limit (10-byte varint)', F.columnLimit(-1)],
    ['large offset', F.rowOffset(2 ** 31 - 1)],
    ['empty regex', F.key('')],
    ['binary regex', F.value('\xff\x00\n')],
    ['UTF-8 family regex', F.family('fämily')],
    ['UTF-8 label', F.label('é')],
    ['column range, empty family, empty bounds', F.columnRange('', closed(''), open(''))],
    ['column range, unbounded', F.columnRange('fam')],
    ['value range', F.valueRange(open('a'), closed('b'))],
    ['timestamp range zero', F.time(0)],
    ['timestamp range large', F.time(2 ** 52, 2 ** 53 - 1)],
    ['negative timestamp', F.time(-1, -1000)],
    ['int64 max end (rounded by JS)', F.time(0, 9223372036854775807)],
    ['bitmask', F.bitmask(1, 2, 3)],
    ['empty bitmask', F.bitmask()],
    ['empty chain', F.chain()],
    ['chain', F.chain(F.pass, F.key('a'.repeat(200)))],
    ['condition without branches', F.condition(undefined)],
    ['condition', F.condition(F.pass, F.block, F.interleave(F.strip, F.sink))],
    ['long payload (3-byte length)', F.column('q'.repeat(20000))],
  ] as const)('%s matches protobuf', (_name, filter) => {
    expect(encodedFilterSize(filter)).toBe(protobufSize(filter));
  });

  it('matches protobuf on random filters', () => {
    fc.assert(
      fc.property(anyFilter, (filter) => {
        expect(encodedFilterSize(filter)).toBe(protobufSize(filter));
      }),
      { numRuns: 500 },
    );
  });
});
