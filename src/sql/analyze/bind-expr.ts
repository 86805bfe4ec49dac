import { type AggregateFunction, COUNT_STAR, SCALAR_FUNCTIONS, aggregateFunction } from '../functions/index.js';
import { approxQuantiles, withModifiers } from '../functions/aggregates-more.js';
import { DATE_PART_RULES, datePartAllowed } from '../functions/temporal.js';
import { NORMALIZATION_MODES } from '../functions/code-points.js';
import { isEquatable, isOrderable } from '../functions/operators.js';
import type { ScalarFunction } from '../functions/registry.js';
import { LAMBDA_FUNCTIONS } from '../functions/lambdas.js';
import { toJsonString } from '../functions/json.js';
import type { CallExpr, DatePart, Expr, Pos } from '../syntax/ast.js';
import { BOOL, INT64, JSON_TYPE, STRING, SqlJson, type SqlType, type SqlValue, sameType, typeText } from '../types.js';
import { canCast, castValue } from '../values/cast.js';
import { type Operand, supertype } from '../values/coerce.js';
import { isEvalError, queryError } from '../values/errors.js';
import { parseDate, parseTimestamp } from '../values/time.js';
import { type Bound, type BoundAggregate, boundKey } from '../bound/bound.js';
import { typeOfSyntax } from './type-syntax.js';

/**
 * Binds expressions of the syntax tree to typed Bound expressions: resolves names against the scope's columns,
 * parameters against their declared types, functions against the library (coercing arguments), and, in an
 * aggregating query, expressions to group keys and aggregate results.
 */

export interface ScopeColumn {
  readonly name: string;
  readonly type: SqlType;
}

export interface AggregateState {
  /** Group expressions (bound on the scan row) by their boundKey → slot. */
  readonly groupKeys: ReadonlyMap<string, { readonly index: number; readonly type: SqlType }>;
  readonly groupCount: number;
  readonly aggregates: BoundAggregate[];
  readonly aggregateKeys: Map<string, number>;
}

export interface Scope {
  readonly columns: readonly ScopeColumn[];
  /** Names that may qualify a column (`t._key`): the table's name and alias. */
  readonly qualifiers: readonly string[];
  readonly params: ReadonlyMap<string, SqlType>;
  /** Set when binding after GROUP BY (select list, HAVING, ORDER BY of an aggregating query). */
  readonly agg?: AggregateState;
  /** Where aggregates may not appear: the clause's name for the error (WHERE, GROUP BY). */
  readonly noAggregates?: string;
  /** The parameters of the enclosing lambdas (they hide columns of the same name). */
  readonly lambdas?: readonly { readonly name: string; readonly type: SqlType; readonly slot: number }[];
}

/** Operands for coercion: literals and parameters coerce more freely; the NULL literal to anything. */
const UNTYPED_NULL = new WeakSet<Bound>();
const LITERALS = new WeakSet<Bound>();

export function operand(b: Bound): Operand {
  return { type: b.type, literal: LITERALS.has(b) || b.kind === 'param', nullLiteral: UNTYPED_NULL.has(b) };
}

function literal(type: SqlType, value: SqlValue): Bound {
  const b: Bound = { kind: 'const', type, value };
  LITERALS.add(b);
  return b;
}

/** `b` as type `to`: literals fold now (a bad literal is an analysis error), anything else gets a cast. */
export function coerceTo(b: Bound, to: SqlType, pos: Pos): Bound {
  if (sameType(b.type, to)) return b;
  if (b.kind === 'const') {
    try {
      return literal(to, castValue(b.value, b.type, to));
    } catch (e) {
      if (isEvalError(e)) throw queryError(pos, `Could not cast literal to type ${typeText(to)}: ${(e as Error).message}`);
      throw e;
    }
  }
  return { kind: 'cast', type: to, safe: false, arg: b };
}

const BINARY_FUNCTIONS: Readonly<Record<string, string>> = {
  '+': '$add',
  '-': '$subtract',
  '*': '$multiply',
  '/': '$divide',
  '||': '$concat',
  '=': '$equal',
  '!=': '$not_equal',
  '<': '$less',
  '<=': '$less_or_equal',
  '>': '$greater',
  '>=': '$greater_or_equal',
  AND: '$and',
  OR: '$or',
  '&': '$bitwise_and',
  '|': '$bitwise_or',
  '^': '$bitwise_xor',
  '<<': '$bitwise_left_shift',
  '>>': '$bitwise_right_shift',
};

