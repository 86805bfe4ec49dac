import { describe, expect, it } from 'vitest';
import { bar, renderSimulation, wrap } from './render.js';
import { simulate } from './simulate.js';
import { bucketsOver, tableSample, timestampLeading } from './testing/table-samples.js';

describe('renderSimulation', () => {
  it('shows the keys before → after, each node before and after with bars, the busiest tablets and the verdict', () => {
    const keys = timestampLeading(40, 25);
    const s = simulate(
      tableSample({ keys, writeOrder: keys.slice(-256), buckets: bucketsOver(keys, 20, () => ({ writeOps: 500 })) }),
      'promote:2',
      {
        nodes: 3,
      },
    );
    const lines = renderSimulation(s).split('\n');
    expect(lines[0]).toBe('What if table t used promote:2?');
    const description = lines.slice(1, lines.indexOf(''));
    expect(description.join(' ')).toBe(s.description);
    for (const l of description) expect(l.length).toBeLessThanOrEqual(100);
    expect(lines).toContain('  2023-05-01T12:00:00Z#sensor00  →  sensor00#2023-05-01T12:00:00Z');
    const header = lines.findIndex((l) => l.startsWith('NODE'));
    expect(lines[header - 1]).toMatch(/^\s+BEFORE\s+AFTER$/);
    expect(lines[header]).toMatch(/^NODE\s+TABLETS\s+BYTES\s+OPS\s+TABLETS\s+BYTES\s+OPS$/);
    for (const n of [0, 1, 2]) {
      const row = lines[header + 1 + n]!;
      const b = s.before.nodes[n]!;
      const a = s.after.nodes[n]!;
      expect(row.startsWith(`${n} `)).toBe(true);
      expect(row).toContain(`${bar(b.share)} ${Math.round(b.share * 100)}%`);
      expect(row).toContain(`${bar(a.share)} ${Math.round(a.share * 100)}%`);
    }
    expect(lines[header + 4]).toMatch(
      new RegExp(`^max\\s+${s.before.tablets.length}\\s+${Math.round(s.before.maxNodeShare * 100)}%\\s+${s.after.tablets.length}\\s+`),
    );
    const busiest = lines.indexOf('Busiest tablets before:');
    expect(lines[busiest + 1]).toMatch(/^\s+\d+%\s+node \d\s+\[2023-05-01T12:0.*, \(end\)\)$/);
    expect(lines).toContain('Busiest tablets after:');
    expect(lines.slice(lines.lastIndexOf('') + 1).join(' ')).toBe(s.verdict);
  });

  it('wraps text at spaces', () => {
    expect(wrap('aa bb cc dd', 5)).toEqual(['aa bb', 'cc dd']);
    expect(wrap('a verylongword b', 4)).toEqual(['a', 'verylongword', 'b']);
    expect(wrap('', 10)).toEqual([]);
  });

  it('draws shares as bars of 20 cells in eighths', () => {
    expect(bar(0)).toBe(' '.repeat(20));
    expect(bar(0.5)).toBe('█'.repeat(10) + ' '.repeat(10));
    expect(bar(1)).toBe('█'.repeat(20));
    expect(bar(1 / 160)).toBe('▏' + ' '.repeat(19));
    expect(bar(0.3 + 3 / 160)).toBe('██████▍' + ' '.repeat(13));
  });
});
