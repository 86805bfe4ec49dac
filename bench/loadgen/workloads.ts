import { fullTableName } from '../workloads/node-client.js';
import type { Reference, Settings, Workload } from '../workloads/workload.js';
import { runLoadgen } from './driver.js';
import type { LoadgenKind } from './messages.js';

/**
 * What one server process sustains under the low-overhead load generator,
 * next to Google's published per-node throughput of Cloud Bigtable on SSD
 * storage (https://cloud.google.com/bigtable/docs/performance: "up to
 * 17,000 rows per second" of reads, or 14,000 of writes, or 220 MB/s of
 * scans, for rows of 1 KB).
 */

const SOURCE = 'Cloud Bigtable SSD, per node';
export const GOOGLE_SSD_NODE = {
  reads: { figure: 'throughput', value: 17_000, label: `${SOURCE}: 17,000 reads/s` },
  writes: { figure: 'throughput', value: 14_000, label: `${SOURCE}: 14,000 writes/s` },
  scans: { figure: 'mbps', value: 220, label: `${SOURCE}: 220 MB/s` },
} as const satisfies Record<string, Reference>;

function setup(s: Settings, inFlight: number): string {
  const how = s.loadgenTransport === 'grpc-js' ? '@grpc/grpc-js generic client' : 'gRPC framed over node:http2';
  return `${s.loadgenProcesses} load-generator process(es) × ${inFlight} calls in flight over ${s.loadgenChannels} connection(s) each; pre-encoded requests sent through the ${how}`;
}

function loadgen(
  kind: LoadgenKind,
  spec: Pick<Workload, 'name' | 'title' | 'per' | 'unitName' | 'mbps' | 'latency' | 'reference'> & { what: string },
): Workload {
  return {
    ...spec,
    group: 'loadgen',
    freshServer: false,
    writes: kind === 'write' || kind === 'check-and-mutate' || kind === 'increment',
    describe: (s) => `${spec.what}; ${setup(s, kind === 'scan' ? s.loadgenScansInFlight : s.loadgenInFlight)}, for ${s.seconds} s`,
    run: (ctx) => {
      const s = ctx.settings;
      const write = kind === 'write' || kind === 'check-and-mutate';
      const increment = kind === 'increment';
      return runLoadgen(ctx, s.loadgenProcesses, {
        kind,
        address: ctx.target.address,
        tableName: fullTableName(increment ? ctx.dataset.countersTable : write ? ctx.dataset.loadgenWritesTable : ctx.dataset.table),
        ...(increment ? { hotRow: `lg-hot-${ctx.runId}` } : {}),
        rows: ctx.dataset.rows,
        valueSize: ctx.dataset.valueSize,
        inFlight: kind === 'scan' ? s.loadgenScansInFlight : s.loadgenInFlight,
        channels: s.loadgenChannels,
        transport: s.loadgenTransport,
        // A new worker process is slow until its JIT warms: it runs unmeasured load first.
        warmupSeconds: s.warmupSeconds === 0 ? 0 : Math.min(1, Math.max(0.5, s.warmupSeconds)),
      });
    },
  };
}

export const loadgenPointReads = (): Workload =>
  loadgen('point-read', {
    name: 'lg-point-read',
    title: 'Load generator: point reads of 1 KiB rows',
    per: 'op',
    unitName: 'reads',
    mbps: false,
    latency: true,
    reference: GOOGLE_SSD_NODE.reads,
    what: 'ReadRows of one random row key of the 1 KiB data set (each response checked to hold the value)',
  });

export const loadgenWrites = (): Workload =>
  loadgen('write', {
    name: 'lg-write',
    title: 'Load generator: single-row writes of 1 KiB rows',
    per: 'op',
    unitName: 'writes',
    mbps: false,
    latency: true,
    reference: GOOGLE_SSD_NODE.writes,
    what: 'MutateRow setting one 1 KiB cell under a random new key',
  });

export const loadgenScans = (): Workload =>
  loadgen('scan', {
    name: 'lg-scan',
    title: 'Load generator: full scans',
    per: 'row',
    unitName: 'rows',
    mbps: true,
    latency: false,
    reference: GOOGLE_SSD_NODE.scans,
    what: 'ReadRows of the whole 1 KiB data set, repeated; MB/s counts response bytes on the wire',
  });

export const loadgenCheckAndMutate = (): Workload =>
  loadgen('check-and-mutate', {
    name: 'lg-check-and-mutate',
    title: 'Load generator: check-and-mutate of 1 KiB rows',
    per: 'op',
    unitName: 'calls',
    mbps: false,
    latency: true,
    what: 'CheckAndMutateRow of a random key of the write table: a column filter as predicate, and a 1 KiB SetCell at server time in both branches (every call reads the row and writes)',
  });

export const loadgenIncrements = (): Workload =>
  loadgen('increment', {
    name: 'lg-rmw-hot-row',
    title: 'Load generator: increments of one hot row',
    per: 'op',
    unitName: 'increments',
    mbps: false,
    latency: true,
    what: 'ReadModifyWriteRow incrementing one 64-bit counter of one row (a new row per run), every call on the same row',
  });
