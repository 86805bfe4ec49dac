import type { TableName } from '../model/names.js';

/**
 * The Key Visualizer's JSON, as the HTTP API answers it and the web UI reads
 * it (src/ui imports this file for its types only). Served under
 * `/api/v1/projects/{p}/instances/{i}/tables/{t}/heatmap` and `.../diagnostics`.
 *
 * Keys travel twice: base64 of the bytes (exact, for the next request) and a
 * printable text (`model/bytes.ts` printable: printable ASCII as is, other
 * bytes as \xNN) for people. Times are ISO 8601 strings in UTC.
 */

/** The metrics a heatmap can show. Counts are per-second rates over each column; sizes are levels. */
export const METRICS = [
  /** read_ops + write_ops. */
  'ops',
  'read_ops',
  'write_ops',
  'read_bytes',
  'write_bytes',
  'rows_read',
  'rows_returned',
  'cells_returned',
  /** rows_read ÷ rows_returned in the bucket (∞ shown as rows_read when nothing was returned). */
  'scan_ratio',
  /** Serving time (µs per second) of reads and writes: the Key Visualizer's Read/Write CPU. */
  'serving_micros',
  'latency_p50',
  'latency_p99',
  'latency_max',
  /** Largest row a read saw in the bucket (bytes). */
  'max_row_bytes',
  /** Stored bytes and rows per bucket when its boundary set was made. */
  'stored_bytes',
  'rows',
] as const;
export type Metric = (typeof METRICS)[number];

/** The unit each metric's values are in. */
export const METRIC_UNITS: Readonly<Record<Metric, string>> = {
  ops: 'ops/s',
  read_ops: 'ops/s',
  write_ops: 'ops/s',
  read_bytes: 'bytes/s',
  write_bytes: 'bytes/s',
  rows_read: 'rows/s',
  rows_returned: 'rows/s',
  cells_returned: 'cells/s',
  scan_ratio: 'rows read per row returned',
  serving_micros: 'µs/s',
  latency_p50: 'ms',
  latency_p99: 'ms',
  latency_max: 'ms',
  max_row_bytes: 'bytes',
  stored_bytes: 'bytes',
  rows: 'rows',
};

/** A contiguous key range [start, end): base64 and printable forms; `end` null is the end of the table. */
export interface KeyRangeJson {
  readonly start: string;
  readonly end: string | null;
  readonly startText: string;
  readonly endText: string | null;
}

export interface HeatmapBucketJson extends KeyRangeJson {
  /** Rows and stored bytes in the bucket when its boundary set was made (estimates on big tables). */
  readonly rows: number;
  readonly bytes: number;
}

/** One level of the key hierarchy: a prefix segment (split on # : / . | _) spanning buckets [from, to]. */
export interface HierarchySpanJson {
  /** 1 for the first segment, 2 for the first two, ... */
  readonly depth: number;
  readonly text: string;
  /** First and last bucket index (inclusive) whose keys start with this prefix. */
  readonly from: number;
  readonly to: number;
}

/** `GET .../heatmap?metric=&from=&to=&start=&end=` */
export interface HeatmapRequest {
  readonly metric: Metric;
  /** Epoch milliseconds; default the last hour up to now. */
  readonly fromMillis: number;
  readonly toMillis: number;
  /** Key range to zoom into (raw byte strings); undefined for the whole table. */
  readonly startKey?: string | undefined;
  readonly endKey?: string | undefined;
}

export interface HeatmapJson {
  readonly table: string;
  readonly metric: Metric;
  readonly unit: string;
  /** Seconds per column (the tier chosen, times columns summed beyond the cap). */
  readonly resolutionSeconds: number;
  readonly from: string;
  readonly to: string;
  /** Start of each column (ISO), ascending; a column without recording (the server was down, no traffic) has null values. */
  readonly times: readonly string[];
  /** The key buckets, top (lowest key) to bottom: the newest boundary set in the window. */
  readonly buckets: readonly HeatmapBucketJson[];
  /** values[time][bucket]; null where nothing was recorded (before a table existed, a gap in the history). */
  readonly values: readonly (readonly (number | null)[])[];
  readonly hierarchy: readonly HierarchySpanJson[];
  /** Figures are estimates (sampled key distribution): Google's "values per row are approximate". */
  readonly approximate: boolean;
  /** The window ends now: the last column is still filling. */
  readonly live: boolean;
}

export const DIAGNOSTIC_KINDS = [
  'high_read_pressure',
  'high_write_pressure',
  'large_rows',
  'no_data_scanned',
  'key_space_not_to_scale',
  'values_approximate',
  'sequential_keys',
  'sudden_onset',
  'periodic',
  'scan_inefficiency',
  /** Advisors on the keys themselves. */
  'unpadded_numbers',
  'unreversed_domains',
] as const;
export type DiagnosticKind = (typeof DIAGNOSTIC_KINDS)[number];

export type Severity = 'info' | 'warning' | 'danger';

export interface DiagnosticJson {
  readonly kind: DiagnosticKind;
  readonly severity: Severity;
  /** One or two sentences in plain words, naming the key range, the window and the figures. */
  readonly message: string;
  /** The key range behind it (one bucket's range for a single row: then `startText` is that row's key). */
  readonly keyRange: KeyRangeJson;
  readonly timeRange: { readonly from: string; readonly to: string };
  /** The figures behind the message (shares, rates, thresholds crossed, sample keys). */
  readonly evidence: Readonly<Record<string, number | string | boolean | readonly (number | string)[]>>;
  /** What to change (field promotion, salting, reverse timestamps, padding, ...), when there is a fix. */
  readonly advice?: string;
}

/** `GET .../diagnostics?from=&to=` (default window: the last 15 minutes, the Key Visualizer's pressure interval). */
export interface DiagnosticsJson {
  readonly table: string;
  readonly from: string;
  readonly to: string;
  readonly diagnostics: readonly DiagnosticJson[];
}

/** What the HTTP API asks of the recording (implemented by Insight; errors are TabletopErrors: NotFound, InvalidArgument). */
export interface InsightQueries {
  heatmap(table: TableName, request: HeatmapRequest): Promise<HeatmapJson>;
  /** Either end left out: the last 15 minutes up to now. */
  diagnostics(
    table: TableName,
    window?: { readonly fromMillis?: number | undefined; readonly toMillis?: number | undefined },
  ): Promise<DiagnosticsJson>;
}
