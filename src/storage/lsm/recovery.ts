/**
 * Start-up: what the engine finds on disk, read back before it accepts any
 * write. The engine's open() runs these steps in order (DiskEngine.open):
 *
 *   1. advanceFileCounter: files numbered past the manifest's counter exist
 *      when a crash hit before the counter was recorded; new numbers start
 *      above them;
 *   2. openStores: the stores the manifest lists, with their key ranges,
 *      drops and SSTables (a store whose file cannot be opened fails on its
 *      own, with DataLoss); SSTables the manifest does not name are deleted
 *      (written by a flush or compaction that a crash cut short);
 *   3. replayCommitLogs: the commit logs the manifest still needs, into
 *      memtables, skipping rows each store had flushed already; logs the
 *      manifest no longer needs are deleted.
 *
 * Then the engine records the drops found in the logs, starts a fresh log,
 * flushes what was replayed and deletes the logs it came from.
 */
import { TabletopError, dataLoss } from '../../model/errors.js';
import { fileNumber, isLegacyWal, SST_DIR, sstName, WAL_DIR } from '../file-names.js';
import { join, type FileSystem } from '../fs/file-system.js';
import type { FileMeta, ManifestEdit, ManifestState } from '../manifest/manifest-state.js';
import { replayLog } from '../wal/log-reader.js';
import type { DiskStore } from './disk-store.js';
import type { CommitLogDamage } from './engine-events.js';
import type { TableFile } from './table-file.js';
import { decodeLogged, type EncodedRow, type LoggedDrop } from './wal-batch.js';

/** What start-up needs from the engine (implemented by DiskEngine). */
export interface RecoveryHost {
  readonly fs: FileSystem;
  /** The path of a file named relative to the data directory (file-names.ts). */
  path(name: string): string;
  /** The live stores by id: the engine's own map, filled here. */
  readonly stores: Map<string, DiskStore>;
  /** A new store (not yet in `stores`). */
  newStore(id: string): DiskStore;
  /** Opens an SSTable the manifest lists, holding one reference. */
  openTableFile(meta: FileMeta): TableFile;
  /** Adds rows of one commit-log record, whose fragments are spans of `payload`, to the store's active memtable. */
  addToMemtable(store: DiskStore, payload: Buffer, rows: readonly EncodedRow[]): void;
}

/** Raises the manifest's file counter above every file number in wal/ and sst/. */
export function advanceFileCounter(host: RecoveryHost, state: ManifestState): void {
  for (const dir of [WAL_DIR, SST_DIR]) {
    for (const name of host.fs.list(host.path(dir))) {
      const n = fileNumber(name);
      if (Number.isInteger(n) && n >= state.nextFileNumber) state.nextFileNumber = n + 1;
    }
  }
}

/**
 * Creates the manifest's stores in `host.stores` with their files (a file
 * listed by several stores after a split is opened once) and deletes the
 * SSTables no store lists. Returns how many SSTables are live and their bytes.
 */
export function openStores(host: RecoveryHost, state: ManifestState): { sstables: number; sstableBytes: number } {
  const { fs } = host;
  const live = new Set<number>();
  let sstableBytes = 0;
  const opened = new Map<number, TableFile>();
  for (const [id, s] of state.stores) {
    const store = host.newStore(id);
    host.stores.set(id, store);
    store.lower = s.lower;
    store.upper = s.upper ?? undefined;
    store.drops.update(s.familyDrops, s.rangeDrops);
    for (const meta of s.files) {
      if (!live.has(meta.number)) sstableBytes += meta.size;
      live.add(meta.number);
      try {
        const shared = opened.get(meta.number);
        const file = shared === undefined ? host.openTableFile(meta) : shared.ref();
        opened.set(meta.number, file);
        store.files = [...store.files, file];
      } catch (e) {
        store.failure =
          e instanceof TabletopError && e.code === 'DataLoss'
            ? e
            : dataLoss(`store ${id}: cannot open ${sstName(meta.number)}: ${String(e)}`);
      }
    }
  }
  for (const name of fs.list(host.path(SST_DIR))) {
    if (!live.has(fileNumber(name))) fs.remove(host.path(join(SST_DIR, name)));
  }
  return { sstables: live.size, sstableBytes };
}

