import { dataLoss } from '../../model/errors.js';
import type { FileSystem } from '../fs/file-system.js';
import { decodeRecord, validRecordAfter } from './log-format.js';

export interface ReplayResult {
  /** Payloads of the valid records, in order. */
  readonly records: Buffer[];
  /** Bytes of the valid prefix; anything after was a torn tail. */
  readonly validBytes: number;
  /** True when a torn tail was dropped. */
  readonly tornTail: boolean;
}

/**
 * Reads every record of a log file. A torn tail (an incomplete or garbled
 * last record with nothing valid after it) is dropped; damage followed by
 * valid records is corruption and throws DataLoss with the file and offset.
 */
export function replayLog(fs: FileSystem, path: string): ReplayResult {
  const data = fs.readFile(path);
  const records: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const r = decodeRecord(data, offset);
    if (r.kind === 'end') return { records, validBytes: offset, tornTail: false };
    if (r.kind === 'bad') {
      if (validRecordAfter(data, offset)) {
        throw dataLoss(`commit log ${path} is corrupt at offset ${offset} (${r.reason}) and valid records follow it`);
      }
      return { records, validBytes: offset, tornTail: true };
    }
    records.push(r.payload);
    offset = r.next;
  }
}
