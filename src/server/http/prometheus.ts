import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { tableNameString } from '../../model/names.js';
import { LATENCY_BUCKETS_SECONDS, type Metrics } from '../metrics.js';
import { allTables, type ServedDatabase } from './served-database.js';

/**
 * /metrics in the Prometheus text format (0.0.4), from a prom-client
 * Registry made at the first scrape (this module loads with the HTTP server
 * only). Every figure is read at scrape time (each metric's collect()): the
 * request counters from metrics.ts, tables, tablets and nodes from the
 * database, memtable, cache, commit-log, flush, compaction and disk figures
 * from its engine (DatabaseStats), plus prom-client's process metrics
 * (CPU, memory, event-loop delay, GC).
 */
export interface PrometheusExposition {
  readonly contentType: string;
  render(): Promise<string>;
}

export function prometheusExposition(metrics: Metrics, db: ServedDatabase): PrometheusExposition {
  const registry = new Registry();
  // The database's figures, read once per scrape.
  let stats = db.stats();
  const figures = (): ReturnType<ServedDatabase['stats']> => stats;
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  // ---- requests ----
  new Counter({
    name: 'tabletop_grpc_requests_total',
    help: 'gRPC requests by service, method, table (full name; "" when the call targets none) and status code.',
    labelNames: ['service', 'method', 'table', 'code'] as const,
    registers,
    collect() {
      this.reset();
      for (const m of metrics.series()) {
        for (const t of m.tables.values()) {
          for (const [code, n] of t.codes) this.inc({ service: m.service, method: m.method, table: t.table, code }, n);
        }
      }
    },
  });
  new SnapshotHistogram(metrics, {
    name: 'tabletop_grpc_request_duration_seconds',
    help: 'Time from the start of a gRPC call to its status, by method.',
    labelNames: ['service', 'method'] as const,
    buckets: [...LATENCY_BUCKETS_SECONDS],
    registers,
  });
  gauge('tabletop_grpc_in_flight', 'gRPC calls being served.', ['service', 'method'], (set) => {
    for (const m of metrics.series()) set({ service: m.service, method: m.method }, m.inFlight);
  });
  counter('tabletop_read_rows_returned_total', 'Rows returned by ReadRows.', () => metrics.rowsReturned);
  counter('tabletop_read_cells_returned_total', 'Cells returned by ReadRows.', () => metrics.cellsReturned);
  counter('tabletop_mutations_total', 'Mutations received by MutateRow, MutateRows and CheckAndMutateRow.', () => metrics.mutations);
  gauge('tabletop_start_time_seconds', 'When the server started (Unix time).', [], (set) => set({}, metrics.startMillis / 1000));

  // ---- tables, tablets, nodes ----
  gauge('tabletop_tablets', 'Tablets of each table.', ['table'], (set) => {
    for (const t of allTables(db)) set({ table: tableNameString(t.name) }, db.listTablets(t.name).length);
  });
  gauge(
    'tabletop_table_stored_bytes',
    'Bytes each table takes in storage (see the JSON API for which are estimates).',
    ['table'],
    (set) => {
      for (const t of allTables(db))
        set(
          { table: tableNameString(t.name) },
          sum(db.listTablets(t.name), (x) => x.storedBytes),
        );
    },
  );
  gauge('tabletop_table_rows', 'Rows of each table (an estimate in the durable engine).', ['table'], (set) => {
    for (const t of allTables(db))
      set(
        { table: tableNameString(t.name) },
        sum(db.listTablets(t.name), (x) => x.rows),
      );
  });
  counter('tabletop_tablet_splits_total', 'Tablet splits (by size or load) since the server started.', () => figures().tabletSplits);
  counter('tabletop_tablet_merges_total', 'Tablet merges (of cold neighbours) since the server started.', () => figures().tabletMerges);
  counter(
    'tabletop_tablet_moves_total',
    'Tablets moved between nodes by the balancer since the server started.',
    () => figures().tabletMoves,
  );
  const nodeLabels = ['instance', 'cluster', 'node'] as const;
  const perNode = (name: string, help: string, value: (n: NodeFigures) => number): void =>
    gauge(name, help, nodeLabels, (set) => {
      for (const project of db.listProjects()) {
        for (const instance of db.listInstances(project)) {
          for (const c of db.listNodes(instance.name)) {
            for (const n of c.nodes) {
              set(
                { instance: `projects/${project}/instances/${instance.name.instance}`, cluster: c.cluster, node: String(n.node) },
                value(n),
              );
            }
          }
        }
      }
    });
  perNode(
    'tabletop_node_serving_utilization',
    "A modelled node's serving time per second (1 = one node's capacity), over the recent window.",
    (n) => n.servingMicrosPerSec / 1e6,
  );
  perNode('tabletop_node_requests_per_second', "A modelled node's requests per second over the recent window.", (n) => n.requestsPerSec);
  perNode('tabletop_node_tablets', 'Tablets a modelled node holds.', (n) => n.tablets);
  perNode('tabletop_node_stored_bytes', 'Bytes of the tablets a modelled node holds.', (n) => n.storedBytes);

  // ---- storage engine ----
  const engine = () => figures().engine;
  gauge('tabletop_memtable_bytes', 'Memory held by memtables (in memory: every row).', [], (set) => set({}, engine()?.memtableBytes ?? 0));
  gauge('tabletop_block_cache_bytes', 'Bytes in the SSTable block cache.', [], (set) => set({}, engine()?.blockCache?.bytes ?? 0));
  gauge('tabletop_block_cache_capacity_bytes', 'Capacity of the SSTable block cache.', [], (set) =>
    set({}, engine()?.blockCache?.capacityBytes ?? 0),
  );
  counter('tabletop_block_cache_hits_total', 'Block reads served by the cache.', () => engine()?.blockCache?.hits ?? 0);
  counter('tabletop_block_cache_misses_total', 'Block reads that went to the file.', () => engine()?.blockCache?.misses ?? 0);
  counter('tabletop_block_cache_evictions_total', 'Blocks evicted from the cache.', () => engine()?.blockCache?.evictions ?? 0);
  gauge('tabletop_commit_log_bytes', 'Bytes of the commit-log files still needed.', [], (set) => set({}, engine()?.commitLog?.bytes ?? 0));
  gauge('tabletop_commit_log_files', 'Commit-log files still needed.', [], (set) => set({}, engine()?.commitLog?.files ?? 0));
  counter('tabletop_flushes_total', 'Memtables flushed to SSTables.', () => engine()?.flushes ?? 0);
  counter('tabletop_flushed_bytes_total', 'Bytes of the SSTables flushes wrote.', () => engine()?.flushedBytes ?? 0);
  counter('tabletop_compactions_total', 'Compactions run.', () => engine()?.compactions ?? 0);
  counter('tabletop_compaction_read_bytes_total', 'Bytes of the SSTables compactions read.', () => engine()?.compactionInputBytes ?? 0);
  counter(
    'tabletop_compaction_written_bytes_total',
    'Bytes of the SSTables compactions wrote.',
    () => engine()?.compactionOutputBytes ?? 0,
  );
  gauge('tabletop_sstables', 'Live SSTable files.', [], (set) => set({}, engine()?.sstables ?? 0));
  gauge('tabletop_sstable_bytes', 'Bytes of the live SSTable files.', [], (set) => set({}, engine()?.sstableBytes ?? 0));
  gauge('tabletop_disk_bytes', 'Bytes on disk: SSTables and commit-log files.', [], (set) => set({}, engine()?.diskBytes ?? 0));

  return {
    contentType: registry.contentType,
    render: () => {
      stats = db.stats();
      return registry.metrics();
    },
  };

  function gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    fill: (set: (labels: Partial<Record<L, string>>, value: number) => void) => void,
  ): void {
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      collect() {
        this.reset();
        fill((labels, value) => this.set(labels, value));
      },
    });
  }

  function counter(name: string, help: string, value: () => number): void {
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(value());
      },
    });
  }
}

