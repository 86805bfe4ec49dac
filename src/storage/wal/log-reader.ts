import { dataLoss } from '../../model/errors.js';
import type { FileSystem } from '../fs/file-system.js';
import { decodeRecord, decodeRecyclableRecord, validRecordAfter, validRecyclableRecordAfter } from './log-format.js';

export interface ReplayResult {
  /** Payloads of the valid records, in order. */
  readonly records: Buffer[];
  /** Bytes of the valid prefix; anything after was a torn tail. */
  readonly validBytes: number;
  /** True when a torn tail was dropped. */
  readonly tornTail: boolean;
}

/**
 * Reads every record of a log file: plain framing, or with `log` the
 * recyclable framing of that log number (log-format.ts), where an intact
 * record of another log (the file's earlier life) ends the log. A torn tail
 * (an incomplete or garbled last record with nothing valid after it) is
 * dropped; damage followed by valid records is corruption and throws
 * DataLoss with the file and offset.
 */
export function replayLog(fs: FileSystem, path: string, log?: number): ReplayResult {
  const data = fs.readFile(path);
  const records: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const r = log === undefined ? decodeRecord(data, offset) : decodeRecyclableRecord(data, offset, log);
    if (r.kind === 'end' || r.kind === 'stale') return { records, validBytes: offset, tornTail: false };
    if (r.kind === 'bad') {
      if (log === undefined ? validRecordAfter(data, offset) : validRecyclableRecordAfter(data, offset, log)) {
        throw dataLoss(`commit log ${path} is corrupt at offset ${offset} (${r.reason}) and valid records follow it`);
      }
      return { records, validBytes: offset, tornTail: true };
    }
    records.push(r.payload);
    offset = r.next;
  }
}
