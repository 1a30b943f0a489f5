/**
 * The dashboard's files are read once, by name: the built page at `/` and the hashed files it
 * names under `/assets/`, nothing else; no build means none (the server then says how to build it).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dashboardCsp, readDashboard } from '../src/server/routes/dashboard.js';

describe('readDashboard', () => {
  it('maps the page and the files it names by URL path, and nothing else', () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-dashboard-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(
      join(dir, 'index.html'),
      '<!doctype html><script type="module" src="/assets/index-abc.js"></script><link rel="stylesheet" href="/assets/index-abc.css">',
    );
    writeFileSync(join(dir, 'assets', 'index-abc.js'), 'export {}');
    writeFileSync(join(dir, 'assets', 'index-abc.css'), 'body{}');
    // Left by an older build: not named by the page, not served.
    writeFileSync(join(dir, 'assets', 'index-old.js'), 'export {}');
    const files = readDashboard(dir);
    expect([...(files?.keys() ?? [])].sort()).toEqual([
      '/',
      '/assets/index-abc.css',
      '/assets/index-abc.js',
    ]);
    expect(files?.get('/assets/index-abc.js')?.type).toBe('text/javascript; charset=utf-8');
  });

  it('is undefined where nothing was built', () => {
    expect(readDashboard(join(tmpdir(), 'trawl-no-dashboard-here'))).toBeUndefined();
  });

  it('allows no inline script, no eval and no framing', () => {
    expect(dashboardCsp).toContain("script-src 'self'");
    expect(dashboardCsp).toContain("frame-ancestors 'none'");
    expect(dashboardCsp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
  });
});
