import { DEFAULT_CONFIG } from '../../../config.js';
import { VIEW_WINDOW_SECONDS } from '../../../db/tablet-views.js';
import { type ByteString, compareBytes, printable } from '../../../model/bytes.js';
import { invalidArgument } from '../../../model/errors.js';
import { formatBytes, formatCount } from '../../../units.js';
import type { SimulationJson, TableSample, TransformSpec } from '../types.js';
import { type ReplayInput, type ReplayResult, type ReplaySettings, replay } from './replay.js';
import { describeTransform, keyTransform, parseTransform } from './transform.js';
import { buildWorkload, type Workload } from './workload.js';

/**
 * The what-if: a table's sampled keys and recorded traffic replayed as they
 * are (`before`) and rewritten by a TRANSFORM (`after`), both through the
 * same procedure (replay.ts) with the same thresholds, scaled to the sample
 * so that a developer's small table behaves as a production one would:
 *   - rounds stand for the balancer's interval (5 s); each round checks the
 *     tablets as often as the tablet manager would in that time (5), a
 *     tablet splits by load after the load-split window (30 s: 6 rounds),
 *     and the balancer reads the tablet views' window (10 s: 2 rounds);
 *   - the split size is the table's bytes over TABLETS_PER_NODE tablets a
 *     node, so the table makes several tablets on every node;
 *   - a tablet is hot when it takes more than half a node's even share of
 *     a round's ops.
 */

/** Rounds replayed (3 minutes of 5 s rounds). */
export const ROUNDS = 36;
/** The split size gives the table about this many tablets a node (between this and twice it). */
export const TABLETS_PER_NODE = 4;
/** A tablet is hot above this share of a node's even share of the ops. */
export const HOT_SHARE_OF_NODE = 0.5;
/** The figures are those of a typical moment of the last this many rounds (a minute): see replay.ts typicalMoment. */
export const MEASURE_ROUNDS = 12;
export const MAX_NODES = 50;
const MAX_TABLETS = 600;
const EXAMPLES = 5;

/** `GET .../tables/{t}/simulate` and `tabletop advise --simulate`: throws InvalidArgument for a bad transform or node count. */
export function simulate(table: TableSample, transform: TransformSpec, opts: { readonly nodes: number }): SimulationJson {
  const parsed = parseTransform(transform);
  const nodes = opts.nodes;
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > MAX_NODES) {
    throw invalidArgument(`Invalid node count ${nodes}: simulate on 1 to ${MAX_NODES} nodes`);
  }
  const { delimiter, apply } = keyTransform(parsed, table.keys.length > 0 ? table.keys : table.writeOrder);
  const workload = buildWorkload(table, ROUNDS, delimiter);
  const settings = settingsFor(workload, nodes);
  // The keys as they are go through the very same replay as the rewritten ones.
  const before = replay(workload, settings);
  const after = replay(rewritten(workload, apply), settings);
  return {
    table: table.name.table,
    transform,
    description: `${capitalise(describeTransform(parsed, delimiter))}. ${model(workload, settings)}`,
    nodes,
    keysSampled: workload.keysSampled,
    examples: examples(table.keys.length > 0 ? [...table.keys].sort(compareBytes) : workload.keys, apply),
    before: before.side,
    after: after.side,
    verdict: verdict(workload, nodes, before, after),
  };
}

function settingsFor(w: Workload, nodes: number): ReplaySettings {
  const bytes = w.bytes.reduce((a, b) => a + b, 0);
  const opsPerRound = (w.readOps + w.writeOps) / ROUNDS;
  const { balanceIntervalMillis, tabletCheckIntervalMillis, loadSplitWindowMillis } = DEFAULT_CONFIG;
  return {
    nodes,
    splitBytes: bytes > 0 ? bytes / (TABLETS_PER_NODE * nodes) : Number.POSITIVE_INFINITY,
    hotOps: opsPerRound > 0 ? (HOT_SHARE_OF_NODE * opsPerRound) / nodes : Number.POSITIVE_INFINITY,
    hotRounds: Math.max(1, Math.round(loadSplitWindowMillis / balanceIntervalMillis)),
    checksPerRound: Math.max(1, Math.round(balanceIntervalMillis / tabletCheckIntervalMillis)),
    loadWindowRounds: Math.max(1, Math.round((VIEW_WINDOW_SECONDS * 1000) / balanceIntervalMillis)),
    measureRounds: MEASURE_ROUNDS,
    maxTablets: Math.min(MAX_TABLETS, Math.max(64, 6 * TABLETS_PER_NODE * nodes)),
  };
}

