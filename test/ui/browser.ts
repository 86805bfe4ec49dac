import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import type { SimulationJson } from '../../src/insight/advisor/types.js';
import { formatShare } from '../../src/ui/format.js';
import { REPO_ROOT } from '../harness/targets.js';
import { pixelOf } from '../../src/ui/heatmap/paint.js';

/**
 * Headless Chromium for the web UI's tests: Debian's chromium (installed by
 * scripts/test-prerequisites.sh) or $CHROMIUM, driven by playwright-core.
 * Helpers read the heatmap back from its canvas, cell by cell.
 */

export const CHROMIUM = process.env['CHROMIUM'] ?? '/usr/bin/chromium';

/** Screenshots land here (gitignored), printed by the tests. */
export const TEST_OUTPUT = path.join(REPO_ROOT, 'test-output');

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true });
}

/** A page that logs its errors; the README's screenshots are 1200 × 800. */
export async function newPage(browser: Browser, viewport = { width: 1400, height: 900 }): Promise<Page> {
  const page = await browser.newPage({ viewport, deviceScaleFactor: 1 });
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  return page;
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(TEST_OUTPUT, { recursive: true });
  const file = path.join(TEST_OUTPUT, name);
  await page.screenshot({ path: file, fullPage: true });
  console.log(`screenshot: ${file}`);
  return file;
}

/** The heatmap canvas once it has drawn data: the API path it drew (its data-source). Throws what the page says if it fails to load. */
export async function drawnSource(page: Page): Promise<string> {
  const canvas = page.locator('canvas.heatmap[data-source]');
  const error = page.locator('.heatmap-page p.error');
  await canvas.or(error).first().waitFor({ state: 'attached', timeout: 15_000 });
  if ((await error.count()) > 0) throw new Error(`the heatmap page says: ${await error.first().textContent()}`);
  return (await canvas.getAttribute('data-source')) ?? '';
}

/** RGB at the centre of each cell of a columns × rows heatmap, read from the canvas: rgb[column][row]. */
export function readCells(page: Page, columns: number, rows: number): Promise<[number, number, number][][]> {
  return page.evaluate(
    ({ columns, rows }) => {
      const canvas = document.querySelector('canvas.heatmap') as HTMLCanvasElement;
      const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      const out: [number, number, number][][] = [];
      for (let c = 0; c < columns; c++) {
        const col: [number, number, number][] = [];
        const x = Math.floor(((c + 0.5) * canvas.width) / columns);
        for (let r = 0; r < rows; r++) {
          const y = Math.floor(((r + 0.5) * canvas.height) / rows);
          const o = (y * canvas.width + x) * 4;
          col.push([data[o]!, data[o + 1]!, data[o + 2]!]);
        }
        out.push(col);
      }
      return out;
    },
    { columns, rows },
  );
}

/**
 * Moves the mouse onto the canvas pixel that draws a cell (with more cells
 * than pixels a pixel draws several: paint.ts pixelOf), at a whole CSS pixel
 * inside it: mouse events carry whole-pixel coordinates, and a fractional
 * point can round into the neighbouring pixel or off the canvas.
 */
export async function hoverCell(page: Page, columns: number, rows: number, column: number, row: number): Promise<void> {
  const box = await page.locator('canvas.heatmap').boundingBox();
  if (box === null) throw new Error('the heatmap canvas is not visible');
  const size = await page.evaluate(() => {
    const c = document.querySelector('canvas.heatmap') as HTMLCanvasElement;
    return { width: c.width, height: c.height };
  });
  const at = (cell: number, cells: number, from: number, extent: number, devicePixels: number): number => {
    const pixels = Math.max(1, Math.min(cells, devicePixels));
    const p = pixelOf(cell, cells, pixels);
    const lo = from + (p * extent) / pixels;
    const hi = from + ((p + 1) * extent) / pixels;
    if (hi - lo >= 2) return Math.round((lo + hi) / 2);
    const whole = Math.ceil(lo + 1e-6);
    return whole < hi ? whole : (lo + hi) / 2;
  };
  await page.mouse.move(at(column, columns, box.x, box.width, size.width), at(row, rows, box.y, box.height, size.height));
}

/** The cell of the largest value (the first on ties), as the API gave the values. */
export function argmax(values: readonly (readonly (number | null)[])[]): { column: number; row: number; value: number } {
  let best = { column: -1, row: -1, value: -Infinity };
  values.forEach((col, c) =>
    col.forEach((v, r) => {
      if (v !== null && v > best.value) best = { column: c, row: r, value: v };
    }),
  );
  return best;
}

export const brightness = (rgb: readonly number[]): number => rgb[0]! + rgb[1]! + rgb[2]!;

/**
 * Cells of the canvas against the API's values: `ok` when brightness never
 * falls as the value rises (the colour ramp is monotone), else the first pair
 * out of order. Null cells are left out (drawn in the no-data colour).
 */
export function brightnessFollowsValues(
  values: readonly (readonly (number | null)[])[],
  rgb: readonly (readonly (readonly number[])[])[],
): { ok: true } | { ok: false; lower: string; higher: string } {
  const cells: { v: number; b: number; at: string }[] = [];
  values.forEach((col, c) =>
    col.forEach((v, r) => {
      if (v !== null) cells.push({ v, b: brightness(rgb[c]![r]!), at: `column ${c}, bucket ${r}` });
    }),
  );
  cells.sort((a, b) => a.v - b.v);
  for (let i = 1; i < cells.length; i++) {
    const lo = cells[i - 1]!;
    const hi = cells[i]!;
    if (hi.v > lo.v && hi.b < lo.b) {
      return { ok: false, lower: `${lo.at}: ${lo.v} drawn ${lo.b}`, higher: `${hi.at}: ${hi.v} drawn ${hi.b}` };
    }
  }
  return { ok: true };
}

/**
 * The what-if page's node bars against the simulation's JSON, both sides:
 * one bar per node in node order, each labelled with its share, heights in
 * proportion to the shares on the one scale both sides share.
 */
export async function expectNodeBars(page: Page, sim: SimulationJson): Promise<void> {
  const heights: Record<string, number[]> = {};
  for (const which of ['before', 'after'] as const) {
    const drawn = await page
      .locator(`figure[data-side="${which}"] rect.node-bar`)
      .evaluateAll((rs) => rs.map((r) => ({ node: Number(r.getAttribute('data-node')), height: Number(r.getAttribute('height')) })));
    expect(drawn.map((d) => d.node)).toEqual(sim[which].nodes.map((n) => n.node));
    const labels = await page.locator(`figure[data-side="${which}"] .bar text.value`).allTextContents();
    expect(labels).toEqual(sim[which].nodes.map((n) => formatShare(n.share)));
    heights[which] = drawn.map((d) => d.height);
  }
  // One scale: any bar over any other, on either side, is its share over the other's (bars of no share are drawn 0.5 px).
  const all = [...sim.before.nodes, ...sim.after.nodes].map((n) => n.share);
  const drawnAll = [...heights['before']!, ...heights['after']!];
  const top = all.indexOf(Math.max(...all));
  all.forEach((share, i) => {
    if (share > 0.01) expect(drawnAll[i]! / drawnAll[top]!).toBeCloseTo(share / all[top]!, 2);
  });
}
