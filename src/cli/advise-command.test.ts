import { describe, expect, it } from 'vitest';
import type { AdviceJson, Finding } from '../insight/advisor/types.js';
import { renderAdvice } from './advise-command.js';

const finding = (over: Partial<Finding>): Finding => ({
  rule: 'timestamp-leading-key',
  severity: 'warning',
  table: 'events',
  message: 'Keys start with a timestamp.',
  evidence: {},
  suggestion: '2023-05-01T12:00:00Z#sensor123 → sensor123#2023-05-01T12:00:00Z',
  ...over,
});

const advice = (findings: Finding[], over: Partial<AdviceJson> = {}): AdviceJson => ({
  instance: 'projects/p/instances/i',
  generatedAt: '2026-11-27T08:15:00.000Z',
  window: { from: '2026-11-27T08:00:00.000Z', to: '2026-11-27T08:15:00.000Z' },
  tables: ['counters', 'events'],
  findings,
  ...over,
});

describe('tabletop advise output', () => {
  it('groups findings by severity, danger first, each with its message, evidence, suggestion and what-if', () => {
    const out = renderAdvice(
      advice([
        finding({
          rule: 'hot-row',
          severity: 'danger',
          table: 'counters',
          message: 'One row takes 92% of the writes.',
          evidence: {
            rowKey: 'page#home',
            share: 0.92,
            sampleKeys: ['a', 'b'],
            long: Array.from({ length: 12 }, (_, i) => `key-number-${i}`),
          },
          suggestion: 'Buffer the increments.',
        }),
        finding({ simulate: 'delimiter=#,promote:2', evidence: { keysSampled: 1000 } }),
        finding({ rule: 'hashed-key', severity: 'info', message: 'Maybe hashed keys.' }),
      ]),
    ).split('\n');
    expect(out).toEqual([
      'DANGER (1)',
      '',
      '[hot-row] counters',
      '  One row takes 92% of the writes.',
      '  Evidence:',
      '    rowKey: page#home',
      '    share: 0.92',
      '    sampleKeys: a, b',
      '    long: key-number-0, key-number-1, key-number-2, key-number-3, key-number-4, key-number-5,',
      '      key-number-6, key-number-7, key-number-8, key-number-9, key-number-10, key-number-11',
      '  Suggestion: Buffer the increments.',
      '',
      'WARNING (1)',
      '',
      '[timestamp-leading-key] events',
      '  Keys start with a timestamp.',
      '  Evidence:',
      '    keysSampled: 1000',
      '  Suggestion: 2023-05-01T12:00:00Z#sensor123 → sensor123#2023-05-01T12:00:00Z',
      "  Try it: tabletop advise --table events --simulate 'delimiter=#,promote:2'",
      '',
      'INFO (1)',
      '',
      '[hashed-key] events',
      '  Maybe hashed keys.',
      '  Suggestion: 2023-05-01T12:00:00Z#sensor123 → sensor123#2023-05-01T12:00:00Z',
      '',
      '3 findings for 2 tables of projects/p/instances/i: 1 danger, 1 warning, 1 info (traffic 08:00:00 to 08:15:00 UTC).',
    ]);
  });

  it('wraps long messages at 100 columns; says when there is nothing, and prints the notes', () => {
    const long = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    const out = renderAdvice(advice([finding({ message: long })])).split('\n');
    const body = out.filter((l) => l.includes('word'));
    expect(body.length).toBeGreaterThan(2);
    expect(body.every((l) => l.length <= 100 && l.startsWith('  word'))).toBe(true);
    expect(body.join(' ').replace(/\s+/g, ' ').trim()).toBe(long);

    const none = renderAdvice(advice([], { tables: ['events'], notes: ['recording is off (--insight off): traffic rules said nothing'] }));
    expect(none.split('\n')).toEqual([
      'Note: recording is off (--insight off): traffic rules said nothing',
      '',
      'No findings for 1 table of projects/p/instances/i (traffic 08:00:00 to 08:15:00 UTC).',
    ]);
  });
});
