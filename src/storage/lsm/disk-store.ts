import type { ByteString } from '../../model/bytes.js';
import type { Cell, Row } from '../../model/cell.js';
import { TabletopError } from '../../model/errors.js';
import { intersectRanges, type KeyRange } from '../../model/key-range.js';
import type { GcRules, ColumnRef, KeySample, MaybePromise, RowCursor, RowStore, RowWrite, ScanOptions, StoreStats } from '../store.js';
import { decodeFragment, decodePutsOnly, type Entry, NO_DROPS, resolveEntries, type StoreDrops } from './fragment.js';
import { MergeCursor } from './merge-cursor.js';
import { RowCache } from './row-cache.js';
import { newestOfColumns } from '../row-ops.js';
import { collectEntries, fragmentBytes, fragmentsOf, Memtable, MemRow } from './memtable.js';
import { DropSet } from './store-drops.js';
import { lowerBound } from './sorted-entries.js';
import type { TableFile } from './table-file.js';

/**
 * What a store needs from its engine (implemented by DiskEngine), which owns
 * the shared commit log, the manifest and the sequence numbers.
 */
export interface StoreHost {
  /** The last sequence number handed out: what a writer holding a row's lock sees (getForUpdate). */
  readonly seq: number;
  /** Every write up to this sequence number is durable: what readers see. */
  readonly visibleSeq: number;
  /** Resolves once every write up to `seq` is durable (undefined when so already); rejects if the engine failed. */
  durableThrough(seq: number): Promise<void> | undefined;
  write(store: DiskStore, batch: readonly RowWrite[]): Promise<void> | undefined;
  dropRange(store: DiskStore, range: KeyRange): Promise<void>;
  dropFamily(store: DiskStore, family: string): Promise<void>;
  /** Starts a GC pass (flush, then major compaction) when one is due. */
  maybeCollect(store: DiskStore): Promise<void> | undefined;
}

/**
 * One tablet's data in the durable engine: its active memtable, memtables
 * being flushed, its SSTables (newest first) and its store-level drops.
 * Writes, drops and background work go through the engine (StoreHost).
 */
export class DiskStore implements RowStore {
  mem = new Memtable();
  /** Memtables waiting to be flushed, oldest first. */
  imms: Memtable[] = [];
  private fileList: TableFile[] = [];
  /** Bytes and rows of the store's share of its files, computed once per file list. */
  private fileStats: { bytes: number; logicalBytes: number; rows: number; shared: boolean } | undefined;

  /** Live SSTables, newest first. Replaced (never changed in place) when they change. */
  get files(): TableFile[] {
    return this.fileList;
  }

  set files(files: TableFile[]) {
    this.fileList = files;
    this.fileStats = undefined;
    this.filesEntryBound = undefined;
  }
  /** The sum over the store's files of the most one row can hold in each, computed once per file list. */
  private filesEntryBound: number | undefined;
  readonly drops = new DropSet({}, []);
  /** Set when one of the store's files is corrupt: every operation fails with it. */
  failure: TabletopError | undefined;
  /** Garbage-collection policy and clock from the database's last sweep, applied by major compactions. */
  gc: GcRules | undefined;
  gcNowMicros = 0;
  lastMajorCompactionMillis = Date.now();
  /** Drops with a sequence at or below this have been applied by a major compaction. */
  dropsAppliedSeq = 0;
  closed = false;
  deleted = false;
  /** A split or merge of this store is waiting: a running compaction of it gives up at its next slice (its result would be replaced anyway). */
  yieldCompaction = false;
  /** The keys this store owns: [lower, upper), upper undefined = unbounded (see StoreState). */
  lower: ByteString = '';
  upper: ByteString | undefined = undefined;

  constructor(
    readonly id: string,
    private readonly engine: StoreHost,
  ) {}

  /** True when the key belongs to this store. */
  owns(key: ByteString): boolean {
    return key >= this.lower && (this.upper === undefined || key < this.upper);
  }

