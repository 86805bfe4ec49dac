/**
 * A GC rule as the Node client returns it from GetTable (protobuf JSON with a
 * `rule` oneof name), written compactly: `versions(2)`, `age(3600s)`,
 * `union(age(60s),versions(1))`, `intersection(...)`; `none` for no rule.
 * Sub-rules keep their order.
 */
export function gcRuleText(rule: unknown): string {
  if (rule === null || rule === undefined) return 'none';
  const r = rule as {
    maxNumVersions?: number;
    maxAge?: { seconds?: string | number; nanos?: number };
    union?: { rules?: unknown[] };
    intersection?: { rules?: unknown[] };
  };
  if (r.maxNumVersions !== undefined && r.maxNumVersions !== 0) return `versions(${r.maxNumVersions})`;
  if (r.maxAge) {
    const nanos = r.maxAge.nanos ?? 0;
    return `age(${Number(r.maxAge.seconds ?? 0)}s${nanos ? `+${nanos}ns` : ''})`;
  }
  if (r.union) return `union(${(r.union.rules ?? []).map(gcRuleText).join(',')})`;
  if (r.intersection) return `intersection(${(r.intersection.rules ?? []).map(gcRuleText).join(',')})`;
  return 'none';
}
