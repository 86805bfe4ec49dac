import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GcRule } from '../model/gc-rule.js';
import { collectColumn } from '../model/gc.js';
import type { Cell } from '../model/cell.js';
import { GcRuleSyntaxError, collectsMore, formatGcRule, parseGcRule } from './gc-rule-text.js';

const ruleArb: fc.Arbitrary<GcRule> = fc.letrec<{ rule: GcRule }>((tie) => ({
  rule: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.integer({ min: 1, max: 1000 }).map((versions): GcRule => ({ kind: 'maxVersions', versions })),
    fc
      .oneof(
        fc.integer({ min: 1000, max: 10 ** 12 }),
        fc.integer({ min: 1, max: 400 }).map((d) => d * 86_400_000_000),
      )
      .map((maxAgeMicros): GcRule => ({ kind: 'maxAge', maxAgeMicros })),
    fc.array(tie('rule'), { minLength: 1, maxLength: 3 }).map((rules): GcRule => ({ kind: 'union', rules })),
    fc.array(tie('rule'), { minLength: 1, maxLength: 3 }).map((rules): GcRule => ({ kind: 'intersection', rules })),
  ),
})).rule;

describe('GC rule text', () => {
  it('writes each shape readably', () => {
    const v = (versions: number): GcRule => ({ kind: 'maxVersions', versions });
    const a = (maxAgeMicros: number): GcRule => ({ kind: 'maxAge', maxAgeMicros });
    expect(formatGcRule(undefined)).toBe('never');
    expect(formatGcRule(v(3))).toBe('maxversions=3');
    expect(formatGcRule(a(7 * 86_400_000_000))).toBe('maxage=7d');
    expect(formatGcRule(a(1_500_000))).toBe('maxage=1500ms');
    expect(formatGcRule({ kind: 'union', rules: [v(2), a(3_600_000_000)] })).toBe('maxversions=2 || maxage=1h');
    expect(formatGcRule({ kind: 'intersection', rules: [v(2), a(60_000_000)] })).toBe('maxversions=2 && maxage=1m');
    expect(formatGcRule({ kind: 'union', rules: [v(1)] })).toBe('union(maxversions=1)');
    expect(formatGcRule({ kind: 'union', rules: [{ kind: 'intersection', rules: [v(5), a(1000)] }, v(10)] })).toBe(
      '(maxversions=5 && maxage=1ms) || maxversions=10',
    );
    expect(formatGcRule({ kind: 'union', rules: [v(1), { kind: 'union', rules: [v(2), v(3)] }] })).toBe(
      'maxversions=1 || (maxversions=2 || maxversions=3)',
    );
  });

  it('reads back every rule it writes as the same tree (every shape, nested)', () => {
    fc.assert(
      fc.property(fc.option(ruleArb, { nil: undefined }), (rule) => {
        expect(parseGcRule(formatGcRule(rule))).toEqual(rule);
      }),
      { numRuns: 500 },
    );
  });

  it("reads cbt's and/or words, any case and spacing, and units from us to d", () => {
    expect(parseGcRule('MaxVersions=2 or maxage=30s')).toEqual({
      kind: 'union',
      rules: [
        { kind: 'maxVersions', versions: 2 },
        { kind: 'maxAge', maxAgeMicros: 30_000_000 },
      ],
    });
    expect(parseGcRule('intersection( maxage=1500us , maxversions=1 )')).toEqual({
      kind: 'intersection',
      rules: [
        { kind: 'maxAge', maxAgeMicros: 1500 },
        { kind: 'maxVersions', versions: 1 },
      ],
    });
  });

  it('refuses what is not a rule, saying why', () => {
    const bad = (text: string, why: RegExp): void => {
      expect(() => parseGcRule(text)).toThrow(GcRuleSyntaxError);
      expect(() => parseGcRule(text)).toThrow(why);
    };
    bad('maxversions=1 || maxversions=2 && maxage=1d', /do not mix without parentheses/);
    bad('maxage=7', /needs a unit/);
    bad('maxversions=0', /max_num_versions must be an integer from 1/);
    bad('maxage=10us', /max_age must be at least/);
    bad('(maxversions=1', /expected "\)" at the end/);
    bad('maxversions=1 ||', /missing at the end/);
    bad('keep=3', /is not a rule/);
    bad('maxversions=1 maxversions=2', /unexpected "maxversions=2"/);
    bad('maxversions=1; drop', /unexpected ";/);
  });
});

describe('collectsMore', () => {
  const p = (t: string): GcRule | undefined => parseGcRule(t);
  it.each([
    ['never', 'maxversions=1', true],
    ['maxversions=1', 'never', false],
    ['maxversions=3', 'maxversions=2', true],
    ['maxversions=2', 'maxversions=3', false],
    ['maxage=7d', 'maxage=1d', true],
    ['maxage=1d', 'maxage=7d', false],
    ['maxversions=2', 'maxversions=2 && maxage=1d', false],
    ['maxversions=2 && maxage=1d', 'maxversions=2', true],
    ['maxversions=2', 'maxversions=2 || maxage=1d', true],
    ['maxversions=2 || maxage=1d', 'maxage=1d || maxversions=2', false],
    ['maxversions=2 || maxage=1d', 'union(maxversions=2)', false],
    ['(maxversions=5 && maxage=1h) || maxversions=10', 'maxversions=10', false],
    ['maxversions=10', '(maxversions=5 && maxage=1h) || maxversions=10', true],
  ])('%s -> %s: %s', (from, to, more) => {
    expect(collectsMore(p(from), p(to))).toBe(more);
  });

  it('agrees with the GC itself on random columns', () => {
    const now = 10 ** 13;
    fc.assert(
      fc.property(
        fc.option(ruleArb, { nil: undefined }),
        fc.option(ruleArb, { nil: undefined }),
        fc.array(fc.integer({ min: 0, max: 10 ** 12 }), { minLength: 1, maxLength: 30 }),
        (from, to, ages) => {
          const cells = [...new Set(ages)]
            .sort((a, b) => a - b)
            .map((age): Cell => ({ family: 'f', qualifier: 'q', timestamp: now - age, value: new Uint8Array(), labels: [] }));
          const keptBefore = collectColumn(from, cells, now).length;
          const keptAfter = collectColumn(to, cells, now).length;
          // A column that the new rule keeps fewer versions of than the old one is a witness that it collects more.
          if (keptAfter < keptBefore) expect(collectsMore(from, to)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});
