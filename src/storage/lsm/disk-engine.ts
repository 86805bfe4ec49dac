/**
 * The durable engine: Bigtable's tablet storage (OSDI 2006, section 5.3) in
 * TypeScript. One commit log shared by every store (tablet); per store a
 * memtable, memtables being flushed and immutable SSTables; one manifest
 * recording which files make up each store.
 *
 * Write path (one batch of one store):
 *   1. give every op a sequence number and encode the batch once;
 *   2. append it to the commit log; group commit syncs it together with
 *      every batch that arrived meanwhile;
 *   3. insert the rows' fragments into the store's memtable at once, in
 *      sequence order, where a writer holding the row's lock can see them
 *      (getForUpdate); once the commit log is synced, publish the sequence to
 *      readers and acknowledge.
 * Reads see everything up to `visibleSeq`: only durable writes.
 *
 * Background work (background-queue.ts: flushes one at a time beside
 * compactions one at a time, splits and merges alone; in slices that yield
 * to the event loop): flush a full memtable to an SSTable, then
 * maybe merge the store's SSTables (size-tiered; a major compaction of all
 * files applies GC rules and drops tombstones). Each result is installed by
 * one manifest edit; replaced files are deleted once no reader holds them.
 *
 * Recovery (recovery.ts): load the manifest, delete files it does not name,
 * replay the commit logs it still needs into memtables (skipping what each
 * store had already flushed), flush them, and start a fresh log.
 *
 * Splits, merges and store deletions (topology.ts) change which stores exist
 * and which files each lists, by one manifest edit each. The commit log's
 * files (commit-log.ts) are rotated when full and retired once flushed.
 *
 * The engine keeps the orchestration: sequence numbers, publishing writes to
 * readers, write stalls, the background queue, and failure. Its parts are
 * written against narrow interfaces it implements (StoreHost, CompactionHost,
 * TopologyHost, RecoveryHost, CommitLogHost); none of them imports it. File
 * names: ../file-names.ts.
 *
 * Failure: an error writing the commit log or the manifest makes the engine
 * refuse all later writes (it can no longer promise durability); corruption
 * found in a store's files fails that store only, with DataLoss.
 */
import { resolveConfig, type Config } from '../../config.js';
import type { ByteString } from '../../model/bytes.js';
import { TabletopError } from '../../model/errors.js';
import type { KeyRange } from '../../model/key-range.js';
import { createBlockCache, type BlockCache } from '../cache/block-cache.js';
import { SST_DIR, sstName, WAL_DIR } from '../file-names.js';
import { errnoOf } from '../fs/errno.js';
import { join, type FileSystem } from '../fs/file-system.js';
import type { FileMeta, ManifestEdit, RangeDrop, StoreState } from '../manifest/manifest-state.js';
import { Manifest } from '../manifest/manifest.js';
import { openSSTable } from '../sstable/index.js';
import type { EngineStats, MetaUpdate, RowStore, RowWrite, StorageEngine } from '../store.js';
import { BackgroundQueue, type JobKind } from './background-queue.js';
import { type BuildPool, buildPool } from '../build/pool.js';
import { CommitLog, type CommitLogHost } from './commit-log.js';
import { type CompactionHost, pickCompaction, runCompaction, runFlush } from './compaction.js';
import { DiskStore, type StoreHost } from './disk-store.js';
import { Memtable } from './memtable.js';
import { advanceFileCounter, openStores, type RecoveryHost, replayCommitLogs } from './recovery.js';
import { TableFile } from './table-file.js';
import { cloneFlushed, deleteStore, mergeFlushed, retireFiles, splitFlushed, type TopologyHost } from './topology.js';
import { verifyFile } from './verify-store.js';
import { TimeShare } from './time-share.js';
import type { EngineEvent, EngineEventSink, FlushReason } from './engine-events.js';
import { encodeBatch, encodeDrop, type EncodedRow, type LoggedDrop } from './wal-batch.js';

export interface DiskEngineOptions {
  readonly fs: FileSystem;
  /** Directory of the database (created if missing). */
  readonly dir: string;
  readonly config?: Partial<Config>;
  /** Failures of background work (after the engine has stopped accepting writes, if fatal). */
  readonly onBackgroundError?: (e: unknown) => void;
  /** Run flushes and compactions only when asked (tests that need determinism). */
  readonly manualCompaction?: boolean;
  /** Receives recovery, flush and compaction reports (for the server's log). */
  readonly onEvent?: EngineEventSink;
  /**
   * Start past damage in the middle of a commit log (`tabletop repair`): skip the damaged records, replay every
   * intact one, and report what was skipped in the 'recovered' event, instead of refusing to open with DataLoss.
   */
  readonly salvageCommitLog?: boolean;
}

/** The backoff of background work that the system failed (backgroundFailed): the first retry, and the longest wait. */
const FIRST_RETRY_MILLIS = 100;
/** How often the free space of the data directory's disk is measured (checkDisk). */
const DISK_CHECK_MILLIS = 1000;
/** The longest wait between two tries of open()'s writes on a full disk. */
const MAX_START_RETRY_MILLIS = 30_000;
/** The errnos of a disk without room: open() serves reads and defers its writes on them. */
const DISK_SPACE_ERRNOS = new Set(['ENOSPC', 'EDQUOT']);

/** What open()'s writes have done so far (startWrites), kept across their tries on a full disk. */
interface DeferredStart {
  readonly replayed: ReturnType<typeof replayCommitLogs>;
  storesFlushed: number;
  dropsRecorded: boolean;
  logStarted: boolean;
}

