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
    // The folder is outside this root: say that emptying it is meant.
    emptyOutDir: true,
    // The polyfill would be an inline script; every browser the app targets has modulepreload.
    modulePreload: { polyfill: false },
    // Small files would be inlined as data: URLs; keep every asset a file of this origin.
    assetsInlineLimit: 0,
    reportCompressedSize: false,
    target: 'es2022',
  },
});
