import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { isTabletopError } from '../model/errors.js';
import type { RowKeyRange } from './range.js';
import { type AnySegment, type KeySchema, keySchema } from './schema.js';
import { compareUtf8, integer, isoTimestamp, reversedDomain, reversedTimestamp, salt, string } from './segments.js';

/**
 * Property tests of the key schema over random schemas (1 to 4 value segments of every kind, maybe a
 * salt, every allowed delimiter) and random values full of delimiters, escapes, control characters,
 * empty strings and Unicode beyond the BMP: decode(encode(x)) = x; key byte order = the values'
 * order segment by segment; prefix() and range() hold exactly the keys with those leading values
 * (and bounds); the fan-out ranges over salt buckets hold every key once. fast-check (a dev
 * dependency already) shrinks a failure to a small schema and values.
 */

type Kind = 'string' | 'integer' | 'ms' | 'us' | 'iso' | 'iso-ms' | 'domain';
type Value = string | number | Date;

interface Case {
  readonly schema: KeySchema<readonly AnySegment[]>;
  readonly kinds: ReadonlyMap<string, Kind | 'salt'>;
  /** Value segments in key order. */
  readonly valueNames: readonly string[];
  readonly arb: fc.Arbitrary<Record<string, Value>>;
}

const DELIMITERS = ['#', '!', ' ', '-', '.', ',', '\x00', '%', '&', '+'];

/** Characters that stress the escaping and the order: every delimiter and escape, controls, and Unicode whose UTF-16 order differs from its code point order. */
const SPECIAL = [
  ...DELIMITERS,
  '$',
  '"',
  '/',
  '\x01',
  '\x1f',
  '\x7f',
  'a',
  'b',
  'z',
  '0',
  '9',
  'é',
  '\u00ff',
  '\ue000',
  '\uffff',
  '😀',
  '\u{10ffff}',
];
const char = fc.oneof(
  fc.constantFrom(...SPECIAL),
  fc
    .integer({ min: 0, max: 0x10ffff })
    .filter((c) => c < 0xd800 || c > 0xdfff)
    .map((c) => String.fromCodePoint(c)),
);
const text = fc.string({ unit: char, maxLength: 6 });
const MAX_DATE = 8_640_000_000_000_000;

function valueArb(kind: Kind, width: number): fc.Arbitrary<Value> {
  switch (kind) {
    case 'string':
    case 'domain':
      return text;
    case 'integer':
      return fc.oneof(fc.integer({ min: 0, max: 10 ** width - 1 }), fc.constantFrom(0, 10 ** width - 1));
    case 'ms':
      return fc.oneof(
        fc.integer({ min: 0, max: MAX_DATE }),
        fc.date({ min: new Date(0), max: new Date(MAX_DATE), noInvalidDate: true }),
        fc.integer({ min: 1_600_000_000_000, max: 1_600_000_000_100 }),
      );
    case 'us':
      return fc.oneof(fc.maxSafeNat(), fc.integer({ min: 1_600_000_000_000_000, max: 1_600_000_000_000_100 }));
    case 'iso':
    case 'iso-ms': {
      // Years 0000 to 9999; whole seconds for precision 's'.
      const ms = fc.oneof(
        fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 }),
        fc.integer({ min: 1_600_000_000_000, max: 1_600_000_009_000 }),
      );
      const t = kind === 'iso' ? ms.map((n) => n - (((n % 1000) + 1000) % 1000)) : ms;
      return fc.oneof(
        t,
        t.map((n) => new Date(n)),
      );
    }
  }
}

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    delimiter: fc.constantFrom(...DELIMITERS),
    kinds: fc.array(
      fc.record({
        kind: fc.constantFrom<Kind>('string', 'integer', 'ms', 'us', 'iso', 'iso-ms', 'domain'),
        width: fc.integer({ min: 1, max: 3 }),
      }),
      {
        minLength: 1,
        maxLength: 4,
      },
    ),
    salt: fc.option(
      fc.record({ at: fc.nat(), buckets: fc.integer({ min: 1, max: 12 }), of: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }) }),
    ),
  })
  .map(({ delimiter, kinds, salt: s }) => {
    const segments: AnySegment[] = kinds.map(({ kind, width }, i) => {
      const name = `${kind}${i}`;
      switch (kind) {
        case 'string':
          return string(name);
        case 'domain':
          return reversedDomain(name);
        case 'integer':
          return integer(name, width);
        case 'ms':
          return reversedTimestamp(name);
        case 'us':
          return reversedTimestamp(name, { unit: 'us' });
        case 'iso':
          return isoTimestamp(name);
        case 'iso-ms':
          return isoTimestamp(name, { precision: 'ms' });
      }
    });
    const valueNames = segments.map((g) => g.name);
    const kindOf = new Map<string, Kind | 'salt'>(kinds.map(({ kind }, i) => [`${kind}${i}`, kind]));
    if (s !== null) {
      const of = valueNames.filter((_, i) => s.of[i] === true);
      segments.splice(s.at % (segments.length + 1), 0, salt('salt', s.buckets, of.length === 0 ? undefined : of));
      kindOf.set('salt', 'salt');
    }
    const arb = fc.record(Object.fromEntries(kinds.map(({ kind, width }, i) => [`${kind}${i}`, valueArb(kind, width)])));
    return { schema: keySchema({ delimiter }, segments), kinds: kindOf, valueNames, arb };
  });

