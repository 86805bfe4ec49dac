import { describe, expect, it } from 'vitest';
import { colourRamp } from './colour-ramp.js';
import { NO_DATA, paintCells, pixelOf } from './paint.js';

const ramp = colourRamp();
const scale = { ceiling: 10, mode: 'linear' as const, brightness: 1 };
const at = (px: Uint8ClampedArray, w: number, x: number, y: number) => [...px.slice((y * w + x) * 4, (y * w + x) * 4 + 4)];

describe('paintCells', () => {
  it('one pixel per cell: column → x, bucket → y (lowest key on top), nulls in the no-data colour', () => {
    const values = [
      [0, 10, null],
      [5, null, 10],
    ];
    const px = paintCells(values, 3, scale, ramp);
    expect(px.length).toBe(2 * 3 * 4);
    expect(at(px, 2, 0, 0)).toEqual([0, 0, 0, 255]);
    expect(at(px, 2, 0, 1)).toEqual([255, 255, 255, 255]);
    expect(at(px, 2, 0, 2)).toEqual([...NO_DATA, 255]);
    expect(at(px, 2, 1, 0)).toEqual([ramp[128 * 3], ramp[128 * 3 + 1], ramp[128 * 3 + 2], 255]);
    expect(at(px, 2, 1, 1)).toEqual([...NO_DATA, 255]);
    expect(at(px, 2, 1, 2)).toEqual([255, 255, 255, 255]);
  });

  it('more cells than pixels: each pixel shows the largest of its cells, so a hot bucket stays visible', () => {
    const rows = 1000;
    const column = Array.from({ length: rows }, (_, r) => (r === 737 ? 10 : r % 2 === 0 ? null : 0));
    const px = paintCells([column], rows, scale, ramp, 1, 100);
    expect(px.length).toBe(100 * 4);
    const hot = pixelOf(737, rows, 100);
    expect(hot).toBe(73);
    for (let y = 0; y < 100; y++) expect(at(px, 1, 0, y).slice(0, 3), `pixel ${y}`).toEqual(y === hot ? [255, 255, 255] : [0, 0, 0]);
    // A pixel of nulls only is no data.
    expect(at(paintCells([[null, null, 1, 1]], 4, scale, ramp, 1, 2), 1, 0, 0).slice(0, 3)).toEqual([...NO_DATA]);
  });
});

describe('pixelOf', () => {
  it('puts each cell in the pixel holding its centre, every pixel used when cells outnumber them', () => {
    expect([0, 1, 2, 3, 4, 5].map((i) => pixelOf(i, 6, 3))).toEqual([0, 0, 1, 1, 2, 2]);
    expect(new Set(Array.from({ length: 1000 }, (_, i) => pixelOf(i, 1000, 480))).size).toBe(480);
    expect(pixelOf(2, 3, 3)).toBe(2);
  });
});