const OPERATOR_TEXT: Readonly<Record<string, string>> = {
  $add: 'operator +',
  $subtract: 'operator -',
  $multiply: 'operator *',
  $divide: 'operator /',
  $concat: 'operator ||',
  $equal: 'operator =',
  $not_equal: 'operator !=',
  $less: 'operator <',
  $less_or_equal: 'operator <=',
  $greater: 'operator >',
  $greater_or_equal: 'operator >=',
  $and: 'operator AND',
  $bitwise_and: 'operator &',
  $bitwise_or: 'operator |',
  $bitwise_xor: 'operator ^',
  $bitwise_left_shift: 'operator <<',
  $bitwise_right_shift: 'operator >>',
  $bitwise_not: 'operator ~',
  $or: 'operator OR',
  $not: 'operator NOT',
  $negate: 'operator -',
  $in: 'operator IN',
  $between: 'operator BETWEEN',
  $like: 'operator LIKE',
  $map_get: 'subscript []',
  $offset: 'OFFSET',
  $extract: 'EXTRACT',
};

/** Calls a registry function on bound arguments, coercing them, or fails naming the function and the types. */
export function callFunction(fn: ScalarFunction, args: readonly Bound[], pos: Pos, shownName?: string): Bound {
  const r = fn.resolve(args.map(operand));
  if (r === undefined) {
    const name = shownName ?? OPERATOR_TEXT[fn.name] ?? fn.name;
    const types = args.map((a) => (UNTYPED_NULL.has(a) ? 'NULL' : typeText(a.type))).join(', ');
    const supported = fn.name.startsWith('$') ? '' : `. Supported signature: ${fn.signatureText}`;
    throw queryError(pos, `No matching signature for ${name} for argument types: ${types}${supported}`);
  }
  const fnName = fn.name;
  if (['$equal', '$not_equal', '$in'].includes(fnName) && r.args[0] !== undefined && !isEquatable(r.args[0])) {
    throw queryError(pos, `Equality is not defined for arguments of type ${typeText(r.args[0])}`);
  }
  if (
    ['$less', '$less_or_equal', '$greater', '$greater_or_equal', '$between'].includes(fnName) &&
    r.args[0] !== undefined &&
    !isOrderable(r.args[0])
  ) {
    throw queryError(pos, `Ordering is not defined for arguments of type ${typeText(r.args[0])}`);
  }
  const coerced = args.map((a, i) => coerceTo(a, r.args[i]!, pos));
  return { kind: 'call', type: r.result, fn, args: coerced };
}

function fn(name: string): ScalarFunction {
  const f = SCALAR_FUNCTIONS.get(name);
  if (f === undefined) throw new Error(`missing function ${name}`);
  return f;
}

function not(b: Bound, pos: Pos): Bound {
  return callFunction(fn('$not'), [b], pos);
}

export function containsAggregate(e: Expr): boolean {
  if (e.kind === 'call' && (e.star || aggregateFunction(e.name.map((p) => p.name).join('.')) !== undefined)) return true;
  return childrenOf(e).some(containsAggregate);
}

function childrenOf(e: Expr): Expr[] {
  switch (e.kind) {
    case 'array':
      return [...e.elements];
    case 'struct':
      return e.fields.map((f) => f.expr);
    case 'field':
      return [e.expr];
    case 'subscript':
      return [e.expr, e.index];
    case 'unary':
      return [e.operand];
    case 'binary':
      return [e.left, e.right];
    case 'is':
      return [e.expr];
    case 'in':
      return [e.expr, ...(e.target.kind === 'list' ? e.target.items : e.target.kind === 'unnest' ? [e.target.array] : [])];
    case 'between':
      return [e.expr, e.low, e.high];
    case 'like':
      return [e.expr, e.pattern];
    case 'case':
      return [
        ...(e.operand === null ? [] : [e.operand]),
        ...e.whens.flatMap((w) => [w.when, w.then]),
        ...(e.else === null ? [] : [e.else]),
      ];
    case 'cast':
      return [e.expr];
    case 'call':
      return [...e.args, ...e.namedArgs.map((a) => a.value)];
    case 'extract':
      return [e.expr];
    case 'interval':
      return [e.value];
    case 'lambda':
      return [e.body];
    default:
      return [];
  }
}

