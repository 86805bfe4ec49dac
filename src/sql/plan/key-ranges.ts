import { type ByteString, fromBytes, keySuccessor, prefixSuccessor } from '../../model/bytes.js';
import { FULL_RANGE, type KeyRange, intersectRanges, isEmptyRange, mergeRanges } from '../../model/key-range.js';
import type { Bound } from '../bound/bound.js';
import { type EvalEnv, evaluate, isConstant } from '../bound/evaluate.js';
import type { SqlValue } from '../types.js';

/**
 * Row ranges from a WHERE clause: predicates on `_key` (scan slot 0) against constants or parameters — `=`, `<`,
 * `<=`, `>`, `>=`, BETWEEN, IN, IN UNNEST(array), STARTS_WITH(_key, p), `_key LIKE 'p%'` — and AND (intersection) / OR (union) of
 * them. Anything else gives the whole table. The ranges are a superset of the matching rows: the executor
 * still evaluates the whole WHERE on every row read. Computed at execution, when parameters have values.
 */

/** The scan slot of `_key` in a table read (a subquery source may hold the key elsewhere: `keySlot`). */
const KEY_SLOT = 0;

function keyOf(v: SqlValue): ByteString | undefined {
  return v instanceof Uint8Array ? fromBytes(v) : undefined;
}

/** The sorted, disjoint ranges the rows matching `where` lie in ([] means none can match); the key is scan slot `keySlot`. */
export function keyRanges(where: Bound | undefined, env: EvalEnv, keySlot = KEY_SLOT): KeyRange[] {
  if (where === undefined) return [FULL_RANGE];
  const isKey = (b: Bound): boolean => b.kind === 'column' && b.index === keySlot;
  return mergeRanges(rangesOf(where, env, isKey));
}

/** The parts of `a` inside `b` (both sorted and disjoint), sorted and disjoint. */
export function restrictRanges(a: readonly KeyRange[], b: readonly KeyRange[]): KeyRange[] {
  return mergeRanges(intersectAll(a, b));
}

function constantValue(b: Bound, env: EvalEnv): { value: SqlValue } | undefined {
  if (!isConstant(b)) return undefined;
  return { value: evaluate(b, [], env) };
}

function rangesOf(b: Bound, env: EvalEnv, isKey: (b: Bound) => boolean): KeyRange[] {
  if (b.kind !== 'call') return [FULL_RANGE];
  const name = b.fn.name;
  const args = b.args;
  if (name === '$and') {
    let acc: KeyRange[] = [FULL_RANGE];
    for (const a of args) acc = intersectAll(acc, mergeRanges(rangesOf(a, env, isKey)));
    return acc;
  }
  if (name === '$or') return args.flatMap((a) => rangesOf(a, env, isKey));
  if (name === '$equal' || name === '$less' || name === '$less_or_equal' || name === '$greater' || name === '$greater_or_equal') {
    const [l, r] = args as [Bound, Bound];
    let op = name;
    let other: Bound;
    if (isKey(l)) other = r;
    else if (isKey(r)) {
      other = l;
      op = FLIP[name] ?? name;
    } else return [FULL_RANGE];
    const c = constantValue(other, env);
    if (c === undefined) return [FULL_RANGE];
    if (c.value === null) return [];
    const k = keyOf(c.value);
    if (k === undefined) return [FULL_RANGE];
    switch (op) {
      case '$equal':
        return [{ start: k, end: keySuccessor(k) }];
      case '$less':
        return [{ start: '', end: k }];
      case '$less_or_equal':
        return [{ start: '', end: keySuccessor(k) }];
      case '$greater':
        return [{ start: keySuccessor(k), end: undefined }];
      default:
        return [{ start: k, end: undefined }];
    }
  }
  if (name === '$between' && isKey(args[0]!)) {
    const lo = constantValue(args[1]!, env);
    const hi = constantValue(args[2]!, env);
    if (lo === undefined || hi === undefined) return [FULL_RANGE];
    if (lo.value === null || hi.value === null) return [];
    const a = keyOf(lo.value);
    const z = keyOf(hi.value);
    if (a === undefined || z === undefined) return [FULL_RANGE];
    return [{ start: a, end: keySuccessor(z) }];
  }
  if (name === '$in' && isKey(args[0]!)) {
    const out: KeyRange[] = [];
    for (const item of args.slice(1)) {
      const c = constantValue(item, env);
      if (c === undefined) return [FULL_RANGE];
      if (c.value === null) continue;
      const k = keyOf(c.value);
      if (k === undefined) return [FULL_RANGE];
      out.push({ start: k, end: keySuccessor(k) });
    }
    return out;
  }
  if (name === '$in_unnest' && isKey(args[0]!)) {
    // `_key IN UNNEST(@keys)`.
    const c = constantValue(args[1]!, env);
    if (c === undefined) return [FULL_RANGE];
    if (c.value === null) return [];
    const out: KeyRange[] = [];
    for (const v of c.value as readonly SqlValue[]) {
      const k = keyOf(v);
      if (k !== undefined) out.push({ start: k, end: keySuccessor(k) });
    }
    return out;
  }
  if (name === 'STARTS_WITH' && isKey(args[0]!)) {
    const c = constantValue(args[1]!, env);
    if (c === undefined) return [FULL_RANGE];
    if (c.value === null) return [];
    const p = keyOf(c.value);
    return p === undefined ? [FULL_RANGE] : [prefixRange(p)];
  }
  if (name === '$like' && isKey(args[0]!)) {
    const c = constantValue(args[1]!, env);
    if (c === undefined) return [FULL_RANGE];
    if (c.value === null) return [];
    const pattern = keyOf(c.value);
    if (pattern === undefined) return [FULL_RANGE];
    const { prefix, exact } = likePrefix(pattern);
    return [exact ? { start: prefix, end: keySuccessor(prefix) } : prefixRange(prefix)];
  }
  return [FULL_RANGE];
}

const FLIP: Readonly<Record<string, string>> = {
  $less: '$greater',
  $less_or_equal: '$greater_or_equal',
  $greater: '$less',
  $greater_or_equal: '$less_or_equal',
};

function prefixRange(p: ByteString): KeyRange {
  return { start: p, end: prefixSuccessor(p) };
}

/** The literal prefix of a LIKE pattern (up to its first unescaped `%` or `_`), and whether the pattern is only that. */
export function likePrefix(pattern: ByteString): { prefix: ByteString; exact: boolean } {
  let prefix = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      prefix += pattern[++i] ?? '';
      continue;
    }
    if (c === '%' || c === '_') return { prefix, exact: false };
    prefix += c;
  }
  return { prefix, exact: true };
}

function intersectAll(a: readonly KeyRange[], b: readonly KeyRange[]): KeyRange[] {
  const out: KeyRange[] = [];
  for (const x of a) {
    for (const y of b) {
      const r = intersectRanges(x, y);
      if (!isEmptyRange(r)) out.push(r);
    }
  }
  return out;
}
