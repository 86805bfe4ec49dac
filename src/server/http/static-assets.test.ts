import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultUiDir, loadStaticAssets, sendAsset } from './static-assets.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tabletop-ui-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'index.html'), '<html><body><div id="app"></div><section><!--tabletop:server--></section></body></html>');
  writeFileSync(path.join(dir, 'assets', 'index-AbC12_-x.js'), 'console.log(1)');
  writeFileSync(path.join(dir, 'assets', 'index-Zz9Zz9Zz.css'), 'body{}');
  writeFileSync(path.join(dir, 'notes.txt'), 'not served');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const facts =
  '<!doctype html><html><head><title>t</title></head><body>\n<h1>tabletop 1.0</h1>\n<p>gRPC at localhost:8086</p>\n</body></html>';

describe('loadStaticAssets', () => {
  it('serves only the files listed at load, under /ui/, with fixed content types and cache rules', () => {
    const ui = loadStaticAssets(dir);
    expect(ui.available).toBe(true);
    const js = ui.asset('/ui/assets/index-AbC12_-x.js')!;
    expect(js.contentType).toBe('text/javascript; charset=utf-8');
    expect(js.cacheControl).toBe('public, max-age=31536000, immutable');
    expect(js.body.toString()).toBe('console.log(1)');
    expect(ui.asset('/ui/assets/index-Zz9Zz9Zz.css')!.contentType).toBe('text/css; charset=utf-8');
    expect(ui.asset('/ui/index.html')!.cacheControl).toBe('no-cache');
    // Unknown extensions, names not listed, and paths outside the prefix are not served.
    expect(ui.asset('/ui/notes.txt')).toBeUndefined();
    expect(ui.asset('/ui/assets/other.js')).toBeUndefined();
    expect(ui.asset('/assets/index-AbC12_-x.js')).toBeUndefined();
    expect(ui.asset('/ui/../package.json')).toBeUndefined();
    // A file added after the load is not served either.
    writeFileSync(path.join(dir, 'assets', 'late-12345678.js'), 'x');
    expect(ui.asset('/ui/assets/late-12345678.js')).toBeUndefined();
  });

  it("puts the index page's body into the shell at the marker", () => {
    const shell = loadStaticAssets(dir).shell(facts);
    expect(shell).toBe(
      '<html><body><div id="app"></div><section>\n<h1>tabletop 1.0</h1>\n<p>gRPC at localhost:8086</p>\n</section></body></html>',
    );
  });

  it('without a built UI: the index page with a note that says so', () => {
    const ui = loadStaticAssets(path.join(dir, 'missing'));
    expect(ui.available).toBe(false);
    expect(ui.asset('/ui/index.html')).toBeUndefined();
    const page = ui.shell(facts);
    expect(page).toContain('The web UI is not built');
    expect(page).toContain('npm run build');
    expect(page).toContain('<p>gRPC at localhost:8086</p>');
  });

  it('finds dist/ui at the package root', () => {
    expect(defaultUiDir()).toBe(path.resolve(import.meta.dirname, '../../../dist/ui'));
  });
});

describe('sendAsset', () => {
  it('sends the body with its headers, and only the headers for HEAD', async () => {
    const asset = loadStaticAssets(dir).asset('/ui/assets/index-AbC12_-x.js')!;
    const server = http.createServer((_req, res) => sendAsset(res, asset));
    await new Promise<void>((r) => server.listen(0, 'localhost', r));
    const url = `http://localhost:${(server.address() as AddressInfo).port}/`;
    try {
      const get = await fetch(url);
      expect(get.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(get.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(await get.text()).toBe('console.log(1)');
      const head = await fetch(url, { method: 'HEAD' });
      expect(head.headers.get('content-length')).toBe('14');
      expect(await head.text()).toBe('');
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });
});