/** Binds an expression in a scope. */
export function bindExpr(e: Expr, scope: Scope): Bound {
  if (scope.agg !== undefined && !containsAggregate(e)) {
    const rowScope: Scope = { ...scope, agg: undefined, noAggregates: 'GROUP BY' };
    let asRow: Bound | undefined;
    try {
      asRow = bindExpr(e, rowScope);
    } catch (err) {
      if (e.kind === 'ident' || e.kind === 'field') throw err;
    }
    if (asRow !== undefined) {
      const g = scope.agg.groupKeys.get(boundKey(asRow));
      if (g !== undefined) return { kind: 'column', type: g.type, index: g.index };
      if (asRow.kind === 'const' || asRow.kind === 'param' || asRow.kind === 'lambdaArg' || isParamOnly(asRow)) return asRow;
      if (e.kind === 'ident' || (e.kind === 'field' && asRow.kind === 'column')) {
        throw queryError(e.pos, `SELECT list expression references column ${exprText(e)} which is neither grouped nor aggregated`);
      }
    }
  }
  return bindNode(e, scope);
}

function isParamOnly(b: Bound): boolean {
  return (
    b.kind === 'const' ||
    b.kind === 'param' ||
    (b.kind === 'call' && b.args.every(isParamOnly)) ||
    (b.kind === 'cast' && isParamOnly(b.arg))
  );
}

function exprText(e: Expr): string {
  if (e.kind === 'ident') return e.ident.name;
  if (e.kind === 'field') return `${exprText(e.expr)}.${e.field.name}`;
  return 'expression';
}

