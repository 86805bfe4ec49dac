/**
 * What the durable engine tells its owner about its work, with the figures
 * an operator wants in a log: start-up recovery, flushes and compactions.
 * Stores are named by their ids (tablet ids); the owner knows which table
 * each belongs to. Durations are wall-clock milliseconds.
 */
export type EngineEvent =
  | {
      readonly kind: 'recovered';
      /** From the call to open() until the engine accepted writes. */
      readonly millis: number;
      readonly stores: number;
      readonly sstables: number;
      readonly sstableBytes: number;
      /** Commit-log files replayed, and their bytes. */
      readonly logFiles: number;
      readonly logBytes: number;
      /** Commit-log records read back, and the rows among them not yet in SSTables (put back in memtables). */
      readonly records: number;
      readonly rowsReplayed: number;
      /** Row-range and family drops found in the commit log that the manifest lacked. */
      readonly dropsReplayed: number;
      /** Stores whose replayed rows were flushed to SSTables before serving. */
      readonly storesFlushed: number;
      /** Commit-log bytes that were not read back: a damaged tail, or (when salvaging) damage skipped in the middle. */
      readonly logDamage: readonly CommitLogDamage[];
    }
  | {
      readonly kind: 'flushed';
      readonly store: string;
      /** Why the memtable was flushed (see FlushReason). */
      readonly reason: FlushReason;
      readonly entries: number;
      /** Memory the memtable held, and the bytes of the SSTable written (0 when everything in it was deleted). */
      readonly memtableBytes: number;
      readonly fileBytes: number;
      readonly millis: number;
    }
  | {
      readonly kind: 'compacted';
      readonly store: string;
      /** Major: every file of the store, applying GC rules, deletes and drops. */
      readonly major: boolean;
      readonly inputFiles: number;
      readonly inputBytes: number;
      readonly outputBytes: number;
      readonly outputEntries: number;
      readonly millis: number;
    }
  | {
      /** A worker thread died while it built an SSTable; the build was redone on the engine's own thread. */
      readonly kind: 'worker-lost';
      readonly store: string;
      readonly job: 'flush' | 'compaction';
      /** The worker (1-based) and what ended it. */
      readonly worker: number;
      readonly reason: string;
    }
  | {
      /** Less than the reserve (config.minFreeDiskBytes) is free on the data directory's disk: writes are refused. */
      readonly kind: 'disk-full';
      readonly freeBytes: number;
      readonly reserveBytes: number;
    }
  | {
      /** The reserve is free again after 'disk-full': writes are taken again. */
      readonly kind: 'disk-space-back';
      readonly freeBytes: number;
      readonly reserveBytes: number;
    }
  | {
      /**
       * The system failed background work (errno: ENOSPC, EMFILE, EIO, ...): a flush or compaction is retried after
       * `delayMillis` (its half-written file removed), a commit-log rotation at the next write. Writes go on meanwhile.
       */
      readonly kind: 'background-retry';
      readonly job: 'flush' | 'compaction' | 'exclusive' | 'commit-log rotation';
      readonly store?: string;
      readonly errno: string;
      readonly reason: string;
      readonly delayMillis: number;
    }
  | {
      /**
       * deferred: the disk was full when the engine opened: it serves reads and refuses writes (ResourceExhausted)
       * while it retries its start-up writes (a new manifest, a fresh commit log, the replayed rows flushed); done:
       * they succeeded, writes are taken.
       */
      readonly kind: 'start-writes';
      readonly state: 'deferred' | 'done';
      readonly errno: string;
      readonly reason: string;
    }
  | {
      /**
       * The engine stopped accepting writes until restart: a commit-log write or sync failed (whether its bytes reached
       * the disk is unknown, so it is never retried), or the manifest could not be written. Reads go on.
       */
      readonly kind: 'storage-failed';
      /** The system's error code when there is one (EIO, ENOSPC, ...). */
      readonly errno?: string;
      readonly reason: string;
    };

/** Damage in a commit log that replay dropped (wal/log-reader.ts LogDamage, with its file). */
export interface CommitLogDamage {
  readonly file: string;
  readonly offset: number;
  readonly bytes: number;
  /**
   * tail: nothing intact follows (a write torn by a crash, never acknowledged; or damage to the last acknowledged group,
   * which cannot be told from it); middle: intact records follow, skipped by `tabletop repair`.
   */
  readonly where: 'tail' | 'middle';
}

export type FlushReason =
  'memtable full' | 'memtable budget' | 'commit log size' | 'recovery' | 'gc' | 'split' | 'merge' | 'clone' | 'requested';

export type EngineEventSink = (event: EngineEvent) => void;
