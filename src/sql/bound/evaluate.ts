import type { Bound } from './bound.js';
import type { EvalContext } from '../functions/index.js';
import { SqlStruct, type SqlValue } from '../types.js';
import { castValue } from '../values/cast.js';
import { isEvalError } from '../values/errors.js';

/** What an expression is evaluated against: a row's slots, the query's parameters and its context. */
export interface EvalEnv {
  readonly params: ReadonlyMap<string, SqlValue>;
  readonly ctx: EvalContext;
  /** The parameters of the lambdas being evaluated, by slot. */
  readonly lambda?: readonly SqlValue[];
}

/** Evaluates a bound expression on a row (strict functions short-circuit to NULL; lazy ones get thunks). */
export function evaluate(b: Bound, row: readonly SqlValue[], env: EvalEnv): SqlValue {
  switch (b.kind) {
    case 'const':
      return b.value;
    case 'param':
      return env.params.get(b.name) ?? null;
    case 'column':
      return row[b.index] ?? null;
    case 'call': {
      const fn = b.fn;
      if (fn.lazy)
        return fn.evalLazy!(
          b.args.map((a) => () => evaluate(a, row, env)),
          env.ctx,
        );
      const values: SqlValue[] = new Array<SqlValue>(b.args.length);
      for (let i = 0; i < b.args.length; i++) {
        const v = evaluate(b.args[i]!, row, env);
        if (v === null && fn.strict) return null;
        values[i] = v;
      }
      return fn.eval(values, env.ctx);
    }
    case 'cast': {
      const v = evaluate(b.arg, row, env);
      if (!b.safe) return castValue(v, b.arg.type, b.type);
      try {
        return castValue(v, b.arg.type, b.type);
      } catch (e) {
        if (isEvalError(e)) return null;
        throw e;
      }
    }
    case 'safe':
      try {
        return evaluate(b.arg, row, env);
      } catch (e) {
        if (isEvalError(e)) return null;
        throw e;
      }
    case 'array':
      return b.elements.map((e) => evaluate(e, row, env));
    case 'struct':
      return new SqlStruct(b.fields.map((e) => evaluate(e, row, env)));
    case 'field': {
      const s = evaluate(b.arg, row, env);
      return s === null ? null : ((s as SqlStruct).values[b.index] ?? null);
    }
    case 'lambdaArg':
      return env.lambda?.[b.slot] ?? null;
    case 'lambda': {
      const a = evaluate(b.array, row, env);
      if (a === null) return null;
      const outer = env.lambda ?? [];
      return b.fn.apply(a as readonly SqlValue[], (element, index) => {
        const slots = outer.slice(0, b.slot);
        slots.push(element, BigInt(index));
        return evaluate(b.body, row, { ...env, lambda: slots });
      });
    }
  }
}

/** True when an expression reads no row slot (it can be evaluated once, from parameters and literals). */
export function isConstant(b: Bound): boolean {
  switch (b.kind) {
    case 'const':
    case 'param':
      return true;
    case 'column':
      return false;
    case 'call':
      return b.args.every(isConstant) && b.fn.volatile !== true;
    case 'cast':
    case 'safe':
    case 'field':
      return isConstant(b.arg);
    case 'array':
      return b.elements.every(isConstant);
    case 'struct':
      return b.fields.every(isConstant);
    case 'lambdaArg':
    case 'lambda':
      return false;
  }
}
