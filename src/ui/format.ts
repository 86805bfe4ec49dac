/** Number, size, rate and time formatting for the pages. */

const BINARY = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  let v = n;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < BINARY.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? String(Math.round(v)) : v.toFixed(v < 10 ? 2 : 1)} ${BINARY[i]}`;
}

/** A count or rate: whole numbers with separators, fractions to 3 significant digits. */
export function formatNumber(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  if (Number.isInteger(n) || Math.abs(n) >= 100) return Math.round(n).toLocaleString('en-US');
  return Number(n.toPrecision(3)).toLocaleString('en-US', { maximumFractionDigits: 6 });
}

/** A value in a metric's unit: bytes-based units get binary prefixes. */
export function formatValue(v: number | null, unit: string): string {
  if (v === null) return 'no data';
  if (unit === 'bytes') return formatBytes(v);
  if (unit === 'bytes/s') return `${formatBytes(v)}/s`;
  return `${formatNumber(v)} ${unit}`;
}

/** Local time of day, HH:MM:SS (the axis labels). */
export function formatClock(iso: string): string {
  const d = new Date(iso);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((x) => String(x).padStart(2, '0')).join(':');
}

/** A time with its date, local, to the second. */
export function formatTime(iso: string): string {
  const d = new Date(iso);
  const date = [d.getFullYear(), d.getMonth() + 1, d.getDate()].map((x, i) => String(x).padStart(i === 0 ? 4 : 2, '0')).join('-');
  return `${date} ${formatClock(iso)}`;
}

/** A duration in seconds, e.g. 0.5 s, 10 s, 1 min, 1 h. */
export function formatSeconds(s: number): string {
  if (s < 60) return `${formatNumber(s)} s`;
  if (s < 3600) return `${formatNumber(s / 60)} min`;
  return `${formatNumber(s / 3600)} h`;
}

/** A share (0..1) as a percentage to one decimal: 0.423 → 42.3%; none and all whole (0%, 100%). */
export function formatShare(share: number | null | undefined): string {
  if (share === null || share === undefined || !Number.isFinite(share)) return '—';
  const pct = share * 100;
  if (pct === 0 || pct === 100) return `${pct}%`;
  return `${pct.toFixed(1)}%`;
}
