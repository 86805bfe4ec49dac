import { describe, expect, it } from 'vitest';
import { SqlDate, SqlJson, SqlMap, SqlStruct, SqlTimestamp, type SqlValue } from '../types.js';
import { RowReader, RowWriter, estimatedSize } from './spill-codec.js';

const roundTrip = (rows: readonly (readonly SqlValue[])[]): SqlValue[][] => {
  const w = new RowWriter();
  for (const r of rows) w.writeRow(r);
  const r = new RowReader(w.take());
  const out: SqlValue[][] = [];
  for (let row = r.readRow(); row !== undefined; row = r.readRow()) out.push(row);
  expect(r.rest().length).toBe(0);
  return out;
};

describe('the spill codec', () => {
  it('round-trips every kind of value exactly', () => {
    const row: SqlValue[] = [
      null,
      true,
      false,
      0n,
      -(1n << 63n),
      (1n << 63n) - 1n,
      1n << 70n,
      -(1n << 80n),
      NaN,
      -0,
      0,
      Infinity,
      -Infinity,
      1.5e-310,
      Math.fround(0.1),
      '',
      'héllo \u0000 wörld 😀',
      new Uint8Array([]),
      new Uint8Array([0, 255, 1, 0]),
      new SqlTimestamp(-62135596800000000n),
      new SqlTimestamp(253402300799999999n),
      new SqlDate(-719162),
      new SqlDate(2932896),
      new SqlJson('{"a":[1,2,null]}'),
      new SqlStruct([1n, 'x', null, new SqlStruct([])]),
      new SqlMap([
        [new Uint8Array([1]), [new SqlStruct([new SqlTimestamp(5n), new Uint8Array([9])])]],
        [new Uint8Array([2]), null],
      ]),
      [],
      [null, 1n, [2n, [3n]]],
    ];
    const [back] = roundTrip([row]);
    expect(back).toEqual(row);
    // toEqual treats -0 and 0 alike in places and NaN loosely: check those bitwise, and the value kinds.
    expect(Object.is(back![9], -0)).toBe(true);
    expect(Object.is(back![10], 0)).toBe(true);
    expect(Number.isNaN(back![8])).toBe(true);
    expect(back!.map((v) => typeof v)).toEqual(row.map((v) => typeof v));
    expect(back![17]).toBeInstanceOf(Uint8Array);
    expect(back![18]).toBeInstanceOf(Uint8Array);
  });

  it('reads rows back to back, and nothing of a row cut short', () => {
    const rows = [[1n, 'a'], [], [null], [new Uint8Array(300)]];
    expect(roundTrip(rows)).toEqual(rows);
    const w = new RowWriter();
    w.writeRow(['a long enough string']);
    const bytes = w.take();
    for (let cut = 0; cut < bytes.length; cut++) {
      const r = new RowReader(bytes.subarray(0, cut));
      expect(r.readRow()).toBeUndefined();
      expect(r.rest().length).toBe(cut);
    }
  });

  it('estimates sizes that grow with the value', () => {
    expect(estimatedSize('x'.repeat(1000))).toBeGreaterThan(2000);
    expect(estimatedSize(new Uint8Array(1000))).toBeGreaterThan(1000);
    expect(estimatedSize([1n, 2n, 3n])).toBeGreaterThan(estimatedSize([1n]));
  });
});
