import { FLOAT64, type SqlType, sameType } from '../types.js';

/**
 * Implicit coercion (GoogleSQL's conversion rules, with Bigtable's literal rule): an expression of one type may
 * stand where another is expected when
 *  - the types are the same;
 *  - INT64 or FLOAT32 → FLOAT64 (any expression), INT64 → FLOAT32 (literals);
 *  - a STRING literal or parameter → BYTES (so `_key = 'k'` compares bytes), DATE or TIMESTAMP;
 *  - an untyped NULL → anything;
 *  - arrays whose elements coerce so (literals).
 */
export interface Operand {
  readonly type: SqlType;
  /** A literal or a parameter: coerces more freely. */
  readonly literal: boolean;
  /** The untyped NULL literal. */
  readonly nullLiteral?: boolean;
}

export function coercible(from: Operand, to: SqlType): boolean {
  if (from.nullLiteral === true) return true;
  return typeCoercible(from.type, to, from.literal);
}

function typeCoercible(from: SqlType, to: SqlType, literal: boolean): boolean {
  if (sameType(from, to)) return true;
  if (to.kind === 'FLOAT64') return from.kind === 'INT64' || from.kind === 'FLOAT32';
  if (to.kind === 'FLOAT32') return literal && from.kind === 'INT64';
  if (from.kind === 'STRING' && literal) return to.kind === 'BYTES' || to.kind === 'DATE' || to.kind === 'TIMESTAMP';
  if (from.kind === 'ARRAY' && to.kind === 'ARRAY') return typeCoercible(from.element, to.element, literal);
  return false;
}

/**
 * The common supertype of operands (for `=`, IN, COALESCE, IF branches, CASE, array literals): the first of their
 * own types (non-literals first) that every operand coerces to, else FLOAT64 when all are numeric; undefined when
 * there is none. All untyped NULLs give INT64 (GoogleSQL's default for a bare NULL).
 */
export function supertype(operands: readonly Operand[]): SqlType | undefined {
  const typed = operands.filter((o) => o.nullLiteral !== true);
  if (typed.length === 0) return { kind: 'INT64' };
  const candidates = [...typed.filter((o) => !o.literal), ...typed.filter((o) => o.literal)].map((o) => o.type);
  for (const c of candidates) if (typed.every((o) => coercible(o, c))) return c;
  if (typed.every((o) => coercible(o, FLOAT64))) return FLOAT64;
  return undefined;
}
