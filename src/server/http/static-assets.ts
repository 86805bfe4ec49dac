import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The web UI's files (built by `vite build` into <package root>/dist/ui) as
 * the HTTP server serves them. The file list is read once, at start: only
 * those names are served (under /ui/), whatever the request asks, with a
 * content type fixed by extension (other extensions are not served).
 * index.html is the UI's shell: served at `/` with the server's facts (the
 * index page's body: gRPC address, storage, API list) put in at its marker,
 * so `curl /` still tells what the server is. Hashed assets (assets/*-HASH.ext)
 * are immutable; the shell is revalidated on every load.
 *
 * The package root is found from this module's file upwards (the first
 * directory with a package.json), so the server run from dist/ or from src/
 * (tests, tsx) serves the same built copy. No dist/ui (the UI was not
 * built): `/` says so above the facts, and the JSON API works as ever.
 */

export const UI_PREFIX = '/ui/';
const SHELL_MARKER = '<!--tabletop:server-->';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
};

/** Vite's output names: `name-HASH.ext` under assets/. */
const HASHED = /^assets\/.+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;

export interface StaticAsset {
  readonly body: Buffer;
  readonly contentType: string;
  readonly cacheControl: string;
}

export interface StaticAssets {
  /** Where the files were looked for. */
  readonly dir: string;
  /** False when dir holds no index.html (the UI is not built). */
  readonly available: boolean;
  /** The asset at a URL path (e.g. /ui/assets/index-abc123de.js), or undefined. */
  asset(urlPath: string): StaticAsset | undefined;
  /** The page for `/`: the UI's shell with `indexPageHtml`'s body at its marker, or that page with a note when there is no UI. */
  shell(indexPageHtml: string): string;
}

/** <package root>/dist/ui, the package root found upwards from this module. */
export function defaultUiDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`No package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return path.join(dir, 'dist', 'ui');
}

export function loadStaticAssets(dir: string = defaultUiDir()): StaticAssets {
  const files = new Map<string, StaticAsset>();
  for (const rel of listFiles(dir)) {
    const contentType = CONTENT_TYPES[path.extname(rel)];
    if (contentType === undefined) continue;
    const cacheControl = HASHED.test(rel) ? 'public, max-age=31536000, immutable' : 'no-cache';
    files.set(UI_PREFIX + rel, { body: readFileSync(path.join(dir, rel)), contentType, cacheControl });
  }
  const shellHtml = files.get(`${UI_PREFIX}index.html`)?.body.toString('utf8');
  return {
    dir,
    available: shellHtml !== undefined,
    asset: (urlPath) => files.get(urlPath),
    shell(indexPageHtml: string): string {
      if (shellHtml === undefined) {
        const note = `<p><strong>The web UI is not built</strong> (no ${escapeHtml(path.join(dir, 'index.html'))}: run <code>npm run build</code>). The JSON API below works without it.</p>`;
        return indexPageHtml.replace(/<body>/, `<body>\n${note}`);
      }
      return shellHtml.replace(SHELL_MARKER, () => bodyOf(indexPageHtml));
    },
  };
}

/** Writes an asset (HEAD: headers only). */
export function sendAsset(res: http.ServerResponse, asset: StaticAsset): void {
  res.writeHead(200, {
    'content-type': asset.contentType,
    'content-length': asset.body.length,
    'cache-control': asset.cacheControl,
    'x-content-type-options': 'nosniff',
  });
  res.end(res.req.method === 'HEAD' ? undefined : asset.body);
}

/** Paths (with /) of the regular files under dir; none when dir is missing. */
function listFiles(dir: string): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((rel) => statSync(path.join(dir, rel)).isFile())
    .map((rel) => rel.split(path.sep).join('/'));
}

/** What is between <body> and </body> (the whole text when there is no body element). */
function bodyOf(html: string): string {
  const open = /<body[^>]*>/.exec(html);
  const close = html.lastIndexOf('</body>');
  if (open === null || close < open.index) return html;
  return html.slice(open.index + open[0].length, close);
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