function formatMiB(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}
const MAX_RETRY_MILLIS = 30_000;

interface PendingPublish {
  /** The highest sequence number it publishes (a group's writes share one entry: see publishWhen). */
  seq: number;
  /** What it waits for: a commit-log group's durability, or a drop's manifest edit. */
  readonly durable: Promise<void>;
  done: boolean;
  resolve: () => void;
  /** Resolves once `seq` is visible; rejects with the engine's failure. */
  readonly visible: Promise<void>;
}

export async function openDiskEngine(options: DiskEngineOptions): Promise<DiskEngine> {
  const engine = new DiskEngine(options);
  await engine.open();
  return engine;
}

export class DiskEngine implements StorageEngine, StoreHost, CompactionHost, TopologyHost, RecoveryHost, CommitLogHost {
  readonly kind = 'disk' as const;
  readonly config: Config;
  readonly fs: FileSystem;
  readonly cache: BlockCache;
  /** Last sequence number handed out. */
  seq = 0;
  /** Every entry up to this sequence is in a memtable or file: what readers see. */
  visibleSeq = 0;

  private manifest!: Manifest;
  private readonly log = new CommitLog(this);
  /** The live stores by id (topology.ts and recovery.ts change it too). */
  readonly stores = new Map<string, DiskStore>();
  private readonly background: BackgroundQueue;
  /** The worker threads that build SSTables (config.backgroundThreads), shared with the process's other engines. */
  readonly builders: BuildPool | undefined;
  readonly timeShare: TimeShare;
  private failure: TabletopError | undefined;
  private closed = false;
  private stallWaiters: (() => void)[] = [];
  /** Stores whose creation is being recorded in the manifest. */
  private readonly opening = new Map<string, Promise<RowStore>>();
  /** Sequence numbers durable or not yet, in order; see publishWhen. */
  private readonly publishQueue: PendingPublish[] = [];
  /** Waiting for writes to be durable up to a sequence number; see durableThrough. */
  private durableWaiters: { seq: number; resolve: () => void; reject: (e: unknown) => void }[] = [];
  /** Sequence numbers of drops in the commit log whose manifest edit is not written yet: they pin their log. */
  private readonly pendingDrops = new Set<number>();
  /** Bytes in every store's active memtable, kept up to date so that no write walks all stores. */
  private activeMemBytes = 0;
  /** Bytes in every memtable not flushed yet (active and waiting), over all stores. */
  private unflushedMemBytes = 0;
  /** Flushes and compactions since the engine opened, counted from the events they report (stats()). */
  private readonly work = { flushes: 0, flushedBytes: 0, compactions: 0, compactionInputBytes: 0, compactionOutputBytes: 0 };
  /** Background jobs failed by the system in a row (no flush or compaction succeeded since): the next retry's backoff. */
  private failedInARow = 0;
  /** Removals of obsolete files running on libuv's pool (removeObsolete); close() waits for them. */
  private readonly removals = new Set<Promise<void>>();
  /** Retries waiting for their time (cleared at close). */
  private readonly retryTimers = new Set<ReturnType<typeof setTimeout>>();
  /**
   * Free bytes on the data directory's disk: as statfs said at the last check, less what the commit log took since;
   * undefined without a reserve (config.minFreeDiskBytes 0) or a file system that cannot tell. `diskFull` is set while
   * the last check found less than the reserve.
   */
  private diskFree: number | undefined;
  private diskFull: TabletopError | undefined;
  private diskTimer: ReturnType<typeof setInterval> | undefined;
  /** Set while open()'s writes wait for space on a full disk (writesDeferred): writes get it. */
  private startPending: TabletopError | undefined;
  /** open()'s writes are running (startWrites): their manifest failures are theirs to handle, not fatal. */
  private startingWrites = false;

  constructor(private readonly options: DiskEngineOptions) {
    this.config = resolveConfig(options.config);
    this.fs = options.fs;
    this.cache = createBlockCache(this.config.blockCacheBytes);
    this.background = new BackgroundQueue((e, job) => this.backgroundFailed(e, job));
    this.builders = this.config.backgroundThreads > 0 ? buildPool(this.config.backgroundThreads) : undefined;
    this.timeShare = new TimeShare(this.config);
  }

  path(name: string): string {
    return join(this.options.dir, name);
  }

  // ---------------------------------------------------------------- open

  async open(): Promise<void> {
    const began = performance.now();
    const { fs } = this;
    fs.mkdirp(this.path(WAL_DIR));
    fs.mkdirp(this.path(SST_DIR));
    // Reading first, writing after: a disk too full to write on is still served (startWrites).
    this.manifest = Manifest.load(fs, this.options.dir);
    const state = this.manifest.state;
    advanceFileCounter(this, state);
    const files = openStores(this, state);
    const replayed = replayCommitLogs(this, state, this.options.salvageCommitLog === true);
    this.seq = replayed.maxSeq;
    this.visibleSeq = replayed.maxSeq;

    this.checkDisk();
    if (this.diskFree !== undefined) {
      this.diskTimer = setInterval(() => this.checkDisk(), DISK_CHECK_MILLIS);
      this.diskTimer.unref();
    }
    const start = { replayed, storesFlushed: 0, dropsRecorded: false, logStarted: false };
    try {
      await this.startWrites(start);
    } catch (e) {
      if (!DISK_SPACE_ERRNOS.has(errnoOf(e) ?? '')) throw e;
      this.writesDeferred(start, e, 0);
    }
    this.emit({
      kind: 'recovered',
      millis: performance.now() - began,
      stores: this.stores.size,
      ...files,
      logFiles: replayed.logFiles,
      logBytes: replayed.logBytes,
      records: replayed.records,
      rowsReplayed: replayed.rowsReplayed,
      dropsReplayed: replayed.drops.length,
      storesFlushed: start.storesFlushed,
      logDamage: replayed.logDamage,
    });
  }

