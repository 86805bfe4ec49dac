import { isoWeek, isoYear, weekday } from './date-parts.js';
import { evalError } from './errors.js';
import type { CivilTime } from './time.js';
import { type TimeZone, offsetText, timeZone } from './time-zone.js';

/**
 * GoogleSQL's format elements for date and time parts (`%Y-%m-%d %H:%M:%E*S %Ez`), shared by FORMAT_DATE,
 * FORMAT_TIMESTAMP (formatTime) and PARSE_DATE, PARSE_TIMESTAMP (parseTime). Names are English.
 */

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

const pad = (n: number, w = 2, ch = '0'): string => (n < 0 ? '-' + String(-n).padStart(w, ch) : String(n).padStart(w, ch));

/** What formatting reads: civil fields in the zone, the offset then and the zone (for %Z). */
export interface FormatInput {
  readonly civil: CivilTime;
  readonly offsetSeconds: number;
  readonly zone: TimeZone | undefined;
  /** Seconds since the epoch (for %s). */
  readonly epochSeconds: bigint;
}

function zoneAbbreviation(input: FormatInput): string {
  const z = input.zone;
  if (z === undefined || z.name.toUpperCase() === 'UTC') return 'UTC';
  if (/^(UTC)?[+-]/i.test(z.name)) return 'UTC' + offsetText(input.offsetSeconds, 'short');
  // The zone's abbreviation (PDT, CEST): en-US knows America's, en-GB Europe's; else GMT+n becomes UTC+n.
  const at = new Date(Number(input.epochSeconds) * 1000);
  let name = z.name;
  for (const locale of ['en-US', 'en-GB']) {
    const parts = new Intl.DateTimeFormat(locale, { timeZone: z.name, timeZoneName: 'short' }).formatToParts(at);
    name = parts.find((p) => p.type === 'timeZoneName')?.value ?? z.name;
    if (!/^GMT[+-]/.test(name)) return name;
  }
  return name.replace(/^GMT/, 'UTC');
}

function weekOfYear(c: CivilTime, start: number): number {
  const jan1 = c.days - (c.dayOfYear - 1);
  const first = jan1 + ((start - weekday(jan1) + 7) % 7);
  return c.days < first ? 0 : Math.floor((c.days - first) / 7) + 1;
}

/** Formats with the format elements; an unknown element is copied as written. */
export function formatTime(format: string, input: FormatInput): string {
  const c = input.civil;
  const fraction = (digits: number): string => (digits === 0 ? '' : '.' + pad(c.micros, 6).padEnd(9, '0').slice(0, digits));
  let out = '';
  for (let i = 0; i < format.length; i++) {
    const ch = format[i]!;
    if (ch !== '%' || i + 1 >= format.length) {
      out += ch;
      continue;
    }
    const rest = format.slice(i + 1);
    const ext = /^E(\d|\*)S|^E4Y|^Ez/.exec(rest);
    if (ext !== null) {
      i += ext[0].length;
      if (ext[0] === 'E4Y') out += pad(c.year, 4);
      else if (ext[0] === 'Ez') out += offsetText(input.offsetSeconds, 'colon');
      else {
        const digits = ext[1] === '*' ? (c.micros === 0 ? 0 : pad(c.micros, 6).replace(/0+$/, '').length) : Number(ext[1]);
        out += pad(c.second) + fraction(digits);
      }
      continue;
    }
    const spec = format[++i]!;
    out += element(spec, c, input);
  }
  return out;
}

