import type { SqlTimestamp, SqlType, SqlValue } from '../types.js';
import { typeText } from '../types.js';
import { type Operand, coercible, supertype } from '../values/coerce.js';

/**
 * The function library's contract. A function resolves its arguments' static types to a result type and the
 * types its arguments are coerced to (or says why it cannot: the analyzer reports `No matching signature for
 * function F for argument types: ...`), and evaluates on coerced values.
 */

export interface EvalContext {
  /** CURRENT_TIMESTAMP: one instant per query. */
  readonly now: SqlTimestamp;
}

export interface Resolution {
  readonly result: SqlType;
  /** What each argument is coerced to (same length as the arguments). */
  readonly args: readonly SqlType[];
}

export interface ScalarFunction {
  readonly name: string;
  /** A Resolution, or undefined when no signature matches. */
  resolve(args: readonly Operand[]): Resolution | undefined;
  /** The signatures, for the error message (`STRING, INT64[, INT64]`). */
  readonly signatureText: string;
  /** Strict functions are NULL when any argument is NULL and `eval` never sees a NULL. */
  readonly strict: boolean;
  /** Lazy functions (IF, COALESCE, AND, ...) get thunks, evaluated only as needed. */
  readonly lazy: boolean;
  eval(args: readonly SqlValue[], ctx: EvalContext): SqlValue;
  evalLazy?(args: readonly (() => SqlValue)[], ctx: EvalContext): SqlValue;
  /** Not allowed where determinism is needed (materialized views); CURRENT_TIMESTAMP. */
  readonly volatile?: boolean;
}

/** A parameter pattern: a concrete type, any type, `T` (unified with the other T's), an array of T, or any map. */
export type Param = SqlType | 'ANY' | 'T' | 'ARRAY<T>' | 'MAP';

export interface Signature {
  readonly params: readonly Param[];
  /** Params from this index on may be left out. */
  readonly optionalFrom?: number;
  /** The last param repeats (at least once unless optional). */
  readonly repeated?: boolean;
  readonly result: SqlType | ((args: readonly SqlType[], t: SqlType | undefined) => SqlType);
}

function paramText(p: Param): string {
  return typeof p === 'string' ? p : typeText(p);
}

export function signatureText(name: string, sigs: readonly Signature[]): string {
  return sigs
    .map((s) => {
      const parts = s.params.map((p, i) => {
        const t = paramText(p) + (s.repeated === true && i === s.params.length - 1 ? ', ...' : '');
        return s.optionalFrom !== undefined && i >= s.optionalFrom ? `[${t}]` : t;
      });
      return `${name}(${parts.join(', ')})`;
    })
    .join('; ');
}

/** Matches operands against signatures, first match wins. */
export function resolveSignatures(sigs: readonly Signature[], args: readonly Operand[]): Resolution | undefined {
  for (const s of sigs) {
    const r = matchSignature(s, args);
    if (r !== undefined) return r;
  }
  return undefined;
}

function matchSignature(s: Signature, args: readonly Operand[]): Resolution | undefined {
  const n = s.params.length;
  const min = s.optionalFrom ?? n;
  if (args.length < min) return undefined;
  if (args.length > n && s.repeated !== true) return undefined;
  const paramAt = (i: number): Param => s.params[Math.min(i, n - 1)]!;
  // Unify T over the operands bound to T (and the elements of ARRAY<T>).
  const tOperands: Operand[] = [];
  args.forEach((a, i) => {
    const p = paramAt(i);
    if (p === 'T') tOperands.push(a);
    else if (p === 'ARRAY<T>') {
      if (a.nullLiteral === true) return;
      if (a.type.kind !== 'ARRAY') tOperands.push({ type: { kind: 'ARRAY', element: a.type }, literal: false });
      else tOperands.push({ type: a.type.element, literal: a.literal });
    }
  });
  let t: SqlType | undefined;
  if (tOperands.length > 0) {
    t = supertype(tOperands);
    if (t === undefined) return undefined;
  }
  const out: SqlType[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const p = paramAt(i);
    if (p === 'ANY') out.push(a.type);
    else if (p === 'T') out.push(t!);
    else if (p === 'ARRAY<T>') {
      const target: SqlType = { kind: 'ARRAY', element: t! };
      if (!coercible(a, target)) return undefined;
      out.push(target);
    } else if (p === 'MAP') {
      if (a.type.kind !== 'MAP') return undefined;
      out.push(a.type);
    } else {
      if (!coercible(a, p)) return undefined;
      out.push(p);
    }
  }
  const result = typeof s.result === 'function' ? s.result(out, t) : s.result;
  return { result, args: out };
}

export interface FunctionSpec {
  readonly name: string;
  readonly signatures: readonly Signature[];
  readonly strict?: boolean;
  readonly volatile?: boolean;
  readonly eval?: (args: readonly SqlValue[], ctx: EvalContext) => SqlValue;
  readonly evalLazy?: (args: readonly (() => SqlValue)[], ctx: EvalContext) => SqlValue;
}

export function defineFunction(spec: FunctionSpec): ScalarFunction {
  const lazy = spec.evalLazy !== undefined;
  return {
    name: spec.name,
    signatureText: signatureText(spec.name, spec.signatures),
    strict: !lazy && spec.strict !== false,
    lazy,
    volatile: spec.volatile === true,
    resolve: (args) => resolveSignatures(spec.signatures, args),
    eval:
      spec.eval ??
      (() => {
        throw new Error(`${spec.name} is lazy`);
      }),
    ...(spec.evalLazy === undefined ? {} : { evalLazy: spec.evalLazy }),
  };
}

/** The scalar functions by upper-case name. */
export class FunctionRegistry {
  private readonly byName = new Map<string, ScalarFunction>();

  add(...fns: readonly ScalarFunction[]): this {
    for (const f of fns) this.byName.set(f.name.toUpperCase(), f);
    return this;
  }

  get(name: string): ScalarFunction | undefined {
    return this.byName.get(name.toUpperCase());
  }

  names(): string[] {
    return [...this.byName.keys()].sort();
  }
}
