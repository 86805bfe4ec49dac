import { printable } from '../bytes.js';
import { invalidArgument } from '../errors.js';
import { FAMILY_NAME_RE, LABEL_RE, LIMITS } from '../limits.js';
import type { ByteBound, RowFilter } from './ast.js';
import { isEmptyByteRange } from './byte-range.js';
import { encodedFilterSize } from './encoded-size.js';

/**
 * Validates a whole filter tree before any data is read, with Cloud
 * Bigtable's rules (data.proto, and the server behaviour documented by the
 * official clients). Regex syntax is checked when the regexes are compiled
 * (compile.ts). Every problem is an InvalidArgument naming the offending
 * field by its proto path, e.g. `chain.filters[1].cells_per_row_limit_filter`.
 *
 * Rules:
 *  - nesting: a filter may sit inside at most 20 enclosing chain, interleave
 *    or condition filters;
 *  - serialized size at most 20,480 bytes;
 *  - chain and interleave need at least two filters (the service rejects
 *    shorter ones; clients unwrap them);
 *  - sink cannot appear anywhere inside a condition (predicate, true or false);
 *  - a chain may have at most one sub-filter that contains an
 *    apply_label_transformer (so a cell never carries two labels); labels
 *    match [a-z0-9-]+ and have at most 15 characters;
 *  - row_sample_filter in the open interval (0, 1);
 *  - family_name_regex_filter must not contain ':';
 *  - column_range_filter needs a valid family name; column, value and
 *    timestamp ranges must not be empty;
 *  - timestamps are non-negative; cells_per_row_offset_filter >= 0;
 *    cells_per_row_limit_filter and cells_per_column_limit_filter >= 1;
 *  - value_bitmask_filter needs a non-empty mask.
 */
export function validateFilter(filter: RowFilter): void {
  checkNesting(filter, 0, '');
  const size = encodedFilterSize(filter);
  if (size > LIMITS.maxFilterBytes) {
    throw invalidArgument(`Row filter is ${size} bytes when serialized; the limit is ${LIMITS.maxFilterBytes} bytes`);
  }
  checkFilter(filter, '', false);
}

/** The proto path of a field, for error messages: `chain.filters[0].` + name. */
export function fieldError(path: string, fieldName: string, problem: string): Error {
  return invalidArgument(`Error in field '${path}${fieldName}' : ${problem}`);
}

function checkNesting(filter: RowFilter, enclosing: number, path: string): void {
  if (enclosing > LIMITS.maxFilterDepth) {
    throw invalidArgument(`Error in field '${path.slice(0, -1)}' : row filters may be nested at most ${LIMITS.maxFilterDepth} levels deep`);
  }
  forEachChild(filter, path, (child, childPath) => checkNesting(child, enclosing + 1, childPath));
}

function forEachChild(filter: RowFilter, path: string, visit: (child: RowFilter, childPath: string) => void): void {
  switch (filter.kind) {
    case 'chain':
    case 'interleave':
      filter.filters.forEach((f, i) => visit(f, `${path}${filter.kind}.filters[${i}].`));
      return;
    case 'condition':
      if (filter.predicate !== undefined) visit(filter.predicate, `${path}condition.predicate_filter.`);
      if (filter.trueFilter !== undefined) visit(filter.trueFilter, `${path}condition.true_filter.`);
      if (filter.falseFilter !== undefined) visit(filter.falseFilter, `${path}condition.false_filter.`);
      return;
    default:
      return;
  }
}

