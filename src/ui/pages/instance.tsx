import type { ClusterNodesJson, HotTabletJson, InstanceDetailJson, TableJson } from '../api.js';
import { instancePath } from '../api.js';
import { Section } from '../components/status.js';
import { useJson } from '../components/use-json.js';
import { formatBytes, formatNumber } from '../format.js';
import { DEFAULT_VIEW, formatRoute } from '../routes.js';
import { quoteIdent } from '../sql/examples.js';
import { HotTablets } from './hot-tablets.js';

/** An instance: its tables (size, rows, tablets), clusters and nodes, hot tablets. */
export function InstancePage(props: { readonly project: string; readonly instance: string }) {
  const base = instancePath(props.project, props.instance);
  const instance = useJson<InstanceDetailJson>(base);
  const tables = useJson<{ tables: readonly TableJson[] }>(`${base}/tables`);
  const nodes = useJson<{ clusters: readonly ClusterNodesJson[] }>(`${base}/nodes`);
  const hot = useJson<{ hotTablets: readonly HotTabletJson[] }>(`${base}/hot-tablets`);
  const ref = { project: props.project, instance: props.instance };
  return (
    <div>
      <h1>
        Instance {props.instance} <span class="muted">in {props.project}</span>
        <a class="action" id="advisor-link" href={formatRoute({ page: 'advice', ...ref })}>
          Schema advisor →
        </a>
        <a class="action" id="sql-link" href={formatRoute({ page: 'sql', ...ref })}>
          SQL →
        </a>
      </h1>
      <Section state={instance}>
        {(i) => (
          <p class="muted">
            {i.displayName} · {i.type} · clusters:{' '}
            {(i.clusters ?? []).map((c) => `${c.clusterId} (${c.serveNodes ?? '?'} nodes, ${c.storageType ?? ''})`).join(', ')}
          </p>
        )}
      </Section>
      <Section title="Tables" state={tables}>
        {(d) =>
          d.tables.length === 0 ? (
            <p class="muted">No tables.</p>
          ) : (
            <table class="grid" id="tables">
              <thead>
                <tr>
                  <th>Table</th>
                  <th class="num">Stored</th>
                  <th class="num">Rows</th>
                  <th class="num">Tablets</th>
                  <th>Families</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {d.tables.map((t) => (
                  <tr key={t.name}>
                    <td>
                      <a href={formatRoute({ page: 'table', ...ref, table: t.tableId })}>{t.tableId}</a>
                    </td>
                    <td class="num">
                      {formatBytes(t.storedBytes)}
                      <Estimate of="storedBytes" estimates={t.estimates} />
                    </td>
                    <td class="num">
                      {formatNumber(t.rowCount)}
                      <Estimate of="rowCount" estimates={t.estimates} />
                    </td>
                    <td class="num">{formatNumber(t.tabletCount)}</td>
                    <td>{(t.families ?? []).map((f) => f.name).join(', ')}</td>
                    <td>
                      <a href={formatRoute({ page: 'heatmap', ...ref, table: t.tableId, view: DEFAULT_VIEW })}>heatmap</a>
                      {' · '}
                      <a href={formatRoute({ page: 'advice', ...ref, table: t.tableId })}>advice</a>
                      {' · '}
                      <a
                        class="sql-table-link"
                        href={formatRoute({ page: 'sql', ...ref, query: `SELECT * FROM ${quoteIdent(t.tableId)} LIMIT 10` })}
                      >
                        query
                      </a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Section>
      <Section title="Nodes" state={nodes}>
        {(d) => (
          <div>
            {d.clusters.map((c) => (
              <div key={c.clusterId}>
                <h3>
                  {c.clusterId}{' '}
                  <span class="muted">
                    ({c.serveNodes} serve nodes, utilization {formatNumber(c.servingUtilization)})
                  </span>
                </h3>
                <table class="grid">
                  <thead>
                    <tr>
                      <th>Node</th>
                      <th class="num">Tablets</th>
                      <th class="num">Stored</th>
                      <th class="num">Requests/s</th>
                      <th class="num">Utilization</th>
                      <th>Load share</th>
                    </tr>
                  </thead>
                  <tbody>
                    {c.nodes.map((n) => (
                      <tr key={n.node}>
                        <td>{n.node}</td>
                        <td class="num">{n.tabletCount}</td>
                        <td class="num">{formatBytes(n.storedBytes)}</td>
                        <td class="num">{formatNumber(n.requestsPerSec)}</td>
                        <td class="num">{formatNumber(n.servingUtilization)}</td>
                        <td>
                          <LoadBar share={n.loadShare ?? 0} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            ))}
          </div>
        )}
      </Section>
      <Section title="Hot tablets" state={hot}>
        {(d) => <HotTablets hot={d.hotTablets} />}
      </Section>
    </div>
  );
}

export function LoadBar(props: { readonly share: number }) {
  const pct = Math.max(0, Math.min(1, props.share)) * 100;
  return (
    <span class="bar" title={`${pct.toFixed(1)}%`}>
      <span style={{ width: `${pct}%` }} />
    </span>
  );
}

/** A "~" after a figure the server marks as an estimate. */
export function Estimate(props: { readonly of: string; readonly estimates: readonly string[] | undefined }) {
  return props.estimates?.includes(props.of) === true ? (
    <span class="estimate" title="an estimate (durable engine: counted once per SSTable holding it until compaction)">
      ~
    </span>
  ) : null;
}
