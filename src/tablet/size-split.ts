import type { ByteString } from '../model/bytes.js';
import type { KeyRange } from '../model/key-range.js';

/**
 * Splitting a tablet by size: once its stored bytes pass the split size, it
 * splits at its median key by bytes, which is the first key a store samples
 * at every half of its bytes (`sampleKeys(bytes / 2)`) that lies strictly
 * inside the tablet's range. Pure, so that the tablet manager and the
 * advisor's what-if simulation decide alike.
 */

/** The byte step to sample a tablet's keys at for a size split, or undefined while it is not past the split size. */
export function sizeSplitStep(bytes: number, splitBytes: number): number | undefined {
  return bytes > splitBytes ? Math.max(1, Math.floor(bytes / 2)) : undefined;
}

/** The split key among a store's byte-offset samples (ascending): the first inside `range`, if any. */
export function sizeSplitKey(samples: readonly { readonly key: ByteString }[], range: KeyRange): ByteString | undefined {
  return samples.find((s) => s.key > range.start && (range.end === undefined || s.key < range.end))?.key;
}
