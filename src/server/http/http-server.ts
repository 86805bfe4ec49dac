import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { AdvisorThresholds } from '../../insight/advisor/thresholds.js';
import { type ErrorCode, TabletopError } from '../../model/errors.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import { indexPage } from './index-page.js';
import type { InsightApi } from './insight-routes.js';
import { routeApi } from './json-api.js';
import { SQL_MAX_ROWS, type SqlRequestJson, sqlRoute } from './sql-route.js';
import type { SqlEngine } from '../../sql/engine.js';
import { type PrometheusExposition, prometheusExposition } from './prometheus.js';
import type { ServedDatabase } from './served-database.js';
import { loadStaticAssets, sendAsset, type StaticAssets } from './static-assets.js';
import type { Authenticator } from '../auth/authenticator.js';
import { NO_AUTHENTICATION } from '../auth/authenticator.js';
import type { Authorizer } from '../auth/authorizer.js';
import type { Principal } from '../auth/principal.js';
import type { TlsOptions } from '../tls-options.js';
import { loginPage, readLoginForm, requestPrincipal, tokenCookie } from './login-page.js';
import { routeAccess } from './route-access.js';

/**
 * The HTTP server (default port 8087): the web UI (its shell at /, with the
 * index page's facts, and its files under /ui/), /healthz, the JSON API
 * and Prometheus /metrics. Read-only: GET and HEAD, and POST only for a
 * SQL query (`.../instances/{i}/sql`, sql-route.ts; SQL cannot write), whose
 * body must be JSON (content-type application/json, which a cross-site form
 * cannot send without the browser asking first) of at most 1 MiB.
 *
 * With authentication on (`authenticator.required`), every route but
 * /healthz, the UI's files and the login page needs credentials (a bearer
 * token or the login page's cookie, login-page.ts): without them, 401 with a
 * JSON error (the UI's shell redirects to /login instead); each API route
 * then needs the IAM permission of the equivalent RPC (route-access.ts),
 * asked of `authorizer` (403 without it). Bad credentials are 401 whether or
 * not authentication is on. Over TLS with `tls` (HTTPS; mutual with its
 * clientCa).
 */
export interface HttpServerOptions {
  readonly db: ServedDatabase;
  /** The recording the heatmap and diagnostics read; undefined when it is off (they answer 412). */
  readonly insight?: InsightApi | undefined;
  /** The schema advisor's thresholds that differ from its defaults (ServerTuning.advisorThresholds). */
  readonly advisorThresholds?: Partial<AdvisorThresholds>;
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly metrics: Metrics;
  readonly logger: Logger;
  /** What the index page says about the gRPC endpoint and storage. */
  readonly grpcAddress: string;
  readonly storage: string;
  readonly version: string;
  /** The engine of `POST .../sql`; none: it answers 501. */
  readonly sql?: SqlEngine | undefined;
  /** Who calls; default NO_AUTHENTICATION (every route open). */
  readonly authenticator?: Authenticator | undefined;
  /** The IAM check of each API route when authentication is on; none: any authenticated caller may read everything. */
  readonly authorizer?: Authorizer | undefined;
  /** Serve HTTPS; undefined: plain HTTP. */
  readonly tls?: TlsOptions | undefined;
  /** Open connections at most (default 512: the web UI and the JSON API hold a few per browser tab); more are closed as they arrive. */
  readonly maxConnections?: number | undefined;
  /** A socket with no bytes either way for this long is closed (default 30 s). */
  readonly idleSocketMillis?: number | undefined;
}

export interface HttpServerHandle {
  readonly port: number;
  /** e.g. http://localhost:8087/ */
  readonly url: string;
  stop(): Promise<void>;
}

const HTTP_STATUS: Partial<Record<ErrorCode, number>> = {
  InvalidArgument: 400,
  NotFound: 404,
  AlreadyExists: 409,
  FailedPrecondition: 412,
  PermissionDenied: 403,
  Unauthenticated: 401,
  ResourceExhausted: 429,
  Unimplemented: 501,
  Unavailable: 503,
};

