/**
 * The HTTP server's JSON API, as the pages read it. The heatmap and
 * diagnostics shapes are the server's own (src/insight/api-types.ts, types
 * only), and so is the SQL answer (src/server/http/sql-route.ts); the rest mirror src/server/http/json-api.ts, with the fields the UI
 * shows, optional where a server may not send them yet.
 */
import type { AdviceJson, Finding, SimulationJson, SimulationSide } from '../insight/advisor/types.js';
import type { DiagnosticsJson, HeatmapJson } from '../insight/api-types.js';
import type { SqlResponseJson } from '../server/http/sql-route.js';
import type { HeatmapView, TableRef, WhatIf } from './routes.js';
import { viewWindow } from './routes.js';

export interface KeyJson {
  readonly base64: string;
  readonly printable: string;
}

export interface InstanceJson {
  readonly name: string;
  readonly project: string;
  readonly instanceId: string;
  readonly displayName?: string;
  readonly type?: string;
  readonly createTime?: string;
}

export interface ProjectJson {
  readonly projectId: string;
  readonly instances?: readonly InstanceJson[];
}

export interface ClusterJson {
  readonly clusterId: string;
  readonly location?: string;
  readonly serveNodes?: number;
  readonly storageType?: string;
}

export interface InstanceDetailJson extends InstanceJson {
  readonly clusters?: readonly ClusterJson[];
  readonly appProfiles?: readonly { readonly appProfileId: string; readonly description?: string }[];
}

export interface FamilyJson {
  readonly name: string;
  readonly gcPolicy?: string;
}

/** An authorized view of a table: its row prefixes and, per family, the qualifiers and qualifier prefixes it covers. */
export interface AuthorizedViewJson {
  readonly id: string;
  readonly name: string;
  readonly deletionProtection: boolean;
  readonly rowPrefixes: readonly KeyJson[];
  readonly familySubsets: readonly {
    readonly family: string;
    readonly qualifiers: readonly KeyJson[];
    readonly qualifierPrefixes: readonly KeyJson[];
  }[];
}

export interface TableJson {
  readonly name: string;
  readonly tableId: string;
  readonly createTime?: string;
  readonly families?: readonly FamilyJson[];
  /** In the table's own JSON (not the tables list), from servers that have authorized views. */
  readonly authorizedViews?: readonly AuthorizedViewJson[];
  /** Added by the tables list of newer servers; absent: shown as unknown. */
  readonly storedBytes?: number;
  readonly rowCount?: number;
  readonly tabletCount?: number;
  /** Which of those figures are estimates (the durable engine's), as a tablet's `estimates`. */
  readonly estimates?: readonly string[];
}

export interface RatesJson {
  readonly requestsPerSec: number;
  readonly rowsReadPerSec: number;
  readonly rowsWrittenPerSec: number;
  readonly bytesReadPerSec: number;
  readonly bytesWrittenPerSec: number;
  readonly servingMicrosPerSec: number;
}

export interface TabletJson {
  readonly tabletId: string;
  readonly startKey: KeyJson | null;
  readonly endKey: KeyJson | null;
  readonly storedBytes: number;
  readonly logicalBytes?: number;
  readonly rowCount: number;
  readonly estimates?: readonly string[];
  readonly nodes: readonly { readonly clusterId: string; readonly node: number }[];
  readonly rates?: RatesJson;
  readonly singleRowHotspot?: { readonly key: KeyJson | null; readonly share: number } | null;
}

export interface HotTabletJson extends TabletJson {
  readonly table: string;
  /** The table's id, or `materialized view <id> (data)` for a view's internal table. */
  readonly tableLabel: string;
  readonly clusterId: string;
  readonly node: number;
  readonly servingPercentOfNode: number;
  readonly shareOfNodeServing?: number;
}

export interface NodeJson {
  readonly node: number;
  readonly storedBytes: number;
  readonly tabletCount: number;
  readonly requestsPerSec: number;
  readonly servingUtilization: number;
  readonly loadShare?: number;
}

export interface ClusterNodesJson {
  readonly clusterId: string;
  readonly serveNodes: number;
  readonly servingUtilization?: number;
  readonly nodes: readonly NodeJson[];
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  return readJson<T>(path, await fetch(path, { signal: signal ?? null, headers: { accept: 'application/json' } }));
}

/** POST `body` as JSON to an API path; the answer as getJson reads it. */
export async function postJson<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
  const init = { method: 'POST', body: JSON.stringify(body), signal: signal ?? null };
  return readJson<T>(path, await fetch(path, { ...init, headers: { accept: 'application/json', 'content-type': 'application/json' } }));
}

async function readJson<T>(path: string, res: Response): Promise<T> {
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(res.status, `${path}: ${res.status} ${res.statusText} (not JSON)`);
  }
  if (!res.ok) {
    // The server has authentication on and the sign-in cookie is missing or no longer valid: sign in again.
    if (res.status === 401 && typeof window !== 'undefined') window.location.assign('/login');
    const message = (body as { error?: { message?: string } }).error?.message ?? `${res.status} ${res.statusText}`;
    throw new ApiError(res.status, message);
  }
  return body as T;
}

const e = encodeURIComponent;

export function instancePath(project: string, instance: string): string {
  return `/api/v1/projects/${e(project)}/instances/${e(instance)}`;
}

export function tablePath(t: TableRef): string {
  return `${instancePath(t.project, t.instance)}/tables/${e(t.table)}`;
}

/** The heatmap request of a view at `nowMillis` (the page and the browser test ask the same URL). */
export function heatmapPath(t: TableRef, view: HeatmapView, nowMillis: number): string {
  const w = viewWindow(view, nowMillis);
  const q = new URLSearchParams({
    metric: view.metric,
    from: new Date(w.fromMillis).toISOString(),
    to: new Date(w.toMillis).toISOString(),
  });
  if (view.start !== undefined) q.set('start', view.start);
  if (view.end !== undefined) q.set('end', view.end);
  return `${tablePath(t)}/heatmap?${q.toString()}`;
}

export function diagnosticsPath(t: TableRef, view: HeatmapView, nowMillis: number): string {
  const w = viewWindow(view, nowMillis);
  const q = new URLSearchParams({ from: new Date(w.fromMillis).toISOString(), to: new Date(w.toMillis).toISOString() });
  return `${tablePath(t)}/diagnostics?${q.toString()}`;
}

/** The schema advisor's findings for an instance, or for one of its tables. */
export function advicePath(project: string, instance: string, table?: string): string {
  const base = `${instancePath(project, instance)}/advice`;
  return table === undefined ? base : `${base}?${new URLSearchParams({ table }).toString()}`;
}

/** GoogleSQL queries on an instance (POST { query, params }). */
export function sqlPath(project: string, instance: string): string {
  return `${instancePath(project, instance)}/sql`;
}

/** A what-if simulation of a key transform on a table. */
export function simulatePath(t: TableRef, what: WhatIf): string {
  const q = new URLSearchParams({ transform: what.transform });
  if (what.nodes !== undefined) q.set('nodes', String(what.nodes));
  return `${tablePath(t)}/simulate?${q.toString()}`;
}

export type { AdviceJson, DiagnosticsJson, Finding, HeatmapJson, SimulationJson, SimulationSide, SqlResponseJson };
