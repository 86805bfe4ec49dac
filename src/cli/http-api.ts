/**
 * Calls of a running server's JSON API for the commands that use it
 * (`tabletop tablets`, `tabletop advise`, `tabletop sql`). A failure is an HttpApiError whose
 * message is what the command prints after its name: the server's own error
 * message, or that the server cannot be reached and what to check.
 */
export class HttpApiError extends Error {}

/** The JSON at `path` (from /api/v1/...) of the HTTP server at `server` (host:port). */
export function getApi<T>(server: string, path: string): Promise<T> {
  return callApi<T>(server, path);
}

/** The JSON answer to POSTing `body` as JSON to `path`. */
export function postApi<T>(server: string, path: string, body: unknown): Promise<T> {
  return callApi<T>(server, path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

async function callApi<T>(server: string, path: string, init?: RequestInit): Promise<T> {
  let res: Response;
  let body: T & { error?: { message?: string } };
  try {
    res = await fetch(`http://${server}${path}`, init);
    body = (await res.json()) as typeof body;
  } catch (e) {
    throw new HttpApiError(
      `cannot reach the tabletop HTTP server at ${server} (${e instanceof Error ? e.message : String(e)}); is \`tabletop serve\` running, and is --server its HTTP address?`,
    );
  }
  if (!res.ok) throw new HttpApiError(body.error?.message ?? `HTTP ${res.status}`);
  return body;
}

/** A path segment of the API, encoded. */
export const segment = encodeURIComponent;

/** The instance named, or the server's only one that matches what is given; a string says why none could be chosen. */
export async function chooseInstance(
  server: string,
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
