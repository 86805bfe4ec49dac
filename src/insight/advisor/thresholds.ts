import { LIMITS } from '../../model/limits.js';
import { DEFAULT_THRESHOLDS as DIAGNOSTIC_THRESHOLDS } from '../diagnostics/thresholds.js';

/**
 * The numbers behind the schema advisor's rules, in one place. Google's where
 * the schema guide gives them (4 KiB keys, 256 MB rows, 10 MB cells, about
 * 100 families), ours otherwise. `advise(input, { thresholds })` overrides
 * any of them (tests lower the size ones: a 100 MB row cannot be written in a test).
 */
export interface AdvisorThresholds {
  /** Fewest distinct keys sampled before a rule judges the keys' shape. */
  readonly minKeys: number;
  /** Share of the sampled keys whose leading segment must be of a kind (timestamp, hash, host name). */
  readonly leadingShare: number;

  /** Fewest recent writes (write order) to judge whether keys grow. */
  readonly sequentialWrites: number;
  /** Share of recent writes that must be a new largest (or smallest) key: each write at the end of the table. */
  readonly sequentialShare: number;

  /** Rows returned per read op from which reads are range reads (hashed keys then hurt). */
  readonly rangeReadRows: number;
  /** At most this many rows per read op: point reads (hashed keys are then fine). */
  readonly pointReadRows: number;
  /** Fewest read ops recorded before the read pattern counts. */
  readonly minReadOps: number;

  /** Out-of-order neighbours (`item10` before `item9`) needed for unpadded numbers. */
  readonly unpaddedPairs: number;
  /** Width unpadded numbers are told to take at least. */
  readonly padWidth: number;

  /** Key length (bytes) for a danger: the next longer key is refused (the limit is 4 KiB). */
  readonly keyDangerBytes: number;
  /** Key length for a warning: every key costs this much in every tablet index, every request. */
  readonly keyWarningBytes: number;
  /** Median key length for an info "longer than needed". */
  readonly keyInfoMedianBytes: number;
  /** A prefix every sampled key repeats, this long or longer, is "longer than needed" (info). */
  readonly keyCommonPrefixBytes: number;

  /** A single row taking this share of a table's writes (or reads) is hot ... */
  readonly hotRowShare: number;
  /** ... with at least this many ops in the window ... */
  readonly hotRowMinOps: number;
  /** ... and at least this many times its share of the buckets. */
  readonly hotRowLift: number;
  /** Ops per second a hot row or tablet needs for a danger. */
  readonly hotDangerOpsPerSecond: number;

  /**
   * Families for a warning when exceeded (Google: "about 100"; but a table holds at most 100, so "more than 100"
   * never happens: the warning comes near the limit).
   */
  readonly maxFamilies: number;
  /** Max-age retention of two families in one table differing this many times over: info. */
  readonly retentionRatio: number;

  /** Tables with one family set whose names differ in a number or date: info from this many ... */
  readonly sameSchemaTablesInfo: number;
  /** ... warning from this many (any varying part). */
  readonly sameSchemaTables: number;

  /** A row over this many bytes: warning (Google: keep rows far below 100 MB). */
  readonly largeRowBytes: number;
  /** A row over this many bytes: danger (the limit is 256 MB). */
  readonly largeRowDangerBytes: number;
  /** A cell over this many bytes (Google: 10 MB per cell). */
  readonly largeCellBytes: number;

  /** Versions of one column (sampled rows) that make an unbounded family a warning. */
  readonly manyVersions: number;

  /** Scans: at least this many rows read, at least `scanRatio` read per row returned (the heatmap's figures). */
  readonly scanMinRowsRead: number;
  readonly scanRatio: number;

  /** Low-cardinality prefix: at most this many distinct leading values ... */
  readonly lowCardinalityValues: number;
  /** ... among at least this many keys sampled ... */
  readonly lowCardinalityMinKeys: number;
  /** ... one of which takes at least this share of the ops (info) ... */
  readonly dominantShare: number;
  /** ... or this share (warning) ... */
  readonly dominantWarningShare: number;
  /** ... over at least this many ops. */
  readonly minTrafficOps: number;

  /** Hot tablet / node: at least this share of the load ... */
  readonly hotTabletShare: number;
  /** ... and this many times the even share ... */
  readonly hotTabletLift: number;
  /** ... at this many requests per second at least. */
  readonly hotMinOpsPerSecond: number;
  /** A node's serving capacity (µs per second) and the share of it that makes a hot node a danger. */
  readonly nodeMicrosPerSecond: number;
  readonly nodeDangerShare: number;
}

export const DEFAULT_ADVISOR_THRESHOLDS: AdvisorThresholds = {
  minKeys: 5,
  leadingShare: 0.5,
  sequentialWrites: 16,
  sequentialShare: 0.8,
  rangeReadRows: 4,
  pointReadRows: 1.5,
  minReadOps: 10,
  unpaddedPairs: 2,
  padWidth: 5,
  keyDangerBytes: Math.floor(0.9 * LIMITS.maxRowKeyBytes),
  keyWarningBytes: 1024,
  keyInfoMedianBytes: 256,
  keyCommonPrefixBytes: 48,
  hotRowShare: 0.5,
  hotRowMinOps: 100,
  hotRowLift: 4,
  hotDangerOpsPerSecond: 10,
  maxFamilies: Math.floor(0.9 * LIMITS.maxFamiliesPerTable),
  retentionRatio: 100,
  sameSchemaTablesInfo: 3,
  sameSchemaTables: 10,
  largeRowBytes: 100e6,
  largeRowDangerBytes: 240e6,
  largeCellBytes: 10e6,
  manyVersions: 10,
  scanMinRowsRead: DIAGNOSTIC_THRESHOLDS.scanMinRowsRead,
  scanRatio: DIAGNOSTIC_THRESHOLDS.scanRatio,
  lowCardinalityValues: 10,
  lowCardinalityMinKeys: 20,
  dominantShare: 0.6,
  dominantWarningShare: 0.8,
  minTrafficOps: 100,
  hotTabletShare: 0.5,
  hotTabletLift: 2,
  hotMinOpsPerSecond: DIAGNOSTIC_THRESHOLDS.hotMinOpsPerSecond,
  nodeMicrosPerSecond: DIAGNOSTIC_THRESHOLDS.nodeMicrosPerSecond,
  nodeDangerShare: 0.7,
};