  /**
   * The writes that open() makes once the data directory is read: a new manifest file, the drops the commit log held
   * and the manifest lacked, a fresh commit log, the replayed rows flushed so that the old logs can go. Each step
   * is done once, whether this runs at open() or again after the disk was full (writesDeferred).
   */
  private async startWrites(start: DeferredStart): Promise<void> {
    const { replayed } = start;
    this.startingWrites = true;
    try {
      if (!this.manifest.writable) await this.manifest.startWriting();
      // Drops the commit log holds and the manifest lacks: recorded before anything records a later lastSeq.
      if (replayed.drops.length > 0 && !start.dropsRecorded) {
        await this.record([...replayed.drops, { op: 'lastSeq', seq: replayed.maxSeq }]);
        for (const [id, s] of this.manifest.state.stores) this.stores.get(id)?.drops.update(s.familyDrops, s.rangeDrops);
        start.dropsRecorded = true;
      }
      // A fresh log; what was replayed is flushed so the old logs can go.
      if (!start.logStarted) {
        await this.log.start();
        start.logStarted = true;
      }
      for (const store of this.stores.values()) {
        if (store.failure === undefined && (!store.mem.empty || store.imms.length > 0)) {
          if (!store.mem.empty) this.rotate(store, 'recovery');
          while (store.imms.length > 0) await runFlush(this, store);
          start.storesFlushed++;
        }
      }
      await this.record([
        { op: 'logNumber', number: this.log.number },
        { op: 'lastSeq', seq: this.seq },
      ]);
    } finally {
      this.startingWrites = false;
    }
    for (const w of replayed.logs) if (w.number !== this.log.number) this.fs.remove(this.path(join(WAL_DIR, w.name)));
  }

