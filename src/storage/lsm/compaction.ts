/**
 * Flushes and compactions of one store.
 *
 * Flush: the oldest memtable waiting to be flushed becomes one SSTable. Rows
 * written once pass through as the very bytes the commit log holds; rows
 * written several times are merged first.
 *
 * Compaction (size-tiered): when a store has `compactionTrigger` files of
 * similar size they are merged into one; with `majorCompactionTrigger`
 * files, or when drops or GC are pending, all of them are (a major
 * compaction). Only a major compaction may drop tombstones and apply GC
 * rules, since only then is every older version of every row at hand.
 *
 * Work on the serving thread is cut into slices that yield to the event
 * loop (TimeShare), so foreground requests keep flowing while it runs.
 */
import type { Config } from '../../config.js';
import type { Cell } from '../../model/cell.js';
import { SST_DIR, sstName } from '../file-names.js';
import type { FileSystem, WritableFile } from '../fs/file-system.js';
import type { FileMeta, ManifestEdit, StoreState } from '../manifest/manifest-state.js';
import type { SSTableInfo } from '../sstable/properties.js';
import type { SSTableWriterOptions } from '../sstable/sstable-writer.js';
import { type BuildPool, localWriter, type PipelinedWriter, WorkerLost } from '../build/pool.js';
import { type MergeInput, MergeStopped, mergeRows, rowGcOf } from './merge-rows.js';
import type { EngineEvent } from './engine-events.js';
import { compactEntries, encodeEntries, type Entry } from './fragment.js';
import type { DiskStore } from './disk-store.js';
import { collectEntries, type Memtable, onlyFragment } from './memtable.js';
import type { TableFile } from './table-file.js';
import { ByteWriter } from '../../model/byte-writer.js';
import type { TimeShare } from './time-share.js';

/**
 * What flushes and compactions need from the engine (implemented by
 * DiskEngine): where files go, the manifest, and the engine's bookkeeping of
 * memtables and files. They never reach the engine otherwise.
 */
export interface CompactionHost {
  readonly fs: FileSystem;
  readonly config: Config;
  /** Every write up to this sequence number is durable. */
  readonly visibleSeq: number;
  /** The path of a file named relative to the data directory (file-names.ts). */
  path(name: string): string;
  /** Allocates a file number (made durable by the next manifest edit). */
  newFileNumber(): number;
  /** Resolves once every write up to `seq` is durable (undefined when it is already); see DiskEngine.durableThrough. */
  durableThrough(seq: number): Promise<void> | undefined;
  /** Records edits atomically in the manifest (a failure fails the engine). */
  record(edits: readonly ManifestEdit[]): Promise<void>;
  /** What the manifest records for a store. */
  storeState(id: string): StoreState | undefined;
  /** Opens an SSTable the manifest lists, holding one reference for the store's file list. */
  openTableFile(meta: FileMeta): TableFile;
  /** Takes files out of a store's live list (deleted once no reader holds them). */
  retireFiles(store: DiskStore, files: readonly TableFile[]): void;
  /** Forgets the store's oldest waiting memtable once its flush is recorded. */
  memtableFlushed(store: DiskStore): void;
  /** The worker threads that build SSTables (config.backgroundThreads), if any. */
  readonly builders: BuildPool | undefined;
  /** How long background work may hold the serving thread (shared by the engine's jobs). */
  readonly timeShare: TimeShare;
  emit(event: EngineEvent): void;
}

/** Files smaller than this all count as one size class. */
const MIN_TIER_BYTES = 4 * 1024 * 1024;
const MAX_FILES_PER_MERGE = 32;

/**
 * Writes one new SSTable: `fill` adds its entries (and may throw Abandoned),
 * through a writer that a build worker backs when the engine has workers.
 * Returns the file's manifest entry once it is written, synced and its
 * directory synced, or undefined when it ended up empty or was abandoned
 * (the file is removed then, as it is when the build fails).
 *
 * A build worker that dies mid-build (WorkerLost) costs only time: the
 * half-built file is removed, the engine reports it, and `fill` runs again
 * with this thread building the file (fill starts from its inputs afresh).
 */
