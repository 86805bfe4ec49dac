import { crc32 } from 'node:zlib';
import { invalidArgument } from '../model/errors.js';
import { checkDelimiter, escapeOf, escapeText, readEscaped } from './escape.js';
import type { RowKeyRange } from './range.js';
import { LONE_SURROGATE, type SaltSegment, type ValueSegment } from './segments.js';

/**
 * A key schema: ordered segments joined by a delimiter, and what a schema does with keys (encode,
 * decode, prefixes and ranges for scans, fan-out over salt buckets). Keys are text: every segment is
 * text (digits, or escaped Unicode), so a key is a JavaScript string whose UTF-8 bytes are the row
 * key's bytes, which is what the official client sends for a string key and gives back as `row.id`.
 * `encodeBytes` gives those bytes as a Buffer; tabletop's own Database API takes byte strings:
 * `fromUtf8(schema.encode(...))`.
 *
 * Key order is the schema's order: keys compare as their segments' values one after another, each
 * segment in its own order (escape.ts says why the escaping keeps it; schema.test.ts proves it).
 */

// eslint-style `any` is needed for inference over In/Out of each segment.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyValueSegment = ValueSegment<string, any, any>;
export type AnySegment = AnyValueSegment | SaltSegment;

/** What `encode` takes: every value segment's value by name (salts are computed). */
export type KeyInput<S extends readonly AnySegment[]> = {
  readonly [G in S[number] as G extends AnyValueSegment ? G['name'] : never]: G extends ValueSegment<string, infer In, unknown>
    ? In
    : never;
};

/** What `decode` gives: every segment's value by name, salts as their bucket numbers. */
export type KeyValues<S extends readonly AnySegment[]> = {
  [G in S[number] as G['name']]: G extends ValueSegment<string, never, infer Out> ? Out : number;
};

/** Bounds of one segment's values: `from` inclusive, `to` exclusive, in the segment's value order (times in time order). */
export interface Between<V> {
  readonly from?: V;
  readonly to?: V;
}

/** For a reversed-domain segment: the domain and every subdomain of it (`example.com`, `www.example.com`, `a.b.example.com`). */
export interface Subdomains {
  readonly subdomainsOf: string;
}

/** A range: exact values for leading segments, then optionally bounds (or, for a reversed domain, subdomains) on the next one. */
export type RowKeyRangeSpec<S extends readonly AnySegment[]> = {
  readonly [K in keyof KeyInput<S>]?: KeyInput<S>[K] | Between<KeyInput<S>[K]> | Subdomains;
};

export interface KeySchemaOptions {
  /** One ASCII character below '/'; default '#'. The escape is the next character ('$' for '#'). */
  readonly delimiter?: string;
}

export interface KeySchema<S extends readonly AnySegment[]> {
  readonly delimiter: string;
  /** The escape character: the delimiter's successor. */
  readonly escape: string;
  readonly segments: S;
  /** The key of `values` as text (its UTF-8 bytes are the row key). Throws InvalidArgument on a value that does not fit. */
  encode(values: KeyInput<S>): string;
  /** The key's bytes (UTF-8). */
  encodeBytes(values: KeyInput<S>): Buffer;
  /** The values of a key (text, or its bytes); throws InvalidArgument, naming the schema and what is wrong, on a key that does not fit. */
  decode(key: string | Uint8Array): KeyValues<S>;
  /**
   * The text every key with these leading values starts with, and no other key: the leading
   * segments given (salts computed from them), each followed by the delimiter. With every segment
   * given, the key itself (which also starts longer keys when the last segment is text: `range`
   * gives exactly one key). A value given after a missing one throws.
   */
  prefix(values: Partial<KeyInput<S>>): string;
  /**
   * The half-open key range [start, end) of the keys matching `spec`: exact values for a run of
   * leading segments, then optionally `{ from, to }` on the next one. Exactly those keys, in key
   * order. Throws when a salt before the range's end cannot be computed, or for `{ subdomainsOf }`
   * (use `ranges`).
   */
  range(spec?: RowKeyRangeSpec<S>): RowKeyRange;
  /**
   * The same as `range`, fanned out over the buckets of every salt that cannot be computed from
   * `spec` (one range per bucket, in key order): for scans that must read all buckets. A reversed
   * domain given as `{ subdomainsOf: 'example.com' }` gives two ranges (per bucket): the domain's
   * keys, then its subdomains'.
   */
  ranges(spec?: RowKeyRangeSpec<S>): RowKeyRange[];
  /** The bucket of a salt segment for these values (what `encode` writes there). */
  bucket(salt: SaltNames<S>, values: KeyInput<S>): number;
}

type SaltNames<S extends readonly AnySegment[]> = Extract<S[number], SaltSegment>['name'];

