import type { RunRecord } from '../runner.js';
import type { TargetKind } from '../servers/targets.js';
import { ratio } from '../stats/summary.js';
import type { ReportedWorkload } from '../workloads/workload.js';
import { figureSpread, figures } from './figures.js';
import type { FigureKey } from './figures.js';
import { escapeXml, num, ratioText } from './format.js';

/**
 * A grouped horizontal bar chart as a standalone SVG: one panel per figure,
 * one group of bars (tabletop, emulator) per workload. Workloads have
 * different units and scales, so each group is scaled to its own largest
 * value and every bar carries its value; the ratio stands at the right.
 */

export interface ChartGroup {
  readonly name: string;
  /** One value per series (undefined: no data). */
  readonly values: readonly (number | undefined)[];
  readonly unit: string;
}

export interface ChartPanel {
  readonly title: string;
  readonly groups: readonly ChartGroup[];
}

const COLORS = ['#2b6cb0', '#dd6b20', '#38a169', '#805ad5'];
const WIDTH = 960;
const NAME_W = 170;
const BAR_X = 190;
const BAR_MAX = 500;
const RATIO_X = 900;
const BAR_H = 14;
const BAR_GAP = 3;
const GROUP_PAD = 12;

export function svgChart(title: string, series: readonly string[], panels: readonly ChartPanel[]): string {
  const parts: string[] = [];
  let y = 30;
  parts.push(text(20, y, title, 'font-size="16" font-weight="bold"'));
  y += 22;
  series.forEach((s, i) => {
    const x = 20 + i * 140;
    parts.push(`<rect x="${x}" y="${y - 10}" width="12" height="12" fill="${color(i)}"/>`, text(x + 18, y, s));
  });
  if (series.length === 2) parts.push(text(RATIO_X, y, `${series[0]} ÷ ${series[1]}`, 'text-anchor="end" fill="#555"'));
  y += 18;
  parts.push(
    text(
      20,
      y,
      'Each pair of bars is scaled to its larger value; the numbers carry the units. Medians over runs.',
      'font-size="11" fill="#555"',
    ),
  );
  for (const panel of panels) {
    y += 26;
    parts.push(text(20, y, panel.title, 'font-size="14" font-weight="bold"'));
    y += 8;
    for (const g of panel.groups) {
      const h = series.length * (BAR_H + BAR_GAP) - BAR_GAP;
      parts.push(text(NAME_W, y + GROUP_PAD / 2 + h / 2 + 4, g.name, 'text-anchor="end"'));
      const max = Math.max(...g.values.map((v) => v ?? 0));
      g.values.forEach((v, i) => {
        const by = y + GROUP_PAD / 2 + i * (BAR_H + BAR_GAP);
        if (v === undefined) {
          parts.push(text(BAR_X + 4, by + BAR_H - 3, 'no data', 'fill="#999"'));
          return;
        }
        const w = max > 0 ? Math.max(1, (v / max) * BAR_MAX) : 1;
        parts.push(`<rect x="${BAR_X}" y="${by}" width="${w.toFixed(1)}" height="${BAR_H}" fill="${color(i)}"/>`);
        parts.push(text(BAR_X + w + 6, by + BAR_H - 3, `${num(v)} ${g.unit}`, 'font-size="11"'));
      });
      if (series.length === 2)
        parts.push(
          text(RATIO_X, y + GROUP_PAD / 2 + h / 2 + 4, ratioText(ratio(g.values[0], g.values[1])), 'text-anchor="end" font-weight="bold"'),
        );
      y += h + GROUP_PAD;
      parts.push(`<line x1="20" x2="${WIDTH - 20}" y1="${y}" y2="${y}" stroke="#eee"/>`);
    }
  }
  y += 20;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${y}" viewBox="0 0 ${WIDTH} ${y}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}

function color(i: number): string {
  return COLORS[i % COLORS.length] as string;
}

function text(x: number, y: number, s: string, attrs = ''): string {
  return `<text x="${x}" y="${y.toFixed(1)}" ${attrs}>${escapeXml(s)}</text>`;
}

/** Units of the bars of a panel, where the figure's label is not one. */
const UNITS: Partial<Record<FigureKey, string>> = { firstCallMs: 'ms', clientReadMs: 'ms', idleRssMiB: 'MiB' };

/**
 * The panels of the report: throughput, and server CPU per operation or row;
 * with start-up workloads, the time to the first call and idle RSS. Panels
 * without data are left out.
 */
export function resultPanels(
  workloads: readonly ReportedWorkload[],
  targets: readonly TargetKind[],
  records: readonly RunRecord[],
): ChartPanel[] {
  const panel = (title: string, key: FigureKey): ChartPanel => ({
    title,
    groups: workloads.flatMap((w) => {
      const f = figures(w).find((x) => x.key === key);
      if (f === undefined) return [];
      const values = targets.map((k) => figureSpread(records, w, k, f)?.median);
      if (values.every((v) => v === undefined)) return [];
      return [{ name: w.name, values, unit: key === 'throughput' ? f.label : (UNITS[key] ?? f.label.replace(/^server CPU /, '')) }];
    }),
  });
  return [
    panel('Throughput (higher is better)', 'throughput'),
    panel('Server CPU time per operation or row (lower is better)', 'serverCpu'),
    panel('Start-up: time to the first answered call, raw gRPC (lower is better)', 'firstCallMs'),
    panel('Start-up: time to the first read through the Node client (lower is better)', 'clientReadMs'),
    panel('Start-up: RSS once idle after the first read (in-process: added to the process; lower is better)', 'idleRssMiB'),
  ].filter((p) => p.groups.length > 0);
}
