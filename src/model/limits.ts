/**
 * The documented limits of Cloud Bigtable that tabletop enforces, with the
 * same status codes (see ../shared/docs/bigtable-wire.md, "Limits").
 */
export const LIMITS = Object.freeze({
  /** Row keys: non-empty, at most 4 KiB. */
  maxRowKeyBytes: 4 * 1024,
  /** Column qualifiers: at most 16 KiB. */
  maxQualifierBytes: 16 * 1024,
  /** Cell values: at most 100 MiB. */
  maxValueBytes: 100 * 1024 * 1024,
  /** A whole row: at most 256 MiB. */
  maxRowBytes: 256 * 1024 * 1024,
  /** Mutations in one MutateRow / CheckAndMutateRow / MutateRows request. */
  maxMutationsPerRequest: 100_000,
  /** Serialized RowFilter size and nesting depth. */
  maxFilterBytes: 20 * 1024,
  maxFilterDepth: 20,
  /** Serialized GC rule size; smallest max_age. */
  maxGcRuleBytes: 500,
  minMaxAgeMicros: 1000,
  /** Table ids and family names. */
  maxTableIdLength: 50,
  maxFamilyNameLength: 64,
  maxTablesPerInstance: 1000,
  maxFamiliesPerTable: 100,
  /** Labels added by apply_label_transformer: [a-z0-9\-]+, at most 15 chars. */
  maxLabelLength: 15,
  /** Largest gRPC message accepted. */
  maxMessageBytes: 256 * 1024 * 1024,
  /**
   * Serve nodes of one cluster. Cloud Bigtable's limit is a quota (30 nodes
   * per zone by default, raised on request); tabletop models each node, so it
   * bounds them at a count no laptop workload needs more of.
   */
  maxServeNodes: 1000,
  /** Largest timestamp tabletop can hold exactly (microseconds). */
  maxTimestampMicros: Number.MAX_SAFE_INTEGER,
});

export const FAMILY_NAME_RE = /^[-_.a-zA-Z0-9]+$/;
export const TABLE_ID_RE = /^[_a-zA-Z0-9][-_.a-zA-Z0-9]*$/;
export const LABEL_RE = /^[a-z0-9-]+$/;
