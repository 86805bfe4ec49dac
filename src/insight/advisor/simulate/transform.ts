import type { ByteString } from '../../../model/bytes.js';
import { invalidArgument } from '../../../model/errors.js';
import { detectDelimiter, splitKey } from '../../key-shape.js';
import type { TableSample, TransformSpec } from '../types.js';
import { saltHash, mapNumbers, reverseSegment, reverseTimestamp } from './key-text.js';

/**
 * The TRANSFORM grammar of types.ts, parsed (`parseTransform`) and applied
 * to keys (`keyTransform`, `tableTransform`). A parsed transform is pure
 * data; the delimiter is resolved against the table's keys when none is
 * given, by key-shape.ts's detectDelimiter, and keys are cut by its
 * splitKey: the advisor's rules read keys the same way, and rewrite their
 * sample key with this code to show what their `simulate` spec does.
 */

export type TransformStep =
  | { readonly kind: 'salt'; readonly buckets: number; readonly segment: number | undefined }
  /** `position`: 1-based, 1 the front. */
  | { readonly kind: 'promote'; readonly segment: number; readonly position: number }
  | { readonly kind: 'reverse'; readonly segment: number }
  | { readonly kind: 'reverse-timestamp'; readonly segment: number }
  | { readonly kind: 'pad'; readonly width: number; readonly segment: number | undefined };

export interface Transform {
  readonly spec: TransformSpec;
  /** Given by a first step `delimiter=X`; undefined: detected from the keys. */
  readonly delimiter: string | undefined;
  readonly steps: readonly TransformStep[];
}

/** What a bad spec's message shows after what was wrong. */
export const TRANSFORM_GRAMMAR =
  "A TRANSFORM is steps separated by ',', applied left to right to each key cut into segments on a delimiter " +
  '(detected from the keys among # : / | _ . or given by a first step delimiter=X; segments count from 1): ' +
  'salt:N (prefix a bucket CRC-32(key) % N, zero-padded to the width of N-1: salt:10 gives 0 to 9), ' +
  'salt:N@S (the bucket of a hash of segment S only), ' +
  'promote:S (move segment S to the front), promote:S:P (move segment S to position P), ' +
  'reverse:S (reverse segment S: a dotted domain by labels, else its characters), ' +
  'reverse-timestamp:S (the timestamp in segment S, epoch s/ms/µs/ns or ISO, becomes MAX - t: newest first), ' +
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
      arity([1, 2]);
      return {
        kind: 'promote',
        segment: int(args[0], 'the segment S', MAX_SEGMENT),
        position: args.length === 1 ? 1 : int(args[1], 'the position P', MAX_SEGMENT),
      };
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

/** The transform as a function of one key, with its delimiter (given, or detected from `keys`). */
export function keyTransform(t: Transform, keys: readonly ByteString[]): { delimiter: string; apply: (key: ByteString) => ByteString } {
  const delimiter = t.delimiter ?? detectDelimiter(keys);
  return { delimiter, apply: (key) => t.steps.reduce((k, step) => applyStep(step, k, delimiter), key) };
}

/**
 * The transform for one table: its delimiter detected from the table's
 * stored key samples, else its recent writes (the keys the advisor's rules
 * read). The what-if and the rules' suggestions both rewrite keys with it.
 */
export function tableTransform(t: Transform, table: TableSample): { delimiter: string; apply: (key: ByteString) => ByteString } {
  return keyTransform(t, table.keys.length > 0 ? table.keys : table.writeOrder);
}

/** `bucket` zero-padded to the width of the largest bucket, N - 1 (`salt:10`: 0 to 9, one digit; `salt:100`: 00 to 99). */
function saltPrefix(bucket: number, buckets: number): string {
  return String(bucket).padStart(String(buckets - 1).length, '0');
}

/** One step on one key; a step naming a segment the key lacks leaves the key as it is (salt:N@S then hashes the whole key). */
function applyStep(step: TransformStep, key: ByteString, delimiter: string): ByteString {
  const segments = splitKey(key, delimiter);
  const at = (s: number): number | undefined => (s <= segments.length ? s - 1 : undefined);
  switch (step.kind) {
    case 'salt': {
      const i = step.segment === undefined ? undefined : at(step.segment);
      const bucket = saltHash(i === undefined ? key : segments[i]!) % step.buckets;
      return saltPrefix(bucket, step.buckets) + delimiter + key;
    }
    case 'promote': {
      const i = at(step.segment);
      if (i === undefined) return key;
      const [moved] = segments.splice(i, 1);
      segments.splice(step.position - 1, 0, moved!);
      return segments.join(delimiter);
    }
    case 'reverse':
    case 'reverse-timestamp': {
      const i = at(step.segment);
      if (i === undefined) return key;
      segments[i] = step.kind === 'reverse' ? reverseSegment(segments[i]!) : reverseTimestamp(segments[i]!);
      return segments.join(delimiter);
    }
    case 'pad': {
      const pad = (digits: string): string => digits.padStart(step.width, '0');
      if (step.segment === undefined) return segments.map((s) => mapNumbers(s, pad)).join(delimiter);
      const i = at(step.segment);
      if (i === undefined) return key;
      segments[i] = mapNumbers(segments[i]!, pad);
      return segments.join(delimiter);
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
      return step.position === 1
        ? `move segment ${step.segment} to the front`
        : `move segment ${step.segment} to position ${step.position}`;
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