const time = (v: Value): number => (v instanceof Date ? v.getTime() : (v as number));
const reverse = (d: string): string => d.split('.').reverse().join('.');
const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);

/** The order of one segment's values in keys (timestamps latest first, domains by their reversed text). */
function compareSegment(kind: Kind | 'salt', a: Value, b: Value): number {
  switch (kind) {
    case 'string':
      return compareUtf8(a as string, b as string);
    case 'domain':
      return compareUtf8(reverse(a as string), reverse(b as string));
    case 'integer':
    case 'salt':
      return (a as number) - (b as number);
    case 'ms':
    case 'us':
      return time(b) - time(a);
    case 'iso':
    case 'iso-ms':
      return time(a) - time(b);
  }
}

/** The order of bounds `{ from, to }`: times in time order, the rest as in keys. */
const compareBound = (kind: Kind | 'salt', a: Value, b: Value): number =>
  kind === 'ms' || kind === 'us' || kind === 'iso' || kind === 'iso-ms' ? time(a) - time(b) : compareSegment(kind, a, b);

/** A value as decode gives it: ms timestamps as Dates. */
const normal = (kind: Kind | 'salt' | undefined, v: Value): Value =>
  kind === 'ms' || kind === 'iso' || kind === 'iso-ms' ? new Date(time(v)) : v;

function compareTuples(c: Case, a: Record<string, Value>, b: Record<string, Value>): number {
  for (const seg of c.schema.segments) {
    const d = compareSegment(c.kinds.get(seg.name) ?? 'string', a[seg.name]!, b[seg.name]!);
    if (d !== 0) return d;
  }
  return 0;
}

const bytes = (key: string): Buffer => Buffer.from(key, 'utf8');
const compareKeys = (a: string, b: string): number => Buffer.compare(bytes(a), bytes(b));
const inRange = (key: string, r: RowKeyRange): boolean =>
  compareKeys(key, r.start) >= 0 && (r.end === undefined || compareKeys(key, r.end) < 0);

/** A case with values `x` and values `ys` near it (sharing leading segments with it), to hit prefixes and equal segments. */
const withValues = caseArb.chain((c) =>
  fc
    .tuple(
      c.arb,
      fc.array(fc.tuple(c.arb, fc.nat()), { minLength: 1, maxLength: 8 }),
      fc.nat({ max: c.valueNames.length }),
      fc.constantFrom<'none' | 'from' | 'to' | 'both'>('none', 'from', 'to', 'both'),
    )
    .map(([x, others, k, bounds]) => {
      // Each y keeps x's first j value segments, j random: many share a prefix with x.
      const ys = others.map(([o, j]) => {
        const keep = j % (c.valueNames.length + 1);
        return Object.fromEntries(c.valueNames.map((n, i) => [n, i < keep ? x[n]! : o[n]!]));
      });
      return { c, x, ys, k, bounds };
    }),
);

