import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { TableInfo } from '../../db/api.js';
import type { TabletopDatabase } from '../../db/index.js';
import type { ByteString } from '../../model/bytes.js';
import { isTabletopError } from '../../model/errors.js';
import type { InstanceName, TableName } from '../../model/names.js';
import type { Counter } from '../column.js';
import { DEFAULT_THRESHOLDS, type DiagnosticThresholds, diagnosticContext, runDiagnostics } from '../diagnostics/index.js';
import { totals } from '../diagnostics/context.js';
import { type HistorySource, MAX_KEY_SAMPLES } from '../history-source.js';
import { spreadKeys } from '../insight.js';
import { defaultFrom, DEFAULT_DIAGNOSTICS_MILLIS } from '../queries.js';
import { loadWindow } from '../query-window.js';
import type { AdvisorThresholds } from './thresholds.js';
import { type AdvisorInput, MAX_ROW_PROFILES, type NodeLoad, type TableSample, type TrafficSummary } from './types.js';

/** What the advisor reads of the database: tables, sizes, stored keys and rows (without recording usage), tablets, nodes. */
export type AdvisorDatabase = Pick<
  TabletopDatabase,
  'listTables' | 'getTable' | 'tableSize' | 'keyDistribution' | 'profileRows' | 'listTablets' | 'listNodes'
>;

export interface AdvisorDeps {
  readonly db: AdvisorDatabase;
  /** The recording; undefined when it is off (`--insight off`): then no traffic, and keys sampled from the stores. */
  readonly history: HistorySource | undefined;
  /** The traffic window: this long up to now (default the diagnostics' 15 minutes, as far back as the finest tier holds). */
  readonly windowMillis?: number;
  readonly thresholds?: Partial<DiagnosticThresholds>;
  /** The advisor's thresholds that differ from its defaults (advise()'s `thresholds`). */
  readonly advisorThresholds?: Partial<AdvisorThresholds>;
}

export interface GatherOptions {
  /**
   * The tables read in full (keys, write order, rows, traffic, diagnostics, tablets); the others get their name,
   * families and size only (what the instance-wide rule, too-many-tables, reads). Default: `only` when given, else
   * every table.
   */
  readonly detail?: (tableId: string) => boolean;
}

/** Rows a direct key sample reads whole (every row a key); past it, the stores' byte-offset samples. */
const DIRECT_EXACT_UP_TO_ROWS = 2000;

/**
 * The advisor's input for an instance: every table (sorted by id) with its
 * families and size, and for the tables asked for in full their stored keys
 * (the recording's key samples, or, with recording off or before its first
 * key distribution, a direct sample of the stores: bounded, no usage
 * recorded), the recent write order, the largest rows, up to
 * MAX_ROW_PROFILES row shapes (the largest and hot rows, then rows spread
 * over the key samples), the recorded traffic summed per bucket of the
 * table's current boundary set over the window and the heatmap's
 * diagnostics over it, and the tablets; and the load of every node.
 * Throws NotFound for an unknown instance or `only` table.
 *
 * Cost per table in full: a key distribution when none is recorded (reads at
 * most DIRECT_EXACT_UP_TO_ROWS rows, else the stores' samples), at most
 * MAX_ROW_PROFILES point reads, one window of the recording (at most
 * MAX_BUCKETS buckets per column). Memory: MAX_KEY_SAMPLES keys, the profiles,
 * the window's columns.
 */
export async function gatherAdvisorInput(
  deps: AdvisorDeps,
  instance: InstanceName,
  only?: string,
  opts: GatherOptions = {},
): Promise<AdvisorInput> {
  if (only !== undefined) deps.db.getTable({ ...instance, table: only });
  const infos = deps.db.listTables(instance); // sorted by id
  const detail = opts.detail ?? ((id: string) => only === undefined || id === only);
  const nowMillis = deps.history?.nowMillis() ?? Date.now();
  const tables: TableSample[] = [];
  for (const info of infos) {
    let sample: TableSample | undefined;
    try {
      if (detail(info.name.table)) {
        sample = await fullSample(deps, info, nowMillis);
        // Requests go on between tables (a table in full takes a millisecond or two of reading in memory).
        await yieldToEventLoop();
      } else sample = lightSample(deps, info);
    } catch (e) {
      // Another table deleted meanwhile is left out; the one asked for is NotFound.
      if (info.name.table === only || !isTabletopError(e, 'NotFound')) throw e;
    }
    if (sample !== undefined) tables.push(sample);
  }
  return { instance, nowMillis, tables, only, nodes: nodeLoads(deps.db, instance) };
}

/** Name, families and size; undefined for a table deleted meanwhile. */
function lightSample(deps: AdvisorDeps, info: TableInfo): TableSample | undefined {
  let size;
  try {
    size = deps.db.tableSize(info.name);
  } catch {
    return undefined;
  }
  return {
    name: info.name,
    families: info.families,
    rows: size.rows,
    rowsEstimated: size.rowsEstimated,
    storedBytes: size.storedBytes,
    keys: [],
    writeOrder: [],
    largestRows: [],
    rowProfiles: [],
    traffic: undefined,
    diagnostics: [],
    tablets: [],
  };
}

