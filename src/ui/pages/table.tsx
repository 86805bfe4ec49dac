import type { AdviceJson, HotTabletJson, TableJson, TabletJson } from '../api.js';
import { advicePath, instancePath, tablePath } from '../api.js';
import { worstSeverity } from '../advisor/finding-text.js';
import { Section } from '../components/status.js';
import { useJson } from '../components/use-json.js';
import { formatBytes, formatNumber } from '../format.js';
import { keyText } from '../keys.js';
import { DEFAULT_VIEW, formatRoute, type TableRef } from '../routes.js';
import { quoteIdent } from '../sql/examples.js';
import { AuthorizedViews } from './authorized-views.js';
import { HotTablets } from './hot-tablets.js';
import { Estimate, LoadBar } from './instance.js';

/** One table: column families and GC policies, its authorized views, tablets with their nodes and load, its hot tablets. */
export function TablePage(props: TableRef) {
  const table = useJson<TableJson>(tablePath(props));
  const tablets = useJson<{ tablets: readonly TabletJson[] }>(`${tablePath(props)}/tablets`);
  const hot = useJson<{ hotTablets: readonly HotTabletJson[] }>(`${instancePath(props.project, props.instance)}/hot-tablets`);
  const advice = useJson<AdviceJson>(advicePath(props.project, props.instance, props.table));
  return (
    <div>
      <h1>
        Table {props.table}{' '}
        <a class="action" href={formatRoute({ page: 'heatmap', ...props, view: DEFAULT_VIEW })}>
          Key Visualizer heatmap →
        </a>
        <a
          class="action"
          id="advice-link"
          href={formatRoute({ page: 'advice', project: props.project, instance: props.instance, table: props.table })}
        >
          Schema advice →
        </a>
        <AdviceBadge findings={advice.data?.findings} />
        <a
          class="action"
          id="sql-link"
          href={formatRoute({
            page: 'sql',
            project: props.project,
            instance: props.instance,
            query: `SELECT * FROM ${quoteIdent(props.table)} LIMIT 10`,
          })}
        >
          Query with SQL →
        </a>
      </h1>
      <Section title="Column families" state={table}>
        {(t) => (
          <table class="grid" id="families">
            <thead>
              <tr>
                <th>Family</th>
                <th>GC policy</th>
              </tr>
            </thead>
            <tbody>
              {(t.families ?? []).map((f) => (
                <tr key={f.name}>
                  <td>{f.name}</td>
                  <td class="key">{f.gcPolicy || 'none (keep every version)'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
      <Section title="Authorized views" state={table}>
        {(t) => <AuthorizedViews views={t.authorizedViews ?? []} />}
      </Section>
      <Section title="Tablets" state={tablets}>
        {(d) => {
          const total = d.tablets.reduce((s, t) => s + (t.rates?.servingMicrosPerSec ?? 0), 0);
          return (
            <table class="grid" id="tablets">
              <thead>
                <tr>
                  <th>Tablet</th>
                  <th>Keys</th>
                  <th class="num">Stored</th>
                  <th class="num">Rows</th>
                  <th>Nodes</th>
                  <th class="num">Requests/s</th>
                  <th class="num">Serving µs/s</th>
                  <th>Share of load</th>
                </tr>
              </thead>
              <tbody>
                {d.tablets.map((t) => (
                  <tr key={t.tabletId}>
                    <td>{t.tabletId}</td>
                    <td class="key">
                      {keyText(t.startKey?.printable)} … {keyText(t.endKey?.printable, true)}
                    </td>
                    <td class="num">{formatBytes(t.storedBytes)}</td>
                    <td class="num">
                      {formatNumber(t.rowCount)}
                      <Estimate of="rowCount" estimates={t.estimates} />
                    </td>
                    <td>{t.nodes.map((n) => `${n.clusterId}/${n.node}`).join(', ')}</td>
                    <td class="num">{formatNumber(t.rates?.requestsPerSec)}</td>
                    <td class="num">{formatNumber(t.rates?.servingMicrosPerSec)}</td>
                    <td>
                      <LoadBar share={total > 0 ? (t.rates?.servingMicrosPerSec ?? 0) / total : 0} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          );
        }}
      </Section>
      <Section title="Hot tablets" state={hot}>
        {(d) => <HotTablets hot={d.hotTablets.filter((h) => h.table.split('/').pop() === props.table)} />}
      </Section>
    </div>
  );
}

/** The table's findings as a count in its worst severity's colour, or ✓ for none; nothing while loading or if the server has no advisor. */
function AdviceBadge(props: { readonly findings: AdviceJson['findings'] | undefined }) {
  if (props.findings === undefined) return null;
  const worst = worstSeverity(props.findings);
  const n = props.findings.length;
  return (
    <span
      id="advice-count"
      class={`badge count ${worst ?? 'clean'}`}
      title={n === 0 ? 'the advisor has no findings for this table' : `${n} ${n === 1 ? 'finding' : 'findings'}, the worst ${worst}`}
    >
      {n === 0 ? '✓' : n}
    </span>
  );
}
