import { describe, expect, it } from 'vitest';
import { routeAccess } from './route-access.js';

const access = (path: string) => routeAccess(path.split('/').filter((s) => s !== ''));

describe('routeAccess', () => {
  it('maps each API route to the permission of the RPC that reads the same thing', () => {
    const I = 'projects/p/instances/i';
    expect(
      Object.fromEntries(
        [
          '/api/v1/projects/p/instances',
          '/api/v1/projects/p/instances/i',
          '/api/v1/projects/p/instances/i/tables',
          '/api/v1/projects/p/instances/i/tables/t',
          '/api/v1/projects/p/instances/i/tables/t/tablets',
          '/api/v1/projects/p/instances/i/tables/t/heatmap',
          '/api/v1/projects/p/instances/i/tables/t/diagnostics',
          '/api/v1/projects/p/instances/i/tables/t/simulate',
          '/api/v1/projects/p/instances/i/sql',
          '/api/v1/projects/p/instances/i/advice',
          '/api/v1/projects/p/instances/i/nodes',
          '/api/v1/projects/p/instances/i/hot-tablets',
          '/api/v1/projects/p/instances/i/logical-views',
          '/api/v1/projects/p/instances/i/materialized-views',
          '/api/v1/projects/p/instances/i/materialized-views/mv',
        ].map((path) => {
          const a = access(path);
          return [path, a.kind === 'permission' ? `${a.permission} on ${a.resource}` : a.kind];
        }),
      ),
    ).toEqual({
      '/api/v1/projects/p/instances': 'bigtable.instances.list on projects/p',
      '/api/v1/projects/p/instances/i': `bigtable.instances.get on ${I}`,
      '/api/v1/projects/p/instances/i/tables': `bigtable.tables.list on ${I}`,
      '/api/v1/projects/p/instances/i/tables/t': `bigtable.tables.readRows on ${I}/tables/t`,
      '/api/v1/projects/p/instances/i/tables/t/tablets': `bigtable.tables.readRows on ${I}/tables/t`,
      '/api/v1/projects/p/instances/i/tables/t/heatmap': `bigtable.tables.readRows on ${I}/tables/t`,
      '/api/v1/projects/p/instances/i/tables/t/diagnostics': `bigtable.tables.readRows on ${I}/tables/t`,
      '/api/v1/projects/p/instances/i/tables/t/simulate': `bigtable.tables.readRows on ${I}/tables/t`,
      '/api/v1/projects/p/instances/i/sql': `bigtable.tables.readRows on ${I}`,
      '/api/v1/projects/p/instances/i/advice': `bigtable.tables.readRows on ${I}`,
      '/api/v1/projects/p/instances/i/nodes': `bigtable.clusters.list on ${I}`,
      '/api/v1/projects/p/instances/i/hot-tablets': `bigtable.hotTablets.list on ${I}`,
      '/api/v1/projects/p/instances/i/logical-views': `bigtable.logicalViews.list on ${I}`,
      '/api/v1/projects/p/instances/i/materialized-views': `bigtable.materializedViews.list on ${I}`,
      '/api/v1/projects/p/instances/i/materialized-views/mv': `bigtable.materializedViews.get on ${I}/materializedViews/mv`,
    });
  });

  it('leaves /healthz, the login page and the UI files open; needs a caller for the rest', () => {
    for (const path of ['/healthz', '/login', '/logout', '/ui/assets/index.js']) expect([path, access(path).kind]).toEqual([path, 'open']);
    for (const path of ['/', '/ui/', '/metrics', '/api/v1/nope', '/api/v1/projects/p/instances/i/tables/t/other'])
      expect([path, access(path).kind]).toEqual([path, 'authenticated']);
    expect(access('/api/v1/projects').kind).toBe('projects');
  });
});
