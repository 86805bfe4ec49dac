import { type ByteString, keySuccessor, printable } from '../../../model/bytes.js';
import { keyRangeJson } from '../../key-range-json.js';
import { type Rule, type RuleContext, finding, percent, round, trafficTotals } from './context.js';
import type { Finding } from '../types.js';

/** A single row found taking the load, and where that was seen. */
interface HotRow {
  readonly key: ByteString | undefined;
  readonly share: number;
  readonly opsPerSecond: number;
  readonly source: string;
  readonly side: 'reads' | 'writes' | 'requests';
}

/** The most hot rows reported per table. */
const MAX_ROWS = 3;

/**
 * One row taking the load, which no split can spread: from the tablet
 * manager (a tablet's singleRowHotspot), the heatmap (a single-row
 * high_read/write_pressure), or the recorded traffic (a one-row bucket, not
 * at an edge, with `hotRowShare` of the table's writes, `hotRowLift` times its
 * share of the buckets). A danger at `hotDangerOpsPerSecond` or more, else a warning.
 * Counters (the row profile's counterLike families) are told to use an
 * aggregate family (AddToCell) or to buffer; other rows to shard.
 */
export const hotRow: Rule = (ctx) => {
  const rows = [...fromTablets(ctx), ...fromDiagnostics(ctx), ...fromTraffic(ctx)];
  const out: Finding[] = [];
  const keys = new Set<string>();
  for (const r of rows) {
    const id = r.key ?? '';
    if (keys.has(id) || out.length >= MAX_ROWS) continue;
    keys.add(id);
    out.push(describe(ctx, r));
  }
  return out;
};

function fromTablets(ctx: RuleContext): HotRow[] {
  return ctx.table.tablets.flatMap((tablet) => {
    const h = tablet.singleRowHotspot;
    if (h === undefined || h.share < ctx.t.hotRowShare) return [];
    const ops = tablet.rates.requestsPerSec * h.share;
    return [{ key: h.key, share: h.share, opsPerSecond: ops, source: `tablet manager (tablet ${tablet.id})`, side: 'requests' as const }];
  });
}

function fromDiagnostics(ctx: RuleContext): HotRow[] {
  return ctx.table.diagnostics.flatMap((d) => {
    if ((d.kind !== 'high_write_pressure' && d.kind !== 'high_read_pressure') || d.evidence.singleRow !== true) return [];
    // The same floor as the other sources: a row the heatmap narrowed a hot range down to, but which took only a few
    // percent of the table's ops (a thin sample of an evenly busy range), is not a hot row.
    if (Number(d.evidence.share ?? 0) < ctx.t.hotRowShare) return [];
    const key = d.evidence.key === undefined ? undefined : Buffer.from(d.keyRange.start, 'base64').toString('latin1');
    return [
      {
        key,
        share: Number(d.evidence.share ?? 0),
        opsPerSecond: Number(d.evidence.opsPerSecond ?? 0),
        source: `heatmap (${d.kind})`,
        side: d.kind === 'high_write_pressure' ? ('writes' as const) : ('reads' as const),
      },
    ];
  });
}

function fromTraffic(ctx: RuleContext): HotRow[] {
  const traffic = ctx.table.traffic;
  if (traffic === undefined || traffic.buckets.length === 0) return [];
  const total = trafficTotals(traffic);
  const n = traffic.buckets.length;
  return traffic.buckets.flatMap((b, i) => {
    // The edge buckets take the keys beyond the boundary set (a growing key lands there row after row): the heatmap's
    // pressure diagnostic knows the keys an edge bucket saw, so a single row there is its to name.
    if (i === 0 || i === n - 1) return [];
    const share = total.writeOps > 0 ? b.writeOps / total.writeOps : 0;
    if (b.rows !== 1 || total.writeOps < ctx.t.hotRowMinOps || share < ctx.t.hotRowShare || share * n < ctx.t.hotRowLift) return [];
    return [{ key: b.start, share, opsPerSecond: b.writeOps / total.seconds, source: 'recorded traffic', side: 'writes' as const }];
  });
}

function describe(ctx: RuleContext, r: HotRow): Finding {
  const key = r.key ?? '';
  const text = r.key === undefined ? 'one row' : `the row \`${printable(key)}\``;
  const profile = r.key === undefined ? undefined : ctx.table.rowProfiles.find((p) => p.key === r.key);
  const counters = profile?.families.filter((f) => f.counterLike).map((f) => f.family) ?? [];
  const aggregate = ctx.table.families.filter((f) => f.valueType.kind === 'aggregate').map((f) => f.name);
  const counterFamilies = counters.filter((f) => !aggregate.includes(f));
  const danger = r.opsPerSecond >= ctx.t.hotDangerOpsPerSecond;
  const message =
    `A hot row: ${text} takes ${percent(r.share)} of ${r.side === 'requests' ? "its tablet's requests" : `the table's ${r.side}`} ` +
    `(${round(r.opsPerSecond)} ops/s, seen by the ${r.source}). A row is never split, so one node serves all of it however ` +
    `the table is split or scaled, and each update to it queues behind the last.` +
    (counterFamilies.length > 0
      ? ` It holds counters (8-byte integers in ${counterFamilies.map((f) => `\`${f}\``).join(', ')}): read-modify-write increments on one row.`
      : '');
  const shard = `\`${printable(key)}#0\` … \`${printable(key)}#7\``;
  const suggestion =
    counterFamilies.length > 0
      ? `Count in an aggregate family: create \`${counterFamilies[0]}\` as a Sum (int64) family and send AddToCell(+n) to ` +
        `\`${printable(key)}\` (the server folds increments, no read-modify-write), or buffer increments in the writer and ` +
        `flush them once a second; if it is still too hot, shard it: ${shard}, summed on read.`
      : `Spread what the row holds over several rows: shard it by a small suffix, ${shard} (write to \`${printable(key)}#{hash(writer) % 8}\`, ` +
        `read the prefix \`${printable(key)}#\` and combine), or buffer the updates and write them in batches.`;
  return finding(
    ctx,
    'hot-row',
    danger ? 'danger' : 'warning',
    message,
    {
      ...(r.key === undefined ? {} : { key: printable(key) }),
      share: round(r.share),
      opsPerSecond: round(r.opsPerSecond),
      source: r.source,
      threshold: ctx.t.hotRowShare,
      dangerOpsPerSecond: ctx.t.hotDangerOpsPerSecond,
      ...(counters.length > 0 ? { counterFamilies: counters } : {}),
    },
    suggestion,
    r.key === undefined ? {} : { keyRange: keyRangeJson(key, keySuccessor(key)) },
  );
}
