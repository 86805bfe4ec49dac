import { describe, expect, it } from 'vitest';
import { fixtureHeatmap, FIXTURE } from '../testing/fixtures.js';
import { blockBetween, blockOfRange, blockRect, cellAt, cellCentre, drawnCellAt, timeTicks, type Grid } from './grid.js';

const grid: Grid = { columns: 10, rows: 4, width: 500, height: 400 };

describe('cellAt', () => {
  it('finds the cell under a point, row 0 on top', () => {
    expect(cellAt(grid, 0, 0)).toEqual({ column: 0, row: 0 });
    expect(cellAt(grid, 49.9, 99.9)).toEqual({ column: 0, row: 0 });
    expect(cellAt(grid, 50, 100)).toEqual({ column: 1, row: 1 });
    expect(cellAt(grid, 499.9, 399.9)).toEqual({ column: 9, row: 3 });
  });

  it('is undefined outside the grid or on an empty one', () => {
    expect(cellAt(grid, -1, 10)).toBeUndefined();
    expect(cellAt(grid, 500, 10)).toBeUndefined();
    expect(cellAt(grid, 10, 400)).toBeUndefined();
    expect(cellAt({ ...grid, rows: 0 }, 10, 10)).toBeUndefined();
  });

  it('inverts cellCentre on every cell', () => {
    for (let column = 0; column < 10; column++)
      for (let row = 0; row < 4; row++) {
        const p = cellCentre(grid, { column, row });
        expect(cellAt(grid, p.x, p.y)).toEqual({ column, row });
      }
  });
});

describe('blockBetween and blockRect', () => {
  it('orders a drag in any direction and clamps it to the grid', () => {
    const block = { column0: 1, column1: 3, row0: 1, row1: 2 };
    expect(blockBetween(grid, 60, 120, 170, 250)).toEqual(block);
    expect(blockBetween(grid, 170, 250, 60, 120)).toEqual(block);
    expect(blockBetween(grid, -50, -50, 1000, 1000)).toEqual({ column0: 0, column1: 9, row0: 0, row1: 3 });
    expect(blockRect(grid, block)).toEqual({ x: 50, y: 100, w: 150, h: 200 });
  });
});

describe('blockOfRange', () => {
  const h = fixtureHeatmap('write_ops');
  it('covers the buckets overlapping [start, end) and the columns overlapping [from, to)', () => {
    const b = h.buckets;
    const keyRange = { start: b[10]!.start, end: b[20]!.start };
    const timeRange = { from: h.times[5]!, to: h.times[9]! };
    expect(blockOfRange(h, keyRange, timeRange)).toEqual({ column0: 5, column1: 8, row0: 10, row1: 19 });
  });

  it('takes the open ends: a range to the end of the table, a start inside a bucket, a window across the view', () => {
    const mid = btoa(`${h.buckets[30]!.startText}5`);
    const last = FIXTURE.buckets - 1;
    expect(blockOfRange(h, { start: mid, end: null }, { from: '2000-01-01T00:00:00Z', to: '2100-01-01T00:00:00Z' })).toEqual({
      column0: 0,
      column1: FIXTURE.columns - 1,
      row0: 30,
      row1: last,
    });
  });

  it('is undefined outside the view', () => {
    expect(blockOfRange(h, { start: btoa('a'), end: btoa('b') }, { from: h.from, to: h.to })).toBeUndefined();
    expect(blockOfRange(h, { start: '', end: null }, { from: '2000-01-01T00:00:00Z', to: '2000-01-02T00:00:00Z' })).toBeUndefined();
  });
});

describe('timeTicks', () => {
  it('labels at most max evenly spaced columns', () => {
    expect(timeTicks(grid, 4).map((t) => t.column)).toEqual([0, 3, 6, 9]);
    expect(timeTicks(grid, 100)).toHaveLength(10);
    expect(timeTicks(grid, 4)[0]!.x).toBe(25);
  });
});

describe('drawnCellAt', () => {
  const g: Grid = { columns: 2, rows: 1000, width: 100, height: 100 };
  const values = [Array.from({ length: 1000 }, (_, r) => (r === 737 ? 9 : r === 12 ? null : 1)), Array.from({ length: 1000 }, () => null)];

  it('answers the brightest cell of the pixel when cells outnumber pixels (what the pixel shows)', () => {
    // 100 pixel rows for 1000 buckets: the pixel of bucket 737's centre is 73, holding buckets 730-739.
    expect(drawnCellAt(g, 2, 100, values, 10, 73.2)).toEqual({ column: 0, row: 737 });
    expect(drawnCellAt(g, 2, 100, values, 10, 73.9)).toEqual({ column: 0, row: 737 });
    expect(drawnCellAt(g, 2, 100, values, 10, 72.9)).toEqual({ column: 0, row: 720 });
    // All values in a pixel null: the cell under the point.
    expect(drawnCellAt(g, 2, 100, values, 60, 73.5)).toEqual({ column: 1, row: 735 });
  });

  it('is the cell under the point when every cell has its own pixels', () => {
    const small: Grid = { columns: 2, rows: 10, width: 100, height: 100 };
    const v = [Array.from({ length: 10 }, (_, r) => r), Array.from({ length: 10 }, () => 5)];
    for (let y = 0.5; y < 100; y += 7) expect(drawnCellAt(small, 200, 200, v, 30, y)).toEqual(cellAt(small, 30, y));
    expect(drawnCellAt(small, 200, 200, v, 30, 100)).toBeUndefined();
  });
});