function bindNode(e: Expr, scope: Scope): Bound {
  switch (e.kind) {
    case 'int':
      return literal(INT64, e.value);
    case 'float':
      return literal({ kind: 'FLOAT64' }, e.value);
    case 'string':
      return literal(STRING, e.value);
    case 'bytes':
      return literal({ kind: 'BYTES' }, e.value);
    case 'bool':
      return literal(BOOL, e.value);
    case 'null': {
      const b = literal(INT64, null);
      UNTYPED_NULL.add(b);
      return b;
    }
    case 'typedLiteral':
      return typedLiteral(e.type, e.text, e.pos);
    case 'param': {
      const t = scope.params.get(e.name) ?? [...scope.params].find(([k]) => k.toLowerCase() === e.name.toLowerCase())?.[1];
      if (t === undefined) throw queryError(e.pos, `Query parameter '${e.name}' not found`);
      return { kind: 'param', type: t, name: [...scope.params.keys()].find((k) => k.toLowerCase() === e.name.toLowerCase()) ?? e.name };
    }
    case 'ident':
      return column(e.ident.name, scope, e.pos);
    case 'field': {
      if (e.expr.kind === 'ident' && scope.qualifiers.includes(e.expr.ident.name) && findColumn(e.expr.ident.name, scope) === undefined) {
        return column(e.field.name, scope, e.field.pos);
      }
      const base = bindExpr(e.expr, scope);
      if (base.type.kind !== 'STRUCT')
        throw queryError(e.field.pos, `Cannot access field ${e.field.name} on a value with type ${typeText(base.type)}`);
      const lower = e.field.name.toLowerCase();
      const index = base.type.fields.findIndex((f) => f.name.toLowerCase() === lower);
      if (index < 0) throw queryError(e.field.pos, `Field name ${e.field.name} does not exist in ${typeText(base.type)}`);
      return { kind: 'field', type: base.type.fields[index]!.type, arg: base, index };
    }
    case 'subscript': {
      const base = bindExpr(e.expr, scope);
      const index = bindExpr(e.index, scope);
      if (base.type.kind === 'MAP') {
        if (e.mode === 'KEY') return callFunction(fn('$map_key'), [base, index], e.opPos, 'KEY');
        if (e.mode !== 'index' && e.mode !== 'SAFE_KEY')
          throw queryError(e.opPos, `${e.mode} is not allowed on a MAP; use m[key] or m[KEY(key)]`);
        return callFunction(fn('$map_get'), [base, index], e.opPos);
      }
      if (base.type.kind === 'ARRAY') {
        if (e.mode === 'KEY' || e.mode === 'SAFE_KEY') throw queryError(e.opPos, `${e.mode} is allowed only on a MAP; use a[OFFSET(i)]`);
        const name = e.mode === 'index' ? '$offset' : `$${e.mode.toLowerCase()}`;
        return callFunction(fn(name), [base, index], e.opPos, e.mode === 'index' ? 'array subscript' : e.mode);
      }
      throw queryError(e.opPos, `Subscript access is not supported on values of type ${typeText(base.type)}`);
    }
    case 'unary': {
      const arg = bindExpr(e.operand, scope);
      if (e.op === 'NOT') return callFunction(fn('$not'), [arg], e.pos);
      if (e.op === '-') {
        if (arg.kind === 'const' && typeof arg.value === 'number') return literal(arg.type, -arg.value);
        return callFunction(fn('$negate'), [arg], e.pos);
      }
      if (e.op === '+') {
        if (!['INT64', 'FLOAT64', 'FLOAT32'].includes(arg.type.kind))
          throw queryError(e.pos, `No matching signature for operator + for argument type ${typeText(arg.type)}`);
        return arg;
      }
      return callFunction(fn('$bitwise_not'), [arg], e.pos);
    }
    case 'binary': {
      const name = BINARY_FUNCTIONS[e.op];
      if (name === undefined) throw queryError(e.opPos, `Operator ${e.op} is not supported yet`);
      const left = bindExpr(e.left, scope);
      const right = bindExpr(e.right, scope);
      return callFunction(fn(name), [left, right], e.opPos);
    }
    case 'is': {
      const arg = bindExpr(e.expr, scope);
      const b = callFunction(
        fn(e.test === 'NULL' ? '$is_null' : e.test === 'TRUE' ? '$is_true' : '$is_false'),
        [arg],
        e.opPos,
        `IS ${e.test}`,
      );
      return e.not ? not(b, e.opPos) : b;
    }
    case 'in': {
      const x = bindExpr(e.expr, scope);
      let b: Bound;
      if (e.target.kind === 'list') b = callFunction(fn('$in'), [x, ...e.target.items.map((i) => bindExpr(i, scope))], e.opPos);
      else if (e.target.kind === 'unnest') b = callFunction(fn('$in_unnest'), [x, bindExpr(e.target.array, scope)], e.opPos, 'IN UNNEST');
      else throw queryError(e.opPos, 'Subqueries are not supported in GoogleSQL for Bigtable');
      return e.not ? not(b, e.opPos) : b;
    }
    case 'between': {
      const b = callFunction(fn('$between'), [bindExpr(e.expr, scope), bindExpr(e.low, scope), bindExpr(e.high, scope)], e.opPos);
      return e.not ? not(b, e.opPos) : b;
    }
    case 'like': {
      const b = callFunction(fn('$like'), [bindExpr(e.expr, scope), bindExpr(e.pattern, scope)], e.opPos);
      return e.not ? not(b, e.opPos) : b;
    }
    case 'case':
      return bindCase(e, scope);
    case 'cast': {
      if (e.format !== null)
        throw queryError(
          e.format.pos,
          'CAST ... FORMAT is not supported in GoogleSQL for Bigtable (use FORMAT_DATE, FORMAT_TIMESTAMP, PARSE_DATE or PARSE_TIMESTAMP)',
        );
      const arg = bindExpr(e.expr, scope);
      const to = typeOfSyntax(e.type);
      if (UNTYPED_NULL.has(arg)) return literal(to, null);
      if (!canCast(arg.type, to)) throw queryError(e.pos, `Invalid cast from ${typeText(arg.type)} to ${typeText(to)}`);
      if (sameType(arg.type, to)) return arg;
      if (arg.kind === 'const' && !e.safe) return coerceTo(arg, to, e.pos);
      return { kind: 'cast', type: to, safe: e.safe, arg };
    }
    case 'call':
      return bindCall(e, scope);
    case 'extract':
      return bindExtract(e, scope);
    case 'array': {
      const elements = e.elements.map((x) => bindExpr(x, scope));
      let element: SqlType | undefined = e.elementType === null ? undefined : typeOfSyntax(e.elementType);
      if (element === undefined) {
        element = supertype(elements.map(operand));
        if (element === undefined)
          throw queryError(
            e.pos,
            `Array elements of types {${elements.map((x) => typeText(x.type)).join(', ')}} do not have a common supertype`,
          );
      }
      const el = element;
      const type: SqlType = { kind: 'ARRAY', element: el };
      const coerced = elements.map((x, i) => coerceTo(x, el, e.elements[i]!.pos));
      if (coerced.every((c) => c.kind === 'const'))
        return literal(
          type,
          coerced.map((c) => (c as { value: SqlValue }).value),
        );
      return { kind: 'array', type, elements: coerced };
    }
    case 'struct': {
      const fields = e.fields.map((f) => bindExpr(f.expr, scope));
      const declared = e.type === null ? undefined : (typeOfSyntax(e.type) as Extract<SqlType, { kind: 'STRUCT' }>);
      if (declared !== undefined && declared.fields.length !== fields.length)
        throw queryError(e.pos, 'STRUCT type and value have different numbers of fields');
      const types = fields.map((f, i) => ({
        name: declared?.fields[i]!.name ?? e.fields[i]!.alias?.name ?? implicitName(e.fields[i]!.expr),
        type: declared?.fields[i]!.type ?? f.type,
      }));
      return {
        kind: 'struct',
        type: { kind: 'STRUCT', fields: types },
        fields: fields.map((f, i) => coerceTo(f, types[i]!.type, e.fields[i]!.expr.pos)),
      };
    }
    case 'interval':
      throw queryError(e.pos, 'INTERVAL is allowed only as an argument of TIMESTAMP_ADD, TIMESTAMP_SUB, DATE_ADD and DATE_SUB');
    case 'subquery':
      throw queryError(e.pos, 'Subqueries are not supported in GoogleSQL for Bigtable');
    case 'lambda':
      throw queryError(
        e.pos,
        'A lambda is allowed only as an argument of ARRAY_FILTER, ARRAY_TRANSFORM, ARRAY_INCLUDES, ARRAY_OFFSET or ARRAY_OFFSETS',
      );
  }
}