export async function startHttpServer(opts: HttpServerOptions): Promise<HttpServerHandle> {
  let exposition: PrometheusExposition | undefined;
  const context: HandlerContext = {
    opts,
    authenticator: opts.authenticator ?? NO_AUTHENTICATION,
    ui: loadStaticAssets(),
    // The prom-client registry is made at the first scrape.
    exposition: () => (exposition ??= prometheusExposition(opts.metrics, opts.db)),
  };
  const listener = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    handle(context, req, res).catch((e: unknown) => sendError(opts.logger, res, e));
  };
  const tls = opts.tls;
  const server =
    tls === undefined
      ? http.createServer(listener)
      : https.createServer(
          {
            cert: tls.cert,
            key: tls.key,
            ...(tls.clientCa === undefined ? {} : { ca: tls.clientCa, requestCert: true, rejectUnauthorized: true }),
          },
          listener,
        );
  server.on('tlsClientError', (err: Error, socket) => {
    opts.logger.debug?.(`a TLS handshake with the HTTP server failed: ${err.message}`, {
      event: 'connection-refused',
      reason: 'tls-handshake',
    });
    socket.destroy();
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  // Sockets that never send a request (or stop halfway) hold a descriptor each: at most this many at once, and any
  // socket silent for idleSocketMillis is closed (the timeouts above start only once a request has begun).
  server.maxConnections = opts.maxConnections ?? 512;
  server.setTimeout(opts.idleSocketMillis ?? 30_000, (socket) => socket.destroy());
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  let stopping: Promise<void> | undefined;
  return {
    port,
    url: `${tls === undefined ? 'http' : 'https'}://${host}:${port}/`,
    stop(): Promise<void> {
      stopping ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        const t = setTimeout(() => server.closeAllConnections(), 2_000);
        t.unref();
      });
      return stopping;
    },
  };
}

interface HandlerContext {
  readonly opts: HttpServerOptions;
  readonly authenticator: Authenticator;
  readonly ui: StaticAssets;
  readonly exposition: () => PrometheusExposition;
}

async function handle(context: HandlerContext, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const { opts, ui, authenticator } = context;
  const url = new URL(req.url ?? '/', 'http://localhost');
  const path = url.pathname;
  const segments = path
    .split('/')
    .filter((s) => s !== '')
    .map(decodeSegment);
  if (path === '/login' || path === '/logout') return login(context, req, res, path);
  const principal = requestPrincipal(authenticator, req);
  const access = routeAccess(segments);
  if (authenticator.required && principal === undefined && access.kind !== 'open') {
    if (req.method === 'GET' && isShell(path)) {
      res.writeHead(303, { location: '/login', 'cache-control': 'no-store' });
      res.end();
      return;
    }
    throw new TabletopError('Unauthenticated', `${path} requires credentials: send "authorization: Bearer <token>", or sign in at /login`);
  }
  if (authenticator.required && access.kind === 'permission') opts.authorizer?.check(principal, access.permission, access.resource);
  const visible = authenticator.required ? projectFilter(opts.authorizer, principal) : undefined;
  const sqlPath = SQL_PATH.exec(url.pathname);
  if (req.method === 'POST' && sqlPath !== null) {
    if (opts.sql === undefined) throw new TabletopError('Unimplemented', 'SQL queries are not served by this server');
    const instance = { project: decodeSegment(sqlPath[1]!), instance: decodeSegment(sqlPath[2]!) };
    // A client that goes away (the query box's Cancel, a closed tab) stops its query.
    const gone = new AbortController();
    res.on('close', () => res.writableFinished || gone.abort());
    const body = await sqlRoute(opts.sql, instance, await readJsonBody(req), SQL_MAX_ROWS, gone.signal);
    return send(res, 200, 'application/json; charset=utf-8', JSON.stringify(body) + '\n');
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
    res.end('Method not allowed: this server is read-only\n');
    return;
  }
  if (isShell(path)) {
    return send(res, 200, 'text/html; charset=utf-8', ui.shell(indexPage(opts)));
  }
  const asset = ui.asset(path);
  if (asset !== undefined) return sendAsset(res, asset);
  if (path === '/healthz') return send(res, 200, 'text/plain; charset=utf-8', 'ok\n');
  if (path === '/metrics') {
    const exposition = context.exposition();
    return send(res, 200, exposition.contentType, await exposition.render());
  }
  const body = await routeApi(
    {
      db: opts.db,
      insight: opts.insight,
      advisorThresholds: opts.advisorThresholds,
      ...(visible === undefined ? {} : { visibleProject: visible }),
    },
    segments,
    url.searchParams,
  );
  if (body === undefined) {
    throw new TabletopError('NotFound', `No such path: ${path} (try / for what this server offers)`);
  }
  send(res, 200, 'application/json; charset=utf-8', JSON.stringify(body, null, 2) + '\n');
}

