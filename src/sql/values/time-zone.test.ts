import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SqlDate, SqlTimestamp } from '../types.js';
import { diffDays, extractPart, isoWeek, isoYear, truncateDays, weekday } from './date-parts.js';
import { isEvalError } from './errors.js';
import { formatTime, parseTime } from './format-elements.js';
import { MAX_TIMESTAMP_MICROS, MIN_TIMESTAMP_MICROS, civilOf, dateFromParts, timestampOfDate } from './time.js';
import { localToUtc, timeZone } from './time-zone.js';

const micros = (iso: string): bigint => BigInt(Date.parse(iso)) * 1000n;

describe('time zones', () => {
  it('gives an IANA zone its offset at the instant (winter and summer time)', () => {
    const la = timeZone('America/Los_Angeles');
    expect(la.offsetSecondsAt(micros('2024-01-15T12:00:00Z'))).toBe(-8 * 3600);
    expect(la.offsetSecondsAt(micros('2024-07-15T12:00:00Z'))).toBe(-7 * 3600);
    expect(timeZone('Asia/Kolkata').offsetSecondsAt(0n)).toBe(19800);
    expect(timeZone('Australia/Lord_Howe').offsetSecondsAt(micros('2024-01-01T00:00:00Z'))).toBe(11 * 3600);
  });

  it('reads fixed offsets with or without minutes and a UTC prefix', () => {
    expect(timeZone('+05:30').offsetSecondsAt(0n)).toBe(19800);
    expect(timeZone('-8').offsetSecondsAt(0n)).toBe(-28800);
    expect(timeZone('UTC+3').offsetSecondsAt(0n)).toBe(10800);
    expect(timeZone('utc').offsetSecondsAt(0n)).toBe(0);
  });

  it('rejects unknown zones and impossible offsets with a runtime error', () => {
    for (const bad of ['Mars/Olympus', '+25', '+05:75', '', 'America/']) {
      let thrown: unknown;
      try {
        timeZone(bad);
      } catch (e) {
        thrown = e;
      }
      expect(isEvalError(thrown), bad).toBe(true);
    }
  });

  it('maps a wall-clock time back to the instant it names (round trip over any instant)', () => {
    const zones = ['America/Los_Angeles', 'Europe/Berlin', 'Asia/Kolkata', 'Australia/Lord_Howe', '-03:30'].map(timeZone);
    fc.assert(
      fc.property(fc.bigInt({ min: MIN_TIMESTAMP_MICROS + 86400000000n, max: MAX_TIMESTAMP_MICROS - 86400000000n }), fc.nat(4), (t, z) => {
        const zone = zones[z]!;
        const local = t + BigInt(zone.offsetSecondsAt(t)) * 1000000n;
        const back = localToUtc(zone, local);
        // Repeated wall-clock times map to the earlier instant; either way the wall clock is the same.
        expect(back + BigInt(zone.offsetSecondsAt(back)) * 1000000n).toBe(local);
      }),
    );
  });

  it('gives skipped wall-clock times the offset before the change', () => {
    const la = timeZone('America/Los_Angeles');
    const skipped = micros('2024-03-10T02:30:00Z');
    expect(localToUtc(la, skipped)).toBe(micros('2024-03-10T10:30:00Z'));
    const repeated = micros('2024-11-03T01:30:00Z');
    expect(localToUtc(la, repeated)).toBe(micros('2024-11-03T08:30:00Z'));
  });
});

describe('date parts', () => {
  const day = (y: number, m: number, d: number): number => dateFromParts(y, m, d).days;

  it('numbers ISO weeks and years as ISO 8601 does (over 400 years of days)', () => {
    fc.assert(
      fc.property(fc.integer({ min: day(1800, 1, 1), max: day(2200, 1, 1) }), (d) => {
        // ISO: the week's Thursday decides the year; week 1 holds January 4.
        const thursday = d - ((weekday(d) + 6) % 7) + 3;
        const y = civilOf(timestampOfDate(new SqlDate(thursday))).year;
        expect(isoYear(d)).toBe(y);
        expect(isoWeek(d)).toBe(Math.floor((thursday - day(y, 1, 1)) / 7) + 1);
      }),
    );
  });

  it('truncates to weeks starting on any weekday, and counts week boundaries', () => {
    fc.assert(
      fc.property(fc.integer({ min: day(1900, 1, 1), max: day(2100, 1, 1) }), fc.integer({ min: 0, max: 6 }), fc.nat(60), (d, wd, k) => {
        const part = `WEEK(${['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'][wd]!})`;
        const start = truncateDays(d, part, 'T');
        expect(weekday(start)).toBe(wd);
        expect(d - start).toBeLessThan(7);
        expect(d - start).toBeGreaterThanOrEqual(0);
        expect(diffDays(d + k, d, part)).toBe(Math.floor((d + k - start) / 7));
      }),
    );
  });

  it('puts the days before the first <weekday> of the year in week 0', () => {
    const c = civilOf(new SqlTimestamp(BigInt(day(2024, 1, 6)) * 86400000000n));
    expect(extractPart('WEEK', c)).toBe(0);
    expect(extractPart('WEEK(SATURDAY)', c)).toBe(1);
  });
});

describe('format elements', () => {
  it('parses what it formats, for the elements that carry the whole instant', () => {
    const utc = timeZone('UTC');
    fc.assert(
      fc.property(fc.bigInt({ min: MIN_TIMESTAMP_MICROS, max: MAX_TIMESTAMP_MICROS }), (t) => {
        let secs = t / 1000000n;
        if (t % 1000000n < 0n) secs -= 1n;
        const civil = civilOf(new SqlTimestamp(t));
        const text = formatTime('%Y-%m-%d %H:%M:%E6S', { civil, offsetSeconds: 0, zone: utc, epochSeconds: secs });
        const p = parseTime('%Y-%m-%d %H:%M:%E6S', text);
        expect([p.year, p.month, p.day, p.hour, p.minute, p.second, p.micros]).toEqual([
          civil.year,
          civil.month,
          civil.day,
          civil.hour,
          civil.minute,
          civil.second,
          civil.micros,
        ]);
      }),
    );
  });
});
