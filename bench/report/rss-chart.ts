import type { RunRecord } from '../runner.js';
import type { TargetKind } from '../servers/targets.js';
import type { RssSample } from '../workloads/workload.js';
import { escapeXml, num } from './format.js';

/**
 * The server's RSS as a bulk load grows the data: one line per target
 * (first run), GiB loaded on x, GiB of RSS on y, plus the "RSS = 0.25 × data"
 * line that the durable engine's memory target asks to stay under.
 */

const GiB = 1024 ** 3;
const COLORS = ['#2b6cb0', '#dd6b20'];
const W = 720;
const H = 420;
const LEFT = 70;
const RIGHT = 30;
const TOP = 60;
const BOTTOM = 60;

export interface RssSeries {
  readonly target: TargetKind;
  readonly samples: readonly RssSample[];
}

/** The RSS curves of a workload's first run per target (none: no curve recorded). */
export function rssSeries(w: { readonly name: string }, targets: readonly TargetKind[], records: readonly RunRecord[]): RssSeries[] {
  const out: RssSeries[] = [];
  for (const target of targets) {
    const r = records.find(
      (x) => x.workload === w.name && x.target === target && x.result?.rssCurve !== undefined && x.result.rssCurve.length > 0,
    );
    if (r?.result?.rssCurve !== undefined) out.push({ target, samples: r.result.rssCurve });
  }
  return out;
}

export function rssChart(title: string, series: readonly RssSeries[]): string {
  const maxX = Math.max(...series.flatMap((s) => s.samples.map((p) => p.loadedBytes / GiB)), 0.001);
  const maxY = Math.max(...series.flatMap((s) => s.samples.map((p) => p.rssBytes / GiB)), 0.25 * maxX, 0.001) * 1.1;
  const px = (x: number): number => LEFT + (x / maxX) * (W - LEFT - RIGHT);
  const py = (y: number): number => H - BOTTOM - (y / maxY) * (H - TOP - BOTTOM);
  const parts: string[] = [];
  parts.push(text(20, 28, title, 'font-size="16" font-weight="bold"'));
  // Axes and ticks.
  parts.push(
    `<line x1="${LEFT}" y1="${py(0)}" x2="${px(maxX)}" y2="${py(0)}" stroke="#333"/>`,
    `<line x1="${LEFT}" y1="${py(0)}" x2="${LEFT}" y2="${py(maxY)}" stroke="#333"/>`,
  );
  for (let i = 0; i <= 4; i++) {
    const x = (maxX * i) / 4;
    const y = (maxY * i) / 4;
    parts.push(text(px(x), py(0) + 18, num(x), 'text-anchor="middle" font-size="11"'));
    parts.push(text(LEFT - 8, py(y) + 4, num(y), 'text-anchor="end" font-size="11"'));
    if (i > 0) parts.push(`<line x1="${LEFT}" y1="${py(y)}" x2="${px(maxX)}" y2="${py(y)}" stroke="#eee"/>`);
  }
  parts.push(text((LEFT + px(maxX)) / 2, H - 18, 'GiB of data loaded (keys + qualifiers + values)', 'text-anchor="middle"'));
  parts.push(text(18, (TOP + py(0)) / 2, 'GiB RSS', `transform="rotate(-90 18 ${(TOP + py(0)) / 2})" text-anchor="middle"`));
  // The 0.25 GiB per GiB line.
  parts.push(`<line x1="${px(0)}" y1="${py(0)}" x2="${px(maxX)}" y2="${py(0.25 * maxX)}" stroke="#999" stroke-dasharray="5,4"/>`);
  parts.push(text(px(maxX) - 4, py(0.25 * maxX) - 6, '0.25 GiB RSS per GiB', 'text-anchor="end" font-size="11" fill="#777"'));
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length] as string;
    const points = s.samples.map((p) => `${px(p.loadedBytes / GiB).toFixed(1)},${py(p.rssBytes / GiB).toFixed(1)}`).join(' ');
    parts.push(`<polyline points="${points}" fill="none" stroke="${color}" stroke-width="2"/>`);
    parts.push(
      `<rect x="${LEFT + 10 + i * 140}" y="${TOP - 22}" width="12" height="12" fill="${color}"/>`,
      text(LEFT + 28 + i * 140, TOP - 12, s.target),
    );
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    '<rect width="100%" height="100%" fill="#fff"/>',
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}

/** The curves as a Markdown table: GiB loaded, then GiB RSS per target. */
export function rssTable(series: readonly RssSeries[]): string[] {
  if (series.length === 0) return [];
  const n = Math.max(...series.map((s) => s.samples.length));
  const rows: string[] = [
    `| GiB loaded | ${series.map((s) => `${s.target}: GiB RSS (per GiB)`).join(' | ')} |`,
    `| --- | ${series.map(() => '---').join(' | ')} |`,
  ];
  for (let i = 0; i < n; i++) {
    const at = series.find((s) => s.samples[i] !== undefined)?.samples[i];
    if (at === undefined) continue;
    const cells = series.map((s) => {
      const p = s.samples[i];
      return p === undefined ? '–' : `${num(p.rssBytes / GiB)} (${num(p.rssBytes / p.loadedBytes)})`;
    });
    rows.push(`| ${num(at.loadedBytes / GiB)} | ${cells.join(' | ')} |`);
  }
  return rows;
}

function text(x: number, y: number, s: string, attrs = ''): string {
  return `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" ${attrs}>${escapeXml(s)}</text>`;
}
