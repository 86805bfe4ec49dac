/**
 * Calls of a running server's JSON API for the commands that use it
 * (`tabletop tablets`, `tabletop advise`, `tabletop sql`). A failure is an HttpApiError whose
 * message is what the command prints after its name: the server's own error
 * message, or that the server cannot be reached and what to check.
 */
export class HttpApiError extends Error {}

/**
 * The HTTP server a command talks to: `--server` (host:port, or an http:// or
 * https:// URL; default localhost:8087) and the token it sends
 * (TABLETOP_TOKEN, as `authorization: Bearer`; for a server with --auth on).
 * A CA of an https server that the system does not trust goes in
 * NODE_EXTRA_CA_CERTS.
 */
export interface ApiServer {
  /** As given, for messages. */
  readonly address: string;
  /** The URL paths are resolved against. */
  readonly base: string;
  readonly token: string | undefined;
}

export function apiServer(server: string | undefined, env: Readonly<Record<string, string | undefined>> | undefined): ApiServer {
  const address = server ?? 'localhost:8087';
  const base = /^https?:\/\//.test(address) ? address.replace(/\/+$/, '') : `http://${address}`;
  const token = env?.['TABLETOP_TOKEN'];
  return { address, base, token: token === undefined || token === '' ? undefined : token };
}

/** The JSON at `path` (from /api/v1/...) of the HTTP server at `server`. */
export function getApi<T>(server: ApiServer, path: string): Promise<T> {
  return callApi<T>(server, path);
}

/** The JSON answer to POSTing `body` as JSON to `path`. */
export function postApi<T>(server: ApiServer, path: string, body: unknown): Promise<T> {
  return callApi<T>(server, path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

async function callApi<T>(server: ApiServer, path: string, init?: RequestInit): Promise<T> {
  let res: Response;
  let body: T & { error?: { message?: string } };
  const headers = {
    ...(init?.headers as Record<string, string> | undefined),
    ...(server.token === undefined ? {} : { authorization: `Bearer ${server.token}` }),
  };
  try {
    res = await fetch(`${server.base}${path}`, { ...init, headers });
    body = (await res.json()) as typeof body;
  } catch (e) {
    throw new HttpApiError(
      `cannot reach the tabletop HTTP server at ${server.address} (${e instanceof Error ? e.message : String(e)}); is \`tabletop serve\` running, and is --server its HTTP address?`,
    );
  }
  if (res.status === 401 && server.token === undefined)
    throw new HttpApiError(`${body.error?.message ?? 'HTTP 401'} (set TABLETOP_TOKEN to a token: tabletop auth create-token)`);
  if (!res.ok) throw new HttpApiError(body.error?.message ?? `HTTP ${res.status}`);
  return body;
}

/** A path segment of the API, encoded. */
export const segment = encodeURIComponent;

/** The instance named, or the server's only one that matches what is given; a string says why none could be chosen. */
export async function chooseInstance(
  server: ApiServer,
  project: string | undefined,
  instance: string | undefined,
): Promise<{ project: string; instance: string } | string> {
  if (project !== undefined && instance !== undefined) return { project, instance };
  const { projects } = await getApi<{ projects: { projectId: string; instances: { instanceId: string }[] }[] }>(server, '/api/v1/projects');
  const all = projects.flatMap((p) => p.instances.map((i) => ({ project: p.projectId, instance: i.instanceId })));
  const matching = all.filter((c) => (project ?? c.project) === c.project && (instance ?? c.instance) === c.instance);
  if (matching.length === 1) return matching[0]!;
  const known =
    all.length === 0
      ? 'the server has no instances yet'
      : `the server has ${all.map((c) => `--project ${c.project} --instance ${c.instance}`).join('; ')}`;
  return matching.length === 0 ? `no such instance (${known})` : `give --project and --instance: ${known}`;
}