async function writeTable(
  engine: CompactionHost,
  job: { readonly store: string; readonly kind: 'flush' | 'compaction' },
  seqs: { readonly minSeq: number; readonly maxSeq: number },
  fill: (writer: PipelinedWriter) => Promise<void>,
): Promise<FileMeta | undefined | typeof ABANDONED> {
  const pool = engine.builders;
  // A file built on this thread finishes in slices of the time share too (its filter alone takes milliseconds).
  const here = (file: WritableFile, options: SSTableWriterOptions): Promise<SSTableInfo | undefined> =>
    fillAndFinish(localWriter(file, options), fill, () => engine.timeShare.maybeYield());
  if (pool === undefined) return buildTable(engine, seqs, here);
  try {
    return await buildTable(engine, seqs, (file, options) => fillAndFinish(pool.createWriter(file, options), fill));
  } catch (e) {
    if (!(e instanceof WorkerLost)) throw e;
    engine.emit({ kind: 'worker-lost', store: job.store, job: job.kind, worker: e.worker, reason: e.message });
    return await buildTable(engine, seqs, here);
  }
}

async function fillAndFinish(
  writer: PipelinedWriter,
  fill: (writer: PipelinedWriter) => Promise<void>,
  pause?: () => Promise<void> | undefined,
): Promise<SSTableInfo | undefined> {
  try {
    await fill(writer);
    if (writer.entries === 0) {
      writer.abandon();
      return undefined;
    }
    return await writer.finish(pause);
  } catch (e) {
    writer.abandon();
    throw e;
  }
}

async function buildTable(
  engine: CompactionHost,
  seqs: { readonly minSeq: number; readonly maxSeq: number },
  build: (file: WritableFile, options: SSTableWriterOptions) => Promise<SSTableInfo | undefined>,
): Promise<FileMeta | undefined | typeof ABANDONED> {
  const number = engine.newFileNumber();
  const path = engine.path(sstName(number));
  let info: SSTableInfo | undefined;
  try {
    info = await build(engine.fs.create(path), { blockSize: engine.config.blockBytes });
  } catch (e) {
    engine.fs.remove(path);
    if (e instanceof Abandoned) return ABANDONED;
    throw e;
  }
  if (info === undefined) {
    engine.fs.remove(path);
    return undefined;
  }
  try {
    await engine.fs.syncDir(engine.path(SST_DIR));
  } catch (e) {
    // Not recorded anywhere: the job is retried (disk-engine.ts backgroundFailed) with a file of its own.
    engine.fs.remove(path);
    throw e;
  }
  return {
    number,
    size: info.size,
    entries: info.entries,
    smallest: info.smallestKey ?? '',
    largest: info.largestKey ?? '',
    minSeq: seqs.minSeq,
    maxSeq: seqs.maxSeq,
  };
}

const ABANDONED = Symbol('abandoned');

/** Flushes the store's oldest waiting memtable to an SSTable and records it. */
export async function runFlush(engine: CompactionHost, store: DiskStore): Promise<void> {
  const imm = store.imms[0];
  if (imm === undefined) return;
  const began = performance.now();
  const edits: ManifestEdit[] = [{ op: 'flushed', id: store.id, seq: imm.maxSeq }];
  let meta: FileMeta | undefined;
  if (!imm.empty) {
    const written = await writeTable(engine, { store: store.id, kind: 'flush' }, imm, (writer) =>
      fillFromMemtable(writer, store, imm, engine.timeShare),
    );
    if (written === ABANDONED) return;
    meta = written;
    if (meta !== undefined) edits.push({ op: 'addFiles', id: store.id, files: [meta] });
  }
  // Only writes the commit log has made durable may become durable in a file (see durableThrough).
  const durable = engine.durableThrough(imm.maxSeq);
  if (durable !== undefined) await durable;
  if (store.deleted) {
    // Deleted meanwhile: the file was never recorded, so nothing else will remove it before a restart.
    if (meta !== undefined) engine.fs.remove(engine.path(sstName(meta.number)));
    return;
  }
  edits.push({ op: 'lastSeq', seq: engine.visibleSeq });
  await engine.record(edits);
  if (meta !== undefined) store.files = [engine.openTableFile(meta), ...store.files];
  engine.memtableFlushed(store);
  engine.emit({
    kind: 'flushed',
    store: store.id,
    reason: imm.flushReason,
    entries: meta?.entries ?? 0,
    memtableBytes: imm.bytes,
    fileBytes: meta?.size ?? 0,
    millis: performance.now() - began,
  });
}

