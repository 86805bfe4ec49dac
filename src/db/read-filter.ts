import { invalidArgument } from '../model/errors.js';
import { type CompiledFilter, type CompileOptions, type RowFilter, compileFilter } from '../model/filter/index.js';

/**
 * Compiles a request's filter, after the checks that depend on the table
 * rather than on the filter language: under millisecond granularity, a
 * timestamp range filter's bounds must be whole milliseconds.
 */
export function compileRequestFilter(filter: RowFilter, options: CompileOptions): CompiledFilter {
  const compiled = compileFilter(filter, options);
  checkGranularity(filter);
  return compiled;
}

function checkGranularity(filter: RowFilter): void {
  switch (filter.kind) {
    case 'chain':
    case 'interleave':
      for (const f of filter.filters) checkGranularity(f);
      return;
    case 'condition':
      for (const f of [filter.predicate, filter.trueFilter, filter.falseFilter]) if (f !== undefined) checkGranularity(f);
      return;
    case 'timestampRange':
      if (filter.start % 1000 !== 0 || (filter.end !== undefined && filter.end % 1000 !== 0)) {
        throw invalidArgument(
          `Error in field 'timestamp_range_filter': timestamps must be multiples of 1000 (millisecond granularity), got start ${filter.start}, end ${filter.end ?? 'unbounded'}`,
        );
      }
      return;
    default:
      return;
  }
}
