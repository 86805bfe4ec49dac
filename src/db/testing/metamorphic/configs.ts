import type { DiskConfig } from './systems.js';

/** Everything tiny and automatic (see auto-tiny below). */
const AUTO_TINY = {
  memtableBytes: 256,
  totalMemtableBytes: 2048,
  blockBytes: 64,
  blockCacheBytes: 4096,
  walFileBytes: 512,
  maxWalBytes: 2048,
  compactionTrigger: 2,
  majorCompactionTrigger: 3,
  gcCompactionIntervalMillis: 0,
  backgroundSliceMillis: 0,
};

/**
 * Disk-engine configurations the metamorphic test runs every op log under.
 * Each puts the data somewhere else at any given moment: the same logical
 * contents end up spread over memtables, memtables waiting to flush,
 * SSTables of a few cells with many tiny blocks, or one merged file.
 */
export const DISK_CONFIGS: readonly DiskConfig[] = [
  {
    // Everything tiny and automatic: a flush every few writes, a compaction every few flushes,
    // commit-log rotation, write stalls, a block cache that keeps evicting, and a GC sweep that
    // always runs a major compaction.
    name: 'auto-tiny',
    manualCompaction: false,
    config: AUTO_TINY,
  },
  {
    // auto-tiny with its SSTables built on a worker thread: batches handed over, bytes streamed back
    // while reads, writes and the next flush go on.
    name: 'auto-tiny-workers',
    manualCompaction: false,
    config: { ...AUTO_TINY, backgroundThreads: 1 },
  },
  {
    // Small and automatic, with size-tiered merges of several files and the default GC
    // interval (a sweep stores the policy; only later major compactions apply it).
    name: 'auto-small',
    manualCompaction: false,
    config: {
      memtableBytes: 2048,
      blockBytes: 256,
      compactionTrigger: 3,
      majorCompactionTrigger: 6,
      walFileBytes: 4096,
      backgroundSliceMillis: 0,
    },
  },
  {
    // Manual: full memtables are set aside but wait for an explicit flush, so reads merge
    // many immutable memtables; compactions only when the log asks; no block cache.
    name: 'manual-tiny-memtables',
    manualCompaction: true,
    config: { memtableBytes: 256, blockBytes: 64, blockCacheBytes: 0 },
  },
  {
    // Manual with default sizes: data moves to SSTables only on flush ops, then on compactions.
    name: 'manual-default',
    manualCompaction: true,
    config: { blockBytes: 128 },
  },
  {
    // The defaults: everything stays in the memtable until a restart replays the log.
    name: 'auto-default',
    manualCompaction: false,
    config: {},
  },
];
