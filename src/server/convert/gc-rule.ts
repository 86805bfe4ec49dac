import { invalidArgument } from '../../model/errors.js';
import type { GcRule } from '../../model/gc-rule.js';
import { durationToMicros, microsToDuration } from './int64.js';
import type { PGcRule } from './proto-types.js';

/**
 * Admin GcRule ↔ model GcRule. A top-level GcRule with no rule set means "no
 * garbage collection" (undefined); an unset rule nested inside a union or
 * intersection is rejected. Semantic limits (max_age ≥ 1 ms, versions ≥ 1,
 * 500-byte size) are checked by the model (validateGcRule).
 */
export function gcRuleFromProto(r: PGcRule | null | undefined): GcRule | undefined {
  if (r == null || ruleKind(r) === undefined) return undefined;
  return convert(r, 1);
}

const MAX_DEPTH = 50;

function ruleKind(r: PGcRule): string | undefined {
  if (r.rule) return r.rule;
  if (r.maxNumVersions != null) return 'maxNumVersions';
  if (r.maxAge != null) return 'maxAge';
  if (r.intersection != null) return 'intersection';
  if (r.union != null) return 'union';
  return undefined;
}

function convert(r: PGcRule, depth: number): GcRule {
  if (depth > MAX_DEPTH) throw invalidArgument(`GC rule is nested more than ${MAX_DEPTH} levels deep`);
  switch (ruleKind(r)) {
    case 'maxNumVersions':
      return { kind: 'maxVersions', versions: r.maxNumVersions ?? 0 };
    case 'maxAge':
      return { kind: 'maxAge', maxAgeMicros: durationToMicros(r.maxAge ?? {}, 'GcRule.max_age') };
    case 'intersection':
      return { kind: 'intersection', rules: (r.intersection?.rules ?? []).map((x) => convert(x, depth + 1)) };
    case 'union':
      return { kind: 'union', rules: (r.union?.rules ?? []).map((x) => convert(x, depth + 1)) };
    default:
      throw invalidArgument('A GC rule inside a union or intersection has no rule set');
  }
}

export function gcRuleToProto(rule: GcRule): PGcRule {
  switch (rule.kind) {
    case 'maxVersions':
      return { maxNumVersions: rule.versions };
    case 'maxAge':
      return { maxAge: microsToDuration(rule.maxAgeMicros) };
    case 'intersection':
      return { intersection: { rules: rule.rules.map(gcRuleToProto) } };
    case 'union':
      return { union: { rules: rule.rules.map(gcRuleToProto) } };
  }
}
