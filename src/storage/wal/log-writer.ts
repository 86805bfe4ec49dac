import { TabletopError } from '../../model/errors.js';
import type { WritableFile } from '../fs/file-system.js';
import { encodeRecord } from './log-format.js';

/** Options of a LogWriter (see its constructor). */
export interface LogWriterOptions {
  /**
   * When positive: whenever a group grows the file, zeros are written after
   * it up to `extendBy` bytes past the group (WritableFile.extend), so the
   * syncs of the following groups write into the file without changing its
   * size. On ext4 here, a 1 KiB write + fdatasync that grows the file costs
   * ~110 µs of CPU and ~270 µs, one inside the file ~63 µs and ~185 µs (a
   * throwaway loop of 2,000 each). Replay ends at the zeros. A group of half
   * `extendBy` or more (a bulk load's) extends nothing: the zeros would cost
   * as much to write as the group, to save one size change per megabyte (a
   * load of 1 KiB rows wrote every byte of its log twice).
   */
  readonly extendBy?: number;
  /**
   * When positive, the commit delay (Config.commitDelayMillis): a group
   * whose first record shows that other writers are at work waits this long
   * for more records before its sync starts. See LogWriter.
   */
  readonly commitDelayMillis?: number;
}

/** A delayed group starts its sync at once when it reaches this many records... */
const DELAYED_GROUP_MAX_RECORDS = 16;
/** ...or this many bytes. */
const DELAYED_GROUP_MAX_BYTES = 64 * 1024;

/**
 * Appends records to one commit-log file with group commit.
 *
 * `append()` queues the framed record (records keep their call order) and
 * returns a promise that resolves when a sync covering it has completed.
 * A sync starts at the end of the current turn of the event loop
 * (setImmediate), so every writer whose request arrived in the same network
 * read joins it: a client sending a burst of writes gets one fsync for the
 * burst, not one for its first write and one for the rest. While a sync is in
 * flight, later appends wait for the next one, which then covers all of them.
 *
 * With a commit delay, a group waits a little longer for company, but only
 * when its first record proves that other writers are at work: it arrived
 * while the previous group's sync was running, or in the turn of the event
 * loop that completed it (a sync that runs on the event loop blocks it, so
 * the requests that came meanwhile are read just after it). A lone writer,
 * whose next record can only follow the acknowledgement of its last one,
 * never waits. Under many concurrent writers each sync then serves several
 * of them instead of one or two: on this project's VM an fsync costs tens of
 * µs of CPU, more than the rest of a small write.
 *
 * A failed append or sync poisons the writer: that and every later append
 * rejects (the data may or may not be on disk, so the log can no longer
 * promise anything). The engine must then stop accepting writes.
 */
/**
 * The writers of one group: one promise that every record appended to the
 * group gets, settled when the group's sync completes (a promise per record
 * was an allocation and a microtask per write for what the group shares).
 */
class Group {
  records = 0;
  readonly done: Promise<void>;
  resolve!: () => void;
  reject!: (e: unknown) => void;

  constructor() {
    this.done = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }
}

export class LogWriter {
  private syncing: Promise<void> | undefined;
  /** The group gathering records (appended since the last sync started), if any. */
  private gathering: Group | undefined;
  private failure: TabletopError | undefined;
  private bytesSinceOpen = 0;
  /** Records appended but not yet handed to the file: written with one call when the next sync starts. */
  private buffered: Buffer[] = [];
  /** Bytes of the file covered by completed syncs. */
  private syncedBytes = 0;
  /** Bytes of `buffered`. */
  private bufferedBytes = 0;
  /** A sync has just completed: set once the completing turn's own promise continuations are done, cleared in the next check phase. */
  private justSynced = false;
  /** Syncs completed so far (tells a sync's mark from a later one's). */
  private syncsCompleted = 0;
  /** Records of the last group synced (a lone writer's groups have one). */
  private lastGroupRecords = 0;
  /** The delayed start of the gathering group's sync, if it waits for company. */
  private delayTimer: NodeJS.Timeout | undefined;
  /** Starts the gathering group's sync (set while a group gathers). */
  private startGathered: (() => void) | undefined;
  private readonly extendBy: number;
  private readonly commitDelayMillis: number;