/**
 * A key schema of `segments` in key order, e.g.
 *   keySchema({ delimiter: '#' }, [salt('bucket', 8, ['sensor']), string('sensor'), reversedTimestamp('at')])
 * whose `encode({ sensor: 'sensor123', at: new Date(...) })` gives `5#sensor123#9223370353...`.
 */
export function keySchema<const S extends readonly AnySegment[]>(options: KeySchemaOptions, segments: S): KeySchema<S> {
  return new Schema(options.delimiter ?? '#', segments);
}

const isBetween = (v: unknown): v is Between<unknown> =>
  typeof v === 'object' && v !== null && !(v instanceof Date) && Object.keys(v).every((k) => k === 'from' || k === 'to');
const isSubdomains = (v: unknown): v is Subdomains =>
  typeof v === 'object' && v !== null && Object.keys(v).length === 1 && typeof (v as Subdomains).subdomainsOf === 'string';
/** Not an exact value: bounds or subdomains. */
const isBound = (v: unknown): boolean => isBetween(v) || isSubdomains(v);

class Schema<S extends readonly AnySegment[]> implements KeySchema<S> {
  readonly escape: string;
  private readonly names: readonly string[];
  private readonly description: string;

  constructor(
    readonly delimiter: string,
    readonly segments: S,
  ) {
    checkDelimiter(delimiter);
    this.escape = escapeOf(delimiter);
    if (!Array.isArray(segments) || segments.length === 0) throw invalidArgument('keySchema: a schema needs at least one segment');
    this.names = segments.map((s) => s.name);
    const dup = this.names.find((n, i) => this.names.indexOf(n) !== i);
    if (dup !== undefined) throw invalidArgument(`keySchema: two segments are named '${dup}'`);
    for (const s of segments) {
      if (s.kind !== 'salt') continue;
      for (const n of s.of ?? []) {
        if (!segments.some((v) => v.name === n && v.kind !== 'salt')) {
          throw invalidArgument(`keySchema: salt '${s.name}' hashes '${n}', which is not a value segment of the schema`);
        }
      }
    }
    this.description = segments.map(describe).join(delimiter);
  }

  encode(values: KeyInput<S>): string {
    const given = values as Record<string, unknown>;
    const texts = this.texts(given, true);
    return this.segments.map((s) => (s.kind === 'salt' ? this.saltText(s, texts, given[s.name]) : texts.get(s.name))).join(this.delimiter);
  }

  encodeBytes(values: KeyInput<S>): Buffer {
    return Buffer.from(this.encode(values), 'utf8');
  }

  decode(key: string | Uint8Array): KeyValues<S> {
    const text = typeof key === 'string' ? key : decodeUtf8(key, (why) => this.misfit(key, why));
    const fail = (why: string): never => this.misfit(text, why);
    if (LONE_SURROGATE.test(text)) fail('it holds a lone surrogate, which no UTF-8 key decodes to');
    const out: Record<string, unknown> = {};
    const texts = new Map<string, string>();
    const salts: { seg: SaltSegment; bucket: number }[] = [];
    let pos = 0;
    this.segments.forEach((seg, i) => {
      if (i > 0) {
        if (text[pos] !== this.delimiter)
          fail(pos >= text.length ? `it ends before '${seg.name}'` : `no delimiter before '${seg.name}' at ${pos}`);
        pos++;
      }
      const start = pos;
      let value: unknown;
      if (seg.kind === 'salt') {
        const t = text.slice(pos, pos + seg.width);
        pos += seg.width;
        if (!/^[0-9]+$/.test(t) || t.length !== seg.width) fail(`'${seg.name}' should be ${seg.width} digits`);
        value = Number(t);
        salts.push({ seg, bucket: Number(t) });
      } else {
        let t: string;
        if (seg.width !== undefined) {
          t = text.slice(pos, pos + seg.width);
          pos += seg.width;
          if (t.length !== seg.width) fail(`'${seg.name}' should be ${seg.width} digits`);
        } else {
          const read = readEscaped(text, pos, this.delimiter, fail);
          t = read.text;
          pos = read.end;
        }
        const v = seg.value(t);
        if ('error' in v) fail(v.error);
        else value = v.ok;
      }
      texts.set(seg.name, text.slice(start, pos));
      out[seg.name] = value;
    });
    if (pos !== text.length) fail(`${text.length - pos} characters follow the last segment`);
    for (const { seg, bucket } of salts) {
      const expected = this.bucketOf(seg, texts);
      if (bucket !== expected) fail(`'${seg.name}' is ${bucket}, but the segments it hashes give bucket ${expected}`);
    }
    return out as KeyValues<S>;
  }