/** The workload with its keys rewritten: sorted again, keys that became one merged. */
function rewritten(w: Workload, fn: (key: ByteString) => ByteString): ReplayInput {
  const order = w.keys.map((k, i) => ({ key: fn(k), i })).sort((a, b) => compareBytes(a.key, b.key));
  const keys: ByteString[] = [];
  const from: number[][] = [];
  for (const { key, i } of order) {
    if (keys[keys.length - 1] === key) from[from.length - 1]!.push(i);
    else {
      keys.push(key);
      from.push([i]);
    }
  }
  const gather = (values: readonly number[]): number[] => from.map((is) => is.reduce((a, i) => a + values[i]!, 0));
  return {
    keys,
    bytes: gather(w.bytes),
    reads: gather(w.reads),
    writes: w.writes.map(gather),
    born: from.map((is) => Math.min(...is.map((i) => w.born[i]!))),
  };
}

/** How the replay was scaled, in words. */
function model(w: Workload, s: ReplaySettings): string {
  const seconds = DEFAULT_CONFIG.balanceIntervalMillis / 1000;
  const figure = (n: number): string => (n >= 10 ? formatCount(n) : n.toFixed(1));
  const parts = [
    `Replayed on ${s.nodes} node${s.nodes === 1 ? '' : 's'}: ${formatCount(w.keys.length)} keys standing for ` +
      `${formatBytes(w.bytes.reduce((a, b) => a + b, 0))} and ${formatCount(w.readOps)} reads and ${formatCount(w.writeOps)} writes, ` +
      `over ${ROUNDS} rounds of ${seconds} s`,
    w.writeTime === 'even'
      ? 'the ops evenly over time'
      : `the writes in ${w.writeTime === 'key order' ? 'key order' : 'the order of the timestamps in the keys'}, as they came ` +
        '(one moment a round, each key stored from its first write)',
    Number.isFinite(s.splitBytes)
      ? `tablets split past ${formatBytes(s.splitBytes)} (the table's bytes over ${TABLETS_PER_NODE} tablets a node)`
      : 'no size splits (no stored bytes)',
    Number.isFinite(s.hotOps)
      ? `a tablet above ${figure(s.hotOps)} ops a round (half a node's even share) for ${s.hotRounds * seconds} s splits where its load divides`
      : 'no load splits (no ops)',
    `balanced as the server does; the figures are those of the moment a typical op of the last ${MEASURE_ROUNDS * seconds} s met ` +
      `(the round at the ops-weighted median of the busiest node's share), scaled to the whole window`,
  ];
  return `${parts.join('; ')}.`;
}

function examples(keys: readonly ByteString[], fn: (key: ByteString) => ByteString): { before: string; after: string }[] {
  const n = Math.min(EXAMPLES, keys.length);
  return Array.from({ length: n }, (_, i) => {
    // Spread over the keys, shifted a little each time so that a grid of keys (time × entity) shows several entities.
    const key = keys[Math.min(keys.length - 1, Math.floor((i * keys.length) / n) + i)]!;
    return { before: printable(key), after: printable(fn(key)) };
  });
}

const pct = (share: number): string => `${Math.round(share * 100)}%`;

/** One sentence: did the transform spread the load (the busiest node's share of ops, before → after). */
function verdict(w: Workload, nodes: number, before: ReplayResult, after: ReplayResult): string {
  if (w.readOps + w.writeOps <= 0) {
    return 'No traffic was recorded for this table (recording off, or no requests in the window), so only its stored bytes were replayed and there is no load to compare.';
  }
  const b = before.side.maxNodeShare;
  const a = after.side.maxNodeShare;
  const even = 1 / nodes;
  const figures = `the busiest node's share of ops goes from ${pct(b)} to ${pct(a)} on ${nodes} nodes (${pct(even)} would be even)`;
  const oneRow =
    after.maxKeyShare >= 0.25
      ? `, because a single row takes ${pct(after.maxKeyShare)} of the ops and no key design spreads one row's load`
      : '';
  if (nodes === 1) {
    return `With one node every op lands on it whatever the keys; the busiest tablet's share goes from ${pct(before.side.maxTabletShare)} to ${pct(after.side.maxTabletShare)}.`;
  }
  if (a <= b - 0.05) {
    return a <= even * 1.5
      ? `The transform spreads the load: ${figures}.`
      : `The transform helps but the load stays uneven: ${figures}${oneRow}.`;
  }
  if (a >= b + 0.05) return `The transform concentrates the load: ${figures}${oneRow}.`;
  return b <= even * 1.5
    ? `The load is spread already and stays so: ${figures}.`
    : `The transform does not spread the load: ${figures}${oneRow}.`;
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
