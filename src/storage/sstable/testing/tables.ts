import type { ByteString } from '../../../model/bytes.js';
import type { FileSystem } from '../../fs/file-system.js';
import type { SSTableInfo } from '../properties.js';
import { createSSTableWriter, type SSTableWriterOptions } from '../sstable-writer.js';

export type Entry = readonly [key: ByteString, value: Uint8Array];

/** Writes `entries` (ascending keys) as a table at `path`. */
export async function writeTable(
  fs: FileSystem,
  path: string,
  entries: readonly Entry[],
  options: SSTableWriterOptions = {},
): Promise<SSTableInfo> {
  const w = createSSTableWriter(fs.create(path), options);
  for (const [k, v] of entries) w.add(k, v);
  return w.finish();
}

/** Sorts and deduplicates keys (byte order), keeping the first value of each. */
export function sortedEntries(entries: readonly Entry[]): Entry[] {
  const seen = new Map<ByteString, Uint8Array>();
  for (const [k, v] of entries) if (!seen.has(k)) seen.set(k, v);
  return [...seen.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}
