/**
 * The numbers behind each diagnostic (i21 plan §3.5). Google's where it gives
 * them (256 MB rows, 200 MB per row on average, a 15-minute pressure window),
 * ours otherwise. Tests lower the size ones through `insightQueries`.
 */
export interface DiagnosticThresholds {
  /** Pressure: a range of at most this share of the buckets (≈ rows: buckets hold roughly equal rows) ... */
  readonly hotRangeShare: number;
  /** ... takes at least this share of the table's ops in a column ... */
  readonly hotOpsShare: number;
  /** ... at least this many ops per second ... */
  readonly hotMinOpsPerSecond: number;
  /** ... in at least this many columns. */
  readonly hotColumns: number;
  /** A node's serving capacity (µs per second): the pressure index is serving time as a % of it. */
  readonly nodeMicrosPerSecond: number;

  /** Diagonal: at least this many columns ... */
  readonly sequentialColumns: number;
  /** ... each with this share of its writes ... */
  readonly sequentialConcentration: number;
  /** ... in at least this share of the buckets ... */
  readonly sequentialBucketShare: number;
  /** ... whose median bucket moves one way in this share of the steps ... */
  readonly sequentialMonotone: number;
  /** ... and this share of the key axis overall. */
  readonly sequentialTravel: number;

  /** Sudden onset: quiet (below this share of its mean level after the onset) for `onsetColumns` columns, then busy for as many. */
  readonly onsetQuietShare: number;
  readonly onsetColumns: number;
  /** Busy: this many times the column's median bucket, and at least `onsetMinOpsPerSecond`. */
  readonly onsetFactor: number;
  readonly onsetMinOpsPerSecond: number;

  /** Periodic: autocorrelation at least this at some lag, with at least `periodicCycles` periods in the window. */
  readonly periodicCorrelation: number;
  readonly periodicCycles: number;

  /** Scans: at least this many rows read in a range, at least `scanRatio` read per row returned. */
  readonly scanMinRowsRead: number;
  readonly scanRatio: number;

  /** Large rows: a row over this many bytes, or a range averaging over `largeAverageRowBytes` per row. */
  readonly largeRowBytes: number;
  readonly largeAverageRowBytes: number;

  /** Key space not to scale: fewer rows than this (the most buckets a set has: one per row below it). */
  readonly maxBuckets: number;

  /** The most diagnostics of one kind (the largest first): Google's "not all details shown". */
  readonly maxPerKind: number;
}

export const DEFAULT_THRESHOLDS: DiagnosticThresholds = {
  hotRangeShare: 0.1,
  hotOpsShare: 0.5,
  hotMinOpsPerSecond: 10,
  hotColumns: 3,
  nodeMicrosPerSecond: 1e6,
  sequentialColumns: 6,
  sequentialConcentration: 0.8,
  sequentialBucketShare: 0.1,
  sequentialMonotone: 0.8,
  sequentialTravel: 0.1,
  onsetQuietShare: 0.1,
  onsetColumns: 3,
  onsetFactor: 10,
  onsetMinOpsPerSecond: 1,
  periodicCorrelation: 0.6,
  periodicCycles: 3,
  scanMinRowsRead: 1000,
  scanRatio: 10,
  largeRowBytes: 256e6,
  largeAverageRowBytes: 200e6,
  maxBuckets: 1000,
  maxPerKind: 3,
};