  /**
   * `syncMarker`, when given, frames the sync marker written in front of
   * each group of records (recyclable commit logs, see log-format.ts): it is
   * told how many bytes of the file completed syncs cover at that moment.
   *
   * `previous`, when given, is the durability of the log this one follows:
   * nothing is written to this file before it resolves. So a record of this
   * log on disk means every record of the previous one is too, and a power
   * loss leaves a prefix of the write sequence across log files, never a
   * later log's records without an earlier log's lost tail (RocksDB syncs
   * closed logs for the same reason). If it rejects, this log fails too.
   *
   * `options`: see LogWriterOptions.
   */
  constructor(
    private readonly file: WritableFile,
    private readonly syncMarker?: (syncedThrough: number) => Buffer,
    private previous?: Promise<void>,
    options: LogWriterOptions = {},
  ) {
    this.extendBy = options.extendBy ?? 0;
    this.commitDelayMillis = options.commitDelayMillis ?? 0;
    // Its failure is handled when the first group is written (it fails that group), maybe not at once.
    previous?.catch(() => undefined);
  }

  get path(): string {
    return this.file.path;
  }

  get size(): number {
    return this.bytesSinceOpen;
  }

  /** Appends one record; resolves once it is durable. */
  append(payload: Uint8Array): Promise<void> {
    return this.appendRecord(encodeRecord(payload));
  }

