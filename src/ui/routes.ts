/**
 * Hash routes (no router library): the page and its parameters live after
 * the `#`, so the server serves one shell at `/` and links survive reloads.
 *   #/                                   projects and their instances
 *   #/p/{project}/i/{instance}           an instance: tables, nodes, hot tablets
 *   #/p/{project}/i/{instance}/t/{table} a table: tablets, families, GC policies
 *   #/p/{project}/i/{instance}/t/{table}/heatmap?metric=&window=&from=&to=&start=&end=
 *   #/p/{project}/i/{instance}/advice[?table=]            the schema advisor's findings (one table or all)
 *   #/p/{project}/i/{instance}/t/{table}/simulate?transform=&nodes=   what-if: a key transform's load before/after
 *   #/p/{project}/i/{instance}/sql[?query=]               the GoogleSQL query box (the query to start with)
 * Names are URL-encoded (the Node client's default project is "{{projectId}}").
 * A heatmap view without `to` is live: it ends now and refreshes.
 */
import { METRICS, type Metric } from '../insight/api-types.js';

export interface TableRef {
  readonly project: string;
  readonly instance: string;
  readonly table: string;
}

export interface HeatmapView {
  readonly metric: Metric;
  /** For a live view without `from`: how far back it reaches (seconds). */
  readonly windowSeconds: number;
  /** ISO times; `to` undefined: the view ends now (live). */
  readonly from?: string | undefined;
  readonly to?: string | undefined;
  /** Key range zoomed into (base64); undefined: the table's ends. */
  readonly start?: string | undefined;
  readonly end?: string | undefined;
}

export type Route =
  | { readonly page: 'projects' }
  | { readonly page: 'instance'; readonly project: string; readonly instance: string }
  | ({ readonly page: 'table' } & TableRef)
  | ({ readonly page: 'heatmap'; readonly view: HeatmapView } & TableRef)
  | { readonly page: 'advice'; readonly project: string; readonly instance: string; readonly table?: string | undefined }
  | ({ readonly page: 'simulate'; readonly what: WhatIf } & TableRef)
  | { readonly page: 'sql'; readonly project: string; readonly instance: string; readonly query?: string | undefined }
  | { readonly page: 'unknown'; readonly hash: string };

/** A what-if's question: the transform (TRANSFORM grammar, src/insight/advisor/types.ts) and the nodes to spread over. */
export interface WhatIf {
  /** '' when none was given yet (the page asks for one). */
  readonly transform: string;
  /** undefined: the server's default (the cluster's nodes). */
  readonly nodes?: number | undefined;
}

export const DEFAULT_VIEW: HeatmapView = { metric: 'ops', windowSeconds: 15 * 60 };

/** The windows offered for a live view (seconds). */
export const WINDOWS: readonly { readonly seconds: number; readonly label: string }[] = [
  { seconds: 60, label: '1 min' },
  { seconds: 5 * 60, label: '5 min' },
  { seconds: 15 * 60, label: '15 min' },
  { seconds: 60 * 60, label: '1 h' },
  { seconds: 6 * 3600, label: '6 h' },
  { seconds: 24 * 3600, label: '1 day' },
  { seconds: 14 * 24 * 3600, label: '14 days' },
];

export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#/, '');
  const [path = '', query = ''] = raw.split('?', 2);
  const seg = path
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
  if (seg.length === 0) return { page: 'projects' };
  if (seg[0] !== 'p' || seg[2] !== 'i' || seg[1] === undefined || seg[3] === undefined) return { page: 'unknown', hash };
  const [, project, , instance, t, table, page] = seg;
  if (t === undefined && seg.length === 4) return { page: 'instance', project, instance };
  if (t === 'advice' && seg.length === 5) {
    const only = new URLSearchParams(query).get('table');
    return { page: 'advice', project, instance, table: only === null || only === '' ? undefined : only };
  }
  if (t === 'sql' && seg.length === 5) {
    const q = new URLSearchParams(query).get('query');
    return { page: 'sql', project, instance, query: q === null || q === '' ? undefined : q };
  }
  if (t !== 't' || table === undefined) return { page: 'unknown', hash };
  if (page === undefined && seg.length === 6) return { page: 'table', project, instance, table };
  if (page === 'heatmap' && seg.length === 7) return { page: 'heatmap', project, instance, table, view: parseView(query) };
  if (page === 'simulate' && seg.length === 7) return { page: 'simulate', project, instance, table, what: parseWhatIf(query) };
  return { page: 'unknown', hash };
}

