import { fromBytes } from '../../model/bytes.js';
import { invalidArgument } from '../../model/errors.js';
import type { ByteBound, RowFilter } from '../../model/filter/index.js';
import { LIMITS } from '../../model/limits.js';
import { int64ToNumber } from './int64.js';
import type { PRowFilter } from './proto-types.js';

/**
 * RowFilter message → model filter AST. Only the shape is checked here
 * (exactly one kind set, fields present); the model's compileFilter validates
 * semantics (regexes, labels, limits, depth, size) before any data is read.
 *
 * Nesting beyond a hard cap (well above the API limit of 20) is rejected here
 * already so that a hostile request cannot exhaust the stack.
 */
export function rowFilterFromProto(f: PRowFilter): RowFilter {
  return convert(f, 1);
}

const HARD_DEPTH_CAP = LIMITS.maxFilterDepth * 4;

const PASS_ALL: RowFilter = Object.freeze({ kind: 'passAll' });

function convert(f: PRowFilter, depth: number): RowFilter {
  if (depth > HARD_DEPTH_CAP) {
    throw invalidArgument(`RowFilter is nested more than ${LIMITS.maxFilterDepth} levels deep`);
  }
  const list = (filters: readonly PRowFilter[] | null | undefined): RowFilter[] => (filters ?? []).map((x) => convert(x, depth + 1));
  const optional = (x: PRowFilter | null | undefined): RowFilter | undefined => (x == null ? undefined : convert(x, depth + 1));
  const kind = kindOf(f);
  // data.proto: "If none are set, this RowFilter returns all cells in the input row."
  if (kind === undefined) return PASS_ALL;
  switch (kind) {
    case 'chain':
      return { kind: 'chain', filters: list(f.chain?.filters) };
    case 'interleave':
      return { kind: 'interleave', filters: list(f.interleave?.filters) };
    case 'condition':
      return {
        kind: 'condition',
        predicate: optional(f.condition?.predicateFilter),
        trueFilter: optional(f.condition?.trueFilter),
        falseFilter: optional(f.condition?.falseFilter),
      };
    case 'sink':
      mustBeTrue(f.sink, 'sink');
      return { kind: 'sink' };
    case 'passAllFilter':
      mustBeTrue(f.passAllFilter, 'pass_all_filter');
      return PASS_ALL;
    case 'blockAllFilter':
      mustBeTrue(f.blockAllFilter, 'block_all_filter');
      return { kind: 'blockAll' };
    case 'rowKeyRegexFilter':
      return { kind: 'rowKeyRegex', pattern: fromBytes(f.rowKeyRegexFilter ?? EMPTY) };
    case 'rowSampleFilter':
      return { kind: 'rowSample', probability: f.rowSampleFilter ?? 0 };
    case 'familyNameRegexFilter':
      return { kind: 'familyRegex', pattern: f.familyNameRegexFilter ?? '' };
    case 'columnQualifierRegexFilter':
      return { kind: 'qualifierRegex', pattern: fromBytes(f.columnQualifierRegexFilter ?? EMPTY) };
    case 'columnRangeFilter': {
      const r = f.columnRangeFilter ?? {};
      return {
        kind: 'columnRange',
        family: r.familyName ?? '',
        start: bound(r.startQualifierClosed, r.startQualifierOpen),
        end: bound(r.endQualifierClosed, r.endQualifierOpen),
      };
    }
    case 'timestampRangeFilter': {
      const r = f.timestampRangeFilter ?? {};
      const start = int64ToNumber(r.startTimestampMicros, 'timestamp_range_filter.start_timestamp_micros');
      const end = int64ToNumber(r.endTimestampMicros, 'timestamp_range_filter.end_timestamp_micros');
      return { kind: 'timestampRange', start, end: end === 0 ? undefined : end };
    }
    case 'valueRegexFilter':
      return { kind: 'valueRegex', pattern: fromBytes(f.valueRegexFilter ?? EMPTY) };
    case 'valueRangeFilter': {
      const r = f.valueRangeFilter ?? {};
      return { kind: 'valueRange', start: bound(r.startValueClosed, r.startValueOpen), end: bound(r.endValueClosed, r.endValueOpen) };
    }
    case 'cellsPerRowOffsetFilter':
      return { kind: 'cellsPerRowOffset', offset: f.cellsPerRowOffsetFilter ?? 0 };
    case 'cellsPerRowLimitFilter':
      return { kind: 'cellsPerRowLimit', limit: f.cellsPerRowLimitFilter ?? 0 };
    case 'cellsPerColumnLimitFilter':
      return { kind: 'cellsPerColumnLimit', limit: f.cellsPerColumnLimitFilter ?? 0 };
    case 'stripValueTransformer':
      mustBeTrue(f.stripValueTransformer, 'strip_value_transformer');
      return { kind: 'stripValue' };
    case 'applyLabelTransformer':
      return { kind: 'applyLabel', label: f.applyLabelTransformer ?? '' };
    case 'valueBitmaskFilter':
      return { kind: 'valueBitmask', mask: new Uint8Array(f.valueBitmaskFilter?.mask ?? EMPTY) };
    default:
      throw invalidArgument(`RowFilter has an unknown filter kind "${kind}"`);
  }
}

const EMPTY = Buffer.alloc(0);

/** The set member of the RowFilter oneof (the loader names it in `filter`). */
function kindOf(f: PRowFilter): string | undefined {
  if (typeof f.filter === 'string') return f.filter;
  // Objects built by hand (tests, other callers) may lack the virtual oneof field.
  for (const key of Object.keys(f)) {
    if ((f as Record<string, unknown>)[key] != null && key !== 'filter') return key;
  }
  return undefined;
}

function mustBeTrue(v: boolean | null | undefined, field: string): void {
  if (v !== true) throw invalidArgument(`RowFilter.${field} must be true when it is set`);
}

function bound(closed: Buffer | null | undefined, open: Buffer | null | undefined): ByteBound {
  if (closed != null) return { kind: 'closed', value: fromBytes(closed) };
  if (open != null) return { kind: 'open', value: fromBytes(open) };
  return { kind: 'unbounded' };
}
