/**
 * The heatmap's pixels: an RGBA image `outColumns` wide and `outRows` high
 * (row 0, the lowest key, on top) for an ImageData that the canvas then
 * scales up without smoothing. At most one pixel per cell: when there are
 * more cells than the canvas has pixels (a thousand key buckets on a 480 px
 * canvas), each pixel shows the largest value of the cells whose centres fall
 * in it, so a hot bucket never vanishes between pixels. Cells without a
 * recording (null) get NO_DATA; a pixel is NO_DATA only when all its cells are.
 */
import type { ColourScale } from './scale.js';
import { rampIndex } from './scale.js';

/** A dark blue-grey, apart from the ramp's black (zero). */
export const NO_DATA: readonly [number, number, number] = [28, 32, 44];

/** The output pixel (of `out`) holding the centre of cell i (of n). */
export function pixelOf(i: number, n: number, out: number): number {
  return Math.min(out - 1, Math.floor(((i + 0.5) * out) / n));
}

export function paintCells(
  values: readonly (readonly (number | null)[])[],
  rows: number,
  scale: ColourScale,
  ramp: Uint8Array,
  outColumns: number = values.length,
  outRows: number = rows,
): Uint8ClampedArray {
  const columns = values.length;
  const w = Math.min(outColumns, columns);
  const h = Math.min(outRows, rows);
  // NaN: no recorded cell in the pixel yet.
  const max = new Float64Array(w * h).fill(NaN);
  for (let c = 0; c < columns; c++) {
    const column = values[c]!;
    const x = pixelOf(c, columns, w);
    for (let r = 0; r < rows; r++) {
      const v = column[r] ?? null;
      if (v === null) continue;
      const o = pixelOf(r, rows, h) * w + x;
      if (!(max[o]! >= v)) max[o] = v;
    }
  }
  const px = new Uint8ClampedArray(w * h * 4);
  for (let p = 0; p < w * h; p++) {
    const v = max[p]!;
    const o = p * 4;
    if (Number.isNaN(v)) {
      px[o] = NO_DATA[0];
      px[o + 1] = NO_DATA[1];
      px[o + 2] = NO_DATA[2];
    } else {
      const i = rampIndex(v, scale) * 3;
      px[o] = ramp[i]!;
      px[o + 1] = ramp[i + 1]!;
      px[o + 2] = ramp[i + 2]!;
    }
    px[o + 3] = 255;
  }
  return px;
}