/** GET /login: the form; POST /login: checks the token and sets the cookie; POST /logout: clears it. */
async function login(context: HandlerContext, req: http.IncomingMessage, res: http.ServerResponse, path: string): Promise<void> {
  const secure = context.opts.tls !== undefined;
  if (req.method === 'GET' && path === '/login') return send(res, 200, 'text/html; charset=utf-8', loginPage());
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: path === '/login' ? 'GET, POST' : 'POST', 'content-type': 'text/plain; charset=utf-8' });
    res.end('Method not allowed\n');
    return;
  }
  if (path === '/logout') {
    res.writeHead(303, { location: '/login', 'set-cookie': tokenCookie(undefined, secure), 'cache-control': 'no-store' });
    res.end();
    return;
  }
  const token = await readLoginForm(req);
  let principal: Principal | undefined;
  try {
    principal = token === '' ? undefined : context.authenticator.authenticate(`Bearer ${token}`);
  } catch (e) {
    return send(res, 401, 'text/html; charset=utf-8', loginPage(e instanceof Error ? e.message : String(e)));
  }
  if (principal === undefined) return send(res, 401, 'text/html; charset=utf-8', loginPage('Paste a token to sign in.'));
  context.opts.logger.info(`${principal.member} signed in to the web UI`, { event: 'ui-login', member: principal.member });
  res.writeHead(303, { location: '/', 'set-cookie': tokenCookie(token, secure), 'cache-control': 'no-store' });
  res.end();
}

/** Which projects a caller sees in the project list: those where it may list instances. */
function projectFilter(authorizer: Authorizer | undefined, principal: Principal | undefined): ((project: string) => boolean) | undefined {
  if (authorizer === undefined) return undefined;
  return (project) => authorizer.granted(principal, ['bigtable.instances.list'], `projects/${project}`).length > 0;
}

/** The paths of the UI's page (its shell). */
function isShell(path: string): boolean {
  return path === '/' || path === '/index.html' || path === '/ui/' || path === '/ui/index.html';
}

const SQL_PATH = /^\/api\/v1\/projects\/([^/]+)\/instances\/([^/]+)\/sql\/?$/;
const MAX_BODY_BYTES = 1024 * 1024;

/** A request's JSON body (content-type application/json, at most 1 MiB). */
async function readJsonBody(req: http.IncomingMessage): Promise<SqlRequestJson> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') throw new TabletopError('InvalidArgument', 'Send the query as JSON (content-type: application/json)');
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new TabletopError('InvalidArgument', `The request body is larger than ${MAX_BODY_BYTES} bytes`);
    parts.push(chunk as Buffer);
  }
  try {
    const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as unknown;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error('not an object');
    return body as SqlRequestJson;
  } catch (e) {
    throw new TabletopError('InvalidArgument', `The request body is not a JSON object: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new TabletopError('InvalidArgument', `Invalid percent-encoding in path segment "${s}"`);
  }
}

function send(res: http.ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

function sendError(logger: Logger, res: http.ServerResponse, e: unknown): void {
  let status = 500;
  let code: string = 'Internal';
  let message: string;
  if (e instanceof TabletopError) {
    status = HTTP_STATUS[e.code] ?? 500;
    code = e.code;
    message = e.message;
  } else {
    message = e instanceof Error ? e.message : String(e);
    logger.error(`HTTP ${res.req.url}: ${e instanceof Error && e.stack ? e.stack : message}`);
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (status === 401) res.setHeader('www-authenticate', 'Bearer realm="tabletop"');
  send(res, status, 'application/json; charset=utf-8', JSON.stringify({ error: { code, message } }) + '\n');
}
