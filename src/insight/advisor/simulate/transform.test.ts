import { describe, expect, it } from 'vitest';
import { isTabletopError } from '../../../model/errors.js';
import { fnv1a, splitSegments } from './key-text.js';
import { describeTransform, detectDelimiter, keyTransform, parseTransform, TRANSFORM_GRAMMAR } from './transform.js';

/** The transform applied to `keys`, its delimiter detected from them. */
function apply(spec: string, keys: readonly string[]): string[] {
  const { apply: fn } = keyTransform(parseTransform(spec), keys);
  return keys.map(fn);
}

describe('parseTransform', () => {
  it('reads every step of the grammar', () => {
    expect(parseTransform('delimiter=|,salt:8,salt:16@2,promote:2,reverse:1,reverse-timestamp:3,pad:2:6,pad:4')).toEqual({
      spec: 'delimiter=|,salt:8,salt:16@2,promote:2,reverse:1,reverse-timestamp:3,pad:2:6,pad:4',
      delimiter: '|',
      steps: [
        { kind: 'salt', buckets: 8, segment: undefined },
        { kind: 'salt', buckets: 16, segment: 2 },
        { kind: 'promote', segment: 2 },
        { kind: 'reverse', segment: 1 },
        { kind: 'reverse-timestamp', segment: 3 },
        { kind: 'pad', width: 6, segment: 2 },
        { kind: 'pad', width: 4, segment: undefined },
      ],
    });
  });

  it.each([
    ['', 'it is empty'],
    ['salt', '"salt" has 0 argument(s), salt takes 1'],
    ['salt:0', 'the bucket count N must be between 1 and'],
    ['salt:x', 'the bucket count N must be a whole number, got "x"'],
    ['salt:8@', 'the segment S must be a whole number'],
    ['salt:8@2@3', 'write salt:N or salt:N@S'],
    ['promote:2:3', '"promote:2:3" has 2 argument(s), promote takes 1'],
    ['promote:-1', 'must be a whole number, got "-1"'],
    ['pad:1:2:3', 'pad takes 1 or 2'],
    ['frobnicate:1', 'unknown step "frobnicate"'],
    ['promote:1,delimiter=#', '"delimiter=#" must be the first step'],
    ['delimiter=', 'the delimiter must be 1 to 4 characters'],
    ['salt:8,', 'step 2 is empty'],
  ])('rejects %j: %s', (spec, what) => {
    let error: unknown;
    try {
      parseTransform(spec);
    } catch (e) {
      error = e;
    }
    expect(isTabletopError(error, 'InvalidArgument')).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain(`Invalid transform "${spec}"`);
    expect(message).toContain(what);
    expect(message).toContain(TRANSFORM_GRAMMAR);
  });
});

describe('the delimiter', () => {
  it('is the candidate most keys hold, not the colons of ISO timestamps', () => {
    expect(detectDelimiter(['2023-05-01T12:00:00Z#sensor123', '2023-05-01T12:00:10.5Z#sensor124'])).toBe('#');
    expect(detectDelimiter(['acme:2023-05-01T12:00:00Z', 'globex:2023-05-01T12:00:00Z'])).toBe(':');
    expect(detectDelimiter(['a|b', 'c|d', 'e_f'])).toBe('|');
  });

  it('breaks ties in the order # : / | _ . and falls back to #', () => {
    expect(detectDelimiter(['www.example.com/x', 'www.example.org/y'])).toBe('/');
    expect(detectDelimiter(['a_b.c', 'd_e.f'])).toBe('_');
    expect(detectDelimiter(['plain', 'keys'])).toBe('#');
  });

  it('never cuts an ISO timestamp', () => {
    expect(splitSegments('acme:2023-05-01T12:00:00Z:x', ':')).toEqual(['acme', '2023-05-01T12:00:00Z', 'x']);
    expect(splitSegments('a::b', ':')).toEqual(['a', '', 'b']);
    expect(splitSegments('a##b', '##')).toEqual(['a', 'b']);
  });

  it('can be given as a first step', () => {
    expect(apply('delimiter=|,promote:2', ['a#b|c#d'])).toEqual(['c#d|a#b']);
  });
});