class Abandoned extends Error {}

/**
 * Adds a waiting memtable's rows to a flush's file. A function of the module,
 * not a closure made per flush: V8 keeps a closure's optimised code only
 * weakly once the closure is gone, and the frequent full GCs of a bulk load
 * dropped it between flushes, so every flush compiled its loop again.
 */
async function fillFromMemtable(writer: PipelinedWriter, store: DiskStore, imm: Memtable, slicer: TimeShare): Promise<void> {
  const w = new ByteWriter(1024);
  const entries: Entry[] = [];
  const c = imm.view().cursor();
  try {
    for (c.first(); c.valid; c.next()) {
      const key = c.key;
      if (store.deleted) throw new Abandoned();
      let value = onlyFragment(c.value);
      if (value === undefined) {
        entries.length = 0;
        collectEntries(c.value, entries);
        const merged = compactEntries(key, entries, store.drops, false);
        if (merged.length === 0) continue;
        w.pos = 0;
        encodeEntries(w, merged);
        value = w.view();
      }
      writer.add(key, value);
      const pause = writer.ready() ?? slicer.maybeYield();
      if (pause !== undefined) await pause;
    }
  } finally {
    c.close();
  }
}

/** The files to merge next, or undefined when the store is fine as it is. */
export function pickCompaction(store: DiskStore, config: Config): TableFile[] | undefined {
  const files = store.files;
  if (files.length === 0) return undefined;
  if (files.length >= config.majorCompactionTrigger) return files.slice();
  if (store.drops.maxSeq > store.dropsAppliedSeq) return files.slice();
  if (files.length < config.compactionTrigger) return undefined;
  const bySize = files.slice().sort((a, b) => a.meta.size - b.meta.size);
  let best: TableFile[] | undefined;
  for (let i = 0; i < bySize.length; i++) {
    const base = Math.max(MIN_TIER_BYTES, bySize[i]!.meta.size);
    let j = i;
    while (j < bySize.length && Math.max(MIN_TIER_BYTES, bySize[j]!.meta.size) <= 2 * base && j - i < MAX_FILES_PER_MERGE) j++;
    if (j - i >= config.compactionTrigger && (best === undefined || j - i > best.length)) best = bySize.slice(i, j);
  }
  return best;
}

