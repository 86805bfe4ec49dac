import { useMemo, useState } from 'preact/hooks';
import type { SqlResponseJson } from '../api.js';
import { formatNumber } from '../format.js';
import type { BytesMode } from './show-value.js';
import { SqlCell, isNumeric } from './sql-cell.js';
import { parseSqlType } from './sql-type.js';

/** Rows drawn at first, and how many more each "more" adds: a large answer (up to the API's 10,000) never renders at once. */
export const FIRST_ROWS = 100;
export const MORE_ROWS = 500;

/**
 * A query's answer: the counts (rows, rows scanned, time), the column names with their types, the rows with
 * values shown by type (result-cell), the first FIRST_ROWS of them and a button for more.
 */
export function ResultTable(props: { readonly answer: SqlResponseJson; readonly clientMillis: number }) {
  const { answer } = props;
  const [shown, setShown] = useState(FIRST_ROWS);
  const [bytes, setBytes] = useState<BytesMode>('text');
  const types = useMemo(() => answer.columns.map((c) => parseSqlType(c.type)), [answer]);
  const n = answer.rows.length;
  const hasBytes = answer.columns.some((c) => c.type.includes('BYTES'));
  return (
    <section id="sql-result" class="sql-result">
      <p id="sql-summary" class="sql-summary">
        <span id="sql-row-count">
          {formatNumber(n)} {n === 1 ? 'row' : 'rows'}
        </span>
        {' · '}
        <span id="sql-rows-scanned">{formatNumber(answer.stats.rowsScanned)} scanned</span>
        {' · '}
        <span id="sql-time" title={`${formatNumber(props.clientMillis)} ms with the network and the JSON`}>
          {formatNumber(answer.stats.elapsedMillis)} ms
        </span>
        {answer.truncated && (
          <span id="sql-truncated" class="warning-note">
            {' '}
            · the first {formatNumber(n)} only (the API returns at most this many): narrow the query or add a LIMIT
          </span>
        )}
        {hasBytes && (
          <label class="bytes-toggle">
            BYTES as{' '}
            <select id="bytes-as" value={bytes} onChange={(e) => setBytes((e.currentTarget as HTMLSelectElement).value as BytesMode)}>
              <option value="text">text (hex when not printable)</option>
              <option value="hex">hex</option>
              <option value="base64">base64</option>
            </select>
          </label>
        )}
      </p>
      {n === 0 ? (
        <p class="muted">No rows.</p>
      ) : (
        <div class="sql-table-wrap">
          <table class="grid sql-rows" id="sql-rows">
            <thead>
              <tr>
                <th class="num row-no">#</th>
                {answer.columns.map((c, i) => (
                  <th key={i} class={isNumeric(types[i]) ? 'num' : undefined}>
                    <span class="col-name">{c.name}</span>
                    <span class="col-type">{c.type}</span>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {answer.rows.slice(0, shown).map((row, r) => (
                <tr key={r}>
                  <td class="num row-no">{r + 1}</td>
                  {row.map((v, i) => (
                    <td key={i} class={isNumeric(types[i]) ? 'num' : undefined}>
                      <SqlCell value={v} type={types[i]} bytes={bytes} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {shown < n && (
        <p class="more">
          <button id="sql-more" type="button" onClick={() => setShown(shown + MORE_ROWS)}>
            Show {formatNumber(Math.min(MORE_ROWS, n - shown))} more
          </button>{' '}
          <span class="muted">
            {formatNumber(shown)} of {formatNumber(n)} shown
          </span>
        </p>
      )}
    </section>
  );
}