  prefix(values: Partial<KeyInput<S>>): string {
    for (const [name, v] of Object.entries(values)) {
      if (isBound(v)) throw invalidArgument(`key prefix: '${name}' needs a value, not bounds (bounds are for range())`);
    }
    const [lead] = this.walk(values as Record<string, unknown>, false);
    if (lead === undefined || lead.bounded !== undefined) throw new Error('unreachable: a prefix walk neither fans out nor bounds');
    return lead.parts.length === 0
      ? ''
      : lead.parts.join(this.delimiter) + (lead.parts.length < this.segments.length ? this.delimiter : '');
  }

  range(spec: RowKeyRangeSpec<S> = {}): RowKeyRange {
    const leads = this.walk(spec as Record<string, unknown>, false);
    if (leads.length !== 1) throw invalidArgument('key range: a domain and its subdomains are two key ranges: use ranges()');
    return this.rangeOf(leads[0]!);
  }

  ranges(spec: RowKeyRangeSpec<S> = {}): RowKeyRange[] {
    return this.walk(spec as Record<string, unknown>, true).map((lead) => this.rangeOf(lead));
  }

  bucket(salt: SaltNames<S>, values: KeyInput<S>): number {
    const seg = this.segments.find((s) => s.name === salt);
    if (seg?.kind !== 'salt') throw invalidArgument(`key schema: '${String(salt)}' is not a salt segment of ${this.description}`);
    return this.bucketOf(seg, this.texts(values as Record<string, unknown>, true)) ?? 0;
  }

  // ---- internals ----

  private misfit(key: string | Uint8Array, why: string): never {
    const shown = typeof key === 'string' ? JSON.stringify(key) : `0x${Buffer.from(key).toString('hex')}`;
    throw invalidArgument(`the key ${shown} does not fit the key schema ${this.description}: ${why}`);
  }

  /** The key texts (escaped) of the value segments given exact values in `values`; all of them when `all`. */
  private texts(values: Record<string, unknown>, all: boolean): Map<string, string> {
    const texts = new Map<string, string>();
    for (const seg of this.segments) {
      if (seg.kind === 'salt') continue;
      const v = values[seg.name];
      if (v === undefined || isBound(v)) {
        if (all) throw invalidArgument(`key schema ${this.description}: no value for '${seg.name}'`);
        continue;
      }
      const t = seg.text(v);
      texts.set(seg.name, seg.width === undefined ? escapeText(t, this.escape) : t);
    }
    if (all) {
      const extra = Object.keys(values).find((n) => !this.names.includes(n));
      if (extra !== undefined) throw invalidArgument(`key schema ${this.description}: '${extra}' is not one of its segments`);
    }
    return texts;
  }

  private hashed(seg: SaltSegment): readonly string[] {
    return seg.of ?? this.segments.filter((s) => s.kind !== 'salt').map((s) => s.name);
  }

  /** crc32 of the hashed segments' key texts joined by the delimiter, modulo the buckets; undefined when one is missing. */
  private bucketOf(seg: SaltSegment, texts: ReadonlyMap<string, string>): number | undefined {
    const parts = this.hashed(seg).map((n) => texts.get(n));
    if (parts.some((p) => p === undefined)) return undefined;
    return crc32(parts.join(this.delimiter)) % seg.buckets;
  }

  /** The text of a salt for complete texts; a bucket given with the values (as decode gives it) must be the one computed. */
  private saltText(seg: SaltSegment, texts: ReadonlyMap<string, string>, given: unknown): string {
    const bucket = this.bucketOf(seg, texts) ?? 0;
    if (given !== undefined && given !== bucket) {
      throw invalidArgument(`key schema ${this.description}: '${seg.name}' is computed (${bucket} for these values), not ${String(given)}`);
    }
    return String(bucket).padStart(seg.width, '0');
  }

