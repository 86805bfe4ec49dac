/**
 * Draws a heatmap on the page's canvas: one pixel per cell (paint.ts) into an
 * offscreen canvas, scaled up to the visible one without smoothing, so every
 * cell is a sharp block whose colour is exactly its ramp entry.
 */
import type { HeatmapJson } from '../../insight/api-types.js';
import { colourRamp } from './colour-ramp.js';
import { paintCells } from './paint.js';
import type { ColourScale } from './scale.js';

const RAMP = colourRamp();

export function drawHeatmap(canvas: HTMLCanvasElement, heatmap: HeatmapJson, scale: ColourScale): void {
  const ctx = canvas.getContext('2d');
  if (ctx === null) return;
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  const columns = heatmap.times.length;
  const rows = heatmap.buckets.length;
  if (columns === 0 || rows === 0) return;
  // One pixel per cell, or per canvas pixel when the cells outnumber them.
  const w = Math.max(1, Math.min(columns, canvas.width));
  const h = Math.max(1, Math.min(rows, canvas.height));
  const cells = document.createElement('canvas');
  cells.width = w;
  cells.height = h;
  const cctx = cells.getContext('2d');
  if (cctx === null) return;
  const image = cctx.createImageData(w, h);
  image.data.set(paintCells(heatmap.values, rows, scale, RAMP, w, h));
  cctx.putImageData(image, 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(cells, 0, 0, canvas.width, canvas.height);
}

/** The ramp as a CSS gradient, for the legend. */
export function rampGradient(steps = 16): string {
  const stops: string[] = [];
  for (let i = 0; i < steps; i++) {
    const e = Math.round((i / (steps - 1)) * 255) * 3;
    stops.push(`rgb(${RAMP[e]}, ${RAMP[e + 1]}, ${RAMP[e + 2]})`);
  }
  return `linear-gradient(to right, ${stops.join(', ')})`;
}