  /**
   * open()'s writes failed because the disk is full: the engine serves reads (everything replayed is in memtables,
   * the old logs stay where they are) and refuses writes with ResourceExhausted, and tries the writes again after a
   * backoff (1 s doubling to 30 s) until they succeed; another failure than a full disk fails the engine.
   */
  private writesDeferred(start: DeferredStart, e: unknown, tries: number): void {
    const errno = errnoOf(e) ?? 'ENOSPC';
    const delayMillis = Math.min(MAX_START_RETRY_MILLIS, 1000 * 2 ** tries);
    if (this.startPending === undefined) {
      this.startPending = new TabletopError(
        'ResourceExhausted',
        `the disk of the data directory ${this.options.dir} was full when the server started (${errno}): reads are served, writes are refused until the start-up writes succeed (retried by themselves as space returns)`,
        { cause: e },
      );
      // The system's own words (the manifest's writer wraps them in its refusal, which does not apply here).
      let root: unknown = e;
      while (root instanceof Error && root.cause !== undefined) root = root.cause;
      this.emit({ kind: 'start-writes', state: 'deferred', errno, reason: root instanceof Error ? root.message : String(root) });
    }
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      if (this.closed) return;
      this.startWrites(start).then(
        () => {
          this.startPending = undefined;
          this.emit({ kind: 'start-writes', state: 'done', errno, reason: '' });
        },
        (again: unknown) => {
          if (this.closed) return;
          if (DISK_SPACE_ERRNOS.has(errnoOf(again) ?? '')) this.writesDeferred(start, again, tries + 1);
          else {
            this.startPending = undefined;
            this.fail(again);
          }
        },
      );
    }, delayMillis);
    timer.unref();
    this.retryTimers.add(timer);
  }

  /** Reports an event to the owner; a failing sink never fails the engine. */
  emit(event: EngineEvent): void {
    if (event.kind === 'flushed' || event.kind === 'compacted') this.failedInARow = 0;
    if (event.kind === 'flushed') {
      this.work.flushes++;
      this.work.flushedBytes += event.fileBytes;
    } else if (event.kind === 'compacted') {
      this.work.compactions++;
      this.work.compactionInputBytes += event.inputBytes;
      this.work.compactionOutputBytes += event.outputBytes;
    }
    try {
      this.options.onEvent?.(event);
    } catch {
      // The log is not worth a failed flush.
    }
  }

  openTableFile(meta: FileMeta): TableFile {
    const reader = openSSTable(this.fs, this.path(sstName(meta.number)), { cache: this.cache, id: meta.number });
    return new TableFile(meta, reader, (f) => {
      f.reader.close();
      this.cache.evictFile(meta.number);
      if (f.obsolete) this.removeObsolete(this.path(sstName(meta.number)));
    });
  }

  /**
   * Deletes a file nothing refers to (the manifest no longer lists it, no reader holds it) off the serving thread: a
   * compaction retiring eight 25 MiB inputs spent ~90 ms unlinking them, every read waiting (bench/compaction-latency.ts
   * --trace). A file a failed removal leaves is deleted at the next start (recovery removes unlisted SSTables).
   */
  private removeObsolete(path: string): void {
    const fs = this.fs;
    if (fs.removeInBackground === undefined) return fs.remove(path);
    const removal = fs.removeInBackground(path).catch(() => undefined);
    this.removals.add(removal);
    void removal.finally(() => this.removals.delete(removal));
  }

  // ---------------------------------------------------------------- stores

  openStore(id: string): RowStore | Promise<RowStore> {
    this.checkOpen();
    // The commit log tells a drop from a batch by an empty store id (wal-batch.ts).
    if (id === '') throw new TabletopError('InvalidArgument', 'a store id cannot be empty');
    // A store being created is handed out only once the manifest has it.
    const opening = this.opening.get(id);
    if (opening !== undefined) return opening;
    const existing = this.stores.get(id);
    if (existing !== undefined) {
      existing.closed = false;
      return existing;
    }
    const store = this.newStore(id);
    this.stores.set(id, store);
    // The store must be in the manifest before any of its writes is acknowledged.
    const created = this.record([{ op: 'addStore', id }])
      .then(() => store)
      .finally(() => this.opening.delete(id));
    this.opening.set(id, created);
    return created;
  }

  /** A new store of this engine, not yet listed. */
  newStore(id: string): DiskStore {
    return new DiskStore(id, this);
  }

  async deleteStore(id: string): Promise<void> {
    this.checkWritable();
    const store = this.stores.get(id);
    if (store === undefined) return;
    await deleteStore(this, store);
    this.dropObsoleteWals().catch((e: unknown) => this.backgroundFailed(e));
  }

  storeIds(): string[] {
    return [...this.stores.keys()];
  }

  readMeta(key: string): string | undefined {
    return this.manifest.state.meta.get(key);
  }

  writeMeta(key: string, value: string | null): Promise<void> {
    this.checkWritable();
    return this.record([{ op: 'setMeta', key, value }]);
  }

  // ---------------------------------------------------------------- writes

  /**
   * Applies a batch to the store's memtable at once (visible to getForUpdate)
   * and resolves once it is durable; readers see it from then on. A write
   * stall (too much unflushed data) delays the acknowledgement, so clients
   * with bounded concurrency slow down while flushes catch up.
   */
  write(store: DiskStore, batch: readonly RowWrite[]): Promise<void> | undefined {
    this.checkWritable();
    if (this.diskFull !== undefined) throw this.diskFull;
    if (batch.length === 0) return undefined;
    const encoded = encodeBatch(store.id, batch, this.seq + 1, store.mem.arena);
    if (this.diskFree !== undefined) this.takeDisk(encoded.record.byteLength);
    this.seq = encoded.lastSeq;
    const durable = this.log.append(encoded.record);
    const published = this.publishWhen(encoded.lastSeq, durable);
    this.addToMemtable(store, encoded.payload, encoded.rows);
    this.afterWrite(store);
    if (this.unflushedMemBytes <= 2 * this.config.totalMemtableBytes) return published;
    const stalled = this.stall();
    return published.then(() => stalled);
  }

  /**
   * Publishes sequence numbers to readers in order: `seq` becomes visible
   * once `durable` resolves AND every lower sequence number is visible (a
   * batch synced in a newer commit-log file, or a drop recorded in the
   * manifest, waits for earlier batches). Resolves when `seq` is visible, so
   * an acknowledged write is always readable by its writer; rejects with the
   * engine's failure when `durable` rejects.
   *
   * The writes of one commit-log group share its promise (LogWriter), become
   * durable together and so visible together: a write whose group is the
   * newest entry's joins that entry (its sequence number is the highest so
   * far) and gets the same promise, so a group of n writes costs one entry,
   * one promise and one reaction instead of n. Anything published between
   * them (a drop, waiting for its manifest edit) has an entry of its own,
   * so nothing after it joins the entry before it.
   */
  private publishWhen(seq: number, durable: Promise<void>): Promise<void> {
    const q = this.publishQueue;
    const last = q.length > 0 ? q[q.length - 1]! : undefined;
    if (last !== undefined && last.durable === durable && !last.done) {
      last.seq = seq;
      return last.visible;
    }
    let resolve!: () => void;
    let reject!: (e: unknown) => void;
    const visible = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const entry: PendingPublish = { seq, durable, done: false, resolve, visible };
    q.push(entry);
    durable.then(
      () => {
        entry.done = true;
        this.publishReady();
      },
      (e: unknown) => reject(this.fail(e)),
    );
    return visible;
  }

  private publishReady(): void {
    const q = this.publishQueue;
    let n = 0;
    while (n < q.length && q[n]!.done) {
      const e = q[n]!;
      if (e.seq > this.visibleSeq) this.visibleSeq = e.seq;
      e.resolve();
      n++;
    }
    if (n > 0) q.splice(0, n);
    if (this.durableWaiters.length > 0) {
      const ready = this.durableWaiters.filter((w) => w.seq <= this.visibleSeq);
      this.durableWaiters = this.durableWaiters.filter((w) => w.seq > this.visibleSeq);
      for (const w of ready) w.resolve();
    }
  }

  /**
   * Resolves once every write up to sequence number `seq` is durable (undefined
   * when that is so already); rejects if the engine fails first. A flush waits
   * for it before its file counts: otherwise a crash could keep, in the file,
   * writes whose commit-log group was lost, without earlier writes lost with
   * it (recovery keeps a prefix of the writes), and with sequence numbers
   * above what the engine restarts from.
   */
  durableThrough(seq: number): Promise<void> | undefined {
    if (this.visibleSeq >= seq) return undefined;
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.durableWaiters.push({ seq, resolve, reject }));
  }

  private afterWrite(store: DiskStore): void {
    if (store.mem.bytes >= this.config.memtableBytes) this.scheduleFlush(store, 'memtable full');
    if (this.activeMemBytes > this.config.totalMemtableBytes) {
      let largest: DiskStore | undefined;
      for (const s of this.stores.values()) if (largest === undefined || s.mem.bytes > largest.mem.bytes) largest = s;
      if (largest !== undefined && !largest.mem.empty) this.scheduleFlush(largest, 'memtable budget');
    }
    this.log.rotateIfFull((e) => this.backgroundFailed(e));
    if (this.log.bytes > this.config.maxWalBytes) {
      // Flush the store that pins the oldest log.
      let oldest: DiskStore | undefined;
      for (const s of this.stores.values()) {
        if (!s.mem.empty && (oldest === undefined || s.mem.minSeq < oldest.mem.minSeq)) oldest = s;
      }
      if (oldest !== undefined && oldest.imms.length === 0) this.scheduleFlush(oldest, 'commit log size');
    }
  }

  /** Adds rows of one batch, whose fragments are spans of `payload`, to the store's active memtable. */
  addToMemtable(store: DiskStore, payload: Buffer, rows: readonly EncodedRow[]): void {
    const mem = store.mem;
    const before = mem.bytes;
    const record = mem.addRecord(payload);
    for (const r of rows) mem.addSpan(r.key, record, r.start, r.end, r.firstSeq, r.lastSeq);
    this.activeMemBytes += store.mem.bytes - before;
    this.unflushedMemBytes += store.mem.bytes - before;
  }

  /** Drops the oldest waiting memtable of a store once its flush is recorded. */
  memtableFlushed(store: DiskStore): void {
    const flushed = store.imms.shift();
    if (flushed !== undefined) this.unflushedMemBytes -= flushed.bytes;
  }

  /** Forgets a store's memtables (the store is gone). */
  discardMemtables(store: DiskStore): void {
    this.activeMemBytes -= store.mem.bytes;
    this.unflushedMemBytes -= store.mem.bytes;
    for (const m of store.imms) this.unflushedMemBytes -= m.bytes;
    store.mem = new Memtable();
    store.imms = [];
  }

  private stall(): Promise<void> {
    return new Promise((resolve) => this.stallWaiters.push(resolve));
  }

  /** Lets stalled writers go once flushes caught up, the engine failed or (`all`) it closes. */
  private releaseStalls(all = false): void {
    if (all || this.unflushedMemBytes <= 2 * this.config.totalMemtableBytes || this.failure !== undefined) {
      const w = this.stallWaiters;
      this.stallWaiters = [];
      for (const r of w) r();
    }
  }

  // ---------------------------------------------------------------- drops

  /**
   * Drops go through the commit log like writes, so a crash keeps a prefix of
   * writes and drops together: a drop survives whenever a later write does.
   * Once its record is durable (and with it every earlier write), the drop is
   * recorded in the manifest, which is where stores read their drops from;
   * until then it pins its commit-log file (pendingDrops), and replay records
   * it if a crash came first. It is acknowledged in sequence order with the
   * writes, so readers never see a later write before it.
   */
  private async logDrop(store: DiskStore, drop: LoggedDrop, edits: () => ManifestEdit[]): Promise<void> {
    const seq = drop.kind === 'range' ? drop.drop.seq : drop.seq;
    const durable = this.log.append(encodeDrop(drop));
    this.pendingDrops.add(seq);
    const recorded = durable.then(
      // A store deleted meanwhile must not come back through the edit.
      () => this.record(store.deleted ? [] : edits()),
      (e: unknown) => {
        throw this.fail(e);
      },
    );
    try {
      await this.publishWhen(seq, recorded);
    } finally {
      this.pendingDrops.delete(seq);
    }
  }

  async dropRange(store: DiskStore, range: KeyRange): Promise<void> {
    this.checkWritable();
    const drop: RangeDrop = { start: range.start, end: range.end ?? null, seq: ++this.seq };
    let inside: TableFile[] = [];
    await this.logDrop(store, { kind: 'range', storeId: store.id, drop }, () => {
      const edits: ManifestEdit[] = [
        { op: 'rangeDrop', id: store.id, drop },
        { op: 'lastSeq', seq: drop.seq },
      ];
      // Files entirely inside the range go at once.
      inside = store.files.filter((f) => f.meta.smallest >= range.start && (range.end === undefined || f.meta.largest < range.end));
      if (inside.length > 0) edits.push({ op: 'removeFiles', id: store.id, numbers: inside.map((f) => f.meta.number) });
      return edits;
    });
    const s = this.manifest.state.stores.get(store.id);
    if (s !== undefined) store.drops.update(s.familyDrops, s.rangeDrops);
    this.retireFiles(store, inside);
    this.scheduleCompaction(store);
  }

  async dropFamily(store: DiskStore, family: string): Promise<void> {
    this.checkWritable();
    const seq = ++this.seq;
    await this.logDrop(store, { kind: 'family', storeId: store.id, family, seq }, () => [
      { op: 'familyDrop', id: store.id, family, seq },
      { op: 'lastSeq', seq },
    ]);
    const s = this.manifest.state.stores.get(store.id);
    if (s !== undefined) store.drops.update(s.familyDrops, s.rangeDrops);
    this.scheduleCompaction(store);
  }

  /** Takes files out of a store's live list (topology.ts: retireFiles). */
  retireFiles(store: DiskStore, files: readonly TableFile[]): void {
    retireFiles(this.stores, store, files);
  }

  // ---------------------------------------------------------------- splits and merges

  /**
   * Splits a store without rewriting data: its memtables are flushed, then
   * one manifest edit replaces it by two stores that share its files, each
   * owning one side of `at`. Compactions later rewrite each side on its own.
   */
  async splitStore(parentId: string, at: ByteString, leftId: string, rightId: string, meta?: MetaUpdate): Promise<void> {
    this.checkWritable();
    const parent = this.requireStore(parentId);
    await this.yieldingCompactions([parent], () =>
      this.background.add('exclusive', parentId, async () => {
        this.rotate(parent, 'split');
        await this.flushStore(parent);
        await splitFlushed(this, parent, at, leftId, rightId, meta);
      }),
    );
  }

  /**
   * Runs a split or merge of `stores`, making a compaction of them that is
   * running give up meanwhile: the job waits for the running compaction, and
   * a compaction of a large store can take minutes, while its result would
   * be rewritten by the children's own compactions anyway. (A running
   * compaction of another store is still waited for.)
   */
  private async yieldingCompactions(stores: readonly DiskStore[], job: () => Promise<void>): Promise<void> {
    for (const s of stores) s.yieldCompaction = true;
    try {
      await job();
    } finally {
      for (const s of stores) s.yieldCompaction = false;
    }
  }

  /** Merges two adjacent stores into one that lists the files of both (shared ones once). */
  async mergeStores(leftId: string, rightId: string, mergedId: string, meta?: MetaUpdate): Promise<void> {
    this.checkWritable();
    const left = this.requireStore(leftId);
    const right = this.requireStore(rightId);
    await this.yieldingCompactions([left, right], () =>
      this.background.add('exclusive', leftId, async () => {
        for (const s of [left, right]) {
          this.rotate(s, 'merge');
          await this.flushStore(s);
        }
        await mergeFlushed(this, left, right, mergedId, meta);
      }),
    );
  }

  /**
   * Point-in-time copies (StorageEngine.cloneStores) without rewriting data,
   * as splits are made: in one exclusive background job, every source's
   * memtable is rotated at the same moment and flushed, then one manifest
   * edit adds the clones, each listing its source's files with its key
   * range, drops and flush state (and writes `meta`). A file shared so stays
   * until the last store listing it lets go of it (topology.ts). A clone is
   * handed out by openStore only once the manifest has it.
   */
  cloneStores(pairs: readonly (readonly [sourceId: string, cloneId: string])[], meta?: MetaUpdate): Promise<void> {
    this.checkWritable();
    if (pairs.length === 0) return meta === undefined ? Promise.resolve() : this.writeMeta(meta.key, meta.value());
    const sources = pairs.map(([sourceId]) => this.requireStore(sourceId));
    const cloneIds = pairs.map(([, cloneId]) => cloneId);
    for (const id of cloneIds) this.checkNewStoreId(id);
    if (new Set(cloneIds).size !== cloneIds.length) throw new TabletopError('InvalidArgument', `clone ids repeat: ${cloneIds.join(', ')}`);
    const gone = (): void => {
      for (const s of sources) if (s.deleted) throw new TabletopError('NotFound', `store ${s.id} was deleted before it could be cloned`);
    };
    let made = false;
    const job = this.yieldingCompactions(sources, async () => {
      await this.background.add('exclusive', sources[0]!.id, async () => {
        gone();
        // Rotated together: the clones hold every source as of one sequence number.
        for (const s of sources) this.rotate(s, 'clone');
        for (const s of sources) await this.flushStore(s);
        gone();
        await cloneFlushed(
          this,
          sources.map((s, i) => [s, cloneIds[i]!] as const),
          meta,
        );
        made = true;
      });
      // A queued job is dropped when the engine closes: then no clone was made.
      if (!made) throw new TabletopError('Unavailable', 'the storage engine closed before the clone was made');
    });
    for (const id of cloneIds) {
      const opened = job.then(() => this.requireStore(id)).finally(() => this.opening.delete(id));
      opened.catch(() => undefined);
      this.opening.set(id, opened);
    }
    return job;
  }

  /** Throws unless `id` may name a store about to be created. */
  private checkNewStoreId(id: string): void {
    if (id === '') throw new TabletopError('InvalidArgument', 'a store id cannot be empty');
    if (this.stores.has(id) || this.opening.has(id)) throw new TabletopError('AlreadyExists', `store ${id} exists already`);
  }

  /**
   * Checks every file the store lists (verify-store.ts); throws DataLoss
   * naming the store, the file and the damage, and the store then fails
   * every call with it (as a read finding the damage would). The files are
   * held (referenced) meanwhile, so a compaction cannot delete them.
   */
  async verifyStore(id: string): Promise<void> {
    this.checkOpen();
    const store = this.stores.get(id);
    if (store === undefined) throw new TabletopError('NotFound', `no store ${id}`);
    if (store.failure !== undefined) throw store.failure;
    const files = store.files.map((f) => f.ref());
    try {
      for (const f of files) await verifyFile(this, id, f.meta);
    } catch (e) {
      if (e instanceof TabletopError && e.code === 'DataLoss') store.failure ??= e;
      throw e;
    } finally {
      for (const f of files) f.unref();
    }
  }

  private requireStore(id: string): DiskStore {
    const s = this.stores.get(id);
    if (s === undefined) throw new TabletopError('NotFound', `no store ${id}`);
    if (s.failure !== undefined) throw s.failure;
    return s;
  }

  // ---------------------------------------------------------------- background work

  /** When a GC pass is due for the store, flushes it and runs a major compaction (which applies the GC rules). */
  maybeCollect(store: DiskStore): Promise<void> | undefined {
    if (this.options.manualCompaction === true || store.deleted) return undefined;
    if (Date.now() - store.lastMajorCompactionMillis < this.config.gcCompactionIntervalMillis) return undefined;
    if (store.files.length === 0 && store.mem.empty && store.imms.length === 0) return undefined;
    this.rotate(store, 'gc');
    return this.background.add('exclusive', store.id, async () => {
      await this.flushStore(store);
      await this.compactStore(store, true);
    });
  }

  /** Moves the active memtable to the flush queue of its store. */
  private rotate(store: DiskStore, reason: FlushReason): void {
    if (store.mem.empty || store.deleted) return;
    store.mem.flushReason = reason;
    this.activeMemBytes -= store.mem.bytes;
    store.imms.push(store.mem);
    store.mem = new Memtable();
  }

  scheduleFlush(store: DiskStore, reason: FlushReason = 'requested'): void {
    if (store.mem.empty || store.deleted) return;
    this.rotate(store, reason);
    if (this.options.manualCompaction === true) return;
    this.queueFlush(store);
  }

  /** Queues a flush of the store's waiting memtables, then a compaction. */
  private queueFlush(store: DiskStore): void {
    void this.background
      .add('flush', store.id, async () => {
        await this.flushStore(store);
        this.scheduleCompaction(store);
      })
      .catch(() => undefined);
  }

  scheduleCompaction(store: DiskStore, major = false): void {
    if (this.options.manualCompaction === true) return;
    void this.background.add('compaction', store.id, () => this.compactStore(store, major)).catch(() => undefined);
  }

  /** Flushes every memtable and waits for all background work (tests, shutdown). */
  async flushAll(): Promise<void> {
    for (const store of this.stores.values()) {
      this.rotate(store, 'requested');
      if (store.imms.length > 0) await this.background.add('flush', store.id, () => this.flushStore(store));
    }
    await this.background.idle();
  }

  /** Runs a compaction of a store now (major: all files), after the work queued before it. */
  compactNow(store: DiskStore, major = false): Promise<void> {
    return this.background.add('compaction', store.id, () => this.compactStore(store, major));
  }

  /** Flushes every waiting memtable of a store. Runs only inside the background queue. */
  private async flushStore(store: DiskStore): Promise<void> {
    while (store.imms.length > 0 && !store.deleted) await runFlush(this, store);
    await this.dropObsoleteWals();
    this.releaseStalls();
  }

  /** Runs inside the background queue. */
  private async compactStore(store: DiskStore, major: boolean): Promise<void> {
    if (store.deleted || store.failure !== undefined) return;
    const chosen = major ? store.files.slice() : pickCompaction(store, this.config);
    if (chosen === undefined || chosen.length === 0) {
      if (major) store.lastMajorCompactionMillis = Date.now();
      return;
    }
    if (chosen.length === 1 && !major && store.drops.maxSeq <= store.dropsAppliedSeq) return;
    await runCompaction(this, store, chosen);
  }

  /** Deletes (or keeps as spares) the commit-log files whose every entry is in SSTables (CommitLog.dropObsolete). */
  dropObsoleteWals(): Promise<void> {
    return this.log.dropObsolete();
  }

  /** The lowest sequence number not yet in an SSTable: in a memtable, or a drop not yet in the manifest (it pins its log). */
  minUnflushedSeq(): number {
    let minUnflushed = Infinity;
    for (const s of this.stores.values()) minUnflushed = Math.min(minUnflushed, s.minUnflushedSeq());
    for (const seq of this.pendingDrops) minUnflushed = Math.min(minUnflushed, seq);
    return minUnflushed;
  }

  /**
   * Records edits atomically in the manifest. A failure makes the engine refuse all later
   * writes: the manifest can no longer be trusted to name what the commit log relies on.
   */
  async record(edits: readonly ManifestEdit[]): Promise<void> {
    if (this.startPending !== undefined && !this.startingWrites) throw this.startPending;
    try {
      await this.manifest.apply(edits);
    } catch (e) {
      // open()'s own writes fail open() (or are retried, writesDeferred) instead.
      if (this.startingWrites) throw e;
      throw this.fail(e);
    }
  }

  newFileNumber(): number {
    return this.manifest.newFileNumber();
  }

  storeState(id: string): StoreState | undefined {
    return this.manifest.state.stores.get(id);
  }

  // ---------------------------------------------------------------- disk space

  /**
   * Measures the free space (statfs) and sets or clears the full state: below the reserve (config.minFreeDiskBytes)
   * writes are refused with ResourceExhausted, reads and background work go on (the reserve is theirs: flushes free
   * commit-log space), and writes resume at the first check that finds the reserve again (every DISK_CHECK_MILLIS).
   */
  private checkDisk(): void {
    const reserve = this.config.minFreeDiskBytes;
    if (reserve <= 0 || this.fs.freeBytes === undefined || this.closed) return;
    let free: number;
    try {
      free = this.fs.freeBytes(this.options.dir);
    } catch {
      return; // not measurable now: keep the last word
    }
    this.diskFree = free;
    if (free < reserve && this.diskFull === undefined) {
      this.diskFull = new TabletopError(
        'ResourceExhausted',
        `the disk of the data directory ${this.options.dir} is full: ${formatMiB(free)} free, less than the ${formatMiB(reserve)} kept in reserve (--min-free-disk); writes are refused until space is freed and resume by themselves, reads go on`,
      );
      this.emit({ kind: 'disk-full', freeBytes: free, reserveBytes: reserve });
    } else if (free >= reserve && this.diskFull !== undefined) {
      this.diskFull = undefined;
      this.emit({ kind: 'disk-space-back', freeBytes: free, reserveBytes: reserve });
    }
  }

  /** Counts `bytes` the commit log is about to take; refuses the write (ResourceExhausted) if it would eat into the reserve. */
  private takeDisk(bytes: number): void {
    const reserve = this.config.minFreeDiskBytes;
    if (this.diskFree! - bytes < reserve) {
      this.checkDisk(); // near the edge: measure rather than estimate
      if (this.diskFull !== undefined) throw this.diskFull;
      if (this.diskFree! - bytes < reserve)
        throw new TabletopError(
          'ResourceExhausted',
          `a write of ${formatMiB(bytes)} does not fit on the disk of the data directory ${this.options.dir}: ${formatMiB(this.diskFree!)} free, ${formatMiB(reserve)} of it kept in reserve (--min-free-disk)`,
        );
    }
    this.diskFree! -= bytes;
  }

  // ---------------------------------------------------------------- failure, close

  private checkOpen(): void {
    if (this.closed) throw new TabletopError('Unavailable', 'the storage engine is closed');
  }

  private checkWritable(): void {
    this.checkOpen();
    if (this.failure !== undefined) throw this.failure;
    if (this.startPending !== undefined) throw this.startPending;
  }

  private fail(e: unknown): TabletopError {
    if (this.failure === undefined) {
      this.failure =
        e instanceof TabletopError && e.code === 'Unavailable'
          ? e
          : new TabletopError(
              'Unavailable',
              `storage failed; writes are refused until restart: ${e instanceof Error ? e.message : String(e)}`,
              { cause: e },
            );
      const errno = errnoOf(e);
      this.emit({ kind: 'storage-failed', ...(errno === undefined ? {} : { errno }), reason: this.failure.message });
      this.releaseStalls();
      const waiters = this.durableWaiters;
      this.durableWaiters = [];
      for (const w of waiters) w.reject(this.failure);
    }
    return this.failure;
  }

  /**
   * A background job failed. DataLoss stays with its store (store.failure). A failure the system reported (an errno:
   * a full disk, too many open files, an I/O error) while building a new file is transient: nothing depends on the
   * file, which is removed, the memtable or the compaction's inputs are still there, and the job is retried later with
   * a backoff (0.1 s doubling to 30 s), writes going on meanwhile. A failing manifest write has already failed the
   * engine (record()), and anything else (a bug) does too: writes are refused until restart.
   */
  private backgroundFailed(e: unknown, job?: { readonly kind: JobKind; readonly storeId: string }): void {
    if (e instanceof TabletopError && e.code === 'DataLoss') {
      this.options.onBackgroundError?.(e);
      return;
    }
    const errno = errnoOf(e);
    if (errno !== undefined && this.failure === undefined && !this.closed) {
      const delayMillis = Math.min(MAX_RETRY_MILLIS, FIRST_RETRY_MILLIS * 2 ** this.failedInARow);
      this.failedInARow++;
      this.emit({
        kind: 'background-retry',
        job: job === undefined ? 'commit-log rotation' : job.kind,
        ...(job === undefined ? {} : { store: job.storeId }),
        errno,
        reason: e instanceof Error ? e.message : String(e),
        delayMillis: job === undefined ? 0 : delayMillis,
      });
      if (job !== undefined) this.retryLater(job, delayMillis);
      return;
    }
    this.fail(e);
    this.options.onBackgroundError?.(e);
  }

  /** Queues a failed flush or compaction again after `delayMillis` (an exclusive job's caller saw its failure). */
  private retryLater(job: { readonly kind: JobKind; readonly storeId: string }, delayMillis: number): void {
    if (job.kind === 'exclusive' || this.options.manualCompaction === true) return;
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      const store = this.stores.get(job.storeId);
      if (store === undefined || store.deleted || this.closed || this.failure !== undefined) return;
      if (job.kind === 'flush') this.queueFlush(store);
      else this.scheduleCompaction(store);
    }, delayMillis);
    timer.unref();
    this.retryTimers.add(timer);
  }

  stats(): EngineStats {
    const seen = new Set<number>();
    let sstableBytes = 0;
    for (const store of this.stores.values()) {
      for (const f of store.files) {
        if (seen.has(f.meta.number)) continue;
        seen.add(f.meta.number);
        sstableBytes += f.meta.size;
      }
    }
    const cache = this.cache.stats();
    const logFiles = this.log.files;
    const logBytes = logFiles === 0 ? 0 : this.log.bytes;
    return {
      memtableBytes: this.unflushedMemBytes,
      blockCache: { capacityBytes: cache.capacity, bytes: cache.bytes, hits: cache.hits, misses: cache.misses, evictions: cache.evictions },
      commitLog: { files: logFiles, bytes: logBytes },
      ...this.work,
      sstables: seen.size,
      sstableBytes,
      diskBytes: sstableBytes + logBytes,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.diskTimer);
    for (const t of this.retryTimers) clearTimeout(t);
    this.retryTimers.clear();
    await this.background.stop();
    // A rotation and the commit-log bookkeeping write to the manifest: they finish before it closes.
    await this.log.settle();
    // No flush will run any more: writes held back by a stall are durable, so they are acknowledged.
    this.releaseStalls(true);
    this.log.close();
    await this.manifest.close();
    for (const s of this.stores.values()) {
      for (const f of s.files) f.unref();
      s.files = [];
    }
    await Promise.all(this.removals);
  }
}