function element(spec: string, c: CivilTime, input: FormatInput): string {
  const dow = c.dayOfWeek - 1;
  switch (spec) {
    case 'Y':
      return pad(c.year, 4);
    case 'y':
      return pad(c.year % 100);
    case 'C':
      return pad(Math.floor(c.year / 100));
    case 'G':
      return pad(isoYear(c.days), 4);
    case 'g':
      return pad(isoYear(c.days) % 100);
    case 'm':
      return pad(c.month);
    case 'd':
      return pad(c.day);
    case 'e':
      return pad(c.day, 2, ' ');
    case 'j':
      return pad(c.dayOfYear, 3);
    case 'H':
      return pad(c.hour);
    case 'k':
      return pad(c.hour, 2, ' ');
    case 'I':
      return pad(((c.hour + 11) % 12) + 1);
    case 'l':
      return pad(((c.hour + 11) % 12) + 1, 2, ' ');
    case 'M':
      return pad(c.minute);
    case 'S':
      return pad(c.second);
    case 'p':
      return c.hour < 12 ? 'AM' : 'PM';
    case 'P':
      return c.hour < 12 ? 'am' : 'pm';
    case 'B':
      return MONTHS[c.month - 1]!;
    case 'b':
    case 'h':
      return MONTHS[c.month - 1]!.slice(0, 3);
    case 'A':
      return DAYS[dow]!;
    case 'a':
      return DAYS[dow]!.slice(0, 3);
    case 'u':
      return String(dow === 0 ? 7 : dow);
    case 'w':
      return String(dow);
    case 'U':
      return pad(weekOfYear(c, 0));
    case 'W':
      return pad(weekOfYear(c, 1));
    case 'V':
      return pad(isoWeek(c.days));
    case 'Q':
      return String(Math.floor((c.month - 1) / 3) + 1);
    case 'F':
      return `${pad(c.year, 4)}-${pad(c.month)}-${pad(c.day)}`;
    case 'D':
    case 'x':
      return `${pad(c.month)}/${pad(c.day)}/${pad(c.year % 100)}`;
    case 'T':
    case 'X':
      return `${pad(c.hour)}:${pad(c.minute)}:${pad(c.second)}`;
    case 'R':
      return `${pad(c.hour)}:${pad(c.minute)}`;
    case 'c':
      return `${DAYS[dow]!.slice(0, 3)} ${MONTHS[c.month - 1]!.slice(0, 3)} ${pad(c.day, 2, ' ')} ${pad(c.hour)}:${pad(c.minute)}:${pad(c.second)} ${c.year}`;
    case 'z':
      return offsetText(input.offsetSeconds, 'plain');
    case 'Z':
      return zoneAbbreviation(input);
    case 's':
      return String(input.epochSeconds);
    case '%':
      return '%';
    case 'n':
      return '\n';
    case 't':
      return '\t';
    default:
      return '%' + spec;
  }
}

/** What parsing found: civil fields (defaults 1970-01-01 00:00:00) and, when the text named one, a zone. */
export interface ParsedTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  micros: number;
  /** From %z, %Ez or %Z. */
  offsetSeconds?: number;
  zone?: TimeZone;
  /** From %s: the instant itself. */
  epochSeconds?: bigint;
  /** From %j. */
  dayOfYear?: number;
  pm?: boolean;
  hour12?: number;
}

/**
 * Parses `text` with a format: a space in the format matches any run of white space (or none); every other
 * character must match itself; elements read their fields. Fails (OUT_OF_RANGE) when the text does not match.
 */
