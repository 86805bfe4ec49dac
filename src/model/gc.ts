import type { Cell } from './cell.js';
import { invalidArgument } from './errors.js';
import type { GcRule } from './gc-rule.js';
import { LIMITS } from './limits.js';

/**
 * Garbage-collection rules: validation, evaluation and display.
 *
 * Semantics (Cloud Bigtable's, not Google's emulator's, which never applies
 * intersections): a rule decides, for each version of a column, whether it is
 * collectable. maxVersions(n) collects all but the n newest versions;
 * maxAge(a) collects versions whose timestamp is before now - a; a union
 * collects what any sub-rule collects; an intersection collects only what
 * every sub-rule collects (an empty union or intersection collects nothing).
 *
 * With the versions of a column sorted newest first, every one of these
 * predicates is monotone (once a version is collectable, every older one is),
 * and unions and intersections of monotone predicates are monotone. So the
 * survivors of any rule are a prefix of the column: maxVersions keeps
 * min(n, count), maxAge keeps the versions at or after the cutoff, a union
 * keeps the shortest of its sub-rules' prefixes and an intersection the
 * longest. Evaluation is a few comparisons and at most one slice.
 */

const MAX_INT32 = 2 ** 31 - 1;
const MICROS_PER_SECOND = 1_000_000;

