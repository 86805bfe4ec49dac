import type { AggregateFunction, ScalarFunction } from '../functions/index.js';
import type { LambdaFunction } from '../functions/lambdas.js';
import type { SqlType, SqlValue } from '../types.js';
import { groupKey } from '../values/compare.js';

/**
 * The analyzer's output: typed, resolved expressions (the executor evaluates them, the planner reads key
 * predicates off them). Column references are slots of the row the expression is evaluated on: a scan row
 * (`_key`, then the table's families) before aggregation, the group keys then the aggregates' results after.
 */
export type Bound =
  | { readonly kind: 'const'; readonly type: SqlType; readonly value: SqlValue }
  | { readonly kind: 'param'; readonly type: SqlType; readonly name: string }
  | { readonly kind: 'column'; readonly type: SqlType; readonly index: number }
  | { readonly kind: 'call'; readonly type: SqlType; readonly fn: ScalarFunction; readonly args: readonly Bound[] }
  | { readonly kind: 'cast'; readonly type: SqlType; readonly safe: boolean; readonly arg: Bound }
  /** `SAFE.f(...)`: evaluation errors become NULL. */
  | { readonly kind: 'safe'; readonly type: SqlType; readonly arg: Bound }
  | { readonly kind: 'array'; readonly type: SqlType; readonly elements: readonly Bound[] }
  | { readonly kind: 'struct'; readonly type: SqlType; readonly fields: readonly Bound[] }
  | { readonly kind: 'field'; readonly type: SqlType; readonly arg: Bound; readonly index: number }
  /** A lambda's parameter: the value the enclosing `lambda` call binds at this slot. */
  | { readonly kind: 'lambdaArg'; readonly type: SqlType; readonly slot: number }
  /** `ARRAY_FILTER(a, e -> body)` and the like: `body` is evaluated per element, its parameters from `slot` on. */
  | {
      readonly kind: 'lambda';
      readonly type: SqlType;
      readonly fn: LambdaFunction;
      readonly array: Bound;
      readonly body: Bound;
      readonly slot: number;
    };

/** An aggregate call: evaluated per input row into an accumulator per group. */
export interface BoundAggregate {
  readonly fn: AggregateFunction;
  readonly args: readonly Bound[];
  readonly distinct: boolean;
  readonly type: SqlType;
}

/** A structural key: equal keys mean the same expression (GROUP BY matching, DISTINCT aggregates). */
export function boundKey(b: Bound): string {
  switch (b.kind) {
    case 'const':
      return `k(${groupKey(b.value)}:${b.type.kind})`;
    case 'param':
      return `@${b.name}`;
    case 'column':
      return `#${b.index}`;
    case 'call':
      return `${b.fn.name}(${b.args.map(boundKey).join(',')})`;
    case 'cast':
      return `${b.safe ? 'safe_' : ''}cast(${boundKey(b.arg)}:${JSON.stringify(b.type)})`;
    case 'safe':
      return `safe(${boundKey(b.arg)})`;
    case 'array':
      return `[${b.elements.map(boundKey).join(',')}]`;
    case 'struct':
      return `{${b.fields.map(boundKey).join(',')}}`;
    case 'field':
      return `${boundKey(b.arg)}.${b.index}`;
    case 'lambdaArg':
      return `λ${b.slot}`;
    case 'lambda':
      return `${b.fn.name}(${boundKey(b.array)},λ${b.slot}->${boundKey(b.body)})`;
  }
}

/** Every column slot an expression reads. */
export function columnsOf(b: Bound, into: Set<number>): Set<number> {
  switch (b.kind) {
    case 'column':
      into.add(b.index);
      break;
    case 'call':
      b.args.forEach((a) => columnsOf(a, into));
      break;
    case 'cast':
    case 'safe':
    case 'field':
      columnsOf(b.arg, into);
      break;
    case 'array':
      b.elements.forEach((a) => columnsOf(a, into));
      break;
    case 'struct':
      b.fields.forEach((a) => columnsOf(a, into));
      break;
    case 'lambda':
      columnsOf(b.array, into);
      columnsOf(b.body, into);
      break;
    default:
      break;
  }
  return into;
}
