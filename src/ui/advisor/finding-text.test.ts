import { describe, expect, it } from 'vitest';
import type { Finding } from '../../insight/advisor/types.js';
import { adviceSummary, evidenceRows, firstSentence, groupBySeverity, textParts, words, worstSeverity } from './finding-text.js';

function finding(rule: Finding['rule'], severity: Finding['severity'], table = 't'): Finding {
  return { rule, severity, table, message: '', evidence: {}, suggestion: '' };
}

describe('a finding as the Advisor page shows it', () => {
  it('reads evidence names as words and shows keys, shares, sizes and counts', () => {
    expect(words('sampleKeys')).toBe('sample keys');
    expect(words('max_versions')).toBe('max versions');
    expect(
      evidenceRows({
        sampleKeys: ['2023-05-01T12:00:00Z#sensor1', '2023-05-01T12:00:01Z#sensor2'],
        share: 0.873,
        keysSampled: 1000,
        maxRowBytes: 150 * 1024 * 1024,
        counterLike: true,
        threshold: 'share > 0.5',
      }),
    ).toEqual([
      { label: 'sample keys', kind: 'keys', values: ['2023-05-01T12:00:00Z#sensor1', '2023-05-01T12:00:01Z#sensor2'] },
      { label: 'share', kind: 'text', values: ['87.3%'] },
      // A count of keys is a number, not a key.
      { label: 'keys sampled', kind: 'text', values: ['1,000'] },
      { label: 'max row bytes', kind: 'text', values: ['150.0 MiB'] },
      { label: 'counter like', kind: 'text', values: ['yes'] },
      { label: 'threshold', kind: 'text', values: ['share > 0.5'] },
    ]);
  });

  it('splits a suggestion into prose, backquoted keys and arrows', () => {
    expect(textParts('Put the sensor first: `2023-05-01T12:00:00Z#sensor123` → `sensor123#2023-05-01T12:00:00Z`.')).toEqual([
      { text: 'Put the sensor first: ' },
      { text: '2023-05-01T12:00:00Z#sensor123', key: true },
      { text: '→', arrow: true },
      { text: 'sensor123#2023-05-01T12:00:00Z', key: true },
      { text: '.' },
    ]);
    expect(textParts('a -> b, an unclosed ` quote')).toEqual([
      { text: 'a' },
      { text: '→', arrow: true },
      { text: 'b, an unclosed ` quote' },
    ]);
    expect(textParts('')).toEqual([]);
  });

  it('groups by severity, danger first, and says what was examined', () => {
    const findings = [
      finding('hot-row', 'info'),
      finding('timestamp-leading-key', 'danger'),
      finding('long-key', 'warning'),
      finding('pii-in-key', 'warning'),
    ];
    expect(groupBySeverity(findings).map((g) => [g.severity, g.findings.map((f) => f.rule)])).toEqual([
      ['danger', ['timestamp-leading-key']],
      ['warning', ['long-key', 'pii-in-key']],
      ['info', ['hot-row']],
    ]);
    expect(adviceSummary({ tables: Array.from({ length: 12 }, (_, i) => `t${i}`), findings: [] })).toBe('12 tables examined, no findings');
    expect(adviceSummary({ tables: ['t'], findings })).toBe('1 table examined: 1 danger, 2 warnings, 1 info');
    expect(adviceSummary({ tables: [], findings: [] })).toBe('0 tables examined, no findings');
    expect(worstSeverity(findings)).toBe('danger');
    expect(worstSeverity([finding('hot-row', 'info')])).toBe('info');
    expect(worstSeverity([])).toBeUndefined();
  });

  it("splits the what-if's description after its first sentence", () => {
    expect(
      firstSentence(
        'Keys cut on ".": move segment 2 to the front. Replayed on 3 nodes: 600 keys over 36 rounds of 5 s. Tablets split past 13.9 KiB.',
      ),
    ).toEqual({
      first: 'Keys cut on ".": move segment 2 to the front.',
      rest: 'Replayed on 3 nodes: 600 keys over 36 rounds of 5 s. Tablets split past 13.9 KiB.',
    });
    expect(firstSentence('salt into 8 buckets')).toEqual({ first: 'salt into 8 buckets', rest: '' });
  });
});
