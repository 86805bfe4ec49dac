import { LIMITS } from './model/limits.js';

/**
 * Tunables of tabletop, in one place, each with its reason.
 *
 * Defaults suit the reference machine: 2 cores, 24 GiB of RAM, a local SSD.
 * Pass overrides to `createDatabase({ config: { ... } })`; anything left out
 * keeps its default. Sizes are bytes, durations milliseconds.
 */
export interface Config {
  // ---- database layer ----

  /**
   * How often the background sweep physically drops cells that the column
   * families' GC rules collect. Reads already hide such cells (read-time GC),
   * so the sweep only reclaims memory/disk; once a minute keeps it cheap.
   * 0 disables the sweep.
   */
  readonly gcSweepIntervalMillis: number;

  /**
   * SampleRowKeys: target bytes between two sample keys inside one tablet
   * (tablet boundaries are always samples). Clients such as Beam and Spark
   * turn samples into parallel read splits; 64 MiB gives a few splits per GiB
   * without flooding small tables with tiny splits.
   */
  readonly samplePieceBytes: number;

  /**
   * The zone reported for the default cluster of an instance that a client
   * uses without creating it (and for clusters created without a location).
   * Reported as `projects/{project}/locations/{zone}`.
   */
  readonly defaultZone: string;

  // ---- storage engine (the durable engine reads these; the memory engine ignores them) ----

  /** Memtable size at which a tablet flushes it to an SSTable. */
  readonly memtableBytes: number;
  /**
   * All tablets' memtables together: past this the largest is flushed, and
   * past twice this writers wait for flushes (a write stall bounds memory).
   */
  readonly totalMemtableBytes: number;
  /** Size at which the commit log starts a new file. */
  readonly walFileBytes: number;
  /**
   * Commit delay: when writes arrive while the commit log's previous sync is
   * running (concurrent writers), the next group waits this long for more of
   * them before its sync, so one fsync serves more writes. A lone writer is
   * never delayed. 0 disables it.
   */
  readonly commitDelayMillis: number;
  /** Total commit-log size past which the tablet pinning the oldest log is flushed. */
  readonly maxWalBytes: number;
  /**
   * Free space kept on the data directory's disk: while less is free, writes are refused with RESOURCE_EXHAUSTED
   * (reads go on), and the reserve lets flushes and compactions finish, which frees commit-log space; writes resume
   * by themselves once space is back. 0: no reserve (the commit log then meets ENOSPC, which refuses writes until
   * restart).
   */
  readonly minFreeDiskBytes: number;
  /** A tablet with this many SSTables of similar size merges them. */
  readonly compactionTrigger: number;
  /** A tablet with this many SSTables merges all of them (a major compaction). */
  readonly majorCompactionTrigger: number;
  /** At most this often, a GC request runs a major compaction of a tablet to drop collectable cells for good. */
  readonly gcCompactionIntervalMillis: number;
  /**
   * The shortest slice, in milliseconds, of flush and compaction work on the
   * serving thread between two looks at waiting requests (slices grow with
   * the foreground's load: see storage/lsm/time-share.ts).
   */
  readonly backgroundSliceMillis: number;
  /**
   * Worker threads that build SSTables for flushes and compactions, off the
   * thread that serves requests (0: that thread builds them itself, in
   * slices). The server's `--background-threads` sets it (its default: two
   * fewer than the cores, 0 to 4).
   */
  readonly backgroundThreads: number;
  /** Uncompressed size of one SSTable data block. */
  readonly blockBytes: number;
  /** Shared cache of decompressed blocks across all tablets. */
  readonly blockCacheBytes: number;
  /** Tablet size above which it is split at its median key (and below a quarter of which cold neighbours merge). */
  readonly tabletSplitBytes: number;

  // ---- tablets and nodes ----

