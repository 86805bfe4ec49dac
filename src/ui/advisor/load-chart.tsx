import type { SimulationSide } from '../../insight/advisor/types.js';
import { formatBytes, formatNumber, formatShare } from '../format.js';
import { keyText } from '../keys.js';
import { busiestTablets, nodeBars, shareY, shorten, type ChartBox } from './load-bars.js';

const NODE_BOX: ChartBox = { width: 400, height: 240, top: 22, bottom: 30 };
/** Room left of the plot for the scale's labels, right of it for the even share's. */
const AXIS = 44;
const RIGHT = 76;
/** Bars narrower than this get no value label (it would not fit). */
const LABEL_MIN_WIDTH = 26;

/**
 * One side of the what-if picture: each node's share of the ops as a bar,
 * on the scale both sides share (`ceiling`), with the even share (1 / nodes)
 * as a dashed line: a balanced table's bars all reach it.
 */
export function NodeChart(props: {
  readonly title: string;
  readonly side: SimulationSide;
  readonly ceiling: number;
  readonly which: string;
}) {
  const { side, ceiling } = props;
  const bars = nodeBars(side, NODE_BOX, ceiling);
  const even = side.nodes.length === 0 ? undefined : 1 / side.nodes.length;
  const ticks = [0, ceiling / 2, ceiling];
  const width = AXIS + NODE_BOX.width + RIGHT;
  return (
    <figure class="load-chart" data-side={props.which}>
      <figcaption>
        <strong>{props.title}</strong>: busiest node {formatShare(side.maxNodeShare)} of ops, busiest tablet{' '}
        {formatShare(side.maxTabletShare)}, {formatNumber(side.tablets.length)} tablets
      </figcaption>
      <svg
        class="nodes"
        width={width}
        height={NODE_BOX.height}
        viewBox={`0 0 ${width} ${NODE_BOX.height}`}
        role="img"
        aria-label={`${props.title}: share of ops per node`}
      >
        {ticks.map((t) => (
          <g key={t} class="tick">
            <line x1={AXIS - 4} x2={AXIS + NODE_BOX.width} y1={shareY(t, NODE_BOX, ceiling)} y2={shareY(t, NODE_BOX, ceiling)} />
            <text x={AXIS - 6} y={shareY(t, NODE_BOX, ceiling) + 4} text-anchor="end">
              {formatShare(t)}
            </text>
          </g>
        ))}
        <g transform={`translate(${AXIS},0)`}>
          {bars.map((b) => (
            <g key={b.node} class={b.share === side.maxNodeShare && side.nodes.length > 1 ? 'bar busiest' : 'bar'}>
              <rect class="node-bar" data-node={b.node} data-share={b.share} x={b.x} y={b.y} width={b.w} height={Math.max(b.h, 0.5)}>
                <title>{nodeTitle(side, b.node)}</title>
              </rect>
              {b.w >= LABEL_MIN_WIDTH && (
                <text class="value" x={b.x + b.w / 2} y={b.y - 5} text-anchor="middle">
                  {formatShare(b.share)}
                </text>
              )}
              {b.w >= LABEL_MIN_WIDTH / 2 && (
                <text class="node" x={b.x + b.w / 2} y={NODE_BOX.height - NODE_BOX.bottom + 16} text-anchor="middle">
                  {b.w >= LABEL_MIN_WIDTH * 2 ? `node ${b.node}` : b.node}
                </text>
              )}
            </g>
          ))}
          {even !== undefined && even <= ceiling && (
            <g class="even">
              <line x1={0} x2={NODE_BOX.width} y1={shareY(even, NODE_BOX, ceiling)} y2={shareY(even, NODE_BOX, ceiling)} />
              <text x={NODE_BOX.width + 4} y={shareY(even, NODE_BOX, ceiling) + 4}>
                even {formatShare(even)}
              </text>
            </g>
          )}
        </g>
      </svg>
    </figure>
  );
}

function nodeTitle(side: SimulationSide, node: number): string {
  const n = side.nodes.find((x) => x.node === node);
  if (n === undefined) return `node ${node}`;
  return `node ${node}: ${formatShare(n.share)} of ops (${formatNumber(n.ops)}), ${formatNumber(n.tablets)} tablets, ${formatBytes(n.bytes)}`;
}

const TABLET_ROW = 22;
const TABLET_LABEL = 290;
const TABLET_BAR = 190;

/** The busiest tablets of one side as horizontal bars of their share of ops, on a scale both sides share. */
export function TabletBars(props: {
  readonly side: SimulationSide;
  readonly ceiling: number;
  readonly count: number;
  readonly which: string;
}) {
  const tablets = busiestTablets(props.side, props.count);
  const width = TABLET_LABEL + TABLET_BAR + 56;
  const height = Math.max(1, tablets.length) * TABLET_ROW;
  return (
    <svg
      class="tablets"
      data-side={props.which}
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label="busiest tablets"
    >
      {tablets.map((t, i) => {
        const w = (Math.min(t.share, props.ceiling) / props.ceiling) * TABLET_BAR;
        const range = `${keyText(t.startText)} … ${keyText(t.endText, true)}`;
        const label = `${shorten(keyText(t.startText), 19)} … ${shorten(keyText(t.endText, true), 19)}`;
        return (
          <g key={i} class="tablet" transform={`translate(0,${i * TABLET_ROW})`}>
            <text class="key" x={TABLET_LABEL - 6} y={15} text-anchor="end">
              {label}
            </text>
            <rect class="tablet-bar" data-share={t.share} x={TABLET_LABEL} y={4} width={Math.max(w, 0.5)} height={TABLET_ROW - 8}>
              <title>
                {range}: {formatShare(t.share)} of ops ({formatNumber(t.readOps)} reads, {formatNumber(t.writeOps)} writes),{' '}
                {formatBytes(t.bytes)}, node {t.node}
              </title>
            </rect>
            <text class="value" x={TABLET_LABEL + w + 4} y={15}>
              {formatShare(t.share)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
