import { type ByteString, printable } from '../../../model/bytes.js';
import type { DiagnosticJson, KeyRangeJson } from '../../api-types.js';
import {
  type SegmentClass,
  type SegmentKind,
  classifySegment,
  datePathAt,
  detectDelimiter,
  otherDelimiters,
  splitKey,
} from '../../key-shape.js';
import type { AdvisorThresholds } from '../thresholds.js';
import { round } from '../../diagnostics/context.js';
import type { AdvisorInput, EvidenceValue, Finding, RuleId, Severity, TableSample, TrafficSummary } from '../types.js';

/** What a rule reads: the whole input, the table it judges, the shape of its keys, the thresholds. */
export interface RuleContext {
  readonly input: AdvisorInput;
  readonly table: TableSample;
  /** The table's id. */
  readonly id: string;
  readonly shape: TableShape;
  readonly t: AdvisorThresholds;
}

/** A rule: what it finds in one table (pure). */
export type Rule = (ctx: RuleContext) => Finding[];

/** The shape of a table's sampled keys: delimiter, segments, and where the keys start to differ. */
export interface TableShape {
  /** Distinct keys, ascending: the stored samples, else the recent writes. */
  readonly keys: readonly ByteString[];
  readonly delimiter: string;
  /** Each key's segments. */
  readonly segments: readonly (readonly string[])[];
  /** The first segment position (0-based) whose value differs between keys: where the keys spread. */
  readonly lead: number;
  /**
   * A constant segment before `lead` names one entity (holds digits: `sensor123`, `tenant042`): the sample is
   * one entity's rows, and what follows it (a timestamp, a counter) is ordered within that entity only. A version
   * (`v1`) is no entity.
   */
  readonly entityPrefixed: boolean;
}

export function tableShape(table: TableSample): TableShape {
  return shapeOf(table.keys.length > 0 ? table.keys : table.writeOrder);
}

/** The shape of a set of keys. */
export function shapeOf(source: readonly ByteString[]): TableShape {
  const keys = [...new Set(source)].sort();
  const delimiter = detectDelimiter(keys);
  const segments = keys.map((k) => splitKey(k, delimiter));
  let lead = 0;
  const width = Math.max(0, ...segments.map((s) => s.length));
  while (lead < width - 1 && new Set(segments.map((s) => s[lead])).size <= 1) lead++;
  // A timestamp that stays the same in the sample still leads (today's date: `2026-01-01#sensor1`,
  // `2026/01/01/sensor1`): where it starts is where the writes go.
  const first = segments[0] ?? [];
  for (let p = 0; p < lead; p++) {
    if (datePathAt(first, p) > 0 || classifySegment(first[p]!).kind === 'timestamp') lead = p;
  }
  const constants = first.slice(0, lead);
  const entityPrefixed = constants.some((s) => /\d/.test(s) && !/^v\d+$/i.test(s) && classifySegment(s).kind !== 'timestamp');
  return { keys, delimiter, segments, lead, entityPrefixed };
}

/** The classes of the segments at `position` (keys without it are left out). */
export function classesAt(shape: TableShape, position: number): SegmentClass[] {
  return shape.segments.flatMap((s) => (position < s.length ? [classifySegment(s[position]!)] : []));
}

/** The keys whose segment at `position` is of `kind`, and the most common detail among them. */
export function keysOfKind(shape: TableShape, position: number, kind: SegmentKind): { keys: ByteString[]; detail: string } {
  const keys: ByteString[] = [];
  const details = new Map<string, number>();
  shape.segments.forEach((s, i) => {
    const seg = s[position];
    if (seg === undefined) return;
    const c = classifySegment(seg);
    if (c.kind !== kind) return;
    keys.push(shape.keys[i]!);
    details.set(c.detail, (details.get(c.detail) ?? 0) + 1);
  });
  const detail = [...details].sort((a, b) => b[1] - a[1])[0]?.[0] ?? kind;
  return { keys, detail };
}

/** The first position after `from` whose segments vary and are mostly not of the kinds given: the identifier to lead with. */
export function identifierAfter(shape: TableShape, from: number, not: readonly SegmentKind[]): number | undefined {
  const width = Math.max(0, ...shape.segments.map((s) => s.length));
  for (let p = from + 1; p < width; p++) {
    const classes = classesAt(shape, p);
    if (classes.length === 0 || new Set(shape.segments.map((s) => s[p])).size < 2) continue;
    const ok = classes.filter((c) => !not.includes(c.kind) && c.kind !== 'empty').length;
    if (ok >= classes.length / 2) return p;
  }
  return undefined;
}

/** A TRANSFORM for this key set: steps, with `delimiter=X` first when the keys hold other delimiter characters. */
export function transform(shape: TableShape, ...steps: string[]): string {
  const named = otherDelimiters(shape.keys, shape.delimiter) ? [`delimiter=${shape.delimiter}`] : [];
  return [...named, ...steps].join(',');
}

/** Moves segment `from` (0-based) of `key` to position `to` (0: the front, field promotion). */
export function moveSegment(key: ByteString, delimiter: string, from: number, to = 0): ByteString {
  const s = splitKey(key, delimiter);
  if (from >= s.length) return key;
  const [moved] = s.splice(from, 1);
  s.splice(to, 0, moved!);
  return s.join(delimiter);
}