  /** The lowest sequence number in the store's memtables (Infinity when they are empty). */
  minUnflushedSeq(): number {
    let lowest = this.mem.empty ? Infinity : this.mem.minSeq;
    for (const m of this.imms) if (!m.empty) lowest = Math.min(lowest, m.minSeq);
    return lowest;
  }

  /** The store's bounds as a range. */
  bounds(): KeyRange {
    return { start: this.lower, end: this.upper };
  }

  write(batch: readonly RowWrite[]): MaybePromise<void> {
    this.check();
    return this.engine.write(this, batch);
  }

  get(key: ByteString): Row | undefined {
    return this.read(key, this.engine.visibleSeq);
  }

  durableNow(): Promise<void> | undefined {
    return this.engine.durableThrough(this.engine.seq);
  }

  getForUpdate(key: ByteString, columns?: readonly ColumnRef[]): Row | undefined {
    if (columns === undefined) return this.read(key, this.engine.seq);
    this.check();
    const cached = this.cachedRow(key, this.engine.seq);
    const cells = cached !== undefined ? cached.newest(columns) : newestOfColumns(this.read(key, this.engine.seq)?.cells ?? [], columns);
    return cells.length > 0 ? { key, cells } : undefined;
  }

  private read(key: ByteString, snapshot: number): Row | undefined {
    this.check();
    if (!this.owns(key)) return undefined;
    const cached = this.cachedRow(key, snapshot);
    if (cached !== undefined) {
      const cells = cached.cells();
      return cells.length > 0 ? { key, cells } : undefined;
    }
    const fromMem = this.mem.get(key);
    const frags: { buf: Buffer; where: string }[] = [];
    if (fromMem !== undefined) for (const b of fragmentsOf(fromMem)) frags.push({ buf: b, where: 'memtable row' });
    for (const imm of this.imms) {
      const r = imm.get(key);
      if (r !== undefined) for (const b of fragmentsOf(r)) frags.push({ buf: b, where: 'memtable row' });
    }
    for (const f of this.files) {
      if (key < f.meta.smallest || key > f.meta.largest) continue;
      const v = this.guard(() => f.reader.get(key));
      if (v !== undefined) frags.push({ buf: v, where: f.where });
    }
    if (frags.length === 0) return undefined;
    const drops = this.snapshotDrops(snapshot);
    if (frags.length === 1 && drops === NO_DROPS) {
      const only = frags[0]!;
      const fast = this.guard(() => decodePutsOnly(only.buf, snapshot, only.where));
      if (fast !== undefined) return fast.length > 0 ? { key, cells: fast } : undefined;
    }
    const entries: Entry[] = [];
    for (const f of frags) this.guard(() => decodeFragment(f.buf, f.where, entries));
    const cells = resolveEntries(key, entries, snapshot, drops);
    return cells.length > 0 ? { key, cells } : undefined;
  }

  /**
   * A row written many times since the last flush: its cells are kept up to
   * date incrementally. The cache sits on top of everything older sources
   * hold, so it serves only readers that see all of it (older sources may
   * hold writes applied but not yet published when the memtable rotated).
   */
  private cachedRow(key: ByteString, snapshot: number): RowCache | undefined {
    if (!this.owns(key)) return undefined;
    const fromMem = this.mem.get(key);
    if (!(fromMem instanceof MemRow) || fromMem.frags.length < 2 || !this.drops.empty || snapshot < this.olderMaxSeq()) return undefined;
    return fromMem.cacheAsOf(snapshot, () => this.readOlder(key));
  }

  /** The highest sequence number in the memtables being flushed and the SSTables. */
  private olderMaxSeq(): number {
    let seq = 0;
    for (const m of this.imms) if (m.maxSeq > seq) seq = m.maxSeq;
    for (const f of this.files) if (f.meta.maxSeq > seq) seq = f.meta.maxSeq;
    return seq;
  }

  private readOlder(key: ByteString): readonly Cell[] {
    const entries: Entry[] = [];
    for (const imm of this.imms) {
      const r = imm.get(key);
      if (r !== undefined) collectEntries(r, entries);
    }
    for (const f of this.files) {
      if (key < f.meta.smallest || key > f.meta.largest) continue;
      const v = this.guard(() => f.reader.get(key));
      if (v !== undefined) this.guard(() => decodeFragment(v, f.where, entries));
    }
    return resolveEntries(key, entries, Number.MAX_SAFE_INTEGER, NO_DROPS);
  }