function parseView(query: string): HeatmapView {
  const q = new URLSearchParams(query);
  const metric = q.get('metric');
  const windowSeconds = Number(q.get('window'));
  const valid = (iso: string | null) => (iso !== null && !Number.isNaN(Date.parse(iso)) ? iso : undefined);
  return {
    metric: metric !== null && (METRICS as readonly string[]).includes(metric) ? (metric as Metric) : DEFAULT_VIEW.metric,
    windowSeconds: Number.isFinite(windowSeconds) && windowSeconds > 0 ? windowSeconds : DEFAULT_VIEW.windowSeconds,
    from: valid(q.get('from')),
    to: valid(q.get('to')),
    start: q.get('start') ?? undefined,
    end: q.get('end') ?? undefined,
  };
}

function parseWhatIf(query: string): WhatIf {
  const q = new URLSearchParams(query);
  const nodes = Number(q.get('nodes') ?? undefined);
  return { transform: q.get('transform') ?? '', nodes: Number.isInteger(nodes) && nodes > 0 ? nodes : undefined };
}

export function formatRoute(route: Route): string {
  const e = encodeURIComponent;
  switch (route.page) {
    case 'projects':
      return '#/';
    case 'instance':
      return `#/p/${e(route.project)}/i/${e(route.instance)}`;
    case 'table':
      return `#/p/${e(route.project)}/i/${e(route.instance)}/t/${e(route.table)}`;
    case 'heatmap': {
      const q = new URLSearchParams();
      const v = route.view;
      q.set('metric', v.metric);
      if (v.from === undefined) q.set('window', String(v.windowSeconds));
      if (v.from !== undefined) q.set('from', v.from);
      if (v.to !== undefined) q.set('to', v.to);
      if (v.start !== undefined) q.set('start', v.start);
      if (v.end !== undefined) q.set('end', v.end);
      return `#/p/${e(route.project)}/i/${e(route.instance)}/t/${e(route.table)}/heatmap?${q.toString()}`;
    }
    case 'advice': {
      const base = `#/p/${e(route.project)}/i/${e(route.instance)}/advice`;
      return route.table === undefined ? base : `${base}?${new URLSearchParams({ table: route.table }).toString()}`;
    }
    case 'sql': {
      const base = `#/p/${e(route.project)}/i/${e(route.instance)}/sql`;
      return route.query === undefined ? base : `${base}?${new URLSearchParams({ query: route.query }).toString()}`;
    }
    case 'simulate': {
      const q = new URLSearchParams({ transform: route.what.transform });
      if (route.what.nodes !== undefined) q.set('nodes', String(route.what.nodes));
      return `#/p/${e(route.project)}/i/${e(route.instance)}/t/${e(route.table)}/simulate?${q.toString()}`;
    }
    case 'unknown':
      return route.hash;
  }
}

/** The view's time window at `nowMillis`: a live view ends now. */
export function viewWindow(view: HeatmapView, nowMillis: number): { fromMillis: number; toMillis: number; live: boolean } {
  const toMillis = view.to === undefined ? nowMillis : Date.parse(view.to);
  const fromMillis = view.from === undefined ? toMillis - view.windowSeconds * 1000 : Date.parse(view.from);
  return { fromMillis, toMillis, live: view.to === undefined };
}
