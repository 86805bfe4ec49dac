import type { GcRule } from '../model/gc-rule.js';
import { describeAge, validateGcRule } from '../model/gc.js';

/**
 * GC rules as the schema file writes them (README: Schema as code):
 *  - `never`: no rule (keep everything);
 *  - `maxversions=N`, `maxage=DURATION` (a whole number with d, h, m, s, ms or us: 7d, 90m, 1500ms);
 *  - `A || B || ...` a union (collect what any sub-rule collects), `A && B && ...` an intersection (collect what
 *    every sub-rule collects); `or` / `and` are accepted too; `||` and `&&` do not mix without parentheses, and a
 *    parenthesized union or intersection inside another is a nested rule;
 *  - `union(A)`, `intersection(A)`: the same with one sub-rule (how a one-rule union is written exactly).
 * formatGcRule() writes the shortest text that parseGcRule() reads back as the same tree, sub-rules in order.
 */
export function formatGcRule(rule: GcRule | undefined): string {
  return rule === undefined ? 'never' : format(rule, false);
}

function format(rule: GcRule, nested: boolean): string {
  switch (rule.kind) {
    case 'maxVersions':
      return `maxversions=${rule.versions}`;
    case 'maxAge':
      return `maxage=${describeAge(rule.maxAgeMicros)}`;
    case 'union':
    case 'intersection': {
      const parts = rule.rules.map((r) => format(r, true));
      if (parts.length < 2) return `${rule.kind}(${parts.join('')})`;
      const text = parts.join(rule.kind === 'union' ? ' || ' : ' && ');
      return nested ? `(${text})` : text;
    }
  }
}

/** Thrown for text that is not a GC rule; the message says where and why. */
export class GcRuleSyntaxError extends Error {}

const AGE_UNITS: Readonly<Record<string, number>> = { d: 86_400_000_000, h: 3_600_000_000, m: 60_000_000, s: 1_000_000, ms: 1000, us: 1 };

const TOKEN = /\s*(\|\||&&|\(|\)|,|[A-Za-z_]+(?:=[0-9A-Za-z]+)?)/y;

/** The rule a text names (undefined for `never`), checked as the service checks it (validateGcRule). */
export function parseGcRule(text: string): GcRule | undefined {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  while (at < text.length) {
    if (/^\s*$/.test(text.slice(at))) break;
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(text);
    if (m === null) throw new GcRuleSyntaxError(`GC rule "${text}": unexpected "${text.slice(at).trim()}"`);
    tokens.push(m[1]!.toLowerCase());
    at = TOKEN.lastIndex;
  }
  if (tokens.length === 1 && tokens[0] === 'never') return undefined;
  const p = new Parser(text, tokens);
  const rule = p.expression();
  if (p.peek() !== undefined) throw new GcRuleSyntaxError(`GC rule "${text}": unexpected "${p.peek()}"`);
  try {
    validateGcRule(rule);
  } catch (e) {
    throw new GcRuleSyntaxError(`GC rule "${text}": ${e instanceof Error ? e.message.replace(/^Invalid GC rule: /, '') : String(e)}`);
  }
  return rule;
}

class Parser {
  private i = 0;
  constructor(
    private readonly text: string,
    private readonly tokens: readonly string[],
  ) {}

  peek(): string | undefined {
    return this.tokens[this.i];
  }

  private fail(why: string): never {
    throw new GcRuleSyntaxError(`GC rule "${this.text}": ${why}`);
  }

  private expect(token: string): void {
    if (this.peek() !== token) this.fail(`expected "${token}"${this.peek() === undefined ? ' at the end' : `, got "${this.peek()}"`}`);
    this.i++;
  }

  /** A primary, or several joined by one operator (a union or an intersection). */
  expression(): GcRule {
    const first = this.primary();
    const op = operatorOf(this.peek());
    if (op === undefined) return first;
    const rules = [first];
    while (operatorOf(this.peek()) !== undefined) {
      if (operatorOf(this.peek()) !== op) this.fail('|| and && do not mix without parentheses');
      this.i++;
      rules.push(this.primary());
    }
    return { kind: op, rules };
  }

  private primary(): GcRule {
    const t = this.peek();
    if (t === undefined) this.fail('a rule is missing at the end');
    this.i++;
    if (t === '(') {
      const inner = this.expression();
      this.expect(')');
      return inner;
    }
    if (t === 'union' || t === 'intersection') {
      this.expect('(');
      const rules = [this.expression()];
      while (this.peek() === ',') {
        this.i++;
        rules.push(this.expression());
      }
      this.expect(')');
      return { kind: t, rules };
    }
    const versions = /^maxversions=(\d+)$/.exec(t);
    if (versions !== null) return { kind: 'maxVersions', versions: Number(versions[1]) };
    const age = /^maxage=(\d+)(d|h|m|s|ms|us)$/.exec(t);
    if (age !== null) return { kind: 'maxAge', maxAgeMicros: Number(age[1]) * AGE_UNITS[age[2]!]! };
    if (t.startsWith('maxage=')) this.fail(`"${t}": the age needs a unit (d, h, m, s, ms or us), such as maxage=7d`);
    return this.fail(`"${t}" is not a rule (maxversions=N, maxage=7d, never, union(...), intersection(...))`);
  }
}

function operatorOf(token: string | undefined): 'union' | 'intersection' | undefined {
  if (token === '||' || token === 'or') return 'union';
  if (token === '&&' || token === 'and') return 'intersection';
  return undefined;
}

/**
 * Whether `next` collects some cell that `current` keeps: a GC change that loses data, which apply asks about.
 * A rule's verdict on a cell depends only on its version rank n (1 = newest) and its age a, monotonically (an older
 * or lower-ranked cell is collected whenever a newer, higher-ranked one is), and only where n and a cross the
 * rules' thresholds; so testing one point of each region between thresholds decides the question exactly.
 */
export function collectsMore(current: GcRule | undefined, next: GcRule | undefined): boolean {
  if (next === undefined) return false;
  const versions = new Set<number>([1]);
  const ages = new Set<number>([0]);
  for (const r of [current, next]) if (r !== undefined) thresholds(r, versions, ages);
  for (const n of versions) for (const a of ages) if (collects(next, n, a) && !collects(current, n, a)) return true;
  return false;
}

function thresholds(rule: GcRule, versions: Set<number>, ages: Set<number>): void {
  if (rule.kind === 'maxVersions') versions.add(rule.versions + 1);
  else if (rule.kind === 'maxAge') ages.add(rule.maxAgeMicros + 1);
  else for (const r of rule.rules) thresholds(r, versions, ages);
}

/** Whether a rule collects the cell of version rank `n` and age `a` µs. */
function collects(rule: GcRule | undefined, n: number, a: number): boolean {
  if (rule === undefined) return false;
  switch (rule.kind) {
    case 'maxVersions':
      return n > rule.versions;
    case 'maxAge':
      return a > rule.maxAgeMicros;
    case 'union':
      return rule.rules.some((r) => collects(r, n, a));
    case 'intersection':
      return rule.rules.length > 0 && rule.rules.every((r) => collects(r, n, a));
  }
}
