import type { FileMeta } from '../manifest/manifest-state.js';
import type { SSTableReader } from '../sstable/index.js';

/**
 * An open SSTable of a store, reference-counted: the store's live file list
 * holds one reference and every open cursor holds one. When a compaction
 * replaces the file, the store drops its reference; the file is closed and
 * deleted once the last cursor lets go.
 */
export class TableFile {
  private refs = 1;
  /** Set once the file left the live list for good: delete it when the last reference goes. */
  obsolete = false;
  /** Where a row of this file is, for DataLoss messages about malformed rows. */
  readonly where: string;

  constructor(
    readonly meta: FileMeta,
    readonly reader: SSTableReader,
    private readonly onUnreferenced: (file: TableFile) => void,
  ) {
    this.where = `sstable ${reader.path} row`;
  }

  ref(): this {
    this.refs++;
    return this;
  }

  unref(): void {
    if (--this.refs === 0) this.onUnreferenced(this);
  }
}