/** Merges `inputs` (files of `store`) into one file and installs the result. */
export async function runCompaction(engine: CompactionHost, store: DiskStore, inputs: TableFile[]): Promise<void> {
  const began = performance.now();
  const major = inputs.length === store.files.length;
  const dropsSeq = store.drops.maxSeq;
  // Rows older than this were all in files when the compaction started (flushes may run meanwhile).
  const lowestUnflushed = store.minUnflushedSeq();
  for (const f of inputs) f.ref();
  try {
    const gc = major ? columnGc(store) : undefined;
    const slicer = engine.timeShare;
    let minSeq = Infinity;
    let maxSeq = 0;
    for (const f of inputs) {
      minSeq = Math.min(minSeq, f.meta.minSeq);
      maxSeq = Math.max(maxSeq, f.meta.maxSeq);
    }
    const merge: MergeJob = { store, inputs, major, dropsSeq, gc, slicer };
    const written = await writeTable(engine, { store: store.id, kind: 'compaction' }, { minSeq, maxSeq }, (writer) =>
      fillFromInputs(writer, merge),
    );
    if (written === ABANDONED) return;
    const meta = written;
    const edits: ManifestEdit[] = [{ op: 'removeFiles', id: store.id, numbers: inputs.map((f) => f.meta.number) }];
    if (meta !== undefined) edits.unshift({ op: 'addFiles', id: store.id, files: [meta] });
    if (major) {
      // Drops older than anything unflushed when the compaction started have now been applied to
      // every row they cover (a flush since then may have written rows older than a later drop).
      const upTo = Math.min(dropsSeq, lowestUnflushed === Infinity ? dropsSeq : lowestUnflushed - 1);
      if (upTo > 0) edits.push({ op: 'clearRangeDrops', id: store.id, upToSeq: upTo });
    }
    if (store.deleted) {
      if (meta !== undefined) engine.fs.remove(engine.path(sstName(meta.number)));
      return;
    }
    await engine.record(edits);
    const state = engine.storeState(store.id);
    if (state !== undefined) store.drops.update(state.familyDrops, state.rangeDrops);
    engine.retireFiles(store, inputs);
    if (meta !== undefined) {
      const file = engine.openTableFile(meta);
      store.files = [...store.files, file].sort((a, b) => b.meta.maxSeq - a.meta.maxSeq || b.meta.number - a.meta.number);
    }
    if (major) {
      store.dropsAppliedSeq = dropsSeq;
      store.lastMajorCompactionMillis = Date.now();
    }
    engine.emit({
      kind: 'compacted',
      store: store.id,
      major,
      inputFiles: inputs.length,
      inputBytes: inputs.reduce((sum, f) => sum + f.meta.size, 0),
      outputBytes: meta?.size ?? 0,
      outputEntries: meta?.entries ?? 0,
      millis: performance.now() - began,
    });
  } finally {
    for (const f of inputs) f.unref();
  }
}

interface MergeJob {
  readonly store: DiskStore;
  readonly inputs: readonly TableFile[];
  readonly major: boolean;
  readonly dropsSeq: number;
  readonly gc: ((cells: readonly Cell[]) => readonly Cell[]) | undefined;
  readonly slicer: TimeShare;
}

/**
 * Adds the merged rows of a compaction's inputs to its file (a function of the module: see fillFromMemtable),
 * reading each input from the store's first key.
 */
async function fillFromInputs(writer: PipelinedWriter, job: MergeJob): Promise<void> {
  const { store, inputs, major, dropsSeq, gc, slicer } = job;
  // Files shared with another store after a split hold keys outside this store's bounds: skip them.
  const bounds = { lower: store.lower, ...(store.upper === undefined ? {} : { upper: store.upper }), fillCache: false };
  const merged: MergeInput[] = [];
  try {
    for (const f of inputs) {
      const iter = f.reader.newIterator(bounds);
      iter.seekGE(store.lower);
      merged.push({ iter, where: f.where });
    }
    await mergeRows(
      merged,
      { major, dropsSeq, drops: store.drops, gc },
      {
        add: (key, value) => writer.add(key, value),
        pause: () => writer.ready() ?? slicer.maybeYield(),
        stopped: () => store.deleted || store.yieldCompaction,
      },
    );
  } catch (e) {
    if (e instanceof MergeStopped) throw new Abandoned();
    throw e;
  } finally {
    for (const { iter } of merged) iter.close();
  }
}

/** The store's GC rules (read now) as a per-row function for compactEntries. */
function columnGc(store: DiskStore): ((cells: readonly Cell[]) => readonly Cell[]) | undefined {
  const rules = store.gc?.current();
  return rules === undefined ? undefined : rowGcOf(rules, store.gcNowMicros);
}