/** Size of a protobuf varint holding `v` as int64 (negative values take 10 bytes). */
function varintSize(v: number): number {
  if (v < 0) return 10;
  let n = 1;
  while (v >= 128) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

/** Size of a length-delimited field (tag 1 byte) with a payload of `n` bytes. */
function delimited(n: number): number {
  return 1 + varintSize(n) + n;
}

/**
 * Serialized size of the rule as a google.bigtable.admin.v2.GcRule message,
 * or Infinity once it exceeds `budget` (which also bounds the recursion).
 */
export function gcRuleEncodedSize(rule: GcRule, budget: number = Number.MAX_SAFE_INTEGER): number {
  if (budget < 0) return Infinity;
  let size: number;
  switch (rule.kind) {
    case 'maxVersions':
      size = 1 + varintSize(rule.versions); // max_num_versions = 1 (int32)
      break;
    case 'maxAge': {
      // max_age = 2: google.protobuf.Duration { int64 seconds = 1; int32 nanos = 2; }
      const seconds = Math.trunc(rule.maxAgeMicros / MICROS_PER_SECOND);
      const nanos = (rule.maxAgeMicros - seconds * MICROS_PER_SECOND) * 1000;
      const duration = (seconds !== 0 ? 1 + varintSize(seconds) : 0) + (nanos !== 0 ? 1 + varintSize(nanos) : 0);
      size = delimited(duration);
      break;
    }
    case 'union': // union = 4, intersection = 3: { repeated GcRule rules = 1; }
    case 'intersection': {
      let inner = 0;
      for (const sub of rule.rules) {
        const s = gcRuleEncodedSize(sub, budget - inner - 4);
        if (s === Infinity) return Infinity;
        inner += delimited(s);
      }
      size = delimited(inner);
      break;
    }
  }
  return size > budget ? Infinity : size;
}

function formatMicros(micros: number): string {
  return micros % 1000 === 0 ? `${micros / 1000}ms` : `${micros}µs`;
}

function checkRule(rule: GcRule): void {
  switch (rule.kind) {
    case 'maxVersions':
      if (!Number.isInteger(rule.versions) || rule.versions < 1 || rule.versions > MAX_INT32) {
        throw invalidArgument(`Invalid GC rule: max_num_versions must be an integer from 1 to ${MAX_INT32}, got ${rule.versions}`);
      }
      return;
    case 'maxAge':
      if (!Number.isSafeInteger(rule.maxAgeMicros) || rule.maxAgeMicros < LIMITS.minMaxAgeMicros) {
        throw invalidArgument(
          `Invalid GC rule: max_age must be at least ${formatMicros(LIMITS.minMaxAgeMicros)}, got ${formatMicros(rule.maxAgeMicros)}`,
        );
      }
      return;
    case 'union':
    case 'intersection':
      if (rule.rules.length === 0) {
        throw invalidArgument(`Invalid GC rule: ${rule.kind === 'union' ? 'a union' : 'an intersection'} must contain at least one rule`);
      }
      for (const sub of rule.rules) checkRule(sub);
      return;
  }
}

/**
 * Checks a GC rule from CreateTable / ModifyColumnFamilies: max_num_versions
 * >= 1, max_age >= 1 ms (any microsecond count above that; the API truncates
 * finer durations to microseconds), no empty union or intersection, and at
 * most 500 bytes serialized. Throws InvalidArgument.
 */
export function validateGcRule(rule: GcRule): void {
  const limit = LIMITS.maxGcRuleBytes;
  if (gcRuleEncodedSize(rule, limit) === Infinity) {
    throw invalidArgument(`Invalid GC rule: it takes more than ${limit} bytes serialized (limit ${limit})`);
  }
  checkRule(rule);
}

/** Index of the first version older than `cutoff` (versions newest first), by binary search. */
function firstOlderThan(cells: readonly Cell[], cutoff: number): number {
  let lo = 0;
  let hi = cells.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cells[mid]!.timestamp < cutoff) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** How many of the newest versions survive `rule`. */
function survivorCount(rule: GcRule, cells: readonly Cell[], nowMicros: number): number {
  switch (rule.kind) {
    case 'maxVersions':
      return Math.min(rule.versions, cells.length);
    case 'maxAge':
      return firstOlderThan(cells, nowMicros - rule.maxAgeMicros);
    case 'union': {
      let n = cells.length;
      for (const sub of rule.rules) n = Math.min(n, survivorCount(sub, cells, nowMicros));
      return n;
    }
    case 'intersection': {
      if (rule.rules.length === 0) return cells.length;
      let n = 0;
      for (const sub of rule.rules) n = Math.max(n, survivorCount(sub, cells, nowMicros));
      return n;
    }
  }
}

/**
 * The survivors of one column's versions under `rule` at `nowMicros`.
 * REQUIRES: `cells` are the versions of one column, newest first (timestamps
 * descending). Returns `cells` itself when nothing is collected, otherwise a
 * prefix of it. An undefined rule keeps everything.
 */
export function collectColumn(rule: GcRule | undefined, cells: readonly Cell[], nowMicros: number): readonly Cell[] {
  if (rule === undefined || cells.length === 0) return cells;
  const n = survivorCount(rule, cells, nowMicros);
  return n >= cells.length ? cells : cells.slice(0, n);
}

/** Structural equality (sub-rules in order). */
export function gcRuleEquals(a: GcRule | undefined, b: GcRule | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  switch (a.kind) {
    case 'maxVersions':
      return b.kind === 'maxVersions' && a.versions === b.versions;
    case 'maxAge':
      return b.kind === 'maxAge' && a.maxAgeMicros === b.maxAgeMicros;
    case 'union':
    case 'intersection':
      return b.kind === a.kind && a.rules.length === b.rules.length && a.rules.every((r, i) => gcRuleEquals(r, b.rules[i]));
  }
}

const AGE_UNITS: ReadonlyArray<readonly [number, string]> = [
  [86_400_000_000, 'd'],
  [3_600_000_000, 'h'],
  [60_000_000, 'm'],
  [1_000_000, 's'],
  [1_000, 'ms'],
];

/** An age in the largest unit that divides it exactly: 7d, 12h, 90m, 30s, 1500ms, 1001us. */
export function describeAge(micros: number): string {
  for (const [unit, suffix] of AGE_UNITS) {
    if (micros % unit === 0) return `${micros / unit}${suffix}`;
  }
  return `${micros}us`;
}

/**
 * The rule as cbt prints it: "versions() > 2", "age() > 7d",
 * "(versions() > 2 || age() > 7d)" for a union, " && " for an intersection,
 * "<never>" for no rule. cbt writes ages in whole days, hours or minutes and
 * otherwise a bare microsecond count; tabletop also uses s, ms and us so the
 * unit is never ambiguous.
 */
export function describeGcRule(rule: GcRule | undefined): string {
  if (rule === undefined) return '<never>';
  switch (rule.kind) {
    case 'maxVersions':
      return `versions() > ${rule.versions}`;
    case 'maxAge':
      return `age() > ${describeAge(rule.maxAgeMicros)}`;
    case 'union':
      return `(${rule.rules.map(describeGcRule).join(' || ')})`;
    case 'intersection':
      return `(${rule.rules.map(describeGcRule).join(' && ')})`;
  }
}
