/** Number formatting for the terminal and the report. */

/** Thousands separators at or above 100, otherwise three significant digits. */
export function num(v: number): string {
  if (!Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a >= 100) return Math.round(v).toLocaleString('en-US');
  if (a === 0) return '0';
  return Number(v.toPrecision(3)).toString();
}

export function ratioText(r: number | undefined): string {
  return r === undefined ? '–' : `${r >= 10 ? r.toFixed(1) : r.toFixed(2)}×`;
}

export function bytesText(b: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = b;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${num(v)} ${units[i]}`;
}

/** A local date as YYYY-MM-DD. */
export function isoDate(d: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Escapes text for a Markdown table cell. */
export function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
