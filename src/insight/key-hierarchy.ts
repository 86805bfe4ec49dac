import type { ByteString } from '../model/bytes.js';
import { printable } from '../model/bytes.js';
import type { HierarchySpanJson } from './api-types.js';
import { DELIMITERS } from './key-shape.js';

/** The delimiters multi-part keys use between their fields (`phone#india#...`, `user:42/post`): key-shape.ts's. */
export const KEY_DELIMITERS = DELIMITERS.join('');
/** Levels of prefix segments shown along the key axis. */
export const MAX_HIERARCHY_DEPTH = 3;

/**
 * The prefixes of `key` that end at a delimiter, up to `maxDepth` of them:
 * `b:x/y` → ['b:', 'b:x/']. A key without delimiters has none.
 */
export function keyPrefixes(key: ByteString, maxDepth = MAX_HIERARCHY_DEPTH): ByteString[] {
  const out: ByteString[] = [];
  for (let i = 0; i < key.length && out.length < maxDepth; i++) {
    if (KEY_DELIMITERS.includes(key[i]!)) out.push(key.slice(0, i + 1));
  }
  return out;
}

/**
 * The key hierarchy over a run of buckets: for each depth 1..maxDepth, the
 * runs of adjacent buckets whose representative key shares the prefix of
 * that depth, as spans [from, to] (bucket indexes into `bucketKeys`). A
 * bucket's representative key is its first key (its start, or for bucket 0
 * a key seen in it); undefined leaves the bucket out of every span.
 */
export function keyHierarchy(bucketKeys: readonly (ByteString | undefined)[], maxDepth = MAX_HIERARCHY_DEPTH): HierarchySpanJson[] {
  const prefixes = bucketKeys.map((k) => (k === undefined ? [] : keyPrefixes(k, maxDepth)));
  const spans: HierarchySpanJson[] = [];
  for (let depth = 1; depth <= maxDepth; depth++) {
    let open: { text: ByteString; from: number } | undefined;
    const close = (to: number): void => {
      if (open !== undefined) spans.push({ depth, text: printable(open.text), from: open.from, to });
      open = undefined;
    };
    prefixes.forEach((ps, i) => {
      const p = ps[depth - 1];
      if (open !== undefined && p === open.text) return;
      close(i - 1);
      if (p !== undefined) open = { text: p, from: i };
    });
    close(prefixes.length - 1);
  }
  return spans;
}
