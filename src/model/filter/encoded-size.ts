import type { ByteBound, RowFilter } from './ast.js';

/**
 * The size in bytes of a filter serialized as google.bigtable.v2.RowFilter
 * (proto3), for the 20 KiB limit, computed without protobuf.
 *
 * Field numbers (data.proto):
 *   RowFilter: chain 1, interleave 2, condition 3, row_key_regex_filter 4,
 *     family_name_regex_filter 5, column_qualifier_regex_filter 6,
 *     column_range_filter 7, timestamp_range_filter 8, value_regex_filter 9,
 *     cells_per_row_offset_filter 10, cells_per_row_limit_filter 11,
 *     cells_per_column_limit_filter 12, strip_value_transformer 13,
 *     row_sample_filter 14, value_range_filter 15, sink 16, pass_all_filter 17,
 *     block_all_filter 18, apply_label_transformer 19, value_bitmask_filter 20
 *   Chain / Interleave: filters 1 (repeated)
 *   Condition: predicate_filter 1, true_filter 2, false_filter 3
 *   ColumnRange: family_name 1, start_qualifier_closed 2, start_qualifier_open 3,
 *     end_qualifier_closed 4, end_qualifier_open 5
 *   TimestampRange: start_timestamp_micros 1, end_timestamp_micros 2 (int64)
 *   ValueRange: start_value_closed 1, start_value_open 2, end_value_closed 3, end_value_open 4
 *   ValueBitmask: mask 1
 * Oneof members are written even when they hold a default value; plain proto3
 * scalars (family_name, the timestamps, mask) are omitted when zero or empty.
 * Negative int32/int64 values take 10 bytes (sign-extended varint).
 *
 * REQUIRES: the filter is nested at most a few dozen levels (recursion).
 */
export function encodedFilterSize(filter: RowFilter): number {
  switch (filter.kind) {
    case 'chain':
      return field(1, repeatedFilters(filter.filters));
    case 'interleave':
      return field(2, repeatedFilters(filter.filters));
    case 'condition':
      return field(3, optionalFilter(1, filter.predicate) + optionalFilter(2, filter.trueFilter) + optionalFilter(3, filter.falseFilter));
    case 'rowKeyRegex':
      return field(4, filter.pattern.length);
    case 'familyRegex':
      return field(5, Buffer.byteLength(filter.pattern, 'utf8'));
    case 'qualifierRegex':
      return field(6, filter.pattern.length);
    case 'columnRange': {
      const family = filter.family === '' ? 0 : field(1, Buffer.byteLength(filter.family, 'utf8'));
      return field(7, family + bound(filter.start, 2, 3) + bound(filter.end, 4, 5));
    }
    case 'timestampRange': {
      const start = filter.start === 0 ? 0 : 1 + int64Size(filter.start);
      const end = filter.end === undefined || filter.end === 0 ? 0 : 1 + int64Size(filter.end);
      return field(8, start + end);
    }
    case 'valueRegex':
      return field(9, filter.pattern.length);
    case 'cellsPerRowOffset':
      return 1 + int64Size(filter.offset);
    case 'cellsPerRowLimit':
      return 1 + int64Size(filter.limit);
    case 'cellsPerColumnLimit':
      return 1 + int64Size(filter.limit);
    case 'stripValue':
      return 2;
    case 'rowSample':
      return 1 + 8;
    case 'valueRange':
      return field(15, bound(filter.start, 1, 2) + bound(filter.end, 3, 4));
    case 'sink':
    case 'passAll':
    case 'blockAll':
      return 2 + 1;
    case 'applyLabel':
      return field(19, Buffer.byteLength(filter.label, 'utf8'));
    case 'valueBitmask':
      return field(20, filter.mask.byteLength === 0 ? 0 : field(1, filter.mask.byteLength));
    default: {
      const unknown: never = filter;
      throw new Error(`unhandled filter kind ${(unknown as RowFilter).kind}`);
    }
  }
}

function repeatedFilters(filters: readonly RowFilter[]): number {
  let total = 0;
  for (const f of filters) total += field(1, encodedFilterSize(f));
  return total;
}

function optionalFilter(number: number, filter: RowFilter | undefined): number {
  return filter === undefined ? 0 : field(number, encodedFilterSize(filter));
}

function bound(b: ByteBound, closedField: number, openField: number): number {
  if (b.kind === 'unbounded') return 0;
  return field(b.kind === 'closed' ? closedField : openField, b.value.length);
}

/** A length-delimited field: tag, length varint, payload. */
function field(number: number, payloadBytes: number): number {
  return tagSize(number) + varintSize(payloadBytes) + payloadBytes;
}

function tagSize(number: number): number {
  return varintSize(number * 8);
}

/** Varint size of a non-negative integer (exact up to 2^53). */
function varintSize(value: number): number {
  let size = 1;
  while (value >= 128) {
    value = Math.floor(value / 128);
    size++;
  }
  return size;
}

/**
 * Size of an int32/int64 varint: negative values are sign-extended to 10
 * bytes; int64 max arrives rounded up to 2^63 (a JS number) and takes 9.
 */
function int64Size(value: number): number {
  if (value < 0) return 10;
  return value >= 2 ** 63 ? 9 : varintSize(value);
}
