import { instanceNameString } from '../../model/names.js';
import { iso } from '../query-window.js';
import { EXPLAINED_BY, RULES, type RuleContext, tableShape } from './rules/index.js';
import { type AdvisorThresholds, DEFAULT_ADVISOR_THRESHOLDS } from './thresholds.js';
import { type AdviceJson, type AdvisorInput, type Finding, RULE_IDS, type Severity } from './types.js';

export { type AdvisorThresholds, DEFAULT_ADVISOR_THRESHOLDS } from './thresholds.js';

export interface AdviseOptions {
  readonly thresholds?: Partial<AdvisorThresholds>;
}

const SEVERITY_ORDER: Readonly<Record<Severity, number>> = { danger: 0, warning: 1, info: 2 };

/**
 * The schema advisor: every rule (rules/) over each table examined (all, or
 * `input.only`; the instance-wide too-many-tables still compares all
 * tables), findings a key rule explains dropped (EXPLAINED_BY), sorted
 * danger, warning, info, then by table, then in RULE_IDS order. Pure:
 * `generatedAt` is input.nowMillis, `window` the first traffic recorded
 * (else the instant of nowMillis).
 */
export function advise(input: AdvisorInput, opts: AdviseOptions = {}): AdviceJson {
  const t: AdvisorThresholds = { ...DEFAULT_ADVISOR_THRESHOLDS, ...opts.thresholds };
  const examined = input.tables.filter((x) => input.only === undefined || x.name.table === input.only);
  const findings: Finding[] = [];
  for (const table of examined) {
    const ctx: RuleContext = { input, table, id: table.name.table, shape: tableShape(table), t };
    const found = RULE_IDS.flatMap((id) => RULES[id](ctx));
    const rules = new Set(found.map((f) => f.rule));
    findings.push(...found.filter((f) => !(EXPLAINED_BY[f.rule] ?? []).some((cause) => rules.has(cause))));
  }
  const rank = (f: Finding): number => RULE_IDS.indexOf(f.rule);
  findings.sort(
    (a, b) =>
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || (a.table < b.table ? -1 : a.table > b.table ? 1 : 0) || rank(a) - rank(b),
  );
  const traffic = input.tables.find((x) => x.traffic !== undefined)?.traffic;
  return {
    instance: instanceNameString(input.instance),
    generatedAt: iso(input.nowMillis),
    window: { from: iso(traffic?.fromMillis ?? input.nowMillis), to: iso(traffic?.toMillis ?? input.nowMillis) },
    tables: examined.map((x) => x.name.table),
    findings,
  };
}
