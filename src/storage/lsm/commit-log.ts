/**
 * The commit log as files (wal/NNNNNN.wal, file-names.ts): the one being
 * written, the closed ones still needed (some record in them is not yet in
 * an SSTable), and spares. A new file is started when the current one is
 * full; a closed file goes once every store has flushed what it holds and
 * the manifest's logNumber has moved past it, either deleted or kept as a
 * spare to be written over by a later log.
 *
 * Records are framed with the file's log number (recyclable framing,
 * log-format.ts), so the records of a spare's earlier life end replay.
 */
import type { Config } from '../../config.js';
import { WAL_DIR, walName } from '../file-names.js';
import type { FileSystem, WritableFile } from '../fs/file-system.js';
import type { ManifestEdit } from '../manifest/manifest-state.js';
import { encodeSyncMarker, frameRecyclableInPlace } from '../wal/log-format.js';
import { LogWriter } from '../wal/log-writer.js';

/**
 * Commit-log files kept, once every record in them is flushed, to be written
 * over by a later log instead of creating a new file: fdatasync on blocks a
 * file already has skips the filesystem's metadata journal (measured with a
 * 7 KiB write + fdatasync loop on this machine's ext4: 100 → 76 µs of CPU and
 * 192 → 132 µs of latency per sync), and rewriting cached pages is cheaper
 * than appending new ones. Each costs up to --wal-file-size of disk.
 */
const SPARE_WAL_FILES = 2;
/** How far a commit log's file is extended with zeros ahead of its writes (see LogWriter). */
const WAL_EXTEND_BYTES = 1024 * 1024;

/** What the commit log needs from the engine (implemented by DiskEngine). */
export interface CommitLogHost {
  readonly fs: FileSystem;
  readonly config: Config;
  /** The last sequence number handed out: what the file being written holds at most. */
  readonly seq: number;
  /** Every write up to this sequence number is durable. */
  readonly visibleSeq: number;
  /** The path of a file named relative to the data directory. */
  path(name: string): string;
  /** Allocates a file number (made durable by the next manifest edit). */
  newFileNumber(): number;
  /** Records edits atomically in the manifest (a failure fails the engine). */
  record(edits: readonly ManifestEdit[]): Promise<void>;
  /** The lowest sequence number not yet in an SSTable, over every store (Infinity when none). */
  minUnflushedSeq(): number;
}

export class CommitLog {
  private writer: LogWriter | undefined;
  /** The number of the file being written (its log number). */
  private current = 0;
  /** Closed files still needed, with the highest sequence number each holds. */
  private old: { number: number; maxSeq: number; bytes: number }[] = [];
  /** Numbers of flushed files kept to be written over by the next logs (SPARE_WAL_FILES). */
  private spares: number[] = [];
  /** The running dropObsolete, if any (they are serialised). */
  private dropping: Promise<void> = Promise.resolve();
  /** The rotation in progress, if any (settle waits for it). */
  private rotating: Promise<void> | undefined;
  /** After a failed rotation: when (performance.now()) to try again, and failures in a row. */
  private rotateNotBefore = 0;
  private rotateFailures = 0;

  constructor(private readonly host: CommitLogHost) {}

  /** The number of the file being written: until a rotation is recorded, the one it retires. */
  get number(): number {
    return this.current;
  }

  /** Bytes in the file being written. */
  get size(): number {
    return this.writer!.size;
  }

  /** Files still needed (the one being written and the closed ones). */
  get files(): number {
    return this.writer === undefined ? 0 : 1 + this.old.length;
  }

  /** Bytes in every file still needed. */
  get bytes(): number {
    let n = this.writer!.size;
    for (const w of this.old) n += w.bytes;
    return n;
  }

  /**
   * Appends a record (header room, then the payload: wal-batch.ts), framed in
   * place for the current file; resolves once it is durable, together with
   * every record appended before it.
   */
  append(record: Buffer): Promise<void> {
    return this.writer!.appendRecord(frameRecyclableInPlace(record, this.current));
  }