/** What replayCommitLogs read back. */
export interface Replayed {
  /** The highest sequence number found in the logs, the manifest or any live file: the engine restarts from it. */
  readonly maxSeq: number;
  /** Manifest edits for the drops the logs hold and the manifest lacks (recorded before any later lastSeq is). */
  readonly drops: ManifestEdit[];
  /** The log files replayed (in wal/), oldest first: deleted once what they held is flushed. */
  readonly logs: readonly { readonly name: string; readonly number: number }[];
  /** For the recovery report (EngineEvent 'recovered'). */
  readonly logFiles: number;
  readonly logBytes: number;
  readonly records: number;
  readonly rowsReplayed: number;
  /** Bytes of the logs that were not read back (EngineEvent 'recovered'). */
  readonly logDamage: readonly CommitLogDamage[];
}

/** The manifest edits recording a drop read back from the commit log. */
function dropEdits(d: LoggedDrop): ManifestEdit[] {
  return d.kind === 'range'
    ? [{ op: 'rangeDrop', id: d.storeId, drop: d.drop }]
    : [{ op: 'familyDrop', id: d.storeId, family: d.family, seq: d.seq }];
}

/**
 * Replays the commit logs the manifest still needs (numbered from its
 * logNumber on) into the stores' memtables, deleting older ones. Run after
 * openStores.
 */
export function replayCommitLogs(host: RecoveryHost, state: ManifestState, salvage = false): Replayed {
  const { fs, stores } = host;
  let maxSeq = state.lastSeq;
  const drops: ManifestEdit[] = [];
  const replay = { logFiles: 0, logBytes: 0, records: 0, rowsReplayed: 0 };
  const wals = fs
    .list(host.path(WAL_DIR))
    .map((n) => ({ name: n, number: fileNumber(n) }))
    .filter((w) => Number.isInteger(w.number))
    .sort((a, b) => a.number - b.number);
  const logs: { name: string; number: number }[] = [];
  const logDamage: CommitLogDamage[] = [];
  for (const w of wals) {
    if (w.number < state.logNumber) {
      fs.remove(host.path(join(WAL_DIR, w.name)));
      continue;
    }
    logs.push(w);
    const path = host.path(join(WAL_DIR, w.name));
    const { records, validBytes, damage } = replayLog(fs, path, isLegacyWal(w.name) ? undefined : w.number, { salvage });
    for (const d of damage) logDamage.push({ file: path, ...d });
    replay.logFiles++;
    replay.logBytes += validBytes;
    replay.records += records.length;
    records.forEach((payload, i) => {
      const batch = decodeLogged(payload, `${path} record ${i}`);
      if ('kind' in batch) {
        const seq = batch.kind === 'range' ? batch.drop.seq : batch.seq;
        if (seq > maxSeq) maxSeq = seq;
        // Recorded in the manifest already when its lastSeq covers it (a drop's edit carries its
        // sequence number, and no later sequence number is recorded before it); the store may be gone.
        if (seq > state.lastSeq && stores.has(batch.storeId)) drops.push(...dropEdits(batch));
        return;
      }
      const store = stores.get(batch.storeId);
      const flushed = state.stores.get(batch.storeId)?.flushedSeq ?? 0;
      for (const row of batch.rows) if (row.lastSeq > maxSeq) maxSeq = row.lastSeq;
      const replayed = store === undefined ? [] : batch.rows.filter((row) => row.lastSeq > flushed);
      // A copy: the memtable must not hold on to the whole log file's buffer.
      if (store !== undefined && replayed.length > 0) {
        host.addToMemtable(store, Buffer.from(batch.payload), replayed);
        replay.rowsReplayed += replayed.length;
      }
    });
  }
  // Never restart below a sequence number a file already holds: a new write must sort above every
  // older one. (Flushes wait for the commit log, so the manifest's lastSeq covers their files; data
  // directories written before that could hold files with writes above it.)
  for (const st of state.stores.values()) for (const f of st.files) if (f.maxSeq > maxSeq) maxSeq = f.maxSeq;
  return { maxSeq, drops, logs, ...replay, logDamage };
}
