import type { HotTabletJson } from '../api.js';
import { formatNumber } from '../format.js';
import { keyText } from '../keys.js';

/** Tablets by the serving time they cost their node, hottest first. */
export function HotTablets(props: { readonly hot: readonly HotTabletJson[] }) {
  if (props.hot.length === 0) return <p class="muted">No tablet has had load lately.</p>;
  return (
    <table class="grid hot">
      <thead>
        <tr>
          <th>Tablet</th>
          <th>Table</th>
          <th>Keys</th>
          <th>Node</th>
          <th class="num">% of node</th>
          <th class="num">Requests/s</th>
        </tr>
      </thead>
      <tbody>
        {props.hot.map((h) => (
          <tr key={`${h.clusterId}/${h.tabletId}`}>
            <td>{h.tabletId}</td>
            <td>{h.tableLabel}</td>
            <td class="key">
              {keyText(h.startKey?.printable)} … {keyText(h.endKey?.printable, true)}
            </td>
            <td>
              {h.clusterId}/{h.node}
            </td>
            <td class="num">{formatNumber(h.servingPercentOfNode)}</td>
            <td class="num">{formatNumber(h.rates?.requestsPerSec)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
