import type { TableName } from '../model/names.js';
import type { DiagnosticsJson, InsightQueries } from './api-types.js';
import { DEFAULT_THRESHOLDS, type DiagnosticThresholds, diagnosticContext, runDiagnostics } from './diagnostics/index.js';
import { heatmap } from './heatmap-query.js';
import type { HistorySource } from './history-source.js';
import { iso, loadWindow } from './query-window.js';
import { retentionStart } from './tiers.js';

/** The diagnostics' default window: the last 15 minutes (the Key Visualizer's pressure interval). */
export const DEFAULT_DIAGNOSTICS_MILLIS = 15 * 60_000;

/**
 * What the HTTP API calls: the heatmap and the diagnostics of a table, read
 * from `source`. `thresholds` override the diagnostics' defaults (tests lower
 * the size ones). Errors: InvalidArgument for a bad metric or window,
 * NotFound (from the source) for an unknown table.
 */
export function insightQueries(source: HistorySource, thresholds: Partial<DiagnosticThresholds> = {}): InsightQueries {
  const t: DiagnosticThresholds = { ...DEFAULT_THRESHOLDS, ...thresholds };
  return {
    heatmap: (table, request) => heatmap(source, table, request),
    diagnostics: (table, window) => diagnostics(source, table, window, t),
  };
}

/**
 * The start of a default window of `spanMillis` ending at `toMillis`: that
 * far back, or as far back as the finest tier holds if that is less (short
 * time buckets in tests: 500 ms columns keep 3 minutes), so that a default
 * window is always read at the finest resolution. The HTTP API can use it for
 * the heatmap's default hour too.
 */
export function defaultFrom(source: HistorySource, toMillis: number, spanMillis = DEFAULT_DIAGNOSTICS_MILLIS): number {
  const finest = source.tiers[0];
  const held = finest === undefined ? -Infinity : retentionStart(finest, source.nowMillis());
  return Math.min(toMillis - 1, Math.max(toMillis - spanMillis, held));
}

/** The table's diagnostics over `window` (either end missing: the default window, `defaultFrom`, up to now). */
export async function diagnostics(
  source: HistorySource,
  table: TableName,
  window: { readonly fromMillis?: number | undefined; readonly toMillis?: number | undefined } = {},
  thresholds: DiagnosticThresholds = DEFAULT_THRESHOLDS,
): Promise<DiagnosticsJson> {
  const toMillis = window.toMillis ?? source.nowMillis();
  const fromMillis = window.fromMillis ?? defaultFrom(source, toMillis);
  const w = await loadWindow(source, table, fromMillis, toMillis);
  const [largest, hot, samples] = await Promise.all([source.largestRows(table), source.hotRows(table), source.keySamples(table)]);
  const ctx = diagnosticContext(w, thresholds, largest, hot, samples);
  return { table: table.table, from: iso(fromMillis), to: iso(toMillis), diagnostics: runDiagnostics(ctx) };
}