/** `key` with a salt prefix `hash(key) % n` (FNV-1a, zero-padded to n's width) and the delimiter: an example of salting. */
export function saltExample(key: ByteString, delimiter: string, n: number): ByteString {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return `${String(h % n).padStart(String(n - 1).length, '0')}${delimiter}${key}`;
}

/** "`before` → `after`" in printable text. */
export function rewrite(before: ByteString, after: ByteString): string {
  return `\`${printable(before)}\` → \`${printable(after)}\``;
}

/** Up to `n` keys as printable text (the evidence's sample keys). */
export function samples(keys: readonly ByteString[], n = 3): string[] {
  return keys.slice(0, n).map(printable);
}

/** A finding of the context's table. */
export function finding(
  ctx: RuleContext,
  rule: RuleId,
  severity: Severity,
  message: string,
  evidence: Record<string, EvidenceValue>,
  suggestion: string,
  extra: { simulate?: string | undefined; keyRange?: KeyRangeJson | undefined } = {},
): Finding {
  return {
    rule,
    severity,
    table: ctx.id,
    message,
    evidence,
    suggestion,
    ...(extra.simulate === undefined ? {} : { simulate: extra.simulate }),
    ...(extra.keyRange === undefined ? {} : { keyRange: extra.keyRange }),
  };
}

/** The table's recorded traffic summed over its buckets. */
export interface TrafficTotals {
  readonly readOps: number;
  readonly writeOps: number;
  readonly rowsRead: number;
  readonly rowsReturned: number;
  /** Rows per key bucket (when the boundary set was made). */
  readonly rowsPerBucket: number;
  readonly seconds: number;
}

export function trafficTotals(traffic: TrafficSummary): TrafficTotals {
  let [readOps, writeOps, rowsRead, rowsReturned, rows] = [0, 0, 0, 0, 0];
  for (const b of traffic.buckets) {
    rows += b.rows;
    readOps += b.readOps;
    writeOps += b.writeOps;
    rowsRead += b.rowsRead;
    rowsReturned += b.rowsReturned;
  }
  return {
    readOps,
    writeOps,
    rowsRead,
    rowsReturned,
    rowsPerBucket: rows / Math.max(1, traffic.buckets.length),
    seconds: Math.max(1e-3, (traffic.toMillis - traffic.fromMillis) / 1000),
  };
}

/** The table's heatmap diagnostics of one kind. */
export function diagnosticsOf(ctx: RuleContext, kind: DiagnosticJson['kind']): DiagnosticJson[] {
  return ctx.table.diagnostics.filter((d) => d.kind === kind);
}

/** How recent writes move along the key space (see writesGrow). */
export interface Growth {
  readonly direction: 'increasing' | 'decreasing';
  /** Share of the writes that were a new largest (smallest) key so far. */
  readonly share: number;
  /**
   * Share of the writes that were a new largest (smallest) key differing from the last one at or before the
   * segment where the stored keys start to differ: the leading field itself grows (`order#000124` after
   * `order#000123`), not a field after it (`sensor019#t2` after `sensor019#t1`: a load in key order).
   */
  readonly frontShare: number;
  readonly writes: number;
}

/**
 * Whether recent writes go to the end (or the start) of the key space: at
 * least `sequentialShare` of them a new largest (smallest) key of the write
 * order so far. Writes of one entity's rows (`sensor123#<ts>`: a constant
 * id-like prefix) do not count: they grow within the entity only.
 */
export function writesGrow(ctx: RuleContext): Growth | undefined {
  const w = ctx.table.writeOrder;
  if (w.length < ctx.t.sequentialWrites || shapeOf(w).entityPrefixed) return undefined;
  let [max, min] = [w[0]!, w[0]!];
  let [up, down, upFront, downFront] = [0, 0, 0, 0];
  const front = (a: ByteString, b: ByteString): boolean => segmentOfDifference(a, b, ctx.shape.delimiter) <= ctx.shape.lead;
  for (let i = 1; i < w.length; i++) {
    const k = w[i]!;
    if (k > max) [max, up, upFront] = [k, up + 1, upFront + (front(max, k) ? 1 : 0)];
    if (k < min) [min, down, downFront] = [k, down + 1, downFront + (front(min, k) ? 1 : 0)];
  }
  const n = w.length - 1;
  const increasing = up >= down;
  const share = (increasing ? up : down) / n;
  if (share < ctx.t.sequentialShare) return undefined;
  return {
    direction: increasing ? 'increasing' : 'decreasing',
    share: round(share),
    frontShare: round((increasing ? upFront : downFront) / n),
    writes: w.length,
  };
}

/** The segment (0-based) in which `a` and `b` first differ. */
export function segmentOfDifference(a: ByteString, b: ByteString, delimiter: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return a.slice(0, i).split(delimiter).length - 1;
}

/** Bytes for people: 1.5 KB, 120 MB. */
export function sizeText(bytes: number): string {
  const units: [number, string][] = [
    [1e9, 'GB'],
    [1e6, 'MB'],
    [1e3, 'KB'],
  ];
  for (const [u, name] of units) if (bytes >= u) return `${round(bytes / u)} ${name}`;
  return `${bytes} bytes`;
}

export { median, percent, round } from '../../diagnostics/context.js';
