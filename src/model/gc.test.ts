import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import path from 'node:path';
import { createRequire } from 'node:module';
import protobuf from 'protobufjs';
import { cell, type Cell } from './cell.js';
import type { GcRule } from './gc-rule.js';
import { collectColumn, describeGcRule, gcRuleEncodedSize, gcRuleEquals, validateGcRule } from './gc.js';
import { isTabletopError } from './errors.js';

const MS = 1000;
const DAY = 86_400_000_000;
const NOW = Date.UTC(2026, 0, 1) * 1000;

const versions = (n: number): GcRule => ({ kind: 'maxVersions', versions: n });
const age = (micros: number): GcRule => ({ kind: 'maxAge', maxAgeMicros: micros });
const union = (...rules: GcRule[]): GcRule => ({ kind: 'union', rules });
const intersection = (...rules: GcRule[]): GcRule => ({ kind: 'intersection', rules });

/** Versions of one column, newest first, at the given ages (µs before NOW). */
function column(...ages: number[]): Cell[] {
  return [...ages].sort((a, b) => a - b).map((a) => cell('f', 'q', NOW - a, new Uint8Array([a % 251])));
}

/** The reference semantics, cell by cell: is the i-th newest version collectable? */
function collects(rule: GcRule, index: number, timestamp: number, now: number): boolean {
  switch (rule.kind) {
    case 'maxVersions':
      return index >= rule.versions;
    case 'maxAge':
      return timestamp < now - rule.maxAgeMicros;
    case 'union':
      return rule.rules.some((r) => collects(r, index, timestamp, now));
    case 'intersection':
      return rule.rules.length > 0 && rule.rules.every((r) => collects(r, index, timestamp, now));
  }
}

const ruleArb: fc.Arbitrary<GcRule> = fc.letrec<{ rule: GcRule }>((tie) => ({
  rule: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.integer({ min: 1, max: 6 }).map(versions),
    fc.integer({ min: 1, max: 10 }).map((d) => age(d * MS)),
    fc.array(tie('rule'), { minLength: 1, maxLength: 3 }).map((rs) => union(...rs)),
    fc.array(tie('rule'), { minLength: 1, maxLength: 3 }).map((rs) => intersection(...rs)),
  ),
})).rule;

const columnArb = fc.uniqueArray(fc.integer({ min: 0, max: 12 * MS }), { maxLength: 12 }).map((ages) => column(...ages));

