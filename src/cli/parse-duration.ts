/**
 * Parses a duration: a number with a unit, ms, s, m or h ("500ms", "30s",
 * "1.5s", "5m"), or 0. Returns milliseconds. Errors do not name the source.
 */
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(text: string): number {
  const t = text.trim();
  if (t === '0') return 0;
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)$/.exec(t);
  if (m === null) throw new Error(`must be a duration such as 500ms, 30s or 5m (got "${text}")`);
  const ms = Math.round(Number(m[1]) * UNITS[m[2]!]!);
  if (!Number.isSafeInteger(ms)) throw new Error(`is too long (got "${text}")`);
  return ms;
}
