import http from 'node:http';
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

/**
 * The HTTP server (default port 8087): the web UI (its shell at /, with the
 * index page's facts, and its files under /ui/), /healthz, the JSON API
 * and Prometheus /metrics. Read-only: GET and HEAD, and POST only for a
 * SQL query (`.../instances/{i}/sql`, sql-route.ts; SQL cannot write), whose
 * body must be JSON (content-type application/json, which a cross-site form
 * cannot send without the browser asking first) of at most 1 MiB.
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
    ui: loadStaticAssets(),
    // The prom-client registry is made at the first scrape.
    exposition: () => (exposition ??= prometheusExposition(opts.metrics, opts.db)),
  };
  const server = http.createServer((req, res) => {
    handle(context, req, res).catch((e: unknown) => sendError(opts.logger, res, e));
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
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
    url: `http://${host}:${port}/`,
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
  readonly ui: StaticAssets;
  readonly exposition: () => PrometheusExposition;
}

async function handle(context: HandlerContext, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const { opts, ui } = context;
  const url = new URL(req.url ?? '/', 'http://localhost');
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
  const path = url.pathname;
  if (path === '/' || path === '/index.html' || path === '/ui/' || path === '/ui/index.html') {
    return send(res, 200, 'text/html; charset=utf-8', ui.shell(indexPage(opts)));
  }
  const asset = ui.asset(path);
  if (asset !== undefined) return sendAsset(res, asset);
  if (path === '/healthz') return send(res, 200, 'text/plain; charset=utf-8', 'ok\n');
  if (path === '/metrics') {
    const exposition = context.exposition();
    return send(res, 200, exposition.contentType, await exposition.render());
  }
  const segments = path
    .split('/')
    .filter((s) => s !== '')
    .map(decodeSegment);
  const body = await routeApi(
    { db: opts.db, insight: opts.insight, advisorThresholds: opts.advisorThresholds },
    segments,
    url.searchParams,
  );
  if (body === undefined) {
    throw new TabletopError('NotFound', `No such path: ${path} (try / for what this server offers)`);
  }
  send(res, 200, 'application/json; charset=utf-8', JSON.stringify(body, null, 2) + '\n');
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
  send(res, status, 'application/json; charset=utf-8', JSON.stringify({ error: { code, message } }) + '\n');
}
