import { describe, expect, it } from 'vitest';
import { advise } from './advise.js';
import { NOW, WINDOW_MILLIS, diagnostic, ids, input, isoTimes, table, tablet, traffic } from './testing/builders.js';
import { RULE_IDS } from './types.js';

const tsFirst = isoTimes(10).flatMap((t) => ids('sensor', 5).map((s) => `${t}#${s}`));
const items = Array.from({ length: 30 }, (_, i) => `item${i + 1}`);
const hosts = ['www.example.com/a', 'www.example.com/b', 'shop.example.org/x', 'api.example.io/v1', 'www.test.io/index'];

describe('advise', () => {
  it('answers the instance, the time, the traffic window and the tables examined', () => {
    const keys = ids('k', 5);
    const advice = advise(input([table('a', keys, { traffic: traffic(keys, () => ({})) }), table('b', keys)]));
    expect(advice.instance).toBe('projects/p/instances/i');
    expect(advice.generatedAt).toBe(new Date(NOW).toISOString());
    expect(advice.window).toEqual({ from: new Date(NOW - WINDOW_MILLIS).toISOString(), to: new Date(NOW).toISOString() });
    expect(advice.tables).toEqual(['a', 'b']);
    expect(advise(input([table('b', keys)])).window).toEqual({ from: advice.generatedAt, to: advice.generatedAt });
  });

  it('sorts danger, warning, info, then by table, then in rule order', () => {
    const advice = advise(
      input([
        table('z', items),
        table('y', hosts),
        table('x', tsFirst, { writeOrder: tsFirst }),
        table('w', ['item1', 'item10', 'item2', 'item20', 'item3', ...hosts]),
      ]),
    );
    const rows = advice.findings.map((f) => [f.severity, f.table, f.rule]);
    expect(rows).toEqual([
      ['danger', 'x', 'timestamp-leading-key'],
      ['warning', 'w', 'unreversed-domain'],
      ['warning', 'y', 'unreversed-domain'],
      ['info', 'w', 'unpadded-number'],
      ['info', 'z', 'unpadded-number'],
    ]);
    const order = (rule: string): number => RULE_IDS.indexOf(rule as (typeof RULE_IDS)[number]);
    expect(order('unpadded-number')).toBeLessThan(order('unreversed-domain'));
  });

  it('keeps the table asked for only', () => {
    const advice = advise(input([table('z', items), table('y', hosts)], { only: 'y' }));
    expect(advice.tables).toEqual(['y']);
    expect(advice.findings.map((f) => f.table)).toEqual(['y']);
  });

  it("reports one cause once: a hot tablet made by timestamp-leading keys is the key rule's", () => {
    const tablets = [
      tablet('x', { start: '', end: tsFirst[25], requestsPerSec: 1 }),
      tablet('x', { start: tsFirst[25]!, requestsPerSec: 200 }),
    ];
    const rules = advise(input([table('x', tsFirst, { writeOrder: tsFirst, tablets })])).findings.map((f) => f.rule);
    expect(rules).toEqual(['timestamp-leading-key']);
    // New rows land in the last bucket one after another: not a hot row.
    const atEnd = traffic(tsFirst, (_, i) => ({ writeOps: i === tsFirst.length - 1 ? 1000 : 1 }));
    const growing = advise(input([table('x', tsFirst, { writeOrder: tsFirst, traffic: atEnd })])).findings.map((f) => f.rule);
    expect(growing).toEqual(['timestamp-leading-key']);
    const plain = ids('k', 50);
    const hot = [tablet('x', { start: '', end: 'k025', requestsPerSec: 1 }), tablet('x', { start: 'k025', requestsPerSec: 200 })];
    expect(advise(input([table('x', plain, { tablets: hot })])).findings.map((f) => f.rule)).toEqual(['hot-tablet']);
  });

  it('says nothing of empty tables, however many', () => {
    const empty = Array.from({ length: 12 }, (_, i) => table(`t${i + 1}`, [], { families: [] }));
    expect(advise(input(empty)).findings).toEqual([]);
    const noKeys = table('t', [], { diagnostics: [diagnostic('sequential_keys', {})], traffic: traffic([], () => ({})) });
    expect(advise(input([noKeys])).findings).toEqual([]);
  });

  it('takes thresholds from the caller', () => {
    const keys = ids('doc#', 10);
    expect(advise(input([table('t', keys)])).findings).toEqual([]);
    const f = advise(input([table('t', keys)]), { thresholds: { keyWarningBytes: 5 } }).findings;
    expect(f.map((x) => [x.rule, x.severity, x.evidence.threshold])).toEqual([['long-key', 'warning', 5]]);
  });
});
