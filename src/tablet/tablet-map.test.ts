import { describe, expect, it } from 'vitest';
import { isTabletopError } from '../model/errors.js';
import { FULL_RANGE } from '../model/key-range.js';
import { MemoryRowStore } from '../storage/memory/memory-store.js';
import { normalizeSplits } from './splits.js';
import { TabletMap } from './tablet-map.js';

function mapFor(splits: string[]): TabletMap {
  const records = TabletMap.recordsForSplits(normalizeSplits(splits), (i) => `s${i}`);
  const map = TabletMap.open(records, (id) => new MemoryRowStore(id));
  if (map instanceof Promise) throw new Error('memory stores open synchronously');
  return map;
}

const ids = (tablets: readonly { id: string }[]): string[] => tablets.map((t) => t.id);

describe('normalizeSplits', () => {
  it('sorts and dedupes split keys', () => {
    expect(normalizeSplits(['m', 'c', 'x', 'c'])).toEqual(['c', 'm', 'x']);
    expect(normalizeSplits(['\xff', '\x00', 'a'])).toEqual(['\x00', 'a', '\xff']);
  });

  it('rejects an empty key and keys longer than a row key', () => {
    expect(() => normalizeSplits(['a', ''])).toThrow(/must not be empty/);
    let error: unknown;
    try {
      normalizeSplits(['k'.repeat(4097)]);
    } catch (e) {
      error = e;
    }
    expect(isTabletopError(error, 'InvalidArgument')).toBe(true);
    expect(normalizeSplits(['k'.repeat(4096)])).toHaveLength(1);
  });
});

describe('TabletMap', () => {
  it('covers the key space with one tablet when there are no splits', () => {
    const map = mapFor([]);
    expect(map.size).toBe(1);
    expect(map.tablets[0]!.range).toEqual(FULL_RANGE);
    expect(map.locate('').id).toBe('s0');
    expect(map.locate('\xff\xff').id).toBe('s0');
  });

  it('cuts the key space at the splits', () => {
    const map = mapFor(['g', 'p']);
    expect(map.records()).toEqual([
      { id: 's0', start: '', end: 'g' },
      { id: 's1', start: 'g', end: 'p' },
      { id: 's2', start: 'p', end: undefined },
    ]);
    expect(map.locate('a').id).toBe('s0');
    expect(map.locate('f\xff').id).toBe('s0');
    expect(map.locate('g').id).toBe('s1');
    expect(map.locate('o').id).toBe('s1');
    expect(map.locate('p').id).toBe('s2');
    expect(map.locate('zzz').id).toBe('s2');
  });

  it('finds the tablets a range touches, with exclusive ends', () => {
    const map = mapFor(['g', 'p']);
    expect(ids(map.overlapping(FULL_RANGE))).toEqual(['s0', 's1', 's2']);
    expect(ids(map.overlapping({ start: 'a', end: 'b' }))).toEqual(['s0']);
    expect(ids(map.overlapping({ start: 'a', end: 'g' }))).toEqual(['s0']);
    expect(ids(map.overlapping({ start: 'a', end: 'g\x00' }))).toEqual(['s0', 's1']);
    expect(ids(map.overlapping({ start: 'g', end: 'p' }))).toEqual(['s1']);
    expect(ids(map.overlapping({ start: 'h', end: undefined }))).toEqual(['s1', 's2']);
    expect(ids(map.overlapping({ start: 'q', end: undefined }))).toEqual(['s2']);
    expect(ids(map.overlapping({ start: 'c', end: 'c' }))).toEqual([]);
  });

  it('refuses a tablet list that does not cover the key space', () => {
    const open = (records: { id: string; start: string; end: string | undefined }[]) => () =>
      TabletMap.open(records, (id) => new MemoryRowStore(id));
    expect(open([])).toThrow(/no tablets/);
    expect(open([{ id: 'a', start: 'x', end: undefined }])).toThrow(/empty key/);
    expect(open([{ id: 'a', start: '', end: 'm' }])).toThrow(/unbounded/);
    expect(
      open([
        { id: 'a', start: '', end: 'm' },
        { id: 'b', start: 'n', end: undefined },
      ]),
    ).toThrow(/does not start/);
  });

  it('opens stores through promises too', async () => {
    const records = TabletMap.recordsForSplits(['k'], (i) => `s${i}`);
    const map = await TabletMap.open(records, async (id) => new MemoryRowStore(id));
    expect(ids(map.tablets)).toEqual(['s0', 's1']);
  });
});
