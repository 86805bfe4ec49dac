/**
 * The heatmap's geometry: `columns` time buckets across `width` pixels, `rows`
 * key buckets down `height` pixels (row 0, the lowest key, at the top), and
 * the mappings between pixels, cells and the API's key and time ranges.
 */
import type { HeatmapJson, KeyRangeJson } from '../../insight/api-types.js';
import { base64ToBytes, compareKeys } from '../keys.js';
import { pixelOf } from './paint.js';

export interface Grid {
  readonly columns: number;
  readonly rows: number;
  readonly width: number;
  readonly height: number;
}

export interface Cell {
  readonly column: number;
  readonly row: number;
}

/** An inclusive block of cells. */
export interface CellBlock {
  readonly column0: number;
  readonly column1: number;
  readonly row0: number;
  readonly row1: number;
}

export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

/** The cell under a point, or undefined outside the grid (or an empty grid). */
export function cellAt(grid: Grid, x: number, y: number): Cell | undefined {
  if (grid.columns === 0 || grid.rows === 0) return undefined;
  if (x < 0 || y < 0 || x >= grid.width || y >= grid.height) return undefined;
  return {
    column: Math.min(grid.columns - 1, Math.floor((x / grid.width) * grid.columns)),
    row: Math.min(grid.rows - 1, Math.floor((y / grid.height) * grid.rows)),
  };
}

/** The block between two points (a drag), clamped to the grid, whatever the drag's direction. */
export function blockBetween(grid: Grid, x0: number, y0: number, x1: number, y1: number): CellBlock | undefined {
  const clampX = (x: number) => Math.min(grid.width - 1e-9, Math.max(0, x));
  const clampY = (y: number) => Math.min(grid.height - 1e-9, Math.max(0, y));
  const a = cellAt(grid, clampX(Math.min(x0, x1)), clampY(Math.min(y0, y1)));
  const b = cellAt(grid, clampX(Math.max(x0, x1)), clampY(Math.max(y0, y1)));
  if (a === undefined || b === undefined) return undefined;
  return { column0: a.column, column1: b.column, row0: a.row, row1: b.row };
}

/** Pixel rectangle of a block of cells. */
export function blockRect(grid: Grid, block: CellBlock): Rect {
  const cw = grid.width / grid.columns;
  const rh = grid.height / grid.rows;
  return {
    x: block.column0 * cw,
    y: block.row0 * rh,
    w: (block.column1 - block.column0 + 1) * cw,
    h: (block.row1 - block.row0 + 1) * rh,
  };
}

/** The centre of a cell, in pixels. */
export function cellCentre(grid: Grid, cell: Cell): { x: number; y: number } {
  return { x: ((cell.column + 0.5) * grid.width) / grid.columns, y: ((cell.row + 0.5) * grid.height) / grid.rows };
}

/**
 * The cells a key range and time window cover (a diagnostic's): the buckets
 * that overlap [start, end) and the columns that overlap [from, to). Undefined
 * when nothing in view overlaps.
 */
export function blockOfRange(
  heatmap: Pick<HeatmapJson, 'buckets' | 'times' | 'resolutionSeconds'>,
  keyRange: Pick<KeyRangeJson, 'start' | 'end'>,
  timeRange: { readonly from: string; readonly to: string },
): CellBlock | undefined {
  const start = base64ToBytes(keyRange.start);
  const end = keyRange.end === null ? undefined : base64ToBytes(keyRange.end);
  const rows: number[] = [];
  heatmap.buckets.forEach((b, i) => {
    const bStart = base64ToBytes(b.start);
    const beforeEnd = end === undefined || compareKeys(bStart, end) < 0;
    const afterStart = b.end === null || compareKeys(base64ToBytes(b.end), start) > 0;
    if (beforeEnd && afterStart) rows.push(i);
  });
  const from = Date.parse(timeRange.from);
  const to = Date.parse(timeRange.to);
  const step = heatmap.resolutionSeconds * 1000;
  const columns: number[] = [];
  heatmap.times.forEach((t, i) => {
    const s = Date.parse(t);
    if (s < to && s + step > from) columns.push(i);
  });
  if (rows.length === 0 || columns.length === 0) return undefined;
  return { column0: columns[0]!, column1: columns[columns.length - 1]!, row0: rows[0]!, row1: rows[rows.length - 1]! };
}

/** Up to `max` evenly spread columns to label on the time axis, with their x centre. */
export function timeTicks(grid: Grid, max: number): { column: number; x: number }[] {
  if (grid.columns === 0 || max < 1) return [];
  const every = Math.max(1, Math.ceil(grid.columns / max));
  const ticks: { column: number; x: number }[] = [];
  for (let c = 0; c < grid.columns; c += every) ticks.push({ column: c, x: cellCentre(grid, { column: c, row: 0 }).x });
  return ticks;
}

/**
 * The cell whose colour the pixel under (x, y) shows. The canvas holds at most
 * `imageWidth` × `imageHeight` pixels of cells (paint.ts): when cells outnumber
 * pixels, a pixel shows the largest value among the cells whose centres fall
 * in it, and so this answers that cell, so the tooltip tells what is drawn. One
 * pixel per cell or more: the cell under the point.
 */
export function drawnCellAt(
  grid: Grid,
  imageWidth: number,
  imageHeight: number,
  values: readonly (readonly (number | null)[])[],
  x: number,
  y: number,
): Cell | undefined {
  const under = cellAt(grid, x, y);
  if (under === undefined) return undefined;
  const w = Math.max(1, Math.min(grid.columns, imageWidth));
  const h = Math.max(1, Math.min(grid.rows, imageHeight));
  const columns = cellsInPixel(Math.min(w - 1, Math.floor((x / grid.width) * w)), grid.columns, w);
  const rows = cellsInPixel(Math.min(h - 1, Math.floor((y / grid.height) * h)), grid.rows, h);
  let best = under;
  let bestValue = -Infinity;
  for (const column of columns)
    for (const row of rows) {
      const v = values[column]?.[row] ?? null;
      if (v !== null && v > bestValue) {
        best = { column, row };
        bestValue = v;
      }
    }
  return best;
}

/** The cells (of n) whose centres fall in pixel p (of out), as paint.ts places them. */
function cellsInPixel(p: number, n: number, out: number): number[] {
  const cells: number[] = [];
  const from = Math.max(0, Math.floor((p * n) / out) - 1);
  const to = Math.min(n - 1, Math.ceil(((p + 1) * n) / out) + 1);
  for (let i = from; i <= to; i++) if (pixelOf(i, n, out) === p) cells.push(i);
  return cells;
}
