import type { HeatmapJson } from '../../insight/api-types.js';
import { formatBytes, formatNumber, formatTime, formatValue } from '../format.js';
import { base64ToHex, keyText } from '../keys.js';
import type { Cell } from './grid.js';

/** Hex of a key, shortened past `maxBytes`. */
function hex(b64: string, maxBytes = 48): string {
  const h = base64ToHex(b64);
  return h.length > maxBytes * 2 ? `${h.slice(0, maxBytes * 2)}…` : h;
}

/** What one cell holds: its time bucket, key range (printable and hex), value with unit, rows and bytes. */
export function Tooltip(props: { readonly heatmap: HeatmapJson; readonly cell: Cell; readonly x: number; readonly y: number }) {
  const { heatmap, cell } = props;
  const bucket = heatmap.buckets[cell.row];
  const time = heatmap.times[cell.column];
  if (bucket === undefined || time === undefined) return null;
  const value = heatmap.values[cell.column]?.[cell.row] ?? null;
  const end = new Date(Date.parse(time) + heatmap.resolutionSeconds * 1000).toISOString();
  return (
    <div class="tooltip" style={{ left: `${props.x}px`, top: `${props.y}px` }}>
      <div class="value">{formatValue(value, heatmap.unit)}</div>
      <div>
        {formatTime(time)} – {formatTime(end).slice(11)}
      </div>
      <dl>
        <dt>start</dt>
        <dd class="key start-text">{keyText(bucket.startText)}</dd>
        <dd class="hex start-hex">{hex(bucket.start)}</dd>
        <dt>end</dt>
        <dd class="key end-text">{keyText(bucket.endText, true)}</dd>
        {bucket.end !== null && <dd class="hex end-hex">{hex(bucket.end)}</dd>}
      </dl>
      <div class="muted">
        bucket {cell.row + 1} of {heatmap.buckets.length}: {formatNumber(bucket.rows)} rows, {formatBytes(bucket.bytes)}
      </div>
    </div>
  );
}