  /**
   * Serve nodes of the cluster that an instance created implicitly (by a
   * CreateTable, without CreateInstance) gets. A cluster's serve_nodes are the
   * modelled serving nodes its tablets are placed on (db/node-placement.ts), so
   * this is the node count such an instance starts with.
   */
  readonly nodes: number;
  /** How often tablets are checked for size and load splits and merges. 0 disables the checks. */
  readonly tabletCheckIntervalMillis: number;
  /** How often the balancer evens out nodes (and autoscaled clusters are sized to their load). */
  readonly balanceIntervalMillis: number;
  /**
   * An autoscaled cluster scales down only once its size has held this long
   * (and then by at most 10% of its nodes): Google's scaling guide advises
   * against removing more than 10% of a cluster's nodes in 10 minutes.
   * Scaling up never waits.
   */
  readonly autoscaleDownDelayMillis: number;
  /** A tablet whose requests per second stay above this for `loadSplitWindowMillis` splits by load. */
  readonly loadSplitRequestsPerSec: number;
  /** Likewise for bytes read plus written per second. */
  readonly loadSplitBytesPerSec: number;
  /** How long load must stay above the thresholds before a load split (at most 110 s). */
  readonly loadSplitWindowMillis: number;
  /**
   * A hot tablet where one row key takes at least this share (0..1] of the sampled requests is a
   * single-row hotspot: reported, not split (no split can divide one row's load).
   */
  readonly hotRowShare: number;
  /** Neighbours below this many requests per second for `mergeColdMillis`, and small together, merge. */
  readonly mergeColdRequestsPerSec: number;
  readonly mergeColdMillis: number;

  // ---- insight (the access recording behind the key heatmap) ----

  /**
   * Length of the finest time bucket of the recording; the coarser tiers are
   * ×6 and ×360 of it (10 s, 1 min, 1 h by default). Tests use 500 ms to see
   * several columns through a real client in seconds.
   */
  readonly insightBucketMillis: number;
  /** Budget of the recorded history (encoded bytes in the `_insight` store): when over, the oldest columns of the largest histories go first. */
  readonly insightMaxHistoryBytes: number;
}

const KiB = 1024;
const MiB = 1024 * KiB;

