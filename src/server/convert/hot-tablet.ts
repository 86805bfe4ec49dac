import type { HotTabletInfo } from '../../db/api.js';
import { printable } from '../../model/bytes.js';
import { childNameString, tableNameString } from '../../model/names.js';
import { int64ToNumber, millisToTimestamp } from './int64.js';
import type { PTimestamp } from './proto-types.js';

/**
 * google.bigtable.admin.v2.HotTablet (keys as strings: printable ASCII as is,
 * other bytes as \xNN). node_cpu_usage_percent is the tablet's modelled
 * serving time as a percent of its node's capacity (1 s of serving per second).
 */
export function hotTabletToProto(h: HotTabletInfo) {
  return {
    name: `${childNameString(h.table, 'clusters', h.cluster)}/hotTablets/${h.id}`,
    tableName: tableNameString(h.table),
    startTime: millisToTimestamp(Math.floor(h.startMicros / 1000)),
    endTime: millisToTimestamp(Math.floor(h.endMicros / 1000)),
    startKey: printable(h.start),
    endKey: h.end === undefined ? '' : printable(h.end),
    nodeCpuUsagePercent: h.servingPercentOfNode,
  };
}

/** A google.protobuf.Timestamp as milliseconds since the epoch (undefined when absent). */
export function timestampToMillis(t: PTimestamp | null | undefined, field: string): number | undefined {
  if (t == null) return undefined;
  return int64ToNumber(t.seconds ?? '0', `${field}.seconds`) * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
}
