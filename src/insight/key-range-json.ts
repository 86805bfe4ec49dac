import { type ByteString, printable, toBytes } from '../model/bytes.js';
import type { KeyRangeJson } from './api-types.js';
import type { BoundarySet } from './key-buckets.js';

/** A key as the JSON carries it: base64 of its bytes. */
export function base64Key(key: ByteString): string {
  return toBytes(key).toString('base64');
}

/** The key range [start, end) (end undefined: to the end of the table) in both forms. */
export function keyRangeJson(start: ByteString, end: ByteString | undefined): KeyRangeJson {
  return {
    start: base64Key(start),
    end: end === undefined ? null : base64Key(end),
    startText: printable(start),
    endText: end === undefined ? null : printable(end),
  };
}

/** The key range of buckets first..last (inclusive) of `set`. */
export function bucketsRange(set: BoundarySet, first: number, last: number): KeyRangeJson {
  return keyRangeJson(set.starts[first]!, set.starts[last + 1]);
}

/** The range text people read: `[a#1, a#5)`, `[k9, end)`. */
export function rangeText(r: KeyRangeJson): string {
  return `[${r.startText === '' ? '(start)' : r.startText}, ${r.endText ?? '(end)'})`;
}