export const DEFAULT_CONFIG: Config = Object.freeze({
  gcSweepIntervalMillis: 60_000,
  samplePieceBytes: 64 * MiB,
  defaultZone: 'local',
  // Large enough to amortise SSTable overhead, small enough that RSS stays a small share of the data.
  memtableBytes: 32 * MiB,
  // The sum stays a small share of RAM even with hundreds of tablets, and bounds RSS: loading
  // 2 GiB of 1 KiB rows (npm run bench -- --only load-large --targets tabletop, with
  // TABLETOP_SERVER_ARGS="--total-memtable-size N"), RSS ended at 0.69 / 0.55 / 0.34 GiB for
  // 128 / 64 / 32 MiB (it steps up whenever memtables pile up towards the stall limit while a
  // long compaction runs), at the same rows/s and CPU per row.
  totalMemtableBytes: 32 * MiB,
  walFileBytes: 64 * MiB,
  // Postgres's commit_delay and MySQL's binlog_group_commit_sync_delay, with a test that
  // spares lone writers. On this project's VM an fsync costs 100-200 µs of CPU (perf:
  // fdatasync in 19% of the main thread's samples at ~300 syncs/s); with the Node client writing 1 KiB rows at concurrency 32
  // (npx tsx bench/profile.ts writes --seconds 10, 9 alternating pairs), 1 ms gave ~30%
  // fewer syncs per write and a median of 10% less server CPU per write (8 pairs of 9),
  // at the same throughput; at concurrency 1 nothing changed. Timers fire in whole
  // milliseconds, so 1 is the smallest delay there is.
  commitDelayMillis: 1,
  // Recovery replays every live log, so this bounds restart time and its memory. A tablet that takes few writes
  // (the catalog, the `_insight` history) pins the log of its oldest unflushed write: at 512 MiB, a 384 MiB load
  // into one table left six 64 MiB logs live for 1 KiB of `_insight` rows, and the restart read all of them
  // (test/durability/bounded-memory.test.ts: RSS 83 -> 222 MiB before the first read). Flushing that tablet
  // once per 128 MiB of writes costs a tiny SSTable.
  maxWalBytes: 128 * MiB,
  // Room for the memtables' flushes (up to twice totalMemtableBytes stall writers) and a new commit-log file's first
  // extension, with margin: the flushes that free commit-log space must not meet a full disk themselves.
  minFreeDiskBytes: 128 * MiB,
  // Size-tiered merging: write amplification grows with log(data), not data.
  compactionTrigger: 4,
  majorCompactionTrigger: 12,
  gcCompactionIntervalMillis: 60 * 60_000,
  // A request waits for the rest of a slice: p99 of point reads during a compaction was 30x the idle p99 with 4 ms
  // slices, 2.9x with 0.25 (bench/compaction-latency.ts); under load slices grow (time-share.ts).
  backgroundSliceMillis: 0.25,
  // The engine as a library (tests, startServer in a test process) builds on its own thread; `serve` sizes a pool.
  backgroundThreads: 0,
  // 64 KiB blocks: larger than LevelDB's 4 KiB because Bigtable values are often KiB-sized.
  blockBytes: 64 * KiB,
  // Small on purpose: the OS page cache keeps the compressed files, and RSS must stay
  // a small fraction of the data as it grows past memory.
  blockCacheBytes: 128 * MiB,
  // Small enough that a local dataset shows realistic tablet behaviour; --split-size 1MiB shows more.
  tabletSplitBytes: 64 * MiB,
  nodes: 3,
  tabletCheckIntervalMillis: 1000,
  balanceIntervalMillis: 5000,
  autoscaleDownDelayMillis: 10 * 60_000,
  // A few thousand requests per second is what makes a Cloud Bigtable node's tablet hot.
  loadSplitRequestsPerSec: 2000,
  loadSplitBytesPerSec: 32 * MiB,
  loadSplitWindowMillis: 30_000,
  // Half: past it, the best split still leaves one side with most of the load.
  hotRowShare: 0.5,
  mergeColdRequestsPerSec: 5,
  mergeColdMillis: 5 * 60_000,
  // Google's Key Visualizer shows minutes at the finest; 10 s shows a developer's test run live.
  insightBucketMillis: 10_000,
  // 14 days of 1 h columns of a few busy tables, with room for the finer tiers.
  insightMaxHistoryBytes: 128 * MiB,
});

/** The defaults with `overrides` applied; rejects values that make no sense. */
export function resolveConfig(overrides: Partial<Config> = {}): Config {
  const config: Config = { ...DEFAULT_CONFIG, ...stripUndefined(overrides) };
  for (const [key, value] of Object.entries(config)) {
    if (typeof value === 'number' && (!Number.isFinite(value) || value < 0)) {
      throw new RangeError(`config.${key} must be a non-negative finite number, got ${value}`);
    }
  }
  if (config.samplePieceBytes <= 0) throw new RangeError('config.samplePieceBytes must be positive');
  if (!Number.isInteger(config.insightBucketMillis) || config.insightBucketMillis < 100) {
    throw new RangeError(
      `config.insightBucketMillis must be a whole number of milliseconds, at least 100, got ${config.insightBucketMillis}`,
    );
  }
  if (config.hotRowShare <= 0 || config.hotRowShare > 1)
    throw new RangeError(`config.hotRowShare must be in (0, 1], got ${config.hotRowShare}`);
  if (!Number.isInteger(config.nodes) || config.nodes < 1 || config.nodes > LIMITS.maxServeNodes) {
    throw new RangeError(`config.nodes must be a whole number from 1 to ${LIMITS.maxServeNodes}, got ${config.nodes}`);
  }
  return Object.freeze(config);
}

function stripUndefined(o: Partial<Config>): Partial<Config> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as Partial<Config>;
}
