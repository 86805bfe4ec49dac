/**
 * GETs of a running server's JSON API for the commands that read it
 * (`tabletop tablets`, `tabletop advise`). A failure is an HttpApiError whose
 * message is what the command prints after its name: the server's own error
 * message, or that the server cannot be reached and what to check.
 */
export class HttpApiError extends Error {}

/** The JSON at `path` (from /api/v1/...) of the HTTP server at `server` (host:port). */
export async function getApi<T>(server: string, path: string): Promise<T> {
  let res: Response;
  let body: T & { error?: { message?: string } };
  try {
    res = await fetch(`http://${server}${path}`);
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
