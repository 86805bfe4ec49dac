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

  /** Serve nodes reported for the default cluster of an implicit instance. */
  readonly defaultServeNodes: number;

  // ---- storage engine (the durable engine reads these; the memory engine ignores them) ----

  /** Memtable size at which a tablet flushes it to an SSTable. */
  readonly memtableBytes: number;
  /** Uncompressed size of one SSTable data block. */
  readonly blockBytes: number;
  /** Shared cache of decompressed blocks across all tablets. */
  readonly blockCacheBytes: number;
  /** Tablet size above which it is split (and below a quarter of which cold neighbours merge). */
  readonly tabletSplitBytes: number;
}

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

export const DEFAULT_CONFIG: Config = Object.freeze({
  gcSweepIntervalMillis: 60_000,
  samplePieceBytes: 64 * MiB,
  defaultZone: 'local',
  defaultServeNodes: 1,
  // Two tablets flushing at once stay well inside memory; 64 MiB amortises SSTable overhead.
  memtableBytes: 64 * MiB,
  // 64 KiB blocks: larger than LevelDB's 4 KiB because Bigtable values are often KiB-sized.
  blockBytes: 64 * KiB,
  // A quarter of RAM: the OS page cache keeps the compressed files too.
  blockCacheBytes: 6 * GiB,
  // Cloud Bigtable splits tablets in the low hundreds of MiB; 512 MiB keeps tablet counts modest.
  tabletSplitBytes: 512 * MiB,
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
  return Object.freeze(config);
}

function stripUndefined(o: Partial<Config>): Partial<Config> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as Partial<Config>;
}
