/**
 * A finding's parts as the Advisor page shows them: evidence as labelled
 * rows (keys in monospace, shares as percentages, sizes in binary units),
 * the suggestion split into prose and quoted keys (`before` → `after`), the
 * findings grouped by severity, and the line that says what was examined.
 * Pure: the page renders what these return.
 */
import type { AdviceJson, EvidenceValue, Finding, RuleId, Severity } from '../../insight/advisor/types.js';
import { formatBytes, formatNumber, formatShare } from '../format.js';

/** Most severe first: the order of the page's groups. */
export const SEVERITIES: readonly Severity[] = ['danger', 'warning', 'info'];

export const SEVERITY_LABELS: Record<Severity, string> = { danger: 'Danger', warning: 'Warning', info: 'Info' };

/** Each rule in a few words, beside its id (the issue's table of rules). */
export const RULE_TITLES: Record<RuleId, string> = {
  'timestamp-leading-key': 'Keys start with a timestamp',
  'sequential-key': 'Keys increase monotonically',
  'hashed-key': 'Hashed or random keys',
  'unpadded-number': 'Numbers without zero padding',
  'long-key': 'Long keys',
  'non-printable-key': 'Raw bytes in keys',
  'pii-in-key': 'Personal data in keys',
  'hot-row': 'A hot row',
  'too-many-families': 'Too many column families',
  'too-many-tables': 'Many tables with one schema',
  'large-row': 'Large rows',
  'unreversed-domain': 'Domain names not reversed',
  'unbounded-versions': 'Versions without a GC policy',
  'filter-scan': 'Scans that filter instead of using key ranges',
  'low-cardinality-prefix': 'Few distinct leading values',
  'hot-tablet': 'A hot tablet or node',
};

export interface EvidenceRow {
  /** The evidence name in words: `sampleKeys` → `sample keys`. */
  readonly label: string;
  /** `keys`: each value a row key (or key part), shown in monospace one by one. */
  readonly kind: 'keys' | 'text';
  readonly values: readonly string[];
}

/** Names whose string values are keys or key parts (shown in monospace). */
const KEYISH = /key|prefix|example|sample|row|segment|domain|before|after|qualifier/i;
/** Names of fractions (0..1) shown as percentages. */
const SHAREISH = /share|ratio|fraction/i;

export function evidenceRows(evidence: Readonly<Record<string, EvidenceValue>>): EvidenceRow[] {
  return Object.entries(evidence).map(([name, value]) => {
    const label = words(name);
    const list = Array.isArray(value) ? (value as readonly (string | number)[]) : [value as string | number | boolean];
    const keys = KEYISH.test(name) && list.some((v) => typeof v === 'string');
    return { label, kind: keys ? 'keys' : 'text', values: list.map((v) => evidenceValue(name, v)) };
  });
}

function evidenceValue(name: string, v: string | number | boolean): string {
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string') return v;
  if (SHAREISH.test(name) && v >= 0 && v <= 1) return formatShare(v);
  if (/bytes/i.test(name)) return formatBytes(v);
  return formatNumber(v);
}

/** `sampleKeys` → `sample keys`, `max_versions` → `max versions`, `p99Bytes` → `p99 bytes`. */
export function words(name: string): string {
  return name
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .trim();
}

export interface TextPart {
  readonly text: string;
  /** A `quoted` key or key pattern: shown in monospace. */
  readonly key?: boolean;
  /** The arrow between a before and an after. */
  readonly arrow?: boolean;
}

/**
 * A message's or suggestion's prose, its `backquoted` keys and its arrows, in order:
 * "Write `a#b` → `b#a`." → prose, key a#b, arrow, key b#a, prose. An
 * unclosed backquote is prose.
 */
export function textParts(text: string): TextPart[] {
  const parts: TextPart[] = [];
  const prose = (s: string) => {
    s.split(/(\s*(?:→|->)\s*)/).forEach((p, i) => {
      if (p === '') return;
      parts.push(i % 2 === 1 ? { text: '→', arrow: true } : { text: p });
    });
  };
  let rest = text;
  for (;;) {
    const open = rest.indexOf('`');
    const close = open < 0 ? -1 : rest.indexOf('`', open + 1);
    if (close < 0) {
      prose(rest);
      return parts;
    }
    prose(rest.slice(0, open));
    parts.push({ text: rest.slice(open + 1, close), key: true });
    rest = rest.slice(close + 1);
  }
}

export interface SeverityGroup {
  readonly severity: Severity;
  readonly findings: readonly Finding[];
}

/** The findings by severity, danger first, each group in the server's order; severities without findings left out. */
export function groupBySeverity(findings: readonly Finding[]): SeverityGroup[] {
  return SEVERITIES.map((severity) => ({ severity, findings: findings.filter((f) => f.severity === severity) })).filter(
    (g) => g.findings.length > 0,
  );
}

/** What was examined and what was found: "12 tables examined, no findings", "1 table examined: 1 danger, 2 warnings". */
export function adviceSummary(advice: Pick<AdviceJson, 'tables' | 'findings'>): string {
  const n = advice.tables.length;
  const examined = `${formatNumber(n)} ${n === 1 ? 'table' : 'tables'} examined`;
  if (advice.findings.length === 0) return `${examined}, no findings`;
  const counts = groupBySeverity(advice.findings).map((g) => plural(g.findings.length, g.severity));
  return `${examined}: ${counts.join(', ')}`;
}

function plural(n: number, severity: Severity): string {
  // "info" is a mass noun: 3 info.
  return `${formatNumber(n)} ${severity === 'info' || n === 1 ? severity : `${severity}s`}`;
}

/** The worst severity among findings, or undefined for none (the table page's badge colour). */
export function worstSeverity(findings: readonly Finding[]): Severity | undefined {
  return SEVERITIES.find((s) => findings.some((f) => f.severity === s));
}

/**
 * A text's first sentence and the rest ('' when it has one sentence): the
 * what-if's description leads with what the transform does, then how it was
 * replayed. A full stop ends a sentence only before a space and a capital
 * (not in `3.5 s`), and never inside "quotes".
 */
export function firstSentence(text: string): { first: string; rest: string } {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') quoted = !quoted;
    else if (c === '.' && !quoted && /^\s+[A-Z]/.test(text.slice(i + 1, i + 3))) {
      return { first: text.slice(0, i + 1), rest: text.slice(i + 1).trim() };
    }
  }
  return { first: text.trim(), rest: '' };
}