describe('the steps rewrite keys', () => {
  it('promote moves a segment to the front (the issue: timestamp first → sensor first)', () => {
    expect(apply('promote:2', ['2023-05-01T12:00:00Z#sensor123'])).toEqual(['sensor123#2023-05-01T12:00:00Z']);
    expect(apply('promote:3', ['a#b#c#d'])).toEqual(['c#a#b#d']);
    expect(apply('promote:1', ['a#b'])).toEqual(['a#b']);
    expect(apply('promote:5', ['a#b', 'c#d'])).toEqual(['a#b', 'c#d']);
  });

  it('reverse turns a dotted domain by its labels, anything else by its characters', () => {
    expect(apply('reverse:1', ['www.example.com/x'])).toEqual(['com.example.www/x']);
    expect(apply('reverse:2', ['user#12345'])).toEqual(['user#54321']);
  });

  it('pad zero-pads the numbers of one segment or of all, leaving timestamps and longer numbers alone', () => {
    expect(apply('pad:2:6', ['user#42#7'])).toEqual(['user#000042#7']);
    expect(apply('pad:3', ['a1#b22#2023-05-01T12:00:00Z#12345'])).toEqual(['a001#b022#2023-05-01T12:00:00Z#12345']);
    // Padding makes lexicographic order numeric order.
    const keys = ['item#9', 'item#10', 'item#100'];
    const padded = apply('pad:2:4', keys);
    expect([...padded].sort()).toEqual(padded);
  });

  it('reverse-timestamp puts the newest first, for ISO and epoch s/ms/µs timestamps', () => {
    const iso = ['sensor1#2023-05-01T12:00:00Z', 'sensor1#2023-05-01T12:00:10Z', 'sensor1#2023-05-02T00:00:00.250Z'];
    const out = apply('reverse-timestamp:2', iso);
    expect(out[0]).toBe(`sensor1#${String(9_999_999_999_999 - Date.parse('2023-05-01T12:00:00Z'))}`);
    expect([...out].sort()).toEqual([...out].reverse());
    for (const [t1, t2] of [
      ['1683000000', '1683000001'],
      ['1683000000000', '1683000000999'],
      ['1683000000000000', '1683000000000001'],
    ] as const) {
      const [a, b] = apply('reverse-timestamp:2', [`s#${t1}`, `s#${t2}`]);
      expect(a!.length).toBe(2 + t1.length);
      expect(b! < a!).toBe(true);
    }
    // µs need more than a double's 53 bits: exact.
    expect(apply('reverse-timestamp:1', ['1683000000000001'])).toEqual(['8316999999999998']);
    expect(apply('reverse-timestamp:1', ['no-time-here'])).toEqual(['no-time-here']);
  });

  it('salt prefixes a stable hash bucket padded to the width of N, spread evenly', () => {
    const keys = Array.from({ length: 8000 }, (_, i) => `2023-05-01T12:00:${String(i % 60).padStart(2, '0')}Z#sensor${i}`);
    const salted = apply('salt:8', keys);
    const counts = new Map<string, number>();
    salted.forEach((k, i) => {
      expect(k.endsWith(`#${keys[i]}`)).toBe(true);
      counts.set(k.slice(0, 1), (counts.get(k.slice(0, 1)) ?? 0) + 1);
    });
    expect([...counts.keys()].sort()).toEqual(['0', '1', '2', '3', '4', '5', '6', '7']);
    for (const n of counts.values()) expect(Math.abs(n - 1000)).toBeLessThan(120);
    expect(apply('salt:10', ['k'])[0]).toMatch(/^0\d#k$/);
    expect(apply('salt:8', ['k'])[0]).toBe(`${fnv1a('k') % 8}#k`);
  });

  it('salt:N@S hashes one segment, so one entity stays in one bucket', () => {
    const keys = Array.from({ length: 50 }, (_, i) => `sensor7#${1683000000 + i}`);
    const buckets = new Set(apply('salt:8@1', keys).map((k) => k.split('#')[0]));
    expect(buckets.size).toBe(1);
    expect(new Set(apply('salt:8', keys).map((k) => k.split('#')[0])).size).toBeGreaterThan(4);
  });

  it('applies steps left to right', () => {
    expect(apply('promote:2,salt:4@1', ['2023-05-01T12:00:00Z#sensor123'])).toEqual([
      `${fnv1a('sensor123') % 4}#sensor123#2023-05-01T12:00:00Z`,
    ]);
  });

  it('says what it does in words', () => {
    const t = parseTransform('promote:2,salt:8,pad:3:6,reverse-timestamp:2');
    expect(describeTransform(t, '#')).toBe(
      'keys cut on "#" (detected from the keys): move segment 2 to the front, then salt into 8 buckets by a hash of the key, ' +
        'then zero-pad the numbers of segment 3 to 6 digits, then replace the timestamp in segment 2 by MAX - t (newest first)',
    );
    expect(describeTransform(parseTransform('delimiter=|'), '|')).toBe('keys cut on "|", kept as they are');
  });
});

describe('fnv1a', () => {
  it('is FNV-1a 32', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
  });
});
