import type { TabletInfo } from '../../../db/api.js';
import type { ByteString } from '../../../model/bytes.js';
import type { ColumnFamily } from '../../../model/family.js';
import type { GcRule } from '../../../model/gc-rule.js';
import type { InstanceName } from '../../../model/names.js';
import { BYTES_TYPE, type ValueType } from '../../../model/value-type.js';
import type { DiagnosticJson } from '../../api-types.js';
import { keyRangeJson } from '../../key-range-json.js';
import type { AdvisorInput, FamilyProfile, NodeLoad, RowProfile, TableSample, TrafficBucket, TrafficSummary } from '../types.js';

/**
 * Hand-made advisor inputs for the rules' tests: tables with keys, traffic
 * per key (one bucket per row, as on small tables), tablets, row profiles
 * and nodes. No database, no recording.
 */

export const INSTANCE: InstanceName = { project: 'p', instance: 'i' };
export const NOW = Date.UTC(2026, 10, 27, 10, 0, 0);
/** The traffic window: the 15 minutes before NOW. */
export const WINDOW_MILLIS = 15 * 60_000;

export function family(name: string, gcRule?: GcRule, valueType: ValueType = BYTES_TYPE): ColumnFamily {
  return { name, gcRule, valueType };
}

/** A table of `keys` (sorted for the samples), one family `cf` with a GC rule unless given. */
export function table(id: string, keys: readonly ByteString[], more: Partial<Omit<TableSample, 'name'>> = {}): TableSample {
  return {
    name: { ...INSTANCE, table: id },
    families: [family('cf', { kind: 'maxVersions', versions: 1 })],
    rows: keys.length,
    rowsEstimated: false,
    storedBytes: keys.length * 100,
    keys: [...new Set(keys)].sort(),
    writeOrder: [],
    largestRows: [],
    rowProfiles: [],
    traffic: undefined,
    diagnostics: [],
    tablets: [],
    ...more,
  };
}

/** A bucket's figures (`rows`: 1 unless given). */
export type Ops = Partial<Omit<TrafficBucket, 'start' | 'end'>>;

/** Traffic over one bucket per key (the first starting at ''), each with the ops `ops(key, i)` gives. */
export function traffic(keys: readonly ByteString[], ops: (key: ByteString, i: number) => Ops): TrafficSummary {
  const sorted = [...new Set(keys)].sort();
  const buckets = sorted.map((key, i) => ({
    start: i === 0 ? '' : key,
    end: sorted[i + 1],
    rows: 1,
    readOps: 0,
    writeOps: 0,
    rowsRead: 0,
    rowsReturned: 0,
    readBytes: 0,
    writeBytes: 0,
    ...ops(key, i),
  }));
  return { fromMillis: NOW - WINDOW_MILLIS, toMillis: NOW, buckets };
}

export interface TabletSpec {
  readonly id?: string;
  readonly start: ByteString;
  readonly end?: ByteString;
  readonly requestsPerSec: number;
  readonly cpuMicrosPerSec?: number;
  readonly node?: number;
  readonly cluster?: string;
  readonly hotRow?: { readonly key: ByteString; readonly share: number };
}

export function tablet(tableId: string, s: TabletSpec): TabletInfo {
  return {
    table: { ...INSTANCE, table: tableId },
    id: s.id ?? `${tableId}-${s.start}`,
    start: s.start,
    end: s.end,
    storedBytes: 1000,
    logicalBytes: 1000,
    rows: 10,
    rowsEstimated: false,
    bytesEstimated: false,
    placements: [{ cluster: s.cluster ?? 'c1', node: s.node ?? 0 }],
    rates: {
      requestsPerSec: s.requestsPerSec,
      rowsReadPerSec: 0,
      rowsWrittenPerSec: s.requestsPerSec,
      bytesReadPerSec: 0,
      bytesWrittenPerSec: 0,
      cpuMicrosPerSec: s.cpuMicrosPerSec ?? s.requestsPerSec * 50,
    },
    windowSeconds: 60,
    singleRowHotspot: s.hotRow,
  };
}

export function rowProfile(key: ByteString, bytes: number, families: readonly Partial<FamilyProfile>[] = [{}]): RowProfile {
  return {
    key,
    bytes,
    families: families.map((f) => ({
      family: 'cf',
      cells: 1,
      columns: 1,
      maxVersions: 1,
      maxCellBytes: 10,
      qualifiers: ['q'],
      counterLike: false,
      ...f,
    })),
  };
}

export function node(n: number, servingMicrosPerSec: number, requestsPerSec: number, cluster = 'c1', tablets = 1): NodeLoad {
  return { cluster, node: n, servingMicrosPerSec, requestsPerSec, tablets };
}

export function input(tables: readonly TableSample[], more: { only?: string; nodes?: readonly NodeLoad[] } = {}): AdvisorInput {
  return { instance: INSTANCE, nowMillis: NOW, tables, only: more.only, nodes: more.nodes ?? [] };
}

/** A heatmap diagnostic as the table's sample carries it. */
export function diagnostic(
  kind: DiagnosticJson['kind'],
  evidence: DiagnosticJson['evidence'],
  start = '',
  end?: ByteString,
): DiagnosticJson {
  return {
    kind,
    severity: 'warning',
    message: `${kind} (hand-made)`,
    keyRange: keyRangeJson(start, end),
    timeRange: { from: new Date(NOW - WINDOW_MILLIS).toISOString(), to: new Date(NOW).toISOString() },
    evidence,
  };
}

/** `n` ISO timestamps a second apart from 2023-05-01T12:00:00Z. */
export function isoTimes(n: number): string[] {
  return Array.from({ length: n }, (_, i) => new Date(Date.UTC(2023, 4, 1, 12, 0, 0) + i * 1000).toISOString().replace('.000Z', 'Z'));
}

/** `n` ids `${prefix}${i}` zero-padded to `width`, from `from`. */
export function ids(prefix: string, n: number, width = 3, from = 1): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}${String(from + i).padStart(width, '0')}`);
}
