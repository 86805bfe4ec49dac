/**
 * Fixture JSON in the server's shapes (src/insight/api-types.ts and the
 * JSON API's), to develop and test the pages without a recording server: a
 * table written with sequential keys (`user#<n>#ts#<counter>`), so a rising
 * diagonal, plus a quiet band, a gap before the table existed and the
 * diagnostics that go with it. Deterministic: the same options give the same JSON.
 */
import { METRIC_UNITS, type DiagnosticsJson, type HeatmapJson, type HierarchySpanJson, type Metric } from '../../insight/api-types.js';
import { seededRandom } from '../../testing/random.js';
import type { AdviceJson, Finding, SimulatedTablet, SimulationJson, SimulationSide } from '../../insight/advisor/types.js';
import type { ClusterNodesJson, HotTabletJson, InstanceDetailJson, ProjectJson, TableJson, TabletJson } from '../api.js';

export interface FixtureOptions {
  readonly project: string;
  readonly instance: string;
  readonly table: string;
  readonly columns: number;
  readonly buckets: number;
  /** Start of the first column (epoch ms) and seconds per column. */
  readonly startMillis: number;
  readonly resolutionSeconds: number;
}

export const FIXTURE: FixtureOptions = {
  project: 'demo',
  instance: 'dev',
  table: 'events',
  columns: 90,
  buckets: 120,
  startMillis: Date.UTC(2026, 10, 27, 8, 0, 0),
  resolutionSeconds: 10,
};

/** Columns before this one have no recording (null): the table did not exist yet. */
const FIRST_RECORDED = 6;

/** The key at the start of bucket i: two users, the first with most of the rows. */
export function fixtureKey(i: number, buckets: number): string {
  const user = i < (buckets * 3) / 4 ? 1 : 2;
  return `user#${user}#ts#${String(i * 1000).padStart(8, '0')}`;
}

function b64(s: string): string {
  return btoa(s);
}

/** The bucket the sequential writes hit in column c (the diagonal), or undefined before the table existed. */
export function diagonalBucket(c: number, o: FixtureOptions = FIXTURE): number | undefined {
  if (c < FIRST_RECORDED) return undefined;
  return Math.min(o.buckets - 1, Math.floor(((c - FIRST_RECORDED) / (o.columns - FIRST_RECORDED)) * o.buckets));
}

export function fixtureHeatmap(metric: Metric = 'ops', o: FixtureOptions = FIXTURE): HeatmapJson {
  const rnd = seededRandom(21);
  const buckets = Array.from({ length: o.buckets }, (_, i) => {
    const start = fixtureKey(i, o.buckets);
    const end = i + 1 < o.buckets ? fixtureKey(i + 1, o.buckets) : null;
    return { start: b64(start), end: end === null ? null : b64(end), startText: start, endText: end, rows: 1000, bytes: 1000 * 180 };
  });
  const values = Array.from({ length: o.columns }, (_, c) => {
    const hot = diagonalBucket(c, o);
    return buckets.map((_, b) => {
      if (hot === undefined) return null;
      if (b === hot) return 400 + 10 * c; // rising: the last column holds the maximum
      if (Math.abs(b - hot) === 1) return 40 + rnd() * 20;
      if (b >= (o.buckets * 3) / 4) return rnd() * 4; // user#2: light, even reads
      return rnd() < 0.05 ? rnd() : 0;
    });
  });
  const times = values.map((_, c) => new Date(o.startMillis + c * o.resolutionSeconds * 1000).toISOString());
  const split = (o.buckets * 3) / 4;
  const hierarchy: HierarchySpanJson[] = [
    { depth: 1, text: 'user', from: 0, to: o.buckets - 1 },
    { depth: 2, text: 'user#1', from: 0, to: split - 1 },
    { depth: 2, text: 'user#2', from: split, to: o.buckets - 1 },
    { depth: 3, text: 'user#1#ts', from: 0, to: split - 1 },
    { depth: 3, text: 'user#2#ts', from: split, to: o.buckets - 1 },
  ];
  return {
    table: `projects/${o.project}/instances/${o.instance}/tables/${o.table}`,
    metric,
    unit: METRIC_UNITS[metric],
    resolutionSeconds: o.resolutionSeconds,
    from: times[0]!,
    to: new Date(o.startMillis + o.columns * o.resolutionSeconds * 1000).toISOString(),
    times,
    buckets,
    values,
    hierarchy,
    approximate: false,
    live: false,
  };
}

