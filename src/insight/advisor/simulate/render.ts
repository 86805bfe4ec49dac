import { formatBytes } from '../../../units.js';
import type { SimulatedTablet, SimulationJson, SimulationSide } from '../types.js';

/**
 * The what-if as the terminal shows it (`tabletop advise --simulate`): the
 * transform in words, a few keys before → after, each node's tablets, bytes
 * and share of the ops before and after side by side (with a bar), the
 * busiest tablets of each side, and the verdict.
 */

const BAR_WIDTH = 20;
const BUSIEST = 3;
const KEY_WIDTH = 40;
const WRAP_WIDTH = 100;
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

export function renderSimulation(s: SimulationJson): string {
  const lines = [
    `What if table ${s.table} used ${s.transform}?`,
    ...wrap(s.description, WRAP_WIDTH),
    '',
    'Keys:',
    ...(s.examples.length === 0 ? ['  (none sampled)'] : s.examples.map((e) => `  ${e.before}  →  ${e.after}`)),
    '',
    ...nodeTable(s),
    '',
    ...busiest('Busiest tablets before:', s.before),
    ...busiest('Busiest tablets after:', s.after),
    '',
    ...wrap(s.verdict, WRAP_WIDTH),
  ];
  return lines.join('\n');
}

/** One row a node: tablets, bytes and ops share with a bar, before then after. */
function nodeTable(s: SimulationJson): string[] {
  const side = (n: SimulationSide['nodes'][number] | undefined): string[] =>
    n === undefined ? ['', '', ''] : [String(n.tablets), formatBytes(n.bytes), `${bar(n.share)} ${percent(n.share)}`];
  const rows = [
    ['', 'BEFORE', '', '', 'AFTER', '', ''],
    ['NODE', 'TABLETS', 'BYTES', 'OPS', 'TABLETS', 'BYTES', 'OPS'],
    ...Array.from({ length: s.nodes }, (_, i) => [String(i), ...side(s.before.nodes[i]), ...side(s.after.nodes[i])]),
    [
      'max',
      String(s.before.tablets.length),
      '',
      `${' '.repeat(BAR_WIDTH)} ${percent(s.before.maxNodeShare)}`,
      String(s.after.tablets.length),
      '',
      `${' '.repeat(BAR_WIDTH)} ${percent(s.after.maxNodeShare)}`,
    ],
  ];
  const widths = rows[1]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) =>
    r
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join('  ')
      .trimEnd(),
  );
}

function busiest(title: string, side: SimulationSide): string[] {
  const top = [...side.tablets].sort((a, b) => b.share - a.share).slice(0, BUSIEST);
  if (top.length === 0 || top[0]!.share === 0) return [title, '  (no ops)'];
  return [title, ...top.filter((t) => t.share > 0).map((t) => `  ${percent(t.share).padStart(4)}  node ${t.node}  ${range(t)}`)];
}

function range(t: SimulatedTablet): string {
  const cut = (text: string): string => (text.length > KEY_WIDTH ? `${text.slice(0, KEY_WIDTH - 3)}...` : text);
  return `[${t.startText === '' ? '(start)' : cut(t.startText)}, ${t.endText === null ? '(end)' : cut(t.endText)})`;
}

/** A share 0..1 as a bar of BAR_WIDTH cells, in eighths of a cell. */
export function bar(share: number): string {
  const eighths = Math.round(Math.min(1, Math.max(0, share)) * BAR_WIDTH * 8);
  const text = '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8]!;
  return text.padEnd(BAR_WIDTH);
}

function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

/** The text cut into lines of at most `width` characters at spaces (a longer word stands alone). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}