type NodeFigures = ReturnType<ServedDatabase['listNodes']>[number]['nodes'][number];

function sum<T>(items: readonly T[], f: (t: T) => number): number {
  let n = 0;
  for (const t of items) n += f(t);
  return n;
}

/**
 * A histogram whose buckets are the per-method counts metrics.ts keeps: at
 * each scrape it answers those counts (cumulated, as the format wants)
 * instead of observations of its own, so calls never touch prom-client.
 * prom-client's registry reads a histogram through getForPromString (values
 * with `labels` and `sharedLabels`), its get() through the same.
 */
class SnapshotHistogram extends Histogram<'service' | 'method'> {
  private readonly name: string;
  private readonly help: string;

  constructor(
    private readonly source: Metrics,
    config: ConstructorParameters<typeof Histogram<'service' | 'method'>>[0],
  ) {
    super(config);
    this.name = config.name;
    this.help = config.help;
  }

  async getForPromString(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: HistogramValue[] }> {
    const { name, help } = this;
    const values: HistogramValue[] = [];
    for (const m of this.source.series()) {
      if (m.count === 0) continue;
      const sharedLabels = { service: m.service, method: m.method };
      let cumulative = 0;
      for (let i = 0; i <= LATENCY_BUCKETS_SECONDS.length; i++) {
        cumulative += m.buckets[i]!;
        const le = i < LATENCY_BUCKETS_SECONDS.length ? LATENCY_BUCKETS_SECONDS[i]! : '+Inf';
        values.push({ metricName: `${name}_bucket`, labels: { le }, sharedLabels, value: cumulative });
      }
      values.push({ metricName: `${name}_sum`, labels: {}, sharedLabels, value: m.sumSeconds });
      values.push({ metricName: `${name}_count`, labels: {}, sharedLabels, value: m.count });
    }
    return { name, help, type: 'histogram', aggregator: 'sum', values };
  }
}

interface HistogramValue {
  readonly metricName: string;
  readonly labels: Record<string, string | number>;
  readonly sharedLabels: Record<string, string>;
  readonly value: number;
}