export function fixtureDiagnostics(o: FixtureOptions = FIXTURE): DiagnosticsJson {
  const h = fixtureHeatmap('write_ops', o);
  const first = h.buckets[0]!;
  const last = h.buckets[o.buckets - 1]!;
  return {
    table: h.table,
    from: h.from,
    to: h.to,
    diagnostics: [
      {
        kind: 'sequential_keys',
        severity: 'warning',
        message: `Writes moved through the key space in order, from ${first.startText} to ${last.startText}: sequentially increasing keys (a diagonal band) put all writes on one tablet at a time.`,
        keyRange: { start: first.start, end: null, startText: first.startText, endText: null },
        timeRange: { from: h.times[FIRST_RECORDED]!, to: h.to },
        evidence: { activeColumns: o.columns - FIRST_RECORDED, slopeBucketsPerMinute: 8.5 },
        advice: 'Promote a field you query by before the timestamp, or salt the key with a small hashed prefix.',
      },
      {
        kind: 'key_space_not_to_scale',
        severity: 'info',
        message: 'The table has few rows: each key bucket holds one row, so the key axis is not to scale.',
        keyRange: { start: first.start, end: null, startText: first.startText, endText: null },
        timeRange: { from: h.from, to: h.to },
        evidence: {},
      },
    ],
  };
}

function keyJson(s: string | null) {
  return s === null ? null : { base64: b64(s), printable: s };
}

export function fixtureTablets(o: FixtureOptions = FIXTURE): TabletJson[] {
  const cuts = [null, fixtureKey(o.buckets / 2, o.buckets), fixtureKey((o.buckets * 3) / 4, o.buckets), null];
  return [0, 1, 2].map((i) => ({
    tabletId: `t1.${i + 1}`,
    startKey: i === 0 ? null : keyJson(cuts[i]!),
    endKey: keyJson(cuts[i + 1] ?? null),
    storedBytes: [9_400_000, 8_100_000, 3_000_000][i]!,
    logicalBytes: [12_000_000, 10_000_000, 4_000_000][i]!,
    rowCount: [60_000, 30_000, 30_000][i]!,
    estimates: [],
    nodes: [{ clusterId: 'dev-c1', node: i % 2 }],
    rates: {
      requestsPerSec: [2, 410, 3][i]!,
      rowsReadPerSec: [0, 0, 12][i]!,
      rowsWrittenPerSec: [0, 410, 0][i]!,
      bytesReadPerSec: [0, 0, 2000][i]!,
      bytesWrittenPerSec: [0, 74_000, 0][i]!,
      servingMicrosPerSec: [40, 61_000, 90][i]!,
    },
    singleRowHotspot: null,
  }));
}

export function fixtureTables(o: FixtureOptions = FIXTURE): TableJson[] {
  return [
    {
      name: `projects/${o.project}/instances/${o.instance}/tables/${o.table}`,
      tableId: o.table,
      createTime: new Date(o.startMillis).toISOString(),
      families: [
        { name: 'cf', gcPolicy: 'versions() > 1' },
        { name: 'meta', gcPolicy: '(versions() > 2 || age() > 7d)' },
      ],
      storedBytes: 20_500_000,
      rowCount: 120_000,
      tabletCount: 3,
      estimates: ['rowCount'],
      authorizedViews: [
        {
          id: 'tenant-a',
          name: `projects/${o.project}/instances/${o.instance}/tables/${o.table}/authorizedViews/tenant-a`,
          deletionProtection: true,
          rowPrefixes: [{ base64: btoa('a#'), printable: 'a#' }],
          familySubsets: [{ family: 'cf', qualifiers: [{ base64: btoa('name'), printable: 'name' }], qualifierPrefixes: [] }],
        },
      ],
    },
    // An older server's tables list: no size fields.
    { name: `projects/${o.project}/instances/${o.instance}/tables/legacy`, tableId: 'legacy', families: [{ name: 'cf' }] },
  ];
}

export function fixtureProjects(o: FixtureOptions = FIXTURE): { projects: ProjectJson[] } {
  return { projects: [{ projectId: o.project, instances: [fixtureInstance(o)] }] };
}

