import type { GcRule } from '../../../model/gc-rule.js';

/**
 * What a family's garbage-collection rule bounds: whether versions pile up
 * without end, and how long cells live (union: the shortest age of its
 * parts, since any part collects; intersection: the longest, since all must).
 */

/** Whether the rule ever collects a column's cells: no rule, an empty union or intersection, never. */
export function bounded(rule: GcRule | undefined): boolean {
  if (rule === undefined) return false;
  switch (rule.kind) {
    case 'maxVersions':
    case 'maxAge':
      return true;
    case 'union':
      return rule.rules.some(bounded);
    case 'intersection':
      return rule.rules.length > 0 && rule.rules.every(bounded);
  }
}

/** How long a cell lives at most (µs), when the rule says: undefined when no age collects it. */
export function retentionMicros(rule: GcRule | undefined): number | undefined {
  if (rule === undefined) return undefined;
  switch (rule.kind) {
    case 'maxVersions':
      return undefined;
    case 'maxAge':
      return rule.maxAgeMicros;
    case 'union': {
      const ages = rule.rules.map(retentionMicros).filter((a) => a !== undefined);
      return ages.length === 0 ? undefined : Math.min(...ages);
    }
    case 'intersection': {
      const ages = rule.rules.map(retentionMicros);
      return ages.length === 0 || ages.some((a) => a === undefined) ? undefined : Math.max(...(ages as number[]));
    }
  }
}
