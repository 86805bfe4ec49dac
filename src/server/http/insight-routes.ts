import type { DiagnosticsJson, HeatmapJson, HeatmapRequest, InsightQueries, Metric } from '../../insight/api-types.js';
import { METRICS } from '../../insight/api-types.js';
import type { HistorySource } from '../../insight/history-source.js';
import { fromBytes } from '../../model/bytes.js';
import { failedPrecondition, invalidArgument } from '../../model/errors.js';
import type { TableName } from '../../model/names.js';

/**
 * The Key Visualizer's endpoints of the JSON API (json-api.ts routes them,
 * after checking that the table exists):
 *   .../tables/{t}/heatmap?metric=&from=&to=&start=&end=
 *   .../tables/{t}/diagnostics?from=&to=
 * They check the query (400 InvalidArgument naming what is allowed), then
 * ask the recording (InsightQueries over the HistorySource); with recording
 * off (`serve --insight off`) they answer 412 FailedPrecondition.
 *
 * Query parameters:
 * - metric: one of METRICS (default ops);
 * - from, to: ISO 8601 (2026-11-27T08:00:00Z; a date alone is midnight UTC)
 *   or epoch milliseconds; default: `to` now, `from` an hour (heatmap) or
 *   15 minutes (diagnostics: the Key Visualizer's pressure interval) before;
 * - start, end: the key range to zoom into, base64 (standard or URL-safe) of
 *   the row keys' bytes; end exclusive; either may be absent or empty.
 */

/** The recording as the HTTP server reads it: undefined when recording is off. */
export interface InsightApi {
  readonly source: HistorySource;
  readonly queries: InsightQueries;
}

export const RECORDING_OFF = 'recording is off (--insight off)';
export const DEFAULT_HEATMAP_MILLIS = 60 * 60 * 1000;
export const DEFAULT_DIAGNOSTICS_MILLIS = 15 * 60 * 1000;

const HEATMAP_PARAMS = ['metric', 'from', 'to', 'start', 'end'] as const;
const DIAGNOSTICS_PARAMS = ['from', 'to'] as const;

export async function heatmapRoute(insight: InsightApi | undefined, table: TableName, query: URLSearchParams): Promise<HeatmapJson> {
  const request = parseHeatmapQuery(query, nowOf(insight));
  return recording(insight).queries.heatmap(table, request);
}

export async function diagnosticsRoute(
  insight: InsightApi | undefined,
  table: TableName,
  query: URLSearchParams,
): Promise<DiagnosticsJson> {
  const window = parseDiagnosticsQuery(query, nowOf(insight));
  return recording(insight).queries.diagnostics(table, window);
}

/** The heatmap request a query asks for (throws InvalidArgument). */
export function parseHeatmapQuery(query: URLSearchParams, nowMillis: number): HeatmapRequest {
  checkParams(query, HEATMAP_PARAMS);
  const metric = parseMetric(single(query, 'metric'));
  const { fromMillis, toMillis } = parseWindow(query, nowMillis, DEFAULT_HEATMAP_MILLIS);
  const startKey = parseKey(single(query, 'start'), 'start');
  const endKey = parseKey(single(query, 'end'), 'end');
  if (startKey !== undefined && endKey !== undefined && startKey >= endKey) {
    throw invalidArgument('"start" must come before "end" (the key range is [start, end), base64 of the row keys\' bytes)');
  }
  return { metric, fromMillis, toMillis, startKey, endKey };
}

/** The diagnostics window a query asks for (throws InvalidArgument). */
export function parseDiagnosticsQuery(query: URLSearchParams, nowMillis: number): { fromMillis: number; toMillis: number } {
  checkParams(query, DIAGNOSTICS_PARAMS);
  return parseWindow(query, nowMillis, DEFAULT_DIAGNOSTICS_MILLIS);
}

function nowOf(insight: InsightApi | undefined): number {
  return insight?.source.nowMillis() ?? Date.now();
}

function recording(insight: InsightApi | undefined): InsightApi {
  if (insight === undefined) throw failedPrecondition(`Key Visualizer data is not available: ${RECORDING_OFF}`);
  return insight;
}

export function checkParams(query: URLSearchParams, allowed: readonly string[]): void {
  for (const name of new Set(query.keys())) {
    if (!allowed.includes(name)) throw invalidArgument(`Unknown query parameter "${name}": use ${allowed.join(', ')}`);
  }
}

export function single(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1) throw invalidArgument(`Query parameter "${name}" is given ${values.length} times: give it once`);
  return values[0];
}

function parseMetric(value: string | undefined): Metric {
  if (value === undefined || value === '') return 'ops';
  if ((METRICS as readonly string[]).includes(value)) return value as Metric;
  throw invalidArgument(`Unknown metric "${value}": use one of ${METRICS.join(', ')}`);
}

function parseWindow(query: URLSearchParams, nowMillis: number, defaultMillis: number): { fromMillis: number; toMillis: number } {
  const to = parseTime(single(query, 'to'), 'to');
  const from = parseTime(single(query, 'from'), 'from');
  const toMillis = to ?? nowMillis;
  const fromMillis = from ?? toMillis - defaultMillis;
  if (fromMillis >= toMillis) {
    throw invalidArgument(`"from" (${new Date(fromMillis).toISOString()}) must be before "to" (${new Date(toMillis).toISOString()})`);
  }
  return { fromMillis, toMillis };
}

// YYYY-MM-DD, optionally THH:MM[:SS[.fff]] with Z or ±HH:MM (no offset: UTC, as for a date alone).
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** A time given as ISO 8601 or epoch milliseconds; undefined when absent or empty. */
export function parseTime(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  let millis = NaN;
  if (/^\d{1,15}$/.test(value)) millis = Number(value);
  else if (ISO_8601.test(value)) {
    // Without an offset, a time of day is read as UTC (Date.parse would take local time).
    const utc = value.includes('T') && !/(?:Z|[+-]\d{2}:?\d{2})$/.test(value) ? `${value}Z` : value;
    millis = Date.parse(utc);
  }
  if (!Number.isFinite(millis)) {
    throw invalidArgument(
      `Invalid "${name}": ${JSON.stringify(value)}: give an ISO 8601 time such as 2026-11-27T08:00:00Z, or epoch milliseconds`,
    );
  }
  return millis;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

/** A row key given as base64 (standard or URL-safe, padding optional); undefined when absent or empty. */
export function parseKey(value: string | undefined, name: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  // A '+' not percent-encoded in a query string arrives as a space (never valid base64 itself).
  const standard = value.replace(/[ -]/g, '+').replace(/_/g, '/');
  if (!BASE64.test(standard)) {
    throw invalidArgument(`Invalid "${name}": ${JSON.stringify(value)} is not base64 (give the row key's bytes in base64)`);
  }
  return fromBytes(Buffer.from(standard, 'base64'));
}