export function fixtureInstance(o: FixtureOptions = FIXTURE): InstanceDetailJson {
  return {
    name: `projects/${o.project}/instances/${o.instance}`,
    project: o.project,
    instanceId: o.instance,
    displayName: 'Development',
    type: 'PRODUCTION',
    createTime: new Date(o.startMillis).toISOString(),
    clusters: [{ clusterId: 'dev-c1', location: 'projects/demo/locations/local', serveNodes: 2, storageType: 'SSD' }],
    appProfiles: [{ appProfileId: 'default', description: 'Default app profile' }],
  };
}

export function fixtureNodes(o: FixtureOptions = FIXTURE): { clusters: ClusterNodesJson[] } {
  const t = fixtureTablets(o);
  return {
    clusters: [
      {
        clusterId: 'dev-c1',
        serveNodes: 2,
        servingUtilization: 0.031,
        nodes: [0, 1].map((n) => ({
          node: n,
          storedBytes: t.filter((x) => x.nodes[0]!.node === n).reduce((s, x) => s + x.storedBytes, 0),
          tabletCount: t.filter((x) => x.nodes[0]!.node === n).length,
          requestsPerSec: n === 0 ? 5 : 410,
          servingUtilization: n === 0 ? 0.0001 : 0.061,
          loadShare: n === 0 ? 0.002 : 0.998,
        })),
      },
    ],
  };
}

export function fixtureHotTablets(o: FixtureOptions = FIXTURE): { hotTablets: HotTabletJson[] } {
  const t = fixtureTablets(o)[1]!;
  return {
    hotTablets: [
      {
        ...t,
        table: `projects/${o.project}/instances/${o.instance}/tables/${o.table}`,
        tableLabel: o.table,
        clusterId: 'dev-c1',
        node: 1,
        servingPercentOfNode: 6.1,
        shareOfNodeServing: 0.99,
      },
    ],
  };
}

/** The schema advisor's findings on the fixture: the events table's sequential writes; the legacy table is clean. */
export function fixtureFindings(o: FixtureOptions = FIXTURE): Finding[] {
  const keys = [0, 40, 80].map((i) => fixtureKey(i, o.buckets));
  return [
    {
      rule: 'hot-tablet',
      severity: 'danger',
      table: o.table,
      message: `One tablet of ${o.table} took 99% of the table's ops over the window, all on node 1: the node serves the table alone while node 0 idles.`,
      evidence: { tabletShare: 0.99, nodeShare: 0.998, node: 1, tablets: 3 },
      suggestion:
        'Spread the writes over the key space: salt the key with a hash of the user, `user#1#ts#00040000` → `5#user#1#ts#00040000`.',
      simulate: 'salt:8@2',
      keyRange: { start: btoa(keys[1]!), end: null, startText: keys[1]!, endText: null },
    },
    {
      rule: 'sequential-key',
      severity: 'warning',
      table: o.table,
      message:
        'Row keys increase monotonically after the user (a zero-padded counter): new rows always land on the last tablet of each user.',
      evidence: { sampleKeys: keys, writesToLastTabletShare: 0.97, keysSampled: 1000 },
      suggestion: 'Reverse the counter so that new rows spread, `user#1#ts#00040000` → `user#1#ts#00004000`, or salt the key.',
      simulate: 'reverse:4',
    },
    {
      rule: 'low-cardinality-prefix',
      severity: 'info',
      table: o.table,
      message:
        'The leading segment has 1 distinct value (user): it carries all the traffic, but the next segment spreads it, so this may be fine.',
      evidence: { prefixes: ['user'], distinct: 1 },
      suggestion: 'Drop the constant prefix: `user#1#ts#00040000` → `1#ts#00040000`.',
    },
  ];
}

export function fixtureAdvice(only: string | undefined, o: FixtureOptions = FIXTURE): AdviceJson {
  const tables = fixtureTables(o).map((t) => t.tableId);
  return {
    instance: `projects/${o.project}/instances/${o.instance}`,
    generatedAt: new Date(o.startMillis + o.columns * o.resolutionSeconds * 1000).toISOString(),
    window: {
      from: new Date(o.startMillis).toISOString(),
      to: new Date(o.startMillis + o.columns * o.resolutionSeconds * 1000).toISOString(),
    },
    tables: only === undefined ? tables : tables.filter((t) => t === only),
    findings: fixtureFindings(o).filter((f) => only === undefined || f.table === only),
  };
}

/** The steps the fixture's what-if knows (the TRANSFORM grammar's); anything else is rejected as the server would. */
const TRANSFORM_STEP = /^(salt:\d+(@\d+)?|promote:\d+|reverse:\d+|reverse-timestamp:\d+|pad:(\d+:)?\d+|delimiter=.)$/;