async function fullSample(deps: AdvisorDeps, info: TableInfo, nowMillis: number): Promise<TableSample | undefined> {
  const light = lightSample(deps, info);
  if (light === undefined) return undefined;
  const { db, history } = deps;
  const name = info.name;
  let keys: readonly ByteString[] = [];
  let largestRows: TableSample['largestRows'] = [];
  let writeOrder: readonly ByteString[] = [];
  let hotRows: readonly ByteString[] = [];
  if (history !== undefined) {
    [keys, largestRows, writeOrder, hotRows] = await Promise.all([
      history.keySamples(name),
      history.largestRows(name),
      history.writeOrder(name),
      history.hotRows(name),
    ]);
  }
  if (keys.length === 0 && light.rows > 0) ({ keys, largestRows } = await directKeys(db, name, light.storedBytes));
  const rowProfiles = await db.profileRows(name, profileKeys(largestRows, hotRows, keys));
  const recorded =
    history === undefined ? undefined : await recordedTraffic(deps, history, name, nowMillis, { largestRows, hotRows, keys });
  return {
    ...light,
    keys,
    writeOrder,
    largestRows,
    rowProfiles,
    traffic: recorded?.traffic,
    diagnostics: recorded?.diagnostics ?? [],
    tablets: db.listTablets(name),
  };
}

/** Keys and the largest rows from the stores (records no usage). */
async function directKeys(
  db: AdvisorDatabase,
  name: TableName,
  storedBytes: number,
): Promise<{ keys: ByteString[]; largestRows: TableSample['largestRows'] }> {
  const dist = await db.keyDistribution(name, {
    exactUpToRows: DIRECT_EXACT_UP_TO_ROWS,
    bytesPerPiece: Math.max(256, Math.ceil(storedBytes / MAX_KEY_SAMPLES)),
  });
  return { keys: spreadKeys(dist.points, MAX_KEY_SAMPLES), largestRows: dist.largestRows };
}

/** The rows to profile: the largest and the hot ones, then rows spread over the key samples; at most MAX_ROW_PROFILES. */
export function profileKeys(
  largest: readonly { readonly key: ByteString }[],
  hot: readonly ByteString[],
  keys: readonly ByteString[],
): ByteString[] {
  const chosen = new Set<ByteString>();
  for (const k of [...largest.map((r) => r.key), ...hot]) if (chosen.size < MAX_ROW_PROFILES) chosen.add(k);
  const room = MAX_ROW_PROFILES - chosen.size;
  const spread = keys.length <= room ? keys : Array.from({ length: room }, (_, i) => keys[Math.floor((i * keys.length) / room)]!);
  for (const k of spread) chosen.add(k);
  // Spread keys already chosen (a largest or hot row): the first keys not yet chosen take their place.
  for (let i = 0; i < keys.length && chosen.size < MAX_ROW_PROFILES; i++) chosen.add(keys[i]!);
  return [...chosen];
}

/** The window's recorded traffic per bucket of the newest boundary set, and the heatmap's diagnostics over it. */
async function recordedTraffic(
  deps: AdvisorDeps,
  history: HistorySource,
  name: TableName,
  toMillis: number,
  rows: { largestRows: TableSample['largestRows']; hotRows: readonly ByteString[]; keys: readonly ByteString[] },
): Promise<{ traffic: TrafficSummary; diagnostics: TableSample['diagnostics'] }> {
  const fromMillis = defaultFrom(history, toMillis, deps.windowMillis ?? DEFAULT_DIAGNOSTICS_MILLIS);
  const w = await loadWindow(history, name, fromMillis, toMillis);
  const ctx = diagnosticContext(w, { ...DEFAULT_THRESHOLDS, ...deps.thresholds }, rows.largestRows, rows.hotRows, rows.keys);
  const sum = (c: Counter): Float64Array => totals(ctx, c);
  const [readOps, writeOps, rowsRead, rowsReturned, readBytes, writeBytes] = (
    ['read_ops', 'write_ops', 'rows_read', 'rows_returned', 'read_bytes', 'write_bytes'] as const
  ).map(sum) as [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];
  const { starts, rows: rowsPer } = w.set;
  const buckets = starts.map((start, b) => ({
    start,
    end: starts[b + 1],
    rows: rowsPer[b] ?? 0,
    readOps: readOps[b]!,
    writeOps: writeOps[b]!,
    rowsRead: rowsRead[b]!,
    rowsReturned: rowsReturned[b]!,
    readBytes: readBytes[b]!,
    writeBytes: writeBytes[b]!,
  }));
  return { traffic: { fromMillis, toMillis, buckets }, diagnostics: runDiagnostics(ctx) };
}

/** Every node of every cluster of the instance with its recent load. */
function nodeLoads(db: AdvisorDatabase, instance: InstanceName): NodeLoad[] {
  return db.listNodes(instance).flatMap((c) =>
    c.nodes.map((n) => ({
      cluster: c.cluster,
      node: n.node,
      servingMicrosPerSec: n.servingMicrosPerSec,
      requestsPerSec: n.requestsPerSec,
      tablets: n.tablets,
    })),
  );
}
