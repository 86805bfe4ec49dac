import type { HierarchySpanJson } from '../../insight/api-types.js';
import { laneCount, layoutHierarchy } from './hierarchy-layout.js';

export const LANE_PX = 76;

/** The key hierarchy beside the key axis: one lane per prefix depth (1 left), a bracket per prefix. */
export function HierarchyAxis(props: { readonly spans: readonly HierarchySpanJson[]; readonly buckets: number; readonly height: number }) {
  const brackets = layoutHierarchy(props.spans, props.buckets, props.height);
  const lanes = Math.max(1, laneCount(brackets));
  return (
    <div class="hierarchy" style={{ width: `${lanes * LANE_PX}px`, height: `${props.height}px` }}>
      {brackets.map((b) => (
        <div
          key={`${b.depth}:${b.from}`}
          class="bracket"
          title={`${b.text} (buckets ${b.from}–${b.to})`}
          style={{ left: `${(b.depth - 1) * LANE_PX}px`, top: `${b.top}px`, height: `${b.bottom - b.top}px`, width: `${LANE_PX - 4}px` }}
        >
          {b.labelled && <span>{b.text}</span>}
        </div>
      ))}
    </div>
  );
}