/** The name an unaliased expression gives a column or struct field: a column's or field's own name, else none. */
export function implicitName(e: Expr): string {
  if (e.kind === 'ident') return e.ident.name;
  if (e.kind === 'field') return e.field.name;
  return '';
}

function typedLiteral(type: string, text: string, pos: Pos): Bound {
  try {
    switch (type) {
      case 'DATE':
        return literal({ kind: 'DATE' }, parseDate(text));
      case 'TIMESTAMP':
        return literal({ kind: 'TIMESTAMP' }, parseTimestamp(text));
      case 'JSON':
        return literal(JSON_TYPE, new SqlJson(JSON.stringify(JSON.parse(text))));
      default:
        throw queryError(pos, `${type} literals are not supported in GoogleSQL for Bigtable`);
    }
  } catch (e) {
    if (isEvalError(e) || e instanceof SyntaxError) throw queryError(pos, `Invalid ${type} literal: '${text}'`);
    throw e;
  }
}

function findColumn(name: string, scope: Scope): number | undefined {
  const exact = scope.columns.findIndex((c) => c.name === name);
  if (exact >= 0) return exact;
  const lower = name.toLowerCase();
  const matches = scope.columns.flatMap((c, i) => (c.name.toLowerCase() === lower ? [i] : []));
  return matches.length === 1 ? matches[0] : undefined;
}

function column(name: string, scope: Scope, pos: Pos): Bound {
  const lower = name.toLowerCase();
  const arg = scope.lambdas?.findLast((l) => l.name.toLowerCase() === lower);
  if (arg !== undefined) return { kind: 'lambdaArg', type: arg.type, slot: arg.slot };
  const index = findColumn(name, scope);
  if (index === undefined) throw queryError(pos, `Unrecognized name: ${name}`);
  return { kind: 'column', type: scope.columns[index]!.type, index };
}

function bindCase(e: Extract<Expr, { kind: 'case' }>, scope: Scope): Bound {
  const results = [...e.whens.map((w) => bindExpr(w.then, scope)), ...(e.else === null ? [] : [bindExpr(e.else, scope)])];
  const elseBound =
    e.else === null
      ? (() => {
          const b = literal(INT64, null);
          UNTYPED_NULL.add(b);
          return b;
        })()
      : results.pop()!;
  const all = [...results, elseBound];
  const t = supertype(all.map(operand));
  if (t === undefined)
    throw queryError(e.pos, `CASE results of types {${all.map((r) => typeText(r.type)).join(', ')}} have no common supertype`);
  const thens = results.map((r, i) => coerceTo(r, t, e.whens[i]!.then.pos));
  const els = coerceTo(elseBound, t, e.else?.pos ?? e.pos);
  if (e.operand === null) {
    const conds = e.whens.map((w) => coerceTo(bindExpr(w.when, scope), BOOL, w.when.pos));
    conds.forEach((c, i) => {
      if (c.type.kind !== 'BOOL') throw queryError(e.whens[i]!.when.pos, `CASE WHEN needs a BOOL, got ${typeText(c.type)}`);
    });
    return { kind: 'call', type: t, fn: fn('$case_when'), args: [...conds.flatMap((c, i) => [c, thens[i]!]), els] };
  }
  const x = bindExpr(e.operand, scope);
  const whens = e.whens.map((w) => bindExpr(w.when, scope));
  const kt = supertype([x, ...whens].map(operand));
  if (kt === undefined) throw queryError(e.pos, 'CASE value and WHEN values have no common supertype');
  return {
    kind: 'call',
    type: t,
    fn: fn('$case_value'),
    args: [coerceTo(x, kt, e.operand.pos), ...whens.flatMap((w, i) => [coerceTo(w, kt, e.whens[i]!.when.pos), thens[i]!]), els],
  };
}

