/**
 * What each HTTP route needs when authentication is on: nothing (`open`:
 * /healthz, the UI's files and the login page, which hold no data), a
 * caller (`authenticated`: /metrics, the UI's shell), or an IAM permission
 * on a resource: the permission of the RPC that reads the same thing
 * (listing tables is ListTables's `bigtable.tables.list` on the instance;
 * anything that shows row keys or traffic, the heatmap, diagnostics,
 * tablets, the schema advisor and SQL, is `bigtable.tables.readRows` on the
 * table, or on the instance for instance-wide ones).
 *
 * `projects` (GET /api/v1/projects) lists only the projects in which the
 * caller holds `bigtable.instances.list`.
 */
export type RouteAccess =
  | { readonly kind: 'open' }
  | { readonly kind: 'authenticated' }
  | { readonly kind: 'projects' }
  | { readonly kind: 'permission'; readonly permission: string; readonly resource: string };

const OPEN: RouteAccess = { kind: 'open' };
const AUTHENTICATED: RouteAccess = { kind: 'authenticated' };

const need = (permission: string, resource: string): RouteAccess => ({ kind: 'permission', permission, resource });

/** The access a request needs, from its decoded path segments. Unknown API paths need a caller (they answer 404 then). */
export function routeAccess(segments: readonly string[]): RouteAccess {
  const [first] = segments;
  if (segments.length === 1 && (first === 'healthz' || first === 'login' || first === 'logout')) return OPEN;
  if (first === 'ui' && segments.length > 1) return OPEN; // the UI's script and styles (its shell is /ui/ or /ui/index.html, below)
  if (first !== 'api') return AUTHENTICATED;
  const [, v1, projects, project, instances, instance, kind, id, sub] = segments;
  if (v1 !== 'v1' || projects !== 'projects') return AUTHENTICATED;
  if (project === undefined) return { kind: 'projects' };
  const projectName = `projects/${project}`;
  if (instances !== 'instances') return AUTHENTICATED;
  if (instance === undefined) return need('bigtable.instances.list', projectName);
  const instanceName = `${projectName}/instances/${instance}`;
  if (kind === undefined) return need('bigtable.instances.get', instanceName);
  if (id === undefined) {
    switch (kind) {
      case 'tables':
        return need('bigtable.tables.list', instanceName);
      case 'nodes':
        return need('bigtable.clusters.list', instanceName);
      case 'hot-tablets':
        return need('bigtable.hotTablets.list', instanceName);
      case 'logical-views':
        return need('bigtable.logicalViews.list', instanceName);
      case 'materialized-views':
        return need('bigtable.materializedViews.list', instanceName);
      case 'advice':
      case 'sql':
        return need('bigtable.tables.readRows', instanceName);
    }
    return AUTHENTICATED;
  }
  if (kind === 'materialized-views') return need('bigtable.materializedViews.get', `${instanceName}/materializedViews/${id}`);
  if (kind !== 'tables') return AUTHENTICATED;
  const tableName = `${instanceName}/tables/${id}`;
  // A table's detail shows its tablets' keys, as do tablets, heatmap, diagnostics and the simulation: the data's permission.
  return sub === undefined || ['tablets', 'heatmap', 'diagnostics', 'simulate'].includes(sub)
    ? need('bigtable.tables.readRows', tableName)
    : AUTHENTICATED;
}
