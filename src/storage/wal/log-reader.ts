import { dataLoss } from '../../model/errors.js';
import type { FileSystem } from '../fs/file-system.js';
import {
  HEADER_BYTES,
  RECYCLABLE_HEADER_BYTES,
  decodeRecord,
  decodeRecyclableRecord,
  syncedPastRecyclable,
  validRecordAfter,
} from './log-format.js';

/** Bytes of a log that replay did not read back. */
export interface LogDamage {
  readonly offset: number;
  /** From the damage to the next intact record, or to the end of the written bytes (zeros past them do not count). */
  readonly bytes: number;
  /**
   * tail: damage with nothing intact after it (a write torn by a crash, or damage to the last group, which cannot
   * be told apart); middle: intact records follow (salvage skipped it).
   */
  readonly where: 'tail' | 'middle';
}

export interface ReplayResult {
  /** Payloads of the valid records, in order. */
  readonly records: Buffer[];
  /** Bytes of the records read back (and of what lies between them). */
  readonly validBytes: number;
  /** True when a torn tail was dropped. */
  readonly tornTail: boolean;
  /** What was dropped, in file order: at most a tail, unless `salvage` skipped damage in the middle. */
  readonly damage: readonly LogDamage[];
}

export interface ReplayOptions {
  /**
   * Skip damage that intact records follow, keep those records, and report it, instead of throwing DataLoss
   * (`tabletop repair`: starting past mid-log damage loses the damaged records' writes and nothing else).
   */
  readonly salvage?: boolean;
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
export function replayLog(fs: FileSystem, path: string, log?: number, options: ReplayOptions = {}): ReplayResult {
  const data = fs.readFile(path);
  const records: Buffer[] = [];
  const damage: LogDamage[] = [];
  let offset = 0;
  for (;;) {
    const r = log === undefined ? decodeRecord(data, offset) : decodeRecyclableRecord(data, offset, log);
    if (r.kind === 'end' || r.kind === 'stale') return { records, validBytes: offset, tornTail: false, damage };
    if (r.kind === 'bad') {
      // Zeros to the end: the log's file was extended ahead of its writes (LogWriter), or the
      // unsynced pages past its last write never reached the disk. Either way nothing follows.
      if (allZero(data, offset)) return { records, validBytes: offset, tornTail: false, damage };
      const after = afterDamage(data, offset, log);
      if (options.salvage === true && after.intact) {
        damage.push({ offset, bytes: after.at - offset, where: 'middle' });
        offset = after.at;
        continue;
      }
      if (options.salvage !== true && (log === undefined ? validRecordAfter(data, offset) : syncedPastRecyclable(data, offset, log))) {
        const what = log === undefined ? 'valid records follow it' : 'a later sync marker says it had been synced';
        throw dataLoss(
          `commit log ${path} is corrupt at offset ${offset} (${r.reason}) and ${what}; \`tabletop repair\` starts past it, losing that record's writes`,
        );
      }
      // A recycled file's earlier life follows the log's last record at any alignment, as damage that is nobody's:
      // damage is this log's only when its frame's header names this log (or the framing has no log numbers). A torn
      // header that does not is not reported: it cannot be told from the earlier life.
      if (log === undefined || (offset + 12 <= data.length && data.readUInt32LE(offset + 8) === log >>> 0))
        damage.push({ offset, bytes: tailEnd(data, offset, log) - offset, where: 'tail' });
      return { records, validBytes: offset, tornTail: true, damage };
    }
    if (r.kind === 'record') records.push(r.payload);
    offset = r.next;
  }
}

function allZero(data: Buffer, from: number): boolean {
  for (let i = from; i < data.length; i++) if (data[i] !== 0) return false;
  return true;
}

/**
 * Where the bytes dropped with the damaged frame at `from` end, at the tail of the log: past the last intact frame of
 * this log after it, and at least past the damaged frame as its header sizes it (when that fits in the written bytes).
 */
function tailEnd(data: Buffer, from: number, log: number | undefined): number {
  let written = data.length;
  while (written > from && data[written - 1] === 0) written--;
  const header = log === undefined ? HEADER_BYTES : RECYCLABLE_HEADER_BYTES;
  const declared = from + header <= data.length ? from + header + (data.readUInt32LE(from + 4) & 0x7fffffff) : written;
  let end = declared <= written ? declared : written;
  for (let off = from + 1; off < written; off++) {
    const r = log === undefined ? decodeRecord(data, off) : decodeRecyclableRecord(data, off, log);
    if (r.kind === 'record' || r.kind === 'marker') {
      end = Math.max(end, r.next);
      off = r.next - 1;
    } else if (r.kind === 'stale') break;
  }
  return end;
}

/**
 * Where the damage at `from` ends: at the first intact record (or sync marker) of this log after it (`intact`), else
 * at the first intact record of another log (a recycled file's earlier life) or where the bytes that are not zeros end.
 */
function afterDamage(data: Buffer, from: number, log: number | undefined): { readonly at: number; readonly intact: boolean } {
  let end = data.length;
  while (end > from && data[end - 1] === 0) end--;
  for (let off = from + 1; off < end; off++) {
    const kind = (log === undefined ? decodeRecord(data, off) : decodeRecyclableRecord(data, off, log)).kind;
    if (kind === 'record' || kind === 'marker') return { at: off, intact: true };
    if (kind === 'stale') return { at: off, intact: false };
  }
  return { at: end, intact: false };
}