/** Where a date part is written as a name (`DATE_TRUNC(d, WEEK(MONDAY))`): the argument's index. */
const DATE_PART_ARG: Readonly<Record<string, number>> = {
  DATE_TRUNC: 1,
  TIMESTAMP_TRUNC: 1,
  LAST_DAY: 1,
  DATE_DIFF: 2,
  TIMESTAMP_DIFF: 2,
};
/** Where `INTERVAL n part` is an argument: it becomes two, `n, 'PART'`. */
const INTERVAL_ARG: Readonly<Record<string, number>> = {
  TIMESTAMP_ADD: 1,
  TIMESTAMP_SUB: 1,
  DATE_ADD: 1,
  DATE_SUB: 1,
  GENERATE_DATE_ARRAY: 2,
  GENERATE_TIMESTAMP_ARRAY: 2,
};

/** The text of a date part (`WEEK(MONDAY)`), checked against the parts the function takes. */
function datePartText(part: DatePart, rulesKey: string, shown: string): string {
  const text = part.weekday === null ? part.name : `${part.name}(${part.weekday})`;
  if (!datePartAllowed(text, DATE_PART_RULES[rulesKey] ?? []))
    throw queryError(part.pos, `${shown} does not support the ${text} date part`);
  return text;
}

/** A date part written as an argument: a name, or `WEEK(<weekday>)` (parsed as a call); else undefined. */
function datePartOfArg(a: Expr): DatePart | undefined {
  if (a.kind === 'ident') return { pos: a.pos, name: a.ident.name.toUpperCase(), weekday: null };
  if (a.kind === 'call' && a.name.length === 1 && a.args.length === 1 && a.args[0]!.kind === 'ident')
    return { pos: a.pos, name: a.name[0]!.name.toUpperCase(), weekday: a.args[0].ident.name.toUpperCase() };
  return undefined;
}

function bindExtract(e: Extract<Expr, { kind: 'extract' }>, scope: Scope): Bound {
  const arg = bindExpr(e.expr, scope);
  const zone = e.timeZone === null ? [] : [bindExpr(e.timeZone, scope)];
  const isDate = arg.type.kind === 'DATE';
  if (isDate && zone.length > 0) throw queryError(e.timeZone!.pos, 'EXTRACT from a DATE does not take AT TIME ZONE');
  const part = datePartText(e.part, isDate ? 'EXTRACT_DATE' : 'EXTRACT_TIMESTAMP', 'EXTRACT');
  if (part === 'DATE') return callFunction(fn('DATE'), [arg, ...zone], e.pos, 'EXTRACT');
  return callFunction(fn('$extract'), [literal(STRING, part), arg, ...zone], e.pos, 'EXTRACT');
}

