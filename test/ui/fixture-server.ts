import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadStaticAssets, sendAsset } from '../../src/server/http/static-assets.js';
import { fixtureApi } from '../../src/ui/testing/fixtures.js';

/**
 * The built web UI (dist/ui, through the server's own static-assets module)
 * with the fixture JSON behind the API paths: the pages without a recording
 * server. Records the API paths asked, for the tests.
 */
export interface FixtureServer {
  readonly url: string;
  readonly requests: string[];
  stop(): Promise<void>;
}

export async function startFixtureServer(): Promise<FixtureServer> {
  const ui = loadStaticAssets();
  if (!ui.available) throw new Error(`The web UI is not built (${ui.dir}): run npm run build`);
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/') {
      const html = ui.shell('<html><body><p>fixture server</p></body></html>');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(html);
      return;
    }
    const asset = ui.asset(url.pathname);
    if (asset !== undefined) return sendAsset(res, asset);
    requests.push(url.pathname + url.search);
    const segments = url.pathname
      .split('/')
      .filter((s) => s !== '')
      .map(decodeURIComponent);
    const body = fixtureApi(segments, url.searchParams);
    const status = body === undefined ? 404 : typeof body === 'object' && body !== null && 'error' in body ? 400 : 200;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: { code: 'NotFound', message: `No such path: ${url.pathname}` } }));
  });
  await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://localhost:${port}/`,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