  /**
   * The leading segments a spec fixes: their texts (`parts`), and the next segment's bounds when
   * given. A salt that the given values do not determine ends the lead, unless `fanOut`: then one
   * lead per bucket. Every value given must be used (a value after a missing segment is an error).
   */
  private walk(spec: Record<string, unknown>, fanOut: boolean): Lead[] {
    for (const name of Object.keys(spec)) {
      if (!this.names.includes(name)) throw invalidArgument(`key range: '${name}' is not a segment of ${this.description}`);
      if (this.segments.find((s) => s.name === name)?.kind === 'salt') {
        throw invalidArgument(`key range: '${name}' is a salt, computed from the segments it hashes; give those instead`);
      }
    }
    const texts = this.texts(spec, false);
    const leads: Lead[] = [];
    const used = new Set<string>();
    let stop: string | undefined;
    const go = (i: number, parts: string[]): void => {
      const seg = this.segments[i];
      if (seg === undefined) return void leads.push({ parts, bounded: undefined });
      const end = (bounded: Lead['bounded']): void => {
        stop ??= seg.name;
        leads.push({ parts, bounded });
      };
      if (seg.kind === 'salt') {
        const bucket = this.bucketOf(seg, texts);
        if (bucket !== undefined) {
          this.hashed(seg).forEach((n) => used.add(n));
          return go(i + 1, [...parts, String(bucket).padStart(seg.width, '0')]);
        }
        if (!fanOut && this.givenAfter(spec, i)) {
          throw invalidArgument(
            `key range: salt '${seg.name}' hashes ${this.hashed(seg)
              .filter((n) => !texts.has(n))
              .map((n) => `'${n}'`)
              .join(', ')}, not given: a scan of every bucket needs ranges(), which gives one range per bucket`,
          );
        }
        if (!fanOut) return end(undefined);
        for (let b = 0; b < seg.buckets; b++) go(i + 1, [...parts, String(b).padStart(seg.width, '0')]);
        return;
      }
      const v = spec[seg.name];
      const text = texts.get(seg.name);
      if (text !== undefined) {
        used.add(seg.name);
        return go(i + 1, [...parts, text]);
      }
      if (isSubdomains(v)) {
        if (seg.kind !== 'reversed-domain')
          throw invalidArgument(`key range: '${seg.name}' is not a reversed domain: it has no subdomains`);
        used.add(seg.name);
        // The domain itself (an exact value: its key or prefix), then every text that starts with it and a dot.
        const domain = escapeText(seg.text(v.subdomainsOf), this.escape);
        stop ??= seg.name;
        leads.push({ parts: [...parts, domain], bounded: undefined });
        return void leads.push({ parts, bounded: { kind: 'text-prefix', text: escapeText(seg.text(v.subdomainsOf) + '.', this.escape) } });
      }
      if (v !== undefined) {
        used.add(seg.name);
        return end({ kind: 'between', seg, between: v as Between<unknown> });
      }
      end(undefined);
    };
    go(0, []);
    const unused = Object.keys(spec).filter((n) => spec[n] !== undefined && !used.has(n));
    if (unused.length > 0) {
      const at = stop === undefined ? undefined : spec[stop];
      throw invalidArgument(
        `key range: ${unused.map((n) => `'${n}'`).join(', ')} given, but the range ends at '${String(stop)}' (${at === undefined ? 'not given' : 'bounded'}): ` +
          `a key range fixes a run of leading segments, and may bound the one after them, only`,
      );
    }
    return leads;
  }

  /** Whether `spec` gives a value for a segment after index `i`. */
  private givenAfter(spec: Record<string, unknown>, i: number): boolean {
    return this.segments.slice(i + 1).some((s) => spec[s.name] !== undefined);
  }

  private rangeOf(lead: Lead): RowKeyRange {
    const { parts, bounded } = lead;
    if (parts.length === this.segments.length && bounded === undefined) {
      const key = parts.join(this.delimiter);
      return { start: key, end: key + '\x00' };
    }
    const p = parts.length === 0 ? '' : parts.join(this.delimiter) + this.delimiter;
    // The smallest text above every key starting with p (p ends with the delimiter): p with it replaced by the escape.
    const after = p === '' ? undefined : p.slice(0, -1) + this.escape;
    if (bounded === undefined) return { start: p, end: after };
    // Texts starting with `text`: up to `text` with its last character (an ASCII '.') raised by one.
    if (bounded.kind === 'text-prefix') return { start: p + bounded.text, end: p + bounded.text.slice(0, -1) + '/' };
    const { seg, between } = bounded;
    const { low, high } = seg.bounds(between.from, between.to);
    const esc = (t: string): string => (seg.width === undefined ? escapeText(t, this.escape) : t);
    return { start: p + (low === undefined ? '' : esc(low)), end: high === undefined ? after : p + esc(high) };
  }
}

interface Lead {
  readonly parts: readonly string[];
  readonly bounded:
    | { readonly kind: 'between'; readonly seg: AnyValueSegment; readonly between: Between<unknown> }
    | { readonly kind: 'text-prefix'; readonly text: string }
    | undefined;
}

function describe(s: AnySegment): string {
  switch (s.kind) {
    case 'salt':
      return `{${s.name}: salt of ${s.buckets} buckets${s.of === undefined ? '' : ` by ${s.of.join(', ')}`}}`;
    case 'integer':
      return `{${s.name}: integer of ${s.width} digits}`;
    default:
      return `{${s.name}: ${s.kind.replace('-', ' ')}}`;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(bytes: Uint8Array, fail: (why: string) => never): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return fail('it is not UTF-8 text, which every key of a key schema is');
  }
}