  scan(options: ScanOptions): RowCursor {
    this.check();
    const files = this.files.map((f) => f.ref());
    const mems = [this.mem.view(), ...this.imms.map((m) => m.view())];
    const range = intersectRanges(options.range, this.bounds());
    const snapshot = this.engine.visibleSeq;
    const cursor = this.guard(() => new MergeCursor(mems, files, range, options.reverse === true, snapshot, this.snapshotDrops(snapshot)));
    return {
      next: () => this.guard(() => cursor.next()),
      close: () => cursor.close(),
    };
  }

  dropRange(range: KeyRange): Promise<void> {
    this.check();
    return this.engine.dropRange(this, range);
  }

  dropFamily(family: string): Promise<void> {
    this.check();
    return this.engine.dropFamily(this, family);
  }

  collectGarbage(rules: GcRules, nowMicros: number): MaybePromise<void> {
    this.check();
    this.gc = rules;
    this.gcNowMicros = nowMicros;
    return this.engine.maybeCollect(this);
  }

  stats(): StoreStats {
    let bytes = this.mem.bytes;
    let logicalBytes = this.mem.logicalBytes;
    let rows = this.mem.size;
    for (const m of this.imms) {
      bytes += m.bytes;
      logicalBytes += m.logicalBytes;
      rows += m.size;
    }
    if (this.fileStats === undefined) {
      const fs = { bytes: 0, logicalBytes: 0, rows: 0, shared: false };
      for (const f of this.fileList) {
        const share = this.shareOf(f);
        if (!this.ownsWholeFile(f)) fs.shared = true;
        const info = f.reader.info;
        fs.bytes += Math.round(f.meta.size * share);
        fs.logicalBytes += Math.round((info.rawKeyBytes + info.rawValueBytes) * share);
        fs.rows += Math.round(f.meta.entries * share);
      }
      this.fileStats = fs;
    }
    const fs = this.fileStats;
    rows += fs.rows;
    return {
      bytes: bytes + fs.bytes,
      logicalBytes: logicalBytes + fs.logicalBytes,
      rows,
      // Rows add up over memtables and files; only an empty store is counted exactly.
      rowsEstimated: rows > 0,
      bytesEstimated: fs.shared,
    };
  }

  /**
   * A row is at most one entry per SSTable (keys are unique in a file) plus
   * its memtable fragments. Its cells, as rowBytes counts them (family +
   * qualifier + value + 8 per cell, plus the key), take at most twice their
   * encoded bytes: an encoded put has the same strings and value plus at
   * least 6 bytes of tags, lengths and varints. So the row is bounded by the
   * key plus twice the fragments held in memtables plus twice the largest
   * entry of each file; when that is too coarse, only the files whose key
   * range and bloom filter admit the key count.
   */
  rowBytesBound(key: ByteString, enough: number): number {
    this.filesEntryBound ??= this.fileList.reduce((sum, f) => sum + entryBound(f), 0);
    // All memtable bytes bound the row's fragments too: usually enough, and no hash lookup (a cache
    // miss in a memtable of many rows).
    let memBytes = this.mem.bytes;
    for (const m of this.imms) memBytes += m.bytes;
    const coarsest = key.length + 2 * (memBytes + this.filesEntryBound);
    if (coarsest <= enough) return coarsest;
    return this.rowBytesBoundSlow(key, enough, this.filesEntryBound);
  }

  /** rowBytesBound past its first bound (apart, so that the common path allocates nothing: a closure's captures would be). */
  private rowBytesBoundSlow(key: ByteString, enough: number, filesEntryBound: number): number {
    let encoded = 0;
    for (const m of [this.mem, ...this.imms]) {
      const v = m.get(key);
      if (v !== undefined) encoded += fragmentBytes(v);
    }
    const coarse = key.length + 2 * (encoded + filesEntryBound);
    if (coarse <= enough) return coarse;
    for (const f of this.fileList) {
      const info = f.reader.info;
      if (
        info.smallestKey !== undefined &&
        key >= info.smallestKey &&
        info.largestKey !== undefined &&
        key <= info.largestKey &&
        f.reader.mayContain(key)
      ) {
        encoded += entryBound(f);
      }
    }
    return key.length + 2 * encoded;
  }

