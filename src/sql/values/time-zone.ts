import { evalError } from './errors.js';

/**
 * Time zones of GoogleSQL's time functions: an IANA name (`America/Los_Angeles`, `Etc/UTC`; the tz database of
 * Node's ICU) or a fixed offset (`+05:30`, `-8`, `UTC+3`, `UTC`). An unknown zone is a runtime error
 * (`Invalid time zone`), as for any bad argument value.
 */
export interface TimeZone {
  /** The zone as written (IANA names keep their case). */
  readonly name: string;
  /** The zone's offset from UTC, in seconds, at an instant (microseconds since the epoch, UTC). */
  offsetSecondsAt(utcMicros: bigint): number;
}

const fixed = (name: string, seconds: number): TimeZone => ({ name, offsetSecondsAt: () => seconds });

export const UTC_ZONE: TimeZone = fixed('UTC', 0);

const OFFSET_RE = /^(?:UTC)?([+-])(\d{1,2})(?::?(\d{2}))?$/i;
const cache = new Map<string, TimeZone>();

/** The zone named by `text`, or a runtime error. */
export function timeZone(text: string): TimeZone {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const zone = resolve(text);
  if (cache.size > 1000) cache.clear();
  cache.set(text, zone);
  return zone;
}

function resolve(text: string): TimeZone {
  if (/^(utc|z)$/i.test(text)) return UTC_ZONE;
  const m = OFFSET_RE.exec(text);
  if (m !== null) {
    const h = Number(m[2]);
    const min = Number(m[3] ?? 0);
    if (h > 14 || min > 59) throw evalError(`Invalid time zone: ${text}`);
    return fixed(text, (m[1] === '-' ? -1 : 1) * (h * 3600 + min * 60));
  }
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: text,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  } catch {
    throw evalError(`Invalid time zone: ${text}`);
  }
  return { name: text, offsetSecondsAt: (micros) => ianaOffset(format, micros) };
}

/** The offset of an IANA zone at an instant: the zone's wall clock (from Intl) minus UTC, in whole seconds. */
function ianaOffset(format: Intl.DateTimeFormat, utcMicros: bigint): number {
  let secs = utcMicros / 1000000n;
  if (utcMicros % 1000000n < 0n) secs -= 1n;
  const ms = Number(secs) * 1000;
  const f: Record<string, string> = {};
  for (const p of format.formatToParts(new Date(ms))) f[p.type] = p.value;
  let year = Number(f.year);
  if (f.era === 'BC' || f.era === 'B') year = 1 - year;
  const wall = new Date(0);
  wall.setUTCFullYear(year, Number(f.month) - 1, Number(f.day));
  wall.setUTCHours(Number(f.hour), Number(f.minute), Number(f.second), 0);
  return Math.round((wall.getTime() - Math.floor(ms / 1000) * 1000) / 1000);
}

/**
 * The instant of a wall-clock time in a zone (both in microseconds). A time skipped by a transition and a
 * time repeated by one both take the offset in force before the transition (as GoogleSQL does).
 */
export function localToUtc(zone: TimeZone, localMicros: bigint): bigint {
  const day = 86400000000n;
  const before = BigInt(zone.offsetSecondsAt(localMicros - day)) * 1000000n;
  const after = BigInt(zone.offsetSecondsAt(localMicros + day)) * 1000000n;
  const t1 = localMicros - before;
  if (BigInt(zone.offsetSecondsAt(t1)) * 1000000n === before) return t1;
  const t2 = localMicros - after;
  if (BigInt(zone.offsetSecondsAt(t2)) * 1000000n === after) return t2;
  return t1;
}

/** `+HH`, `+HH:MM` or `+HH:MM:SS` as GoogleSQL prints a timestamp's offset (`colon` false: `+HHMM`). */
export function offsetText(seconds: number, style: 'short' | 'colon' | 'plain'): string {
  const sign = seconds < 0 ? '-' : '+';
  const a = Math.abs(seconds);
  const h = String(Math.floor(a / 3600)).padStart(2, '0');
  const m = String(Math.floor((a % 3600) / 60)).padStart(2, '0');
  const s = a % 60;
  if (style === 'plain') return `${sign}${h}${m}`;
  if (style === 'colon') return `${sign}${h}:${m}`;
  if (s !== 0) return `${sign}${h}:${m}:${String(s).padStart(2, '0')}`;
  return m === '00' ? `${sign}${h}` : `${sign}${h}:${m}`;
}
