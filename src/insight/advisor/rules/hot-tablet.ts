import { type ByteString, printable } from '../../../model/bytes.js';
import { keyRangeJson } from '../../key-range-json.js';
import type { Finding, NodeLoad } from '../types.js';
import { type Rule, type RuleContext, finding, percent, rewrite, round, saltExample } from './context.js';

/**
 * One tablet of the table, or one node of a cluster, taking a
 * disproportionate share of the load: at least `hotTabletShare` and
 * `hotTabletLift` times the even share (at most MAX_SHARE: two nodes cannot
 * take twice their even share), at `hotMinOpsPerSecond` or more.
 * Needs two tablets (or two nodes) to compare. A node finding goes to the
 * table whose tablets on that node are busiest, if it has two tablets or more. A warning, a danger when the
 * node's serving time passes `nodeDangerShare` of its capacity. When a key
 * rule names the cause (hot-row, timestamp-leading-key, sequential-key)
 * advise() drops this one: one cause, one finding.
 */
/** The most share a hot tablet or node must take, however few there are. */
const MAX_SHARE = 0.8;

export const hotTablet: Rule = (ctx) => [...tablets(ctx), ...nodes(ctx)];

function tablets(ctx: RuleContext): Finding[] {
  const { t } = ctx;
  const list = ctx.table.tablets;
  if (list.length < 2) return [];
  const total = list.reduce((s, x) => s + x.rates.requestsPerSec, 0);
  const top = list.reduce((a, b) => (b.rates.requestsPerSec > a.rates.requestsPerSec ? b : a));
  const share = total > 0 ? top.rates.requestsPerSec / total : 0;
  if (total < t.hotMinOpsPerSecond || share < hotShare(ctx, list.length)) return [];
  const danger = top.rates.cpuMicrosPerSec >= t.nodeDangerShare * t.nodeMicrosPerSecond;
  const range = keyRangeJson(top.start, top.end);
  const example = keyIn(ctx, top.start, top.end);
  return [
    finding(
      ctx,
      'hot-tablet',
      danger ? 'danger' : 'warning',
      `One tablet takes ${percent(share)} of the table's requests (${round(top.rates.requestsPerSec)} of ${round(total)} per second ` +
        `over ${list.length} tablets): keys ${range.startText === '' ? '(start)' : `\`${range.startText}\``} to ${range.endText === null ? '(end)' : `\`${range.endText}\``}. ` +
        `A tablet is served by one node, so that node limits the whole table's throughput while the others idle.`,
      {
        tablet: top.id,
        share: round(share),
        requestsPerSecond: round(top.rates.requestsPerSec),
        tableRequestsPerSecond: round(total),
        tablets: list.length,
        servingMicrosPerSecond: round(top.rates.cpuMicrosPerSec),
        threshold: hotShare(ctx, list.length),
      },
      spread(ctx, example),
      { simulate: 'salt:8', keyRange: range },
    ),
  ];
}

function nodes(ctx: RuleContext): Finding[] {
  const { t } = ctx;
  const clusters = new Map<string, NodeLoad[]>();
  for (const n of ctx.input.nodes) clusters.set(n.cluster, [...(clusters.get(n.cluster) ?? []), n]);
  const out: Finding[] = [];
  for (const [cluster, list] of clusters) {
    if (list.length < 2) continue;
    const load = (n: NodeLoad): number => (list.some((x) => x.servingMicrosPerSec > 0) ? n.servingMicrosPerSec : n.requestsPerSec);
    const total = list.reduce((s, n) => s + load(n), 0);
    const requests = list.reduce((s, n) => s + n.requestsPerSec, 0);
    const top = list.reduce((a, b) => (load(b) > load(a) ? b : a));
    const share = total > 0 ? load(top) / total : 0;
    if (requests < t.hotMinOpsPerSecond || share < hotShare(ctx, list.length)) continue;
    // A table of one tablet cannot be spread over nodes (its load splits it when it is hot): nothing to tell.
    if (ctx.table.tablets.length < 2 || busiestTable(ctx, cluster, top.node) !== ctx.id) continue;
    const mine = ctx.table.tablets.filter((x) => x.placements.some((p) => p.cluster === cluster && p.node === top.node));
    const hottest = mine.reduce((a, b) => (b.rates.requestsPerSec > a.rates.requestsPerSec ? b : a), mine[0]!);
    const danger = top.servingMicrosPerSec >= t.nodeDangerShare * t.nodeMicrosPerSecond;
    out.push(
      finding(
        ctx,
        'hot-tablet',
        danger ? 'danger' : 'warning',
        `Node ${top.node} of cluster \`${cluster}\` does ${percent(share)} of the cluster's work (${list.length} nodes; ` +
          `${round(top.servingMicrosPerSec)} µs/s serving, ${round(top.requestsPerSec)} requests/s), most of it for this table ` +
          `(${mine.length} of its tablets there). The busiest node sets the cluster's latency and throughput; the others idle.`,
        {
          cluster,
          node: top.node,
          share: round(share),
          servingMicrosPerSecond: round(top.servingMicrosPerSec),
          requestsPerSecond: round(top.requestsPerSec),
          nodes: list.length,
          tabletsOnNode: mine.length,
          pressureIndex: round((100 * top.servingMicrosPerSec) / t.nodeMicrosPerSecond),
          threshold: hotShare(ctx, list.length),
        },
        spread(ctx, keyIn(ctx, hottest.start, hottest.end)),
        { simulate: 'salt:8', keyRange: keyRangeJson(hottest.start, hottest.end) },
      ),
    );
  }
  return out;
}

/** The table with the most requests on tablets that `node` of `cluster` holds (ties: the first by name). */
function busiestTable(ctx: RuleContext, cluster: string, node: number): string | undefined {
  let best: string | undefined;
  let most = 0;
  for (const table of ctx.input.tables) {
    const rate = table.tablets
      .filter((x) => x.placements.some((p) => p.cluster === cluster && p.node === node))
      .reduce((s, x) => s + x.rates.requestsPerSec, 0);
    if (rate > most) [best, most] = [table.name.table, rate];
  }
  return best;
}

function keyIn(ctx: RuleContext, start: ByteString, end: ByteString | undefined): ByteString {
  return ctx.shape.keys.find((k) => k >= start && (end === undefined || k < end)) ?? (start === '' ? (ctx.shape.keys[0] ?? 'key') : start);
}

function spread(ctx: RuleContext, example: ByteString): string {
  return (
    `Spread the busy range's keys over the table: lead with a field that differs between requests (field promotion), or salt ` +
    `the keys, ${rewrite(example, saltExample(example, ctx.shape.delimiter, 8))} (prefix \`hash(key) % 8\`), reading the 8 prefixes in ` +
    `parallel. If the load is one range's by nature (a batch job), pace it. Keys there: \`${printable(example)}\`.`
  );
}

/** The share of the load that makes one of `n` tablets (nodes) hot. */
function hotShare(ctx: RuleContext, n: number): number {
  return Math.max(ctx.t.hotTabletShare, Math.min(MAX_SHARE, ctx.t.hotTabletLift / n));
}