export function parseTime(format: string, text: string): ParsedTime {
  const r: ParsedTime = { year: 1970, month: 1, day: 1, hour: 0, minute: 0, second: 0, micros: 0 };
  let pos = 0;
  const fail = (): never => {
    throw evalError(`Failed to parse input string "${text}" with format "${format}"`);
  };
  const skipSpace = (): void => {
    while (pos < text.length && /\s/.test(text[pos]!)) pos++;
  };
  const num = (maxDigits: number, signed = false): number => {
    if (text[pos] === ' ') skipSpace();
    const m = new RegExp(`^${signed ? '[+-]?' : ''}\\d{1,${maxDigits}}`).exec(text.slice(pos));
    if (m === null) return fail();
    pos += m[0].length;
    return Number(m[0]);
  };
  const name = (names: readonly string[]): number => {
    const rest = text.slice(pos).toLowerCase();
    for (const [i, n] of names.entries()) {
      for (const cand of [n.toLowerCase(), n.slice(0, 3).toLowerCase()]) {
        if (rest.startsWith(cand)) {
          pos += cand.length;
          return i;
        }
      }
    }
    return fail();
  };
  const offset = (): void => {
    const m = /^([+-])(\d{2}):?(\d{2})?|^[zZ]/.exec(text.slice(pos));
    if (m === null) return fail();
    pos += m[0].length;
    r.offsetSeconds = m[1] === undefined ? 0 : (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60);
  };
  const fractionDigits = (max: number): void => {
    if (text[pos] !== '.') return;
    const m = new RegExp(`^\\.(\\d{1,${max}})`).exec(text.slice(pos));
    if (m === null) return fail();
    pos += m[0].length;
    r.micros = Number(m[1]!.slice(0, 6).padEnd(6, '0'));
  };
  const apply = (fmt: string): void => {
    for (let i = 0; i < fmt.length; i++) {
      const ch = fmt[i]!;
      if (/\s/.test(ch)) {
        skipSpace();
        continue;
      }
      if (ch !== '%' || i + 1 >= fmt.length) {
        if (text[pos] !== ch) fail();
        pos++;
        continue;
      }
      const rest = fmt.slice(i + 1);
      const ext = /^E(\d|\*)S|^E4Y|^Ez/.exec(rest);
      if (ext !== null) {
        i += ext[0].length;
        if (ext[0] === 'E4Y') r.year = num(4);
        else if (ext[0] === 'Ez') offset();
        else {
          r.second = num(2);
          fractionDigits(ext[1] === '*' ? 9 : Math.max(1, Number(ext[1])));
        }
        continue;
      }
      const spec = fmt[++i]!;
      switch (spec) {
        case 'Y':
          r.year = num(4);
          break;
        case 'y': {
          const y = num(2);
          r.year = y < 69 ? 2000 + y : 1900 + y;
          break;
        }
        case 'C':
          r.year = num(2) * 100 + (r.year % 100);
          break;
        case 'm':
          r.month = num(2);
          break;
        case 'd':
        case 'e':
          r.day = num(2);
          break;
        case 'j':
          r.dayOfYear = num(3);
          break;
        case 'H':
        case 'k':
          r.hour = num(2);
          break;
        case 'I':
        case 'l':
          r.hour12 = num(2);
          break;
        case 'M':
          r.minute = num(2);
          break;
        case 'S':
          r.second = num(2);
          break;
        case 'p':
        case 'P':
          r.pm = name(['AM', 'PM']) === 1;
          break;
        case 'B':
        case 'b':
        case 'h':
          r.month = name(MONTHS) + 1;
          break;
        case 'A':
        case 'a':
          name(DAYS);
          break;
        case 'u':
        case 'w':
          num(1);
          break;
        case 'U':
        case 'W':
        case 'V':
        case 'g':
          num(2);
          break;
        case 'G':
          num(4);
          break;
        case 'Q': {
          const q = num(1);
          if (q < 1 || q > 4) fail();
          r.month = (q - 1) * 3 + 1;
          break;
        }
        case 'F':
          apply('%Y-%m-%d');
          break;
        case 'D':
        case 'x':
          apply('%m/%d/%y');
          break;
        case 'T':
        case 'X':
          apply('%H:%M:%S');
          break;
        case 'R':
          apply('%H:%M');
          break;
        case 'c':
          apply('%a %b %e %H:%M:%S %Y');
          break;
        case 's':
          r.epochSeconds = BigInt(num(19, true));
          break;
        case 'z':
          offset();
          break;
        case 'Z': {
          const m = /^[A-Za-z_][A-Za-z0-9_/+-]*/.exec(text.slice(pos));
          if (m === null) return fail();
          pos += m[0].length;
          r.zone = timeZone(m[0]);
          break;
        }
        case 'n':
        case 't':
          skipSpace();
          break;
        case '%':
          if (text[pos] !== '%') fail();
          pos++;
          break;
        default:
          fail();
      }
    }
  };
  apply(format);
  if (pos < text.length) fail();
  if (r.hour12 !== undefined) {
    if (r.hour12 < 1 || r.hour12 > 12) fail();
    r.hour = (r.hour12 % 12) + (r.pm === true ? 12 : 0);
  } else if (r.pm === true && r.hour < 12) r.hour += 12;
  if (r.hour > 23 || r.minute > 59 || r.second > 59) fail();
  return r;
}
