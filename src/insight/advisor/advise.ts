// STAND-IN by helper P (issue 22): helper R's advise() replaces this file at the merge. It exists only so that P's
// plumbing (gather, HTTP route, CLI, log warning) compiles and its tests run; it applies no rule.
import type { AdviceJson, AdvisorInput } from './types.js';

export function advise(input: AdvisorInput, _opts: { thresholds?: Partial<Record<string, number>> } = {}): AdviceJson {
  const traffic = input.tables[0]?.traffic;
  const iso = (ms: number): string => new Date(ms).toISOString();
  return {
    instance: `projects/${input.instance.project}/instances/${input.instance.instance}`,
    generatedAt: iso(input.nowMillis),
    window: { from: iso(traffic?.fromMillis ?? input.nowMillis), to: iso(traffic?.toMillis ?? input.nowMillis) },
    tables: input.tables.map((t) => t.name.table).filter((t) => input.only === undefined || t === input.only),
    findings: [],
  };
}