const decoded = (c: Case, v: Record<string, Value>): Record<string, Value> => c.schema.decode(c.schema.encode(v)) as Record<string, Value>;

describe('key schemas (property tests)', () => {
  it('decode(encode(x)) = x, from the text and from the bytes', () => {
    fc.assert(
      fc.property(
        caseArb.chain((c) => c.arb.map((x) => ({ c, x }))),
        ({ c, x }) => {
          const key = c.schema.encode(x);
          const back = c.schema.decode(key) as Record<string, Value>;
          for (const n of c.valueNames) expect(back[n]).toEqual(normal(c.kinds.get(n), x[n]!));
          expect(c.schema.decode(c.schema.encodeBytes(x))).toEqual(back);
          // Keys are well-formed text whose bytes are its UTF-8, and encode takes decode's values back (salt included).
          expect(c.schema.encodeBytes(x).toString('utf8')).toBe(key);
          expect(c.schema.encode(back as never)).toBe(key);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it("key byte order is the values' order, segment by segment", () => {
    fc.assert(
      fc.property(withValues, ({ c, x, ys }) => {
        for (const y of [...ys, x]) {
          const expected = sign(compareTuples(c, decoded(c, x), decoded(c, y)));
          expect(sign(compareKeys(c.schema.encode(x), c.schema.encode(y))), JSON.stringify([x, y])).toBe(expected);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('decode takes exactly the keys encode gives: anything else throws InvalidArgument', () => {
    fc.assert(
      fc.property(
        caseArb.chain((c) => fc.tuple(fc.constant(c), c.arb, fc.string({ unit: char, maxLength: 4 }), fc.nat(), fc.nat())),
        ([c, x, noise, at, cut]) => {
          const key = c.schema.encode(x);
          const p = at % (key.length + 1);
          // A key spliced with noise: either it decodes to values that encode back to it, or decode throws.
          for (const bad of [key.slice(0, p) + noise + key.slice(p + (cut % 3)), key.slice(0, p)]) {
            let values: unknown;
            try {
              values = c.schema.decode(bad);
            } catch (e) {
              expect(isTabletopError(e, 'InvalidArgument'), String(e)).toBe(true);
              expect(String(e)).toContain('does not fit the key schema');
              continue;
            }
            expect(c.schema.encode(values as never)).toBe(bad);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('prefix(leading values) starts exactly the keys with those values; range() and the fan-out ranges hold exactly them, bounds included', () => {
    fc.assert(
      fc.property(withValues, ({ c, x, ys, k, bounds }) => {
        const names = c.valueNames;
        const lead = names.slice(0, k);
        const spec: Record<string, Value | { from?: Value; to?: Value }> = Object.fromEntries(lead.map((n) => [n, x[n]!]));
        const next = names[k];
        // Bounds on the next segment, from two of the other values.
        let between: { from?: Value; to?: Value } | undefined;
        if (next !== undefined && bounds !== 'none' && ys.length >= 1) {
          const kind = c.kinds.get(next)!;
          const [lo, hi] = [ys[0]![next]!, (ys[1] ?? x)[next]!].sort((a, b) => compareBound(kind, a, b));
          if (compareBound(kind, lo!, hi!) === 0 && bounds === 'both') return; // empty: tested below
          between = bounds === 'from' ? { from: lo! } : bounds === 'to' ? { to: hi! } : { from: lo!, to: hi! };
          spec[next] = between;
        }
        const matches = (y: Record<string, Value>): boolean =>
          lead.every((n) => compareSegment(c.kinds.get(n)!, x[n]!, y[n]!) === 0) &&
          (between === undefined ||
            ((between.from === undefined || compareBound(c.kinds.get(next!)!, y[next!]!, between.from) >= 0) &&
              (between.to === undefined || compareBound(c.kinds.get(next!)!, y[next!]!, between.to) < 0)));

        const ranges = c.schema.ranges(spec as never);
        for (let i = 1; i < ranges.length; i++)
          expect(compareKeys(ranges[i - 1]!.end ?? '\u{10ffff}', ranges[i]!.start)).toBeLessThanOrEqual(0);
        let single: RowKeyRange | undefined;
        let prefix: string | undefined;
        try {
          single = c.schema.range(spec as never);
          if (between === undefined) prefix = c.schema.prefix(spec as never);
        } catch (e) {
          // Only a salt that the leading values do not determine stops range(); ranges() fans it out.
          expect(String(e)).toContain('needs ranges()');
          expect(ranges.length).toBeGreaterThan(0);
        }
        // One range unless a salt is fanned out (range() then spans the buckets whole: a wider scan, still exact).
        for (const r of single === undefined ? [] : ranges) {
          expect(compareKeys(single!.start, r.start)).toBeLessThanOrEqual(0);
          if (single!.end !== undefined) expect(r.end !== undefined && compareKeys(r.end, single!.end) <= 0).toBe(true);
        }
        for (const y of [x, ...ys]) {
          const key = c.schema.encode(y);
          const want = matches(y);
          expect(ranges.filter((r) => inRange(key, r)).length, JSON.stringify({ key, ranges, spec })).toBe(want ? 1 : 0);
          if (single !== undefined) expect(inRange(key, single), JSON.stringify({ key, single, spec })).toBe(want);
          // With every segment given, the prefix is the key itself, which also starts longer keys when the last segment is text.
          const starts =
            bytes(key)
              .subarray(0, bytes(prefix ?? '').length)
              .equals(bytes(prefix ?? '')) && key.length >= (prefix ?? '').length;
          if (prefix !== undefined && (want || k < names.length)) expect(starts, JSON.stringify({ key, prefix })).toBe(want);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('{ subdomainsOf } gives the ranges of a domain and exactly its subdomains, whatever the delimiter', () => {
    const label = fc.constantFrom('com', 'example', 'www', 'a', 'ex', 'example-1', 'b!', '', 'é');
    const domain = fc.array(label, { minLength: 1, maxLength: 4 }).map((l) => l.join('.'));
    fc.assert(
      fc.property(
        fc.constantFrom(...DELIMITERS),
        fc.boolean(),
        domain,
        fc.array(domain, { maxLength: 12 }),
        (delimiter, salted, d, others) => {
          const s = salted
            ? keySchema({ delimiter }, [salt('shard', 3), reversedDomain('site'), string('path')])
            : keySchema({ delimiter }, [reversedDomain('site'), string('path')]);
          const ranges = s.ranges({ site: { subdomainsOf: d } });
          expect(ranges).toHaveLength(salted ? 6 : 2);
          expect(() => s.range({ site: { subdomainsOf: d } })).toThrow('ranges()');
          for (const site of [d, `www.${d}`, `a.b.${d}`, ...others.flatMap((o) => [o, `${o}.${d}`])]) {
            const key = s.encode({ site, path: '/x' });
            const want = site === d || site.endsWith(`.${d}`);
            expect(ranges.filter((r) => inRange(key, r)).length, JSON.stringify({ d, site, key, ranges })).toBe(want ? 1 : 0);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('the fan-out over salt buckets gives one range per bucket that holds every key once, in key order', () => {
    const s = keySchema({ delimiter: '#' }, [salt('bucket', 8, ['sensor']), string('sensor'), reversedTimestamp('at')]);
    const ranges = s.ranges({});
    expect(ranges).toEqual(Array.from({ length: 8 }, (_, b) => ({ start: `${b}#`, end: `${b}$` })));
    fc.assert(
      fc.property(text, fc.date({ min: new Date(0), max: new Date(MAX_DATE), noInvalidDate: true }), (sensor, at) => {
        const key = s.encode({ sensor, at });
        const holding = ranges.filter((r) => inRange(key, r));
        expect(holding).toEqual([ranges[s.bucket('bucket', { sensor, at })]]);
      }),
    );
    // A time window over every sensor of a salted latest-first schema: one range per bucket.
    const events = keySchema({}, [salt('shard', 4), reversedTimestamp('at'), string('event')]);
    const window = events.ranges({ at: { from: new Date(1_000), to: new Date(2_000) } });
    expect(window).toHaveLength(4);
    for (const [b, r] of window.entries()) {
      expect(r.start.startsWith(`${b}#`)).toBe(true);
      expect(inRange(events.encode({ at: new Date(1_999), event: 'x' }), r)).toBe(
        events.bucket('shard', { at: new Date(1_999), event: 'x' }) === b,
      );
      expect(inRange(events.encode({ at: new Date(2_000), event: 'x' }), r)).toBe(false);
    }
  });
});

describe('key schemas (examples)', () => {
  const sensors = keySchema({ delimiter: '#' }, [salt('bucket', 8, ['sensor']), string('sensor'), reversedTimestamp('at')]);

  it("encodes the issue's sensor example: bucket crc32('sensor123') % 8 = 5 (as Python's zlib.crc32 gives), then MAX - t", () => {
    const at = new Date('2023-05-01T12:00:00Z');
    const key = sensors.encode({ sensor: 'sensor123', at });
    expect(key).toBe(`5#sensor123#${9_223_372_036_854_775_807n - 1_682_942_400_000n}`);
    expect(key).toBe('5#sensor123#9223370353912375807');
    expect(sensors.decode(key)).toEqual({ bucket: 5, sensor: 'sensor123', at });
    expect(sensors.prefix({ sensor: 'sensor123' })).toBe('5#sensor123#');
  });

  it('infers the values from the schema: salts computed on the way in, numbers on the way out; Dates or numbers for times', () => {
    expectTypeOf<ReturnType<typeof sensors.decode>>().toEqualTypeOf<{ bucket: number; sensor: string; at: Date }>();
    expectTypeOf<Parameters<typeof sensors.encode>[0]>().toEqualTypeOf<{ readonly sensor: string; readonly at: Date | number }>();
    const us = keySchema({}, [string('user'), reversedTimestamp('at', { unit: 'us' }), integer('n', 4)]);
    expectTypeOf<ReturnType<typeof us.decode>>().toEqualTypeOf<{ user: string; at: number; n: number }>();
    // @ts-expect-error: a value is missing
    expect(() => us.encode({ user: 'u', at: 1 })).toThrow("no value for 'n'");
    // @ts-expect-error: a value of the wrong type
    expect(() => us.encode({ user: 'u', at: 1, n: '1' })).toThrow('non-negative integer');
    // @ts-expect-error: bounds on a segment take its values
    expect(() => us.range({ user: 'u', at: { from: 'x' } })).toThrow('since 1970');
  });

  it("encodes the issue's good design sensor123#2023-05-01T12:00:00Z, and only canonical ISO times", () => {
    const plain = keySchema({}, [string('sensor'), isoTimestamp('at')]);
    const at = new Date('2023-05-01T12:00:00Z');
    expect(plain.encode({ sensor: 'sensor123', at })).toBe('sensor123#2023-05-01T12:00:00Z');
    expect(plain.decode('sensor123#2023-05-01T12:00:00Z')).toEqual({ sensor: 'sensor123', at });
    expect(plain.range({ sensor: 'sensor123', at: { from: at, to: at.getTime() + 3_600_000 } })).toEqual({
      start: 'sensor123#2023-05-01T12:00:00Z',
      end: 'sensor123#2023-05-01T13:00:00Z',
    });
    expect(() => plain.encode({ sensor: 'x', at: 1 })).toThrow('in whole seconds');
    expect(() => plain.encode({ sensor: 'x', at: Date.UTC(10000, 0) })).toThrow('years 0000 to 9999');
    expect(() => plain.decode('sensor123#2023-02-30T12:00:00Z')).toThrow("'at' should be an ISO time like 1970-01-01T00:00:00Z");
  });

  it('escapes the delimiter and everything below its successor inside strings, and keeps domains reversed', () => {
    const s = keySchema({}, [reversedDomain('site'), string('path')]);
    expect(s.escape).toBe('$');
    expect(s.encode({ site: 'www.example.com', path: 'a#b$c d/e' })).toBe('com.example.www#a$#b$$c$ d/e');
    expect(s.decode('com.example.www#a$#b$$c$ d/e')).toEqual({ site: 'www.example.com', path: 'a#b$c d/e' });
    expect(s.range({ site: 'example.com' })).toEqual({ start: 'com.example#', end: 'com.example$' });
  });

  it('says what is wrong with a key that does not fit, naming the schema', () => {
    const cases: [string, string][] = [
      ['5#sensor123', "it ends before 'at'"],
      ['5#sensor123#92233703539123758', "'at' should be 19 digits"],
      ['4#sensor123#9223370353912375807', "'bucket' is 4, but the segments it hashes give bucket 5"],
      ['5#sensor 123#9223370353912375807', 'should be escaped'],
      ['5#sensor123$#9223370353912375807', "it ends before 'at'"],
      ['5#sensor123#9223370353912375807#x', 'characters follow the last segment'],
    ];
    for (const [key, why] of cases) {
      expect(() => sensors.decode(key)).toThrow(why);
      expect(() => sensors.decode(key)).toThrow('{bucket: salt of 8 buckets by sensor}#{sensor: string}#{at: reversed timestamp}');
    }
    expect(() => sensors.decode(Buffer.from([0x35, 0x23, 0xff]))).toThrow('not UTF-8');
  });

  it('refuses what it cannot encode in order: bad delimiters, values out of range, lone surrogates, empty ranges', () => {
    expect(() => keySchema({ delimiter: '/' }, [string('a')])).toThrow("below '/'");
    expect(() => keySchema({ delimiter: '##' }, [string('a')])).toThrow("below '/'");
    expect(() => keySchema({}, [string('a'), string('a')])).toThrow("two segments are named 'a'");
    expect(() => keySchema({}, [salt('s', 4, ['b']), string('a')])).toThrow("hashes 'b'");
    const n = keySchema({}, [integer('n', 3), string('s')]);
    expect(() => n.encode({ n: 1000, s: '' })).toThrow('at most 3 digits');
    expect(() => n.encode({ n: -1, s: '' })).toThrow('non-negative');
    expect(() => n.encode({ n: 1.5, s: '' })).toThrow('non-negative integer');
    expect(() => n.encode({ n: 1, s: '\ud800' })).toThrow('lone surrogate');
    expect(() => n.range({ n: { from: 5, to: 5 } })).toThrow('is empty');
    expect(n.range({ n: { from: 5, to: 1000 } })).toEqual({ start: '005', end: undefined });
    expect(() => n.range({ s: 'x' })).toThrow("'s' given, but the range ends at 'n'");
    expect(() => sensors.range({ at: { from: new Date(0) } })).toThrow('needs ranges()');
    expect(() => sensors.encode({ sensor: 'a', at: new Date(-1) })).toThrow('since 1970');
  });

  it('gives latest-first ranges of a time window: [from, to) in time', () => {
    const s = keySchema({}, [string('user'), reversedTimestamp('at', { unit: 'us' })]);
    const r = s.range({ user: 'u1', at: { from: 1_000_000, to: 2_000_000 } });
    const key = (at: number) => s.encode({ user: 'u1', at });
    expect([999_999, 1_000_000, 1_999_999, 2_000_000].map((t) => inRange(key(t), r))).toEqual([false, true, true, false]);
    expect(compareKeys(key(2), key(1))).toBeLessThan(0);
    expect(s.decode(key(1_999_999))).toEqual({ user: 'u1', at: 1_999_999 });
  });
});
