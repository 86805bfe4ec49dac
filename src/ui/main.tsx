import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { AdvicePage } from './pages/advice.js';
import { HeatmapPage } from './pages/heatmap.js';
import { InstancePage } from './pages/instance.js';
import { ProjectsPage } from './pages/projects.js';
import { SimulatePage } from './pages/simulate.js';
import { SqlPage } from './pages/sql.js';
import { TablePage } from './pages/table.js';
import { formatRoute, parseRoute, type Route } from './routes.js';
import './style.css';

function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onHash = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  return route;
}

function Crumbs(props: { readonly route: Route }) {
  const r = props.route;
  const parts: { label: string; href: string }[] = [{ label: 'tabletop', href: '#/' }];
  const inInstance =
    r.page === 'instance' || r.page === 'table' || r.page === 'heatmap' || r.page === 'advice' || r.page === 'simulate' || r.page === 'sql';
  if (inInstance) {
    parts.push({
      label: `${r.project} / ${r.instance}`,
      href: formatRoute({ page: 'instance', project: r.project, instance: r.instance }),
    });
  }
  if (r.page === 'table' || r.page === 'heatmap' || r.page === 'simulate') {
    parts.push({ label: r.table, href: formatRoute({ page: 'table', project: r.project, instance: r.instance, table: r.table }) });
  }
  if (r.page === 'heatmap') parts.push({ label: 'heatmap', href: location.hash });
  if (r.page === 'advice') parts.push({ label: r.table === undefined ? 'advice' : `advice: ${r.table}`, href: location.hash });
  if (r.page === 'simulate') parts.push({ label: 'what if', href: location.hash });
  if (r.page === 'sql') parts.push({ label: 'SQL', href: location.hash });
  return (
    <nav class="crumbs">
      {parts.map((p, i) => (
        <a key={i} href={p.href}>
          {p.label}
        </a>
      ))}
      {inInstance && r.page !== 'sql' && (
        <span class="nav-links">
          <a
            id="nav-sql"
            href={formatRoute({ page: 'sql', project: r.project, instance: r.instance })}
            title="GoogleSQL queries on this instance"
          >
            SQL
          </a>
        </span>
      )}
    </nav>
  );
}

function App() {
  const route = useRoute();
  // The server's facts (gRPC address, storage, API list) sit under the app in the shell: shown on the first page only.
  useEffect(() => {
    document.body.classList.toggle('home', route.page === 'projects');
  }, [route.page]);
  return (
    <div>
      <Crumbs route={route} />
      <main>
        {route.page === 'projects' && <ProjectsPage />}
        {route.page === 'instance' && <InstancePage project={route.project} instance={route.instance} />}
        {route.page === 'table' && <TablePage project={route.project} instance={route.instance} table={route.table} />}
        {route.page === 'heatmap' && (
          <HeatmapPage project={route.project} instance={route.instance} table={route.table} view={route.view} />
        )}
        {route.page === 'advice' && <AdvicePage project={route.project} instance={route.instance} table={route.table} />}
        {route.page === 'simulate' && (
          <SimulatePage project={route.project} instance={route.instance} table={route.table} what={route.what} />
        )}
        {route.page === 'sql' && <SqlPage project={route.project} instance={route.instance} query={route.query} />}
        {route.page === 'unknown' && (
          <p class="error">
            No such page: {route.hash}. <a href="#/">Start here.</a>
          </p>
        )}
      </main>
    </div>
  );
}

const root = document.getElementById('app');
if (root !== null) render(<App />, root);