  /**
   * Appends a record already framed; resolves once it is
   * durable. Records wait in memory while a sync runs and are written with
   * one system call when the next sync starts: one write and one fsync per
   * group of writers. Every record of a group gets the same promise (the
   * engine publishes a group's writes together by it: disk-engine.ts).
   */
  appendRecord(rec: Buffer): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    this.buffered.push(rec);
    this.bufferedBytes += rec.byteLength;
    this.bytesSinceOpen += rec.byteLength;
    const group = (this.gathering ??= new Group());
    group.records++;
    if (this.syncing === undefined) this.scheduleSync(this.justSynced || this.lastGroupRecords > 1);
    else if (
      this.delayTimer !== undefined &&
      (group.records >= DELAYED_GROUP_MAX_RECORDS || this.bufferedBytes >= DELAYED_GROUP_MAX_BYTES)
    ) {
      // Company enough: the delayed group starts at the end of this turn.
      clearTimeout(this.delayTimer);
      this.delayTimer = undefined;
      setImmediate(this.startGathered!);
    }
    return group.done;
  }

  /** Resolves when everything appended so far is durable (or rejects if the log failed). */
  async flush(): Promise<void> {
    // Durable includes the logs before this one, even when nothing was appended here yet.
    if (this.previous !== undefined) await this.previous;
    if (this.failure !== undefined) throw this.failure;
    while (this.syncing !== undefined) await this.syncing.catch(() => undefined);
    if (this.failure !== undefined) throw this.failure;
  }

  close(): void {
    this.file.close();
  }

  /**
   * Starts a sync for the waiting writers once the current turn of the event
   * loop is over, or after the commit delay when `company` (the first record
   * arrived while, or just as, the previous sync ran: see the class).
   */
  private scheduleSync(company: boolean): void {
    this.syncing = new Promise<void>((resolve) => {
      const start = (): void => {
        if (this.startGathered === undefined) return;
        this.startGathered = undefined;
        if (this.delayTimer !== undefined) clearTimeout(this.delayTimer);
        this.delayTimer = undefined;
        const go = (): void => {
          this.syncing = undefined;
          if (this.gathering !== undefined) this.startSync();
          resolve();
        };
        const previous = this.previous;
        if (previous === undefined) {
          go();
          return;
        }
        // The first group waits until the previous log is durable (see the constructor).
        this.previous = undefined;
        previous.then(go, (e: unknown) => {
          const err = this.poison(e);
          this.syncing = undefined;
          this.gathering?.reject(err);
          this.gathering = undefined;
          this.buffered = [];
          this.bufferedBytes = 0;
          resolve();
        });
      };
      this.startGathered = start;
      const small = (this.gathering?.records ?? 0) < DELAYED_GROUP_MAX_RECORDS && this.bufferedBytes < DELAYED_GROUP_MAX_BYTES;
      if (company && small && this.commitDelayMillis > 0) this.delayTimer = setTimeout(start, this.commitDelayMillis);
      else setImmediate(start);
    });
  }

  private startSync(): void {
    const batch = this.gathering!;
    this.gathering = undefined;
    this.lastGroupRecords = batch.records;
    const records = this.buffered;
    this.buffered = [];
    this.bufferedBytes = 0;
    if (this.syncMarker !== undefined) {
      // The previous sync has completed (syncs run one at a time): everything written so far is durable.
      const marker = this.syncMarker(this.syncedBytes);
      records.unshift(marker);
      this.bytesSinceOpen += marker.byteLength;
    }
    const end = this.bytesSinceOpen;
    let groupBytes = 0;
    for (const r of records) groupBytes += r.byteLength;
    try {
      // Written as they are (writev): a group of bulk writes is megabytes, and joining it first would copy it all once more.
      if (records.length === 1) this.file.append(records[0]!);
      else this.file.appendv(records);
    } catch (e) {
      batch.reject(this.poison(e));
      return;
    }
    if (this.extendBy > 0 && groupBytes < this.extendBy / 2 && this.file.size >= this.file.length) {
      try {
        this.file.extend(this.file.size + this.extendBy);
      } catch {
        // The zeros ahead only make later syncs cheaper (LogWriterOptions.extendBy): a disk too full for them still
        // has the records, and replay ends at zeros or at the end of the file alike.
      }
    }
    this.syncing = this.file.sync().then(
      () => {
        this.syncedBytes = end;
        // Idle again before the writers hear of it: a writer in this process that appends as soon as it is
        // acknowledged starts a group of its own (it is no company), and records that arrived while the sync
        // ran form the next group (they are).
        this.syncing = undefined;
        this.noteSyncCompleted();
        if (this.gathering !== undefined && this.failure === undefined) this.scheduleSync(true);
        batch.resolve();
      },
      (e: unknown) => {
        const err = this.poison(e);
        this.syncing = undefined;
        batch.reject(err);
        this.gathering?.reject(err);
        this.gathering = undefined;
      },
    );
  }

  /**
   * Marks the time just after a sync, when the records that arrived during it
   * are read (see the class). The mark is set only after the promise
   * continuations of this turn have run (a next-tick callback queued from a
   * promise reaction runs once the microtask queue is empty), so a writer in
   * this process that appends again as soon as it is acknowledged is not
   * taken for company; it is cleared in the next check phase, before the
   * event loop waits for new input.
   */
  private noteSyncCompleted(): void {
    // An earlier sync's mark ends here, or this sync's own writers would see it.
    this.justSynced = false;
    if (this.commitDelayMillis <= 0) return;
    const sync = ++this.syncsCompleted;
    process.nextTick(() => {
      if (sync !== this.syncsCompleted) return;
      this.justSynced = true;
      setImmediate(() => {
        if (sync === this.syncsCompleted) this.justSynced = false;
      });
    });
  }

  private poison(e: unknown): TabletopError {
    if (this.failure === undefined) {
      const msg = e instanceof Error ? e.message : String(e);
      this.failure = new TabletopError('Unavailable', `commit log ${this.file.path} failed; writes are refused until restart: ${msg}`, {
        cause: e,
      });
    }
    return this.failure;
  }
}