function bindCall(e: CallExpr, scope: Scope): Bound {
  const parts = e.name.map((p) => p.name.toUpperCase());
  const safe = parts.length === 2 && parts[0] === 'SAFE';
  const name = safe ? parts[1]! : parts.join('.');
  if (e.namedArgs.length > 0) throw queryError(e.namedArgs[0]!.pos, `Named arguments are not supported by ${name}`);
  const agg = e.star ? COUNT_STAR : safe ? undefined : aggregateFunction(name);
  if (agg !== undefined) {
    if (scope.agg === undefined) {
      throw queryError(e.pos, `Aggregate function ${name} not allowed in ${scope.noAggregates ?? 'this context'}`);
    }
    const rowScope: Scope = { ...scope, agg: undefined, noAggregates: `the argument of ${name}` };
    const args = e.args.map((a) => bindExpr(a, rowScope));
    const r = agg.resolve(args.map(operand));
    if (r === undefined) {
      throw queryError(
        e.pos,
        `No matching signature for aggregate function ${name} for argument types: ${args.map((a) => typeText(a.type)).join(', ')}. Supported signature: ${agg.signatureText}`,
      );
    }
    if (e.distinct && args[0] !== undefined && !isEquatable(args[0].type))
      throw queryError(e.pos, `${name}(DISTINCT) needs a groupable argument, not ${typeText(args[0].type)}`);
    const coerced = args.map((a, i) => coerceTo(a, r.args[i]!, e.args[i]!.pos));
    const modified = aggregateModifiers(e, name, agg, coerced, rowScope);
    const key = `${agg.name}${e.distinct ? ' distinct' : ''}${modified.key}(${modified.args.map(boundKey).join(',')})`;
    let slot = scope.agg.aggregateKeys.get(key);
    if (slot === undefined) {
      slot = scope.agg.aggregates.length;
      scope.agg.aggregates.push({ fn: modified.fn, args: modified.args, distinct: e.distinct, type: r.result });
      scope.agg.aggregateKeys.set(key, slot);
    }
    return { kind: 'column', type: r.result, index: scope.agg.groupCount + slot };
  }
  if (e.distinct || e.star) throw queryError(e.pos, `${name} is not an aggregate function`);
  const lambda = e.args.find((a) => a.kind === 'lambda');
  if (lambda !== undefined) {
    const call = bindLambdaCall(e, name, lambda, scope);
    return safe ? { kind: 'safe', type: call.type, arg: call } : call;
  }
  const f = SCALAR_FUNCTIONS.get(name);
  if (f === undefined || name.startsWith('$'))
    throw queryError(e.name[0]!.pos, `Function not found: ${e.name.map((p) => p.name).join('.')}`);
  const args = bindArgs(e, name, scope);
  if (name === 'TO_JSON_STRING' && args[0] !== undefined && f.resolve(args.map(operand)) !== undefined) {
    const call = callFunction(toJsonString(args[0].type), args, e.pos, name);
    return safe ? { kind: 'safe', type: call.type, arg: call } : call;
  }
  const call = callFunction(f, args, e.pos, name);
  return safe ? { kind: 'safe', type: call.type, arg: call } : call;
}

/** Arguments that are modes written as names: NORMALIZE(s, NFKC), ARRAY_OFFSET(a, x, LAST). */
const NAME_MODES: Readonly<Record<string, { readonly index: number; readonly names: readonly string[] }>> = {
  NORMALIZE: { index: 1, names: NORMALIZATION_MODES },
  NORMALIZE_AND_CASEFOLD: { index: 1, names: NORMALIZATION_MODES },
  ARRAY_OFFSET: { index: 2, names: ['FIRST', 'LAST'] },
};

/** A call's arguments, with date parts as names and `INTERVAL n part` as `n, 'PART'`. */
function bindArgs(e: CallExpr, name: string, scope: Scope): Bound[] {
  const partAt = DATE_PART_ARG[name];
  const intervalAt = INTERVAL_ARG[name];
  const out: Bound[] = [];
  e.args.forEach((a, i) => {
    if (i === intervalAt && a.kind === 'interval') {
      if (a.toPart !== null) throw queryError(a.pos, 'INTERVAL ... TO ... is not supported');
      out.push(bindExpr(a.value, scope), literal(STRING, datePartText(a.part, name, name)));
      return;
    }
    const modes = NAME_MODES[name];
    if (modes !== undefined && i === modes.index && a.kind === 'ident') {
      const mode = a.ident.name.toUpperCase();
      if (!modes.names.includes(mode)) throw queryError(a.pos, `${name} does not support the mode ${a.ident.name}`);
      out.push(literal(STRING, mode));
      return;
    }
    const part = i === partAt ? datePartOfArg(a) : undefined;
    if (part !== undefined) {
      out.push(literal(STRING, datePartText(part, name, name)));
      return;
    }
    out.push(bindExpr(a, scope));
  });
  return out;
}

/** `F(array, lambda)`: the body bound with the lambda's parameters (the element, and its INT64 offset). */
function bindLambdaCall(e: CallExpr, name: string, lambda: Extract<Expr, { kind: 'lambda' }>, scope: Scope): Bound {
  const fnl = LAMBDA_FUNCTIONS.get(name);
  if (fnl === undefined) throw queryError(lambda.pos, `${name} does not take a lambda argument`);
  if (e.args.length !== 2 || e.args[1] !== lambda)
    throw queryError(e.pos, `${name} with a lambda takes two arguments: an array and the lambda`);
  const array = bindExpr(e.args[0]!, scope);
  if (array.type.kind !== 'ARRAY') {
    throw queryError(e.args[0]!.pos, `No matching signature for ${name} for argument types: ${typeText(array.type)}, LAMBDA`);
  }
  if (lambda.params.length > 2) throw queryError(lambda.pos, `The lambda of ${name} takes one or two parameters (the element, its offset)`);
  const slot = scope.lambdas?.reduce((m, l) => Math.max(m, l.slot + 1), 0) ?? 0;
  const element = array.type.element;
  const params = lambda.params.map((p, i) => ({ name: p.name, type: i === 0 ? element : INT64, slot: slot + i }));
  const inner: Scope = { ...scope, lambdas: [...(scope.lambdas ?? []), ...params] };
  let body = bindExpr(lambda.body, inner);
  const want = fnl.bodyType(element);
  if (want !== undefined) {
    if (UNTYPED_NULL.has(body)) body = literal(want, null);
    else if (!sameType(body.type, want))
      throw queryError(lambda.body.pos, `The lambda of ${name} must return ${typeText(want)}, not ${typeText(body.type)}`);
  }
  const type = fnl.result(element, body.type);
  if (type.kind === 'ARRAY' && type.element.kind === 'ARRAY')
    throw queryError(lambda.body.pos, `${name} would make an array of arrays (${typeText(type)}), which GoogleSQL does not support`);
  return { kind: 'lambda', type, fn: fnl, array, body, slot };
}

