/**
 * Verification of a store's files (StorageEngine.verifyStore): each SSTable
 * the store lists is opened afresh, without the block cache, so that what is
 * checked is what the disk holds now, not what was read when the file was
 * first opened. Opening checks the footer, properties, index and filter;
 * then every data block is read and checked (SSTableReader.verifyBlocks),
 * and the file's size, entry count and key bounds must match what the
 * manifest recorded. Work yields to the event loop as flushes and
 * compactions do (TimeShare), so serving goes on during a long verification.
 */
import { dataLoss, TabletopError } from '../../model/errors.js';
import { sstName } from '../file-names.js';
import type { FileSystem } from '../fs/file-system.js';
import type { FileMeta } from '../manifest/manifest-state.js';
import { openSSTable, type SSTableReader } from '../sstable/index.js';
import type { TimeShare } from './time-share.js';

export interface VerifyHost {
  readonly fs: FileSystem;
  path(name: string): string;
  readonly timeShare: TimeShare;
}

/** Checks one file the store `storeId` lists; throws DataLoss naming the store and the file. */
export async function verifyFile(host: VerifyHost, storeId: string, meta: FileMeta): Promise<void> {
  const path = host.path(sstName(meta.number));
  const damaged = (why: string): TabletopError => dataLoss(`store ${storeId}: ${why}`);
  if (!host.fs.exists(path)) throw damaged(`sstable ${path}, which the manifest lists, is missing`);
  let reader: SSTableReader;
  try {
    reader = openSSTable(host.fs, path, { id: meta.number });
  } catch (e) {
    throw asDataLoss(e, damaged);
  }
  try {
    const { info } = reader;
    if (info.size !== meta.size) throw damaged(`sstable ${path} is ${info.size} bytes, the manifest says ${meta.size}`);
    if (info.entries !== meta.entries) throw damaged(`sstable ${path} holds ${info.entries} entries, the manifest says ${meta.entries}`);
    if (info.entries > 0 && (info.smallestKey !== meta.smallest || info.largestKey !== meta.largest))
      throw damaged(`sstable ${path}: its key bounds differ from the manifest's`);
    try {
      for (const _ of reader.verifyBlocks()) {
        const pause = host.timeShare.maybeYield();
        if (pause !== undefined) await pause;
      }
    } catch (e) {
      throw asDataLoss(e, damaged);
    }
  } finally {
    reader.close();
  }
}

/** DataLoss from the sstable layer, prefixed with the store; other errors (I/O) as they are. */
function asDataLoss(e: unknown, damaged: (why: string) => TabletopError): unknown {
  return e instanceof TabletopError && e.code === 'DataLoss' ? damaged(e.message) : e;
}