  /** True when every key of the file lies within the store's bounds (a file it does not share). */
  private ownsWholeFile(f: TableFile): boolean {
    return f.meta.smallest >= this.lower && (this.upper === undefined || f.meta.largest < this.upper);
  }

  /** The fraction of a file's bytes that lie within the store's bounds (1 for files it does not share). */
  shareOf(f: TableFile): number {
    if (this.ownsWholeFile(f)) return 1;
    if (f.meta.size === 0) return 0;
    const from = this.lower === '' ? 0 : f.reader.approximateOffsetOf(this.lower);
    const to = this.upper === undefined ? f.meta.size : f.reader.approximateOffsetOf(this.upper);
    return Math.max(0, Math.min(1, (to - from) / f.meta.size));
  }

  sampleKeys(bytesPerPiece: number): readonly KeySample[] {
    this.check();
    if (!(bytesPerPiece > 0)) throw new TabletopError('InvalidArgument', `bytesPerPiece must be positive, got ${bytesPerPiece}`);
    // Candidate keys: samples from every file's index and every memtable row. The offset of a
    // key is the bytes before it, summed over files (from their indexes) and memtables.
    const candidates = new Set<ByteString>();
    const step = Math.max(1, Math.floor(bytesPerPiece / 4));
    for (const f of this.files)
      for (const s of f.reader.sampleKeys(step)) if (this.owns(s.key) && s.key !== this.lower) candidates.add(s.key);
    // Memtables: per sorted run, the bytes before each key, and a key per `step` bytes of each run as a candidate.
    const memRuns = [this.mem, ...this.imms].flatMap((m) => m.view().sizedRuns());
    for (const run of memRuns) {
      let lastCandidate = -step;
      for (let p = 0; p < run.keys.length; p++) {
        const n = run.before[p]!;
        if (n - lastCandidate >= step) {
          candidates.add(run.keys[p]!);
          lastCandidate = n;
        }
      }
    }
    const sorted = [...candidates].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    // Each file's bytes below the store's lower bound (shared files) are not the store's.
    let below = 0;
    if (this.lower !== '') for (const f of this.files) below += f.reader.approximateOffsetOf(this.lower);
    const out: KeySample[] = [];
    let last = 0;
    for (const key of sorted) {
      let offset = -below;
      for (const f of this.files) offset += f.reader.approximateOffsetOf(key);
      for (const run of memRuns) offset += run.before[lowerBound(run.keys, key)]!;
      if (offset - last >= bytesPerPiece) {
        out.push({ key, offsetBytes: offset });
        last = offset;
      }
    }
    return out;
  }

  close(): void {
    this.closed = true;
  }

  /** The drops as of now, frozen for one read. */
  private snapshotDrops(snapshotSeq: number): StoreDrops {
    if (this.drops.empty) return NO_DROPS;
    const frozen = this.drops.frozen(snapshotSeq);
    return frozen.empty ? NO_DROPS : frozen;
  }

  check(): void {
    if (this.failure !== undefined) throw this.failure;
    if (this.closed) throw new TabletopError('Unavailable', `store ${this.id} is closed`);
  }

  /** Runs a read; corruption marks the whole store as failed, so that it is never half-served. */
  private guard<T>(f: () => T): T {
    try {
      return f();
    } catch (e) {
      if (e instanceof TabletopError && e.code === 'DataLoss') this.failure ??= e;
      throw e;
    }
  }
}

/** The most one row's entry in the file can hold: its largest entry, or (files older than that property) all its raw bytes. */
function entryBound(f: TableFile): number {
  const info = f.reader.info;
  return info.maxEntryBytes ?? info.rawKeyBytes + info.rawValueBytes;
}