describe('collectColumn', () => {
  it('keeps everything without a rule, and returns the same array', () => {
    const c = column(0, 5 * MS, 10 * DAY);
    expect(collectColumn(undefined, c, NOW)).toBe(c);
    expect(collectColumn(versions(3), c, NOW)).toBe(c);
  });

  it('maxVersions keeps the n newest', () => {
    const c = column(0, 1, 2, 3);
    expect(collectColumn(versions(2), c, NOW)).toEqual(c.slice(0, 2));
  });

  it('maxAge collects versions older than now - age, keeping one exactly at the cutoff', () => {
    const c = column(0, DAY - 1, DAY, DAY + 1, 3 * DAY);
    expect(collectColumn(age(DAY), c, NOW)).toEqual(c.slice(0, 3));
  });

  it('a union collects what any rule collects', () => {
    const c = column(0, 1, 2 * DAY, 3 * DAY);
    expect(collectColumn(union(versions(3), age(DAY)), c, NOW)).toEqual(c.slice(0, 2));
  });

  it('an intersection collects only what every rule collects (Cloud Bigtable, not the emulator)', () => {
    // maxVersions(2) ∩ maxAge(1d): keep the 2 newest AND anything younger than a day.
    const young = column(0, MS, 2 * MS, 3 * MS);
    expect(collectColumn(intersection(versions(2), age(DAY)), young, NOW)).toBe(young);
    const old = column(2 * DAY, 3 * DAY, 4 * DAY);
    expect(collectColumn(intersection(versions(2), age(DAY)), old, NOW)).toEqual(old.slice(0, 2));
    const mixed = column(0, MS, 2 * MS, 2 * DAY, 3 * DAY);
    expect(collectColumn(intersection(versions(2), age(DAY)), mixed, NOW)).toEqual(mixed.slice(0, 3));
  });

  it('empty unions and intersections collect nothing', () => {
    const c = column(0, 2 * DAY);
    expect(collectColumn(union(), c, NOW)).toBe(c);
    expect(collectColumn(intersection(), c, NOW)).toBe(c);
  });

  it('agrees with the cell-by-cell definition (property)', () => {
    fc.assert(
      fc.property(ruleArb, columnArb, (rule, c) => {
        const expected = c.filter((x, i) => !collects(rule, i, x.timestamp, NOW));
        expect(collectColumn(rule, c, NOW)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('survivors are a prefix of the input, and collecting twice changes nothing (property)', () => {
    fc.assert(
      fc.property(ruleArb, columnArb, (rule, c) => {
        const once = collectColumn(rule, c, NOW);
        once.forEach((x, i) => expect(x).toBe(c[i]));
        expect(collectColumn(rule, once, NOW)).toBe(once);
      }),
      { numRuns: 500 },
    );
  });

  it('union and intersection laws (property)', () => {
    const same = (a: GcRule, b: GcRule, c: Cell[]): void => expect(collectColumn(a, c, NOW)).toEqual(collectColumn(b, c, NOW));
    fc.assert(
      fc.property(ruleArb, ruleArb, ruleArb, columnArb, (a, b, d, c) => {
        same(union(a, b), union(b, a), c); // commutative
        same(intersection(a, b), intersection(b, a), c);
        same(union(a, union(b, d)), union(union(a, b), d), c); // associative
        same(intersection(a, intersection(b, d)), intersection(intersection(a, b), d), c);
        same(union(a, a), a, c); // idempotent
        same(intersection(a, a), a, c);
        same(union(a, intersection(a, b)), a, c); // absorption
        same(intersection(a, union(a, b)), a, c);
        same(union(a, intersection(b, d)), intersection(union(a, b), union(a, d)), c); // distributive
        // A union keeps the common survivors; an intersection keeps either's.
        const ka = collectColumn(a, c, NOW).length;
        const kb = collectColumn(b, c, NOW).length;
        expect(collectColumn(union(a, b), c, NOW).length).toBe(Math.min(ka, kb));
        expect(collectColumn(intersection(a, b), c, NOW).length).toBe(Math.max(ka, kb));
      }),
      { numRuns: 300 },
    );
  });
});

describe('validateGcRule', () => {
  const invalid = (rule: GcRule): string => {
    try {
      validateGcRule(rule);
    } catch (e) {
      if (isTabletopError(e, 'InvalidArgument')) return e.message;
      throw e;
    }
    throw new Error(`expected ${describeGcRule(rule)} to be rejected`);
  };

  it('accepts ordinary rules', () => {
    for (const r of [versions(1), age(MS), age(1500), age(7 * DAY), union(versions(2), age(DAY)), intersection(versions(1))]) {
      expect(() => validateGcRule(r)).not.toThrow();
    }
  });

  it('rejects max_num_versions below 1 and max_age below 1 ms', () => {
    expect(invalid(versions(0))).toBe('Invalid GC rule: max_num_versions must be an integer from 1 to 2147483647, got 0');
    expect(invalid(versions(2 ** 31))).toMatch(/max_num_versions/);
    expect(invalid(age(999))).toBe('Invalid GC rule: max_age must be at least 1ms, got 999µs');
    expect(invalid(age(0))).toMatch(/got 0ms/);
    expect(invalid(union(versions(1), age(-MS)))).toMatch(/max_age/);
  });

  it('rejects empty unions and intersections, however deep', () => {
    expect(invalid(union())).toBe('Invalid GC rule: a union must contain at least one rule');
    expect(invalid(union(versions(1), intersection()))).toBe('Invalid GC rule: an intersection must contain at least one rule');
  });

  it('rejects rules over 500 bytes serialized, including absurd nesting, without deep recursion', () => {
    const wide = union(...Array.from({ length: 130 }, (_, i) => versions(i + 1)));
    expect(gcRuleEncodedSize(wide)).toBeGreaterThan(500);
    expect(invalid(wide)).toBe('Invalid GC rule: it takes more than 500 bytes serialized (limit 500)');
    let deep: GcRule = versions(1);
    for (let i = 0; i < 100_000; i++) deep = union(deep);
    expect(invalid(deep)).toMatch(/more than 500 bytes/);
    const fits = union(...Array.from({ length: 100 }, () => versions(1)));
    expect(gcRuleEncodedSize(fits)).toBe(403);
    expect(() => validateGcRule(fits)).not.toThrow();
  });
});

describe('gcRuleEncodedSize', () => {
  const root = new protobuf.Root();
  const protos = path.dirname(createRequire(import.meta.url).resolve('google-proto-files/package.json'));
  root.resolvePath = (_origin, target) => path.join(protos, target);
  root.loadSync('google/bigtable/admin/v2/table.proto', { keepCase: true });
  const GcRuleProto = root.lookupType('google.bigtable.admin.v2.GcRule');

  const toProto = (r: GcRule): object => {
    switch (r.kind) {
      case 'maxVersions':
        return { max_num_versions: r.versions };
      case 'maxAge':
        return { max_age: { seconds: Math.trunc(r.maxAgeMicros / 1e6), nanos: (r.maxAgeMicros % 1e6) * 1000 } };
      case 'union':
        return { union: { rules: r.rules.map(toProto) } };
      case 'intersection':
        return { intersection: { rules: r.rules.map(toProto) } };
    }
  };

  const wideRuleArb: fc.Arbitrary<GcRule> = fc.letrec<{ rule: GcRule }>((tie) => ({
    rule: fc.oneof(
      { depthSize: 'small' },
      fc.integer({ min: 1, max: 2 ** 31 - 1 }).map(versions),
      fc.integer({ min: 1, max: 2 ** 52 }).map((us) => age(us)),
      fc.array(tie('rule'), { maxLength: 4 }).map((rs) => union(...rs)),
      fc.array(tie('rule'), { maxLength: 4 }).map((rs) => intersection(...rs)),
    ),
  })).rule;

  it('equals the size of the google.bigtable.admin.v2.GcRule protobuf encoding (property)', () => {
    fc.assert(
      fc.property(wideRuleArb, (rule) => {
        const encoded = GcRuleProto.encode(GcRuleProto.fromObject(toProto(rule))).finish();
        expect(gcRuleEncodedSize(rule)).toBe(encoded.length);
      }),
      { numRuns: 500 },
    );
  });
});

describe('gcRuleEquals and describeGcRule', () => {
  it('compares structurally', () => {
    expect(gcRuleEquals(union(versions(2), age(DAY)), union(versions(2), age(DAY)))).toBe(true);
    expect(gcRuleEquals(union(versions(2), age(DAY)), intersection(versions(2), age(DAY)))).toBe(false);
    expect(gcRuleEquals(union(versions(2)), union(versions(2), versions(2)))).toBe(false);
    expect(gcRuleEquals(undefined, undefined)).toBe(true);
    expect(gcRuleEquals(versions(1), undefined)).toBe(false);
  });

  it('prints like cbt', () => {
    expect(describeGcRule(undefined)).toBe('<never>');
    expect(describeGcRule(versions(2))).toBe('versions() > 2');
    expect(describeGcRule(union(versions(2), age(7 * DAY)))).toBe('(versions() > 2 || age() > 7d)');
    expect(describeGcRule(intersection(age(36 * 3_600_000_000), age(90 * 60_000_000)))).toBe('(age() > 36h && age() > 90m)');
    expect(describeGcRule(age(90_000_000))).toBe('age() > 90s');
    expect(describeGcRule(age(1500 * MS))).toBe('age() > 1500ms');
    expect(describeGcRule(age(1500))).toBe('age() > 1500us');
  });
});
