import { describe, expect, it } from 'vitest';
import type { RowRange } from '../../model/key-range.js';
import { restrictSamples } from './sample-range.js';

const samples = [
  { key: 'c', offsetBytes: 100 },
  { key: 'f', offsetBytes: 250 },
  { key: 'm', offsetBytes: 400 },
  { key: '', offsetBytes: 600 },
];
const closed = (key: string) => ({ kind: 'closed', key }) as const;
const open = (key: string) => ({ kind: 'open', key }) as const;
const unbounded = { kind: 'unbounded' } as const;

describe('restrictSamples', () => {
  const cases: [string, RowRange, { key: string; offsetBytes: number }[]][] = [
    [
      'the whole table',
      { start: unbounded, end: unbounded },
      [
        { key: 'c', offsetBytes: 100 },
        { key: 'f', offsetBytes: 250 },
        { key: 'm', offsetBytes: 400 },
        { key: '', offsetBytes: 600 },
      ],
    ],
    [
      'a middle range ends with its end key',
      { start: closed('d'), end: open('k') },
      [
        { key: 'f', offsetBytes: 150 },
        { key: 'k', offsetBytes: 300 },
      ],
    ],
    [
      'a range starting on a sample excludes it',
      { start: closed('f'), end: unbounded },
      [
        { key: 'm', offsetBytes: 150 },
        { key: '', offsetBytes: 350 },
      ],
    ],
    ['a range with no samples inside', { start: open('m'), end: closed('n') }, [{ key: 'n', offsetBytes: 200 }]],
  ];
  it.each(cases)('%s', (_name, range, expected) => {
    expect(restrictSamples(samples, range)).toEqual(expected);
  });
});
