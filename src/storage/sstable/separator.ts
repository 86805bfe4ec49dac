/**
 * Short index keys. The index entry of a data block only has to separate it
 * from the next block, so it can be much shorter than the block's last key
 * (as in LevelDB's FindShortestSeparator and Pebble's Separator).
 */
import type { ByteString } from '../../model/bytes.js';

/**
 * A short key k with start <= k < limit. Requires start < limit. Returns
 * `start` itself when nothing shorter exists.
 */
export function shortestSeparator(start: ByteString, limit: ByteString): ByteString {
  const n = Math.min(start.length, limit.length);
  let i = 0;
  while (i < n && start.charCodeAt(i) === limit.charCodeAt(i)) i++;
  if (i >= start.length - 1) return start; // start is a prefix of limit, or differs only at its last byte
  const c = start.charCodeAt(i);
  const l = limit.charCodeAt(i);
  // start[0, i) ++ (start[i] + 1) is > start, and < limit unless it equals limit.
  if (c + 1 < l || limit.length > i + 1) return start.slice(0, i) + String.fromCharCode(c + 1);
  // limit = start[0, i) ++ (start[i] + 1): keep start[0, i] (< limit) and bump a later byte of start.
  for (let j = i + 1; j < start.length - 1; j++) {
    const d = start.charCodeAt(j);
    if (d < 0xff) return start.slice(0, j) + String.fromCharCode(d + 1);
  }
  return start;
}

/** A short key k >= key (the index key of the last block). */
export function shortSuccessor(key: ByteString): ByteString {
  for (let i = 0; i < key.length - 1; i++) {
    const c = key.charCodeAt(i);
    if (c < 0xff) return key.slice(0, i) + String.fromCharCode(c + 1);
  }
  return key;
}
