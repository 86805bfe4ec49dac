import type { ByteString } from '../../../model/bytes.js';
import { invalidArgument } from '../../../model/errors.js';
import type { TransformSpec } from '../types.js';
import { fnv1a, joinSegments, mapNumbers, reverseSegment, reverseTimestamp, splitSegments, withoutTimestamps } from './key-text.js';

/**
 * The TRANSFORM grammar of types.ts, parsed (`parseTransform`) and applied
 * to keys (`keyTransform`). A parsed transform is pure data; the delimiter
 * is resolved against the table's keys when none is given.
 */

export type TransformStep =
  | { readonly kind: 'salt'; readonly buckets: number; readonly segment: number | undefined }
  | { readonly kind: 'promote'; readonly segment: number }
  | { readonly kind: 'reverse'; readonly segment: number }
  | { readonly kind: 'reverse-timestamp'; readonly segment: number }
  | { readonly kind: 'pad'; readonly width: number; readonly segment: number | undefined };

export interface Transform {
  readonly spec: TransformSpec;
  /** Given by a first step `delimiter=X`; undefined: detected from the keys. */
  readonly delimiter: string | undefined;
  readonly steps: readonly TransformStep[];
}

/** The delimiters auto-detection chooses from, in the order that breaks ties. */
export const DELIMITERS = ['#', ':', '/', '|', '_', '.'] as const;

/** What a bad spec's message shows after what was wrong. */
export const TRANSFORM_GRAMMAR =
  "A TRANSFORM is steps separated by ',', applied left to right to each key cut into segments on a delimiter " +
  '(detected from the keys among # : / | _ . or given by a first step delimiter=X; segments count from 1): ' +
  'salt:N (prefix a bucket hash(key) % N), salt:N@S (the bucket of a hash of segment S only), ' +
  'promote:S (move segment S to the front), reverse:S (reverse segment S: a dotted domain by labels, else its characters), ' +
  'reverse-timestamp:S (the timestamp in segment S, epoch s/ms/µs or ISO, becomes MAX - t: newest first), ' +
  'pad:S:W or pad:W (zero-pad the numbers of segment S, or of every segment, to W digits). ' +
  'Example: promote:2,salt:8';

const MAX_BUCKETS = 10_000;
const MAX_SEGMENT = 100;
const MAX_WIDTH = 64;

/** Parses a TRANSFORM; throws TabletopError InvalidArgument naming what is wrong, with the grammar. */
export function parseTransform(spec: TransformSpec): Transform {
  const bad = (what: string): Error => invalidArgument(`Invalid transform "${spec}": ${what}. ${TRANSFORM_GRAMMAR}`);
  const parts = spec.split(',').map((p) => p.trim());
  if (spec.trim() === '') throw bad('it is empty');
  let delimiter: string | undefined;
  const steps: TransformStep[] = [];
  parts.forEach((part, i) => {
    if (part === '') throw bad(`step ${i + 1} is empty`);
    if (part.startsWith('delimiter=')) {
      if (i > 0) throw bad(`"${part}" must be the first step`);
      delimiter = part.slice('delimiter='.length);
      if (delimiter.length === 0 || delimiter.length > 4) throw bad('the delimiter must be 1 to 4 characters');
      return;
    }
    steps.push(parseStep(part, bad));
  });
  return { spec, delimiter, steps };
}

function parseStep(part: string, bad: (what: string) => Error): TransformStep {
  const [name, ...args] = part.split(':');
  const int = (text: string | undefined, what: string, max: number): number => {
    if (text === undefined || !/^\d+$/.test(text)) throw bad(`in "${part}", ${what} must be a whole number, got "${text ?? ''}"`);
    const n = Number(text);
    if (n < 1 || n > max) throw bad(`in "${part}", ${what} must be between 1 and ${max}, got ${n}`);
    return n;
  };
  const arity = (n: number | readonly number[]): void => {
    const allowed = typeof n === 'number' ? [n] : n;
    if (!allowed.includes(args.length)) throw bad(`"${part}" has ${args.length} argument(s), ${name} takes ${allowed.join(' or ')}`);
  };
  switch (name) {
    case 'salt': {
      arity(1);
      const [n, s] = args[0]!.split('@');
      if (args[0]!.split('@').length > 2) throw bad(`in "${part}", write salt:N or salt:N@S`);
      return {
        kind: 'salt',
        buckets: int(n, 'the bucket count N', MAX_BUCKETS),
        segment: s === undefined ? undefined : int(s, 'the segment S', MAX_SEGMENT),
      };
    }
    case 'promote':
    case 'reverse':
    case 'reverse-timestamp':
      arity(1);
      return { kind: name, segment: int(args[0], 'the segment S', MAX_SEGMENT) };
    case 'pad':
      arity([1, 2]);
      return args.length === 1
        ? { kind: 'pad', width: int(args[0], 'the width W', MAX_WIDTH), segment: undefined }
        : { kind: 'pad', width: int(args[1], 'the width W', MAX_WIDTH), segment: int(args[0], 'the segment S', MAX_SEGMENT) };
    default:
      throw bad(`unknown step "${name ?? ''}"`);
  }
}

