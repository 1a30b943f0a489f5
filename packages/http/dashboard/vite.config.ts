/**
 * Builds the dashboard into `../dist/dashboard` (paths are relative to this folder, the root
 * `vite build dashboard` gives), which the server's dashboard route serves. Preact's automatic
 * JSX runtime, no inline script in the page (its Content-Security-Policy allows none), and
 * hashed file names so the assets can be cached for good.
 */
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: '../dist/dashboard',
    // Not emptied: a server starting while a build runs (npm pack's, a test's) must not find the
    // folder gone. The page names the files of its own build; the server serves only those.
    emptyOutDir: false,
    // The polyfill would be an inline script; every browser the app targets has modulepreload.
    modulePreload: { polyfill: false },
    // Small files would be inlined as data: URLs; keep every asset a file of this origin.
    assetsInlineLimit: 0,
    reportCompressedSize: false,
    target: 'es2022',
  },
});
