import { describe, expect, it } from 'vitest';
import { ChunkMerger } from './table-cells.js';

const b = (s: string): Buffer => Buffer.from(s);

describe('ChunkMerger', () => {
  it('carries key, family and qualifier over, joins split values and commits rows', () => {
    const m = new ChunkMerger();
    expect(
      m.push({
        rowKey: b('r1'),
        familyName: { value: 'cf' },
        qualifier: { value: b('a') },
        timestampMicros: 2000,
        value: b('he'),
        valueSize: 5,
      }),
    ).toBeUndefined();
    expect(m.push({ value: b('llo'), valueSize: 0 })).toBeUndefined();
    expect(m.push({ timestampMicros: '1000', value: b('old') })).toBeUndefined();
    const row = m.push({ qualifier: { value: b('b') }, timestampMicros: 0, value: b(''), commitRow: true });
    expect(row?.key).toEqual(b('r1'));
    expect(row?.cells.map((c) => [c.family, c.qualifier.toString(), c.timestamp, c.value.toString()])).toEqual([
      ['cf', 'a', '2000', 'hello'],
      ['cf', 'a', '1000', 'old'],
      ['cf', 'b', '0', ''],
    ]);
  });

  it('drops the cells of a reset row', () => {
    const m = new ChunkMerger();
    m.push({ rowKey: b('r1'), familyName: { value: 'cf' }, qualifier: { value: b('a') }, timestampMicros: 1, value: b('x') });
    expect(m.push({ resetRow: true })).toBeUndefined();
    const row = m.push({
      rowKey: b('r1'),
      familyName: { value: 'cf' },
      qualifier: { value: b('a') },
      timestampMicros: 2,
      value: b('y'),
      commitRow: true,
    });
    expect(row?.cells.map((c) => c.value.toString())).toEqual(['y']);
  });
});