function checkFilter(filter: RowFilter, path: string, inCondition: boolean): void {
  switch (filter.kind) {
    case 'chain':
    case 'interleave': {
      const name = filter.kind === 'chain' ? 'Chain' : 'Interleave';
      if (filter.filters.length < 2) {
        throw fieldError(path, filter.kind, `${name} must contain at least two RowFilters, got ${filter.filters.length}`);
      }
      forEachChild(filter, path, (child, childPath) => checkFilter(child, childPath, inCondition));
      if (filter.kind === 'chain') {
        const labelled = filter.filters.flatMap((f, i) => (containsLabel(f) ? [`filters[${i}]`] : []));
        if (labelled.length > 1) {
          throw fieldError(
            path,
            'chain',
            `a Chain may have at most one sub-filter that applies a label (apply_label_transformer), ` +
              `because a cell cannot carry two labels; found ${labelled.length}: ${labelled.join(', ')}`,
          );
        }
      }
      return;
    }
    case 'condition':
      forEachChild(filter, path, (child, childPath) => checkFilter(child, childPath, true));
      return;
    case 'sink':
      if (inCondition) throw fieldError(path, 'sink', 'sink cannot be nested in a condition filter');
      return;
    case 'passAll':
    case 'blockAll':
    case 'stripValue':
    case 'rowKeyRegex':
    case 'qualifierRegex':
    case 'valueRegex':
      return;
    case 'rowSample':
      if (!(filter.probability > 0 && filter.probability < 1)) {
        throw fieldError(path, 'row_sample_filter', `probability must be greater than 0 and less than 1, got ${filter.probability}`);
      }
      return;
    case 'familyRegex':
      if (filter.pattern.includes(':')) {
        throw fieldError(path, 'family_name_regex_filter', `the regex must not contain ':', got "${filter.pattern}"`);
      }
      return;
    case 'columnRange':
      if (filter.family.length === 0 || filter.family.length > LIMITS.maxFamilyNameLength || !FAMILY_NAME_RE.test(filter.family)) {
        throw fieldError(
          path,
          'column_range_filter.family_name',
          `"${filter.family}" is not a valid column family name ([-_.a-zA-Z0-9]+, 1 to ${LIMITS.maxFamilyNameLength} characters)`,
        );
      }
      if (isEmptyByteRange(filter.start, filter.end)) {
        throw fieldError(path, 'column_range_filter', `the qualifier range ${describeRange(filter.start, filter.end)} is empty`);
      }
      return;
    case 'valueRange':
      if (isEmptyByteRange(filter.start, filter.end)) {
        throw fieldError(path, 'value_range_filter', `the value range ${describeRange(filter.start, filter.end)} is empty`);
      }
      return;
    case 'timestampRange': {
      const { start, end } = filter;
      if (!isTimestamp(start)) {
        throw fieldError(path, 'timestamp_range_filter.start_timestamp_micros', `must be a non-negative integer, got ${start}`);
      }
      if (end !== undefined && !isTimestamp(end)) {
        throw fieldError(path, 'timestamp_range_filter.end_timestamp_micros', `must be a non-negative integer, got ${end}`);
      }
      if (end !== undefined && end !== 0 && end <= start) {
        throw fieldError(
          path,
          'timestamp_range_filter',
          `the range [${start}, ${end}) is empty: start must be less than end (0 means unbounded)`,
        );
      }
      return;
    }
    case 'cellsPerRowOffset':
      checkCount(filter.offset, 0, path, 'cells_per_row_offset_filter');
      return;
    case 'cellsPerRowLimit':
      checkCount(filter.limit, 1, path, 'cells_per_row_limit_filter');
      return;
    case 'cellsPerColumnLimit':
      checkCount(filter.limit, 1, path, 'cells_per_column_limit_filter');
      return;
    case 'applyLabel':
      if (filter.label.length > LIMITS.maxLabelLength || !LABEL_RE.test(filter.label)) {
        throw fieldError(
          path,
          'apply_label_transformer',
          `label "${filter.label}" must match [a-z0-9\\-]+ and be at most ${LIMITS.maxLabelLength} characters`,
        );
      }
      return;
    case 'valueBitmask':
      if (filter.mask.byteLength === 0) throw fieldError(path, 'value_bitmask_filter.mask', 'the mask is required and must not be empty');
      return;
    default: {
      const unknown: never = filter;
      throw invalidArgument(`Unsupported row filter kind: ${(unknown as RowFilter).kind}`);
    }
  }
}

/** True when the filter, or any filter inside it, is an apply_label_transformer. */
function containsLabel(filter: RowFilter): boolean {
  if (filter.kind === 'applyLabel') return true;
  let found = false;
  forEachChild(filter, '', (child) => {
    found ||= containsLabel(child);
  });
  return found;
}

const INT32_MAX = 2 ** 31 - 1;

function checkCount(value: number, min: number, path: string, fieldName: string): void {
  if (!Number.isInteger(value) || value < min || value > INT32_MAX) {
    const expected = min === 0 ? 'a non-negative integer' : 'a positive integer';
    throw fieldError(path, fieldName, `must be ${expected}, got ${value}`);
  }
}

/** Any non-negative int64 (clients may send i64 max for "no end"; such values arrive rounded). */
function isTimestamp(value: number): boolean {
  return Number.isInteger(value) && value >= 0;
}

function describeRange(start: ByteBound, end: ByteBound): string {
  const lo = start.kind === 'unbounded' ? '[""' : `${start.kind === 'closed' ? '[' : '('}"${printable(start.value)}"`;
  const hi = end.kind === 'unbounded' ? '+inf)' : `"${printable(end.value)}"${end.kind === 'closed' ? ']' : ')'}`;
  return `${lo}, ${hi}`;
}
