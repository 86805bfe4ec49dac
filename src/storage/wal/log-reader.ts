import { dataLoss } from '../../model/errors.js';
import type { FileSystem } from '../fs/file-system.js';
import { decodeRecord, decodeRecyclableRecord, syncedPastRecyclable, validRecordAfter } from './log-format.js';

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
 * is dropped; damage in bytes known to have been durable throws DataLoss
 * with the file and offset:
 *
 * - plain framing: damage followed by any valid record is corruption;
 * - recyclable framing: damage is corruption only when an intact sync marker
 *   after it says the log was synced past it. Otherwise it lies in the last
 *   group written before a power loss, which the disk may have persisted in
 *   any order (a later page of one write on disk, an earlier one not): none
 *   of that group was acknowledged, so replay stops at the damage.
 */
export function replayLog(fs: FileSystem, path: string, log?: number): ReplayResult {
  const data = fs.readFile(path);
  const records: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const r = log === undefined ? decodeRecord(data, offset) : decodeRecyclableRecord(data, offset, log);
    if (r.kind === 'end' || r.kind === 'stale') return { records, validBytes: offset, tornTail: false };
    if (r.kind === 'bad') {
      // Zeros to the end: the log's file was extended ahead of its writes (LogWriter), or the
      // unsynced pages past its last write never reached the disk. Either way nothing follows.
      if (allZero(data, offset)) return { records, validBytes: offset, tornTail: false };
      if (log === undefined ? validRecordAfter(data, offset) : syncedPastRecyclable(data, offset, log)) {
        const what = log === undefined ? 'valid records follow it' : 'a later sync marker says it had been synced';
        throw dataLoss(`commit log ${path} is corrupt at offset ${offset} (${r.reason}) and ${what}`);
      }
      return { records, validBytes: offset, tornTail: true };
    }
    if (r.kind === 'record') records.push(r.payload);
    offset = r.next;
  }
}

function allZero(data: Buffer, from: number): boolean {
  for (let i = from; i < data.length; i++) if (data[i] !== 0) return false;
  return true;
}