/**
 * The delimiter keys use: of `# : / | _ .`, the one found in the most keys
 * (ISO timestamps, with their `:` and `.`, not counted), ties to the earlier
 * in that list; `#` when none appears.
 */
export function detectDelimiter(keys: readonly ByteString[]): string {
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]));
  for (const key of keys) {
    const text = withoutTimestamps(key);
    for (const d of DELIMITERS) if (text.includes(d)) counts.set(d, counts.get(d)! + 1);
  }
  let best: string = DELIMITERS[0];
  for (const d of DELIMITERS) if (counts.get(d)! > counts.get(best)!) best = d;
  return best;
}

/** The transform as a function of one key, with its delimiter (given, or detected from `keys`). */
export function keyTransform(t: Transform, keys: readonly ByteString[]): { delimiter: string; apply: (key: ByteString) => ByteString } {
  const delimiter = t.delimiter ?? detectDelimiter(keys);
  return { delimiter, apply: (key) => t.steps.reduce((k, step) => applyStep(step, k, delimiter), key) };
}

/** One step on one key; a step naming a segment the key lacks leaves the key as it is (salt:N@S then hashes the whole key). */
function applyStep(step: TransformStep, key: ByteString, delimiter: string): ByteString {
  const segments = splitSegments(key, delimiter);
  const at = (s: number): number | undefined => (s <= segments.length ? s - 1 : undefined);
  switch (step.kind) {
    case 'salt': {
      const i = step.segment === undefined ? undefined : at(step.segment);
      const bucket = fnv1a(i === undefined ? key : segments[i]!) % step.buckets;
      return String(bucket).padStart(String(step.buckets).length, '0') + delimiter + key;
    }
    case 'promote': {
      const i = at(step.segment);
      if (i === undefined) return key;
      return joinSegments([segments[i]!, ...segments.slice(0, i), ...segments.slice(i + 1)], delimiter);
    }
    case 'reverse':
    case 'reverse-timestamp': {
      const i = at(step.segment);
      if (i === undefined) return key;
      segments[i] = step.kind === 'reverse' ? reverseSegment(segments[i]!) : reverseTimestamp(segments[i]!);
      return joinSegments(segments, delimiter);
    }
    case 'pad': {
      const pad = (digits: string): string => digits.padStart(step.width, '0');
      if (step.segment === undefined)
        return joinSegments(
          segments.map((s) => mapNumbers(s, pad)),
          delimiter,
        );
      const i = at(step.segment);
      if (i === undefined) return key;
      segments[i] = mapNumbers(segments[i]!, pad);
      return joinSegments(segments, delimiter);
    }
  }
}

/** The transform in words: `keys cut on "#": move segment 2 to the front, then salt into 8 buckets by a hash of the key`. */
export function describeTransform(t: Transform, delimiter: string): string {
  const how = t.delimiter === undefined ? `keys cut on "${delimiter}" (detected from the keys)` : `keys cut on "${delimiter}"`;
  if (t.steps.length === 0) return `${how}, kept as they are`;
  return `${how}: ${t.steps.map(describeStep).join(', then ')}`;
}

function describeStep(step: TransformStep): string {
  switch (step.kind) {
    case 'salt':
      return step.segment === undefined
        ? `salt into ${step.buckets} buckets by a hash of the key`
        : `salt into ${step.buckets} buckets by a hash of segment ${step.segment}`;
    case 'promote':
      return `move segment ${step.segment} to the front`;
    case 'reverse':
      return `reverse segment ${step.segment} (a domain by its labels)`;
    case 'reverse-timestamp':
      return `replace the timestamp in segment ${step.segment} by MAX - t (newest first)`;
    case 'pad':
      return step.segment === undefined
        ? `zero-pad every number to ${step.width} digits`
        : `zero-pad the numbers of segment ${step.segment} to ${step.width} digits`;
  }
}