/** A what-if on the fixture: 3 tablets, one taking 99% of the ops, before; 8 even-ish tablets after. */
export function fixtureSimulation(
  transform: string,
  nodes = 2,
  o: FixtureOptions = FIXTURE,
): SimulationJson | { error: { code: string; message: string } } {
  const bad = transform.split(',').find((step) => !TRANSFORM_STEP.test(step.trim()));
  if (bad !== undefined) {
    return {
      error: {
        code: 'InvalidArgument',
        message: `Bad transform step "${bad}". TRANSFORM: steps separated by ',': salt:N, salt:N@S, promote:S, reverse:S, reverse-timestamp:S, pad:S:W | pad:W.`,
      },
    };
  }
  const side = (shares: number[], cut: (i: number) => string): SimulationSide => {
    const tablets: SimulatedTablet[] = shares.map((share, i) => ({
      startText: i === 0 ? '' : cut(i),
      endText: i === shares.length - 1 ? null : cut(i + 1),
      bytes: Math.round(20_500_000 / shares.length),
      readOps: Math.round(share * 100),
      writeOps: Math.round(share * 41_000),
      share,
      node: i % nodes,
    }));
    const nodeList = Array.from({ length: nodes }, (_, node) => {
      const mine = tablets.filter((t) => t.node === node);
      const share = mine.reduce((s, t) => s + t.share, 0);
      return {
        node,
        tablets: mine.length,
        bytes: mine.reduce((s, t) => s + t.bytes, 0),
        ops: mine.reduce((s, t) => s + t.readOps + t.writeOps, 0),
        share,
      };
    });
    return { tablets, nodes: nodeList, maxTabletShare: Math.max(...shares), maxNodeShare: Math.max(...nodeList.map((n) => n.share)) };
  };
  const before = side([0.004, 0.99, 0.006], (i) => fixtureKey((i * o.buckets) / 2, o.buckets));
  const after = side([0.13, 0.12, 0.125, 0.12, 0.13, 0.125, 0.12, 0.13], (i) => `${i}#user#1#ts`);
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  return {
    table: o.table,
    transform,
    description: `the key transformed by ${transform}`,
    nodes,
    keysSampled: 1000,
    examples: [0, 40, 80].map((i) => ({ before: fixtureKey(i, o.buckets), after: `${i % 8}#${fixtureKey(i, o.buckets)}` })),
    before,
    after,
    verdict: `The busiest node's share of ops falls from ${pct(before.maxNodeShare)} to ${pct(after.maxNodeShare)}.`,
  };
}

/**
 * The fixture API: the JSON for an API path (segments after the host,
 * decoded) and query, or undefined for a path it does not know; an
 * `{ error }` body is the server's answer to a bad request (400).
 */
export function fixtureApi(segments: readonly string[], query: URLSearchParams, o: FixtureOptions = FIXTURE): unknown {
  const [api, v1, projects, project, instances, instance, tables, table, leaf] = segments;
  if (api !== 'api' || v1 !== 'v1' || projects !== 'projects') return undefined;
  if (project === undefined) return fixtureProjects(o);
  if (project !== o.project || instances !== 'instances') return undefined;
  if (instance === undefined) return { instances: [fixtureInstance(o)] };
  if (instance !== o.instance) return undefined;
  if (tables === undefined) return fixtureInstance(o);
  if (tables === 'nodes') return fixtureNodes(o);
  if (tables === 'hot-tablets') return fixtureHotTablets(o);
  if (tables === 'advice') {
    const only = query.get('table') ?? undefined;
    return only === undefined || fixtureTables(o).some((t) => t.tableId === only) ? fixtureAdvice(only, o) : undefined;
  }
  if (tables !== 'tables') return undefined;
  if (table === undefined) return { tables: fixtureTables(o) };
  const t = fixtureTables(o).find((x) => x.tableId === table);
  if (t === undefined) return undefined;
  if (leaf === undefined) return t;
  if (leaf === 'tablets') return { tablets: fixtureTablets(o) };
  if (leaf === 'heatmap') return fixtureHeatmap((query.get('metric') as Metric | null) ?? 'ops', o);
  if (leaf === 'diagnostics') return fixtureDiagnostics(o);
  if (leaf === 'simulate') return fixtureSimulation(query.get('transform') ?? '', Number(query.get('nodes') ?? 2), o);
  return undefined;
}