/** The argument that is a count (of quantiles, of top values): a positive literal or a parameter. */
const APPROX_COUNT_ARG: Readonly<Record<string, number>> = { APPROX_QUANTILES: 1, APPROX_TOP_COUNT: 1, APPROX_TOP_SUM: 2 };
const ORDERED_AGGREGATES = new Set(['ARRAY_AGG', 'STRING_AGG', 'ARRAY_CONCAT_AGG']);
const NULLS_AGGREGATES = new Set(['ARRAY_AGG', 'APPROX_QUANTILES']);

/**
 * IGNORE/RESPECT NULLS, ORDER BY and LIMIT inside an aggregate call (`ARRAY_AGG(x IGNORE NULLS ORDER BY y DESC
 * LIMIT 3)`): the aggregate wrapped by withModifiers, its arguments followed by the sort keys.
 */
function aggregateModifiers(
  e: CallExpr,
  name: string,
  agg: AggregateFunction,
  args: readonly Bound[],
  rowScope: Scope,
): { fn: AggregateFunction; args: readonly Bound[]; key: string } {
  if (e.nulls !== null && !NULLS_AGGREGATES.has(name)) throw queryError(e.pos, `${name} does not support ${e.nulls} NULLS`);
  if ((e.orderBy.length > 0 || e.limit !== null) && !ORDERED_AGGREGATES.has(name))
    throw queryError(e.pos, `${name} does not support ORDER BY or LIMIT in its arguments`);
  const countAt = APPROX_COUNT_ARG[name];
  if (countAt !== undefined) {
    const n = args[countAt]!;
    if (n.kind !== 'param' && (n.kind !== 'const' || typeof n.value !== 'bigint' || n.value <= 0n))
      throw queryError(e.args[countAt]!.pos, `The number argument of ${name} must be a positive INT64 literal or a parameter`);
  }
  if (name === 'APPROX_QUANTILES') {
    return e.nulls === 'RESPECT' ? { fn: approxQuantiles(true), args, key: ' respect' } : { fn: agg, args, key: '' };
  }
  if (e.nulls !== 'IGNORE' && e.orderBy.length === 0 && e.limit === null) return { fn: agg, args, key: '' };
  const keys = e.orderBy.map((o) => {
    const k = bindExpr(o.expr, rowScope);
    if (!isOrderable(k.type)) throw queryError(o.pos, `ORDER BY in ${name} does not support type ${typeText(k.type)}`);
    return k;
  });
  if (e.distinct && keys.some((k) => boundKey(k) !== boundKey(args[0]!)))
    throw queryError(e.pos, `An aggregate with DISTINCT and ORDER BY must order by its argument`);
  let limit: number | undefined;
  if (e.limit !== null) {
    const l = bindExpr(e.limit, rowScope);
    if (l.kind !== 'const' || typeof l.value !== 'bigint' || l.value < 0n)
      throw queryError(e.limit.pos, `LIMIT in ${name} must be a non-negative INT64 literal`);
    limit = Number(l.value);
  }
  const order = e.orderBy.map((o) => ({
    descending: o.direction === 'DESC',
    nullsFirst: o.nulls === null ? o.direction !== 'DESC' : o.nulls === 'FIRST',
  }));
  const fn = withModifiers(agg, args.length, { ignoreNulls: e.nulls === 'IGNORE', order, limit });
  const key = ` ${e.nulls ?? ''} order(${keys.map(boundKey).join(',')}:${JSON.stringify(order)}) limit ${String(limit)}`;
  return { fn, args: [...args, ...keys], key };
}
