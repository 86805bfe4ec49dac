import { loadgenCheckAndMutate, loadgenIncrements, loadgenPointReads, loadgenScans, loadgenWrites } from './loadgen/workloads.js';
import { bulkLoad, largeLoad } from './workloads/bulk-load.js';
import { pointReads } from './workloads/point-reads.js';
import { mixedWorkload } from './workloads/mixed.js';
import { hotRowIncrements } from './workloads/rmw-hot-row.js';
import { fullScan, prefixScan, rangeScan } from './workloads/scans.js';
import type { Workload } from './workloads/workload.js';
import { singleRowWrites } from './workloads/writes.js';
import { startupInProcess, startupServe, startupServeDurable } from './workloads/startup.js';

/** Every workload, in the order they run. */
export const WORKLOADS: readonly Workload[] = [
  bulkLoad('load-100b', 100),
  bulkLoad('load-1k', 1024),
  largeLoad(),
  pointReads('point-read-c1', 1),
  pointReads('point-read-c32', 32),
  fullScan(),
  prefixScan(),
  rangeScan(),
  singleRowWrites('write-c32', 32, 1024),
  hotRowIncrements('rmw-hot-row', 32),
  loadgenPointReads(),
  loadgenWrites(),
  loadgenCheckAndMutate(),
  loadgenIncrements(),
  loadgenScans(),
  mixedWorkload(),
  startupInProcess(),
  startupServe(),
  startupServeDurable(),
];

/** Names usable with --only besides workload names. */
export const GROUPS: Readonly<Record<string, (w: Workload) => boolean>> = {
  client: (w) => w.group === 'client',
  loadgen: (w) => w.group === 'loadgen',
  load: (w) => w.freshServer && w.kind === undefined,
  startup: (w) => w.group === 'startup',
  reads: (w) => w.name.includes('read') || w.name.includes('scan'),
};

/** The workloads named by --only (workload names or group names), in catalog order. */
export function selectWorkloads(names: readonly string[] | undefined): Workload[] {
  if (names === undefined) return [...WORKLOADS];
  const picked = new Set<Workload>();
  for (const name of names) {
    const group = GROUPS[name];
    const matches = group !== undefined ? WORKLOADS.filter(group) : WORKLOADS.filter((w) => w.name === name);
    if (matches.length === 0) {
      throw new Error(
        `--only: unknown workload "${name}"; known: ${WORKLOADS.map((w) => w.name).join(', ')}; groups: ${Object.keys(GROUPS).join(', ')}`,
      );
    }
    for (const w of matches) picked.add(w);
  }
  return WORKLOADS.filter((w) => picked.has(w));
}
