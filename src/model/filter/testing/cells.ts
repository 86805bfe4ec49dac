import { type ByteString, printable, toBytes } from '../../bytes.js';
import { type Cell, cell, NO_LABELS } from '../../cell.js';

/**
 * Cells written as text for data-driven tests:
 *   `family:qualifier@timestamp=value` with an optional ` [label]`.
 * Qualifier and value are byte strings (JS `\xNN` escapes for other bytes);
 * `printable` escapes them back on output.
 */
export function parseCell(text: string): Cell {
  const m = /^([^:]+):(.*)@(\d+)=(.*?)(?: \[([^\]]*)\])?$/s.exec(text);
  if (m === null) throw new Error(`bad cell notation: ${text}`);
  const [, family, qualifier, ts, value, label] = m;
  return cell(family!, qualifier!, Number(ts), toBytes(value!), label === undefined ? NO_LABELS : [label]);
}

export function renderCell(c: Cell): string {
  const labels = c.labels.length === 0 ? '' : ` [${c.labels.join(',')}]`;
  return `${c.family}:${printable(c.qualifier)}@${c.timestamp}=${printable(Buffer.from(c.value).toString('latin1'))}${labels}`;
}

/** Output order for a table whose families were created in `families` order. */
export function outputOrder(families: readonly string[]): (a: Cell, b: Cell) => number {
  const rank = new Map(families.map((f, i) => [f, i]));
  const of = (f: string): number => {
    const r = rank.get(f);
    if (r === undefined) throw new Error(`unknown family ${f}`);
    return r;
  };
  return (a, b) => {
    if (a.family !== b.family) return of(a.family) - of(b.family);
    if (a.qualifier !== b.qualifier) return a.qualifier < b.qualifier ? -1 : 1;
    return b.timestamp - a.timestamp;
  };
}

export function row(key: ByteString, ...cells: string[]): { key: ByteString; cells: Cell[] } {
  return { key, cells: cells.map(parseCell) };
}
