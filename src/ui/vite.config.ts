import { defineConfig } from 'vite';

/**
 * The web UI's build (`npm run build` runs it after tsc, from the package root): src/ui → dist/ui,
 * served by the HTTP server under /ui/ (src/server/http/static-assets.ts). Everything it needs is
 * bundled: no external URL, so the UI works offline.
 */
export default defineConfig({
  root: 'src/ui',
  base: '/ui/',
  // JSX through Vite's own transformer (Oxc), for Preact.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: '../../dist/ui',
    emptyOutDir: true,
    reportCompressedSize: false,
  },
  logLevel: 'warn',
});
