import { formatBytes } from '../units.js';
import { parseTableName } from '../model/names.js';
import type { CliIo } from './cli-io.js';
import { HttpApiError, apiServer, getApi, segment } from './http-api.js';

/** A tablet as the JSON API gives it (src/server/http/json-api.ts). */
interface TabletJson {
  tabletId: string;
  startKey: { printable: string } | null;
  endKey: { printable: string } | null;
  storedBytes: number;
  logicalBytes: number;
  rowCount: number;
  /** The names of the figures that are estimates. */
  estimates: string[];
  nodes: { clusterId: string; node: number }[];
  windowSeconds: number;
  rates: { requestsPerSec: number; rowsReadPerSec: number; rowsWrittenPerSec: number; servingMicrosPerSec: number };
  singleRowHotspot: { key: { printable: string }; share: number } | null;
}

/**
 * `tabletop tablets TABLE`: the tablets of a table as a terminal table, read
 * from the JSON API of a running server. TABLE is a table id (with --project
 * and --instance) or a full name projects/P/instances/I/tables/T.
 */
export async function tabletsCommand(
  args: readonly string[],
  opts: { instance?: string | undefined; project?: string | undefined; server?: string | undefined },
  io: CliIo,
): Promise<number> {
  const [table, ...rest] = args;
  if (table === undefined || rest.length > 0) {
    io.stderr('Usage: tabletop tablets TABLE [--instance I] [--project P] [--server HOST:PORT]');
    return 2;
  }
  let project = opts.project;
  let instance = opts.instance;
  let tableId = table;
  if (table.startsWith('projects/')) {
    try {
      const n = parseTableName(table);
      ({ project, instance } = n);
      tableId = n.table;
    } catch (e) {
      io.stderr(`tabletop tablets: ${e instanceof Error ? e.message : String(e)}`);
      return 2;
    }
  }
  if (project === undefined || instance === undefined) {
    io.stderr('tabletop tablets: give --project and --instance, or the full table name projects/P/instances/I/tables/T');
    return 2;
  }
  const server = apiServer(opts.server, io.env);
  let body: { tablets?: TabletJson[] };
  try {
    body = await getApi(server, `/api/v1/projects/${segment(project)}/instances/${segment(instance)}/tables/${segment(tableId)}/tablets`);
  } catch (e) {
    if (!(e instanceof HttpApiError)) throw e;
    io.stderr(`tabletop tablets: ${e.message}`);
    return 1;
  }
  const tablets = body.tablets ?? [];
  io.stdout(renderTablets(tablets));
  const hot = tablets.filter((t) => t.singleRowHotspot !== null);
  for (const t of hot) {
    io.stdout(
      `! tablet ${t.tabletId}: ${Math.round(t.singleRowHotspot!.share * 100)}% of its requests hit the single row "${t.singleRowHotspot!.key.printable}" (a single-row hotspot: no split can spread it)`,
    );
  }
  return 0;
}

/**
 * The tablets as a terminal table, with a legend: `~` marks an estimate;
 * NODE is the tablet's node (per cluster when the instance has several);
 * SERVING is the node model's CPU, the tablet's serving time as a percent of
 * one node's capacity.
 */
export function renderTablets(tablets: readonly TabletJson[]): string {
  const header = [
    'TABLET',
    'START KEY',
    'END KEY',
    'STORED',
    'LOGICAL',
    'ROWS',
    'NODE',
    'REQ/S',
    'ROWS READ/S',
    'ROWS WRITTEN/S',
    'SERVING',
  ];
  const estimated = (t: TabletJson, field: string): string => (t.estimates.includes(field) ? '~' : '');
  const rows = tablets.map((t) => [
    t.tabletId,
    t.startKey === null || t.startKey.printable === '' ? '(start)' : t.startKey.printable,
    t.endKey === null ? '(end)' : t.endKey.printable,
    estimated(t, 'storedBytes') + formatBytes(t.storedBytes),
    estimated(t, 'logicalBytes') + formatBytes(t.logicalBytes),
    estimated(t, 'rowCount') + String(t.rowCount),
    t.nodes.length === 1 ? String(t.nodes[0]!.node) : t.nodes.map((n) => `${n.clusterId}:${n.node}`).join(' '),
    num(t.rates.requestsPerSec),
    num(t.rates.rowsReadPerSec),
    num(t.rates.rowsWrittenPerSec),
    `${(t.rates.servingMicrosPerSec / 1e4).toFixed(1)}%`,
  ]);
  const all = [header, ...rows].map((r) => r.map((c) => (c.length > 40 ? `${c.slice(0, 37)}...` : c)));
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const table = all.map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
  const window = tablets[0]?.windowSeconds ?? 10;
  const legend = [
    `STORED: bytes in storage (compressed SSTables and memtables); LOGICAL: uncompressed keys and cells; rates over the last ${window} s.`,
    "SERVING: serving time as a percent of one node (the node model's CPU: time spent in the tablet's reads and writes).",
  ];
  if (tablets.some((t) => t.estimates.length > 0)) {
    legend.push(
      '~ estimate: the durable engine counts a row once per SSTable and memtable holding it until compaction; split tablets estimate their share of shared files.',
    );
  }
  return [...table, '', ...legend].join('\n');
}

function num(n: number): string {
  return n >= 100 ? String(Math.round(n)) : n.toFixed(1);
}