  /**
   * Starts a new file (a spare when there is one); the file being written is
   * closed once what it holds is durable. Nothing reaches the new file before
   * that, so a crash leaves a prefix of the writes.
   */
  async start(): Promise<void> {
    const { fs } = this.host;
    const number = this.host.newFileNumber();
    const path = this.host.path(walName(number));
    // A spare holds only flushed records of a log the manifest no longer needs; renamed, it is
    // written over from its start, and its old records (another log number) end replay.
    const spare = this.spares.shift();
    let file: WritableFile;
    if (spare === undefined) file = fs.create(path);
    else {
      fs.rename(this.host.path(walName(spare)), path);
      file = fs.reuse(path);
    }
    try {
      await fs.syncDir(this.host.path(WAL_DIR));
      // The counter must be durable before any record lands in the new file.
      await this.host.record([]);
    } catch (e) {
      // Nothing will ever write to it: a full disk must not keep it.
      file.close();
      try {
        fs.remove(path);
      } catch {
        // Gone already.
      }
      throw e;
    }
    let previous: Promise<void> | undefined;
    if (this.writer !== undefined) {
      this.old.push({ number: this.current, maxSeq: this.host.seq, bytes: this.writer.size });
      const old = this.writer;
      previous = old.flush();
      void previous.finally(() => old.close()).catch(() => undefined);
    }
    // Nothing reaches the new log before the old one is durable: a crash leaves a prefix of the writes.
    this.writer = new LogWriter(file, (syncedThrough) => encodeSyncMarker(syncedThrough, number), previous, {
      extendBy: Math.min(WAL_EXTEND_BYTES, this.host.config.walFileBytes),
      commitDelayMillis: this.host.config.commitDelayMillis,
    });
    this.current = number;
  }

  /** Starts a new file in the background when the current one is full (one rotation at a time). */
  rotateIfFull(onError: (e: unknown) => void): void {
    if (this.writer!.size < this.host.config.walFileBytes || this.rotating !== undefined) return;
    if (performance.now() < this.rotateNotBefore) return;
    this.rotating = this.start()
      .then(
        () => void (this.rotateFailures = 0),
        (e: unknown) => {
          // Until the new file exists the current one takes the writes (it grows past walFileBytes): try again
          // after a backoff, not at every write. A failed manifest record fails the engine in onError.
          this.rotateNotBefore = performance.now() + Math.min(30_000, 100 * 2 ** this.rotateFailures++);
          onError(e);
        },
      )
      .finally(() => {
        this.rotating = undefined;
      });
  }

  /**
   * Files whose every entry is in SSTables are deleted (or kept as spares).
   * Calls run one after another: two at once would both count the same file
   * (a spare listed twice).
   */
  dropObsolete(): Promise<void> {
    const run = this.dropping.then(() => this.dropObsoleteNow());
    this.dropping = run.catch(() => undefined);
    return run;
  }

  private async dropObsoleteNow(): Promise<void> {
    const minUnflushed = this.host.minUnflushedSeq();
    const obsolete = this.old.filter((w) => w.maxSeq < minUnflushed);
    if (obsolete.length === 0) return;
    const remaining = this.old.filter((w) => w.maxSeq >= minUnflushed);
    // A log being rotated out right now is still the current one until its rotation is recorded: live either way.
    const firstLive = remaining.length > 0 ? remaining[0]!.number : this.current;
    await this.host.record([
      { op: 'logNumber', number: firstLive },
      { op: 'lastSeq', seq: this.host.visibleSeq },
    ]);
    // Not `= remaining`: a rotation may have added the log it retired while the record was written.
    this.old = this.old.filter((w) => !obsolete.includes(w));
    for (const w of obsolete) {
      if (this.spares.length < SPARE_WAL_FILES) this.spares.push(w.number);
      else this.host.fs.remove(this.host.path(walName(w.number)));
    }
  }

  /** Waits for a rotation and the bookkeeping in progress (they write to the manifest), then for every record appended to be durable or failed. */
  async settle(): Promise<void> {
    await this.rotating;
    await this.dropping;
    try {
      await this.writer?.flush();
    } catch {
      // Already reported to the writers.
    }
  }

  close(): void {
    this.writer?.close();
  }
}
